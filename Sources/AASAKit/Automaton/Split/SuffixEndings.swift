/// The filter a path passes before a `SuffixSplit` is searched: `mayEnd` false means the path
/// ends in none of its suffixes (true: it may).
///
/// Two bit tables, each small enough to stay in the L1 cache:
/// - the suffixes that are one whole last segment (`/reviews`: `/` then no other `/`) by
///   `segmentKey`: the text's last eight bytes from the last `/` among them, or all eight when
///   none is a `/`. A suffix of up to eight bytes is then its own key, a longer one its last
///   eight bytes, and a text that ends in the suffix has the same key, since the suffix holds
///   no `/` but its first byte;
/// - the other suffixes (`.html`) by the text's last `depth` bytes (their shortest length, up
///   to eight), or no filter (`windowAlways`) when one of them is under three bytes.
///
/// Why: one table keyed on the last four bytes of every suffix (the shortest had four) let 48%
/// of the URLs through at 10 000 generated path rules, where 16% end in a suffix: 1 728
/// suffixes made only 216 keys, generated words ending in a few syllables (`…zumi`, `…domi`),
/// and each URL let through costs the suffix side about 270 instructions.
///
/// PERF: paired A/B in one process, the piece switched off at compile time, off ÷ on, median over
/// rounds (`AASA_AB_HARNESS=1 .build/release/aasa-bench`, the temporary harness of the speed-work
/// A/B record listed in `Benchmarks/Records/INDEX.md`): without the filter, 1.13× repeated and
/// 1.12× unseen URLs at the match suite's 1 000 path rules (fastest rounds: 1.12× and 1.70×), 1.08×
/// to 1.29× repeated at 128 KB.
struct SuffixEndings: Sendable {
    private let segmentBits: [UInt64]
    private let windowBits: [UInt64]
    /// `bit`'s shift for each table.
    private let segmentShift: UInt64
    private static let windowShift = shift(windowWords)
    let depth: Int
    let windowAlways: Bool

    /// Whether `suffix` is one whole last segment, so keyed by `segmentKey`.
    static func isWholeSegment(_ suffix: [UInt8]) -> Bool {
        suffix.first == UInt8(ascii: "/") && !suffix.dropFirst().contains(UInt8(ascii: "/"))
    }

    /// `segments`: the suffixes `isWholeSegment` accepts; `others`: the rest.
    init(segments: [[UInt8]], others: [[UInt8]]) {
        var bits = 4_096
        while bits < 16 * segments.count, bits < 32_768 { bits *= 2 }
        var segmentBits = [UInt64](repeating: 0, count: segments.isEmpty ? 0 : bits / 64)
        for suffix in segments {
            guard let key = suffix.withView({ Self.segmentKey($0) }) else { continue }
            Self.set(Self.bit(key, Self.shift(segmentBits.count)), in: &segmentBits)
        }
        self.segmentBits = segmentBits
        segmentShift = Self.shift(segmentBits.count)
        let shortest = others.map(\.count).min() ?? 0
        let always = !others.isEmpty && shortest < 3
        let depth = always || others.isEmpty ? 0 : min(8, shortest)
        var windowBits = [UInt64](repeating: 0, count: depth == 0 ? 0 : Self.windowWords)
        for suffix in others where depth > 0 {
            Self.set(Self.bit(suffix.withView { SuffixSplit.windowKey($0, depth: depth) }, Self.windowShift), in: &windowBits)
        }
        self.windowBits = windowBits
        self.windowAlways = always
        self.depth = depth
    }

    static let windowWords = 64
    var memoryUsage: Int { (segmentBits.count + windowBits.count) * 8 }

    /// Whether `text` may end in one of the suffixes.
    @inline(__always)
    func mayEnd(_ text: ByteView) -> Bool {
        if windowAlways { return true }
        if depth > 0, text.count >= depth {
            let hit = windowBits.withView { bits in
                Self.test(Self.bit(SuffixSplit.windowKey(text, depth: depth), Self.windowShift), bits)
            }
            if hit { return true }
        }
        guard !segmentBits.isEmpty, let key = Self.segmentKey(text) else { return false }
        return segmentBits.withView { bits in Self.test(Self.bit(key, segmentShift), bits) }
    }

    /// The text's last eight bytes (fewer, zero filled below, when it is shorter), the last
    /// in the top byte, with the bytes before the last `/` among them cleared; nil when the
    /// text is shorter than eight bytes and holds no `/` (no segment suffix can end it).
    @inline(__always)
    static func segmentKey(_ text: ByteView) -> UInt64? {
        let count = text.count
        guard count > 0 else { return nil }
        let last: UInt64
        if count >= 8 {
            last = SuffixSplit.windowKey(text, depth: 8)
        } else {
            last = SuffixSplit.windowKey(text, depth: count) &<< UInt64(8 &* (8 &- count))
        }
        // A byte of 0x80 where `last` has a `/`, exactly (no borrow between bytes).
        let x = last ^ 0x2F2F_2F2F_2F2F_2F2F
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let slashes = ~(((x & low7) &+ low7) | x | low7)
        if slashes == 0 { return count >= 8 ? last : nil }
        let highest = (63 &- slashes.leadingZeroBitCount) &>> 3
        return last & (UInt64.max &<< UInt64(8 &* highest))
    }

    /// The top bits of a multiplicative hash, as many as `words` words have bits (a power of
    /// two): they depend on every bit of the key. (Middle bits would not see the key's top
    /// bytes, where a short segment's bytes are: `/y` and `/z` shared a bit.)
    @inline(__always)
    private static func bit(_ key: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The shift that leaves as many top bits as `words` words have (a power of two).
    private static func shift(_ words: Int) -> UInt64 {
        words == 0 ? 63 : UInt64(64 - (words * 64).trailingZeroBitCount)
    }

    @inline(__always)
    private static func test(_ bit: Int, _ bits: BufferView<UInt64>) -> Bool {
        bits[bit &>> 6] & (1 &<< UInt64(bit & 63)) != 0
    }

    private static func set(_ bit: Int, in bits: inout [UInt64]) {
        bits[bit >> 6] |= 1 << UInt64(bit & 63)
    }
}
