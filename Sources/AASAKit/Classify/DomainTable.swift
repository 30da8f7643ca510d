import Foundation

/// Host → domain index, looked up from URL bytes without allocating (SPEC 3: the host equals the
/// domain ASCII case-insensitively).
///
/// Open addressing over FNV-1a hashes of the ASCII-lowercased bytes; the table is at most half
/// full, so a miss (the common case in a mixed URL stream) costs one or two probes.
public struct DomainTable: Sendable {
    /// Every domain's bytes, one after the other: domain `i` is `keyBytes[keyOffsets[i]..<keyOffsets[i + 1]]`.
    /// PERF: one buffer rather than an array per domain (loaded and retained per probe), and a
    /// `memcmp` before the folding compare: `lookup` 280 → 137 instructions a URL, 5% of the
    /// URL's cost (10 000-domain fleet stream, `aasa classify --jobs 1 --rules`, callgrind).
    private let keyBytes: [UInt8]
    private let keyOffsets: [Int]
    private let slots: [Int32]
    private let mask: Int

    /// `domains` must already be ASCII-lowercased.
    public init(domains: [String]) {
        var keyBytes: [UInt8] = []
        var keyOffsets = [0]
        for domain in domains {
            keyBytes.append(contentsOf: domain.utf8)
            keyOffsets.append(keyBytes.count)
        }
        var size = 8
        while size < domains.count * 2 { size <<= 1 }
        var slots = [Int32](repeating: -1, count: size)
        keyBytes.withView { bytes in
            for index in domains.indices {
                var slot = Self.hash(bytes[keyOffsets[index]..<keyOffsets[index + 1]]) & (size - 1)
                while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
                slots[slot] = Int32(index)
            }
        }
        self.keyBytes = keyBytes
        self.keyOffsets = keyOffsets
        self.slots = slots
        self.mask = size - 1
    }

    /// The index of the domain equal to `host` (ASCII case-insensitively), or `nil`.
    public func lookup(_ host: UnsafeBufferPointer<UInt8>) -> Int? {
        lookup(ByteView(host))
    }

    /// As `lookup(_:)`, the host lent as a view.
    func lookup(_ host: ByteView) -> Int? {
        var slot = Self.hash(host) & mask
        return keyBytes.withView { keys in
            while true {
                let index = Int(slots[slot])
                if index < 0 { return nil }
                let key = keys[keyOffsets[index]..<keyOffsets[index + 1]]
                if Self.equalsLowercased(host, key) { return index }
                slot = (slot + 1) & mask
            }
        }
    }

    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// A case-insensitive hash, eight bytes at a time.
    ///
    /// OR-ing 0x20 into every byte maps `A`-`Z` onto `a`-`z`; it also merges a few non-letter
    /// pairs (`@` and `` ` ``, for instance), which only costs a probe: lookups still compare
    /// bytes exactly. PERF: a third of the byte-at-a-time FNV's cost (callgrind, classify run).
    static func hash(_ bytes: ByteView) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        var index = 0
        let count = bytes.count
        while count - index >= 8 {
            let word = bytes.word(at: index) | 0x2020_2020_2020_2020
            hash = (hash ^ word) &* 0x0000_0100_0000_01B3
            hash ^= hash >> 29
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        if count >= 8, index < count {
            // PERF: the last bytes as one overlapping word instead of a byte loop.
            tail = bytes.lastWord | 0x2020_2020_2020_2020
            index = count
        }
        while index < count {
            tail |= UInt64(bytes[index] | 0x20) << shift
            shift += 8
            index += 1
        }
        hash = (hash ^ tail) &* 0x0000_0100_0000_01B3
        hash ^= hash >> 29
        return Int(truncatingIfNeeded: hash >> 1)
    }

    /// Whether `host` equals the lowercase `key` ASCII case-insensitively. Hosts are nearly
    /// always written in lowercase, so one `memcmp` usually decides.
    @inline(__always)
    static func equalsLowercased(_ host: ByteView, _ key: ByteView) -> Bool {
        guard host.count == key.count else { return false }
        if host.bytesEqual(key) { return true }
        for index in 0..<key.count where lower(host[index]) != key[index] { return false }
        return true
    }
}
