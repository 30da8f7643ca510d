/// The bytes of a run of output records: what a `Classifier` writes a batch's records into, and
/// what the writer hands to `write(2)` in one call.
///
/// Why not `[UInt8]`: appending to an array checks uniqueness and capacity on every call, and a
/// record is a dozen appends; that was a third of a classify run's instructions (callgrind,
/// shared corpus). Here a record reserves its worst case once and the appends are plain stores
/// and `memcpy`s. A buffer belongs to one thread at a time.
public final class RecordBuffer {
    // PERF: one thread owns a buffer; dynamic exclusivity checks on these would be pure cost.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) public private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int

    public init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `extra` more bytes; every `append` does this itself.
    @inline(__always)
    public func reserve(_ extra: Int) {
        if capacity - count < extra { grow(to: count + extra) }
    }

    @inline(never)
    private func grow(to minimum: Int) {
        var size = capacity * 2
        while size < minimum { size *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = size
    }

    @inline(__always)
    public func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count &+= bytes.count
    }

    @inline(__always)
    public func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// A string literal's bytes, without going through `String`.
    @inline(__always)
    public func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `bytes` (well-formed UTF-8) as a JSON string literal, quotes included, exactly as
    /// `JSONWriter.appendEscaped(utf8:to:)` writes it.
    ///
    /// PERF: URLs almost never hold a byte JSON must escape; when eight-byte words show none,
    /// the literal is one copy. Otherwise the escaping is `JSONWriter`'s own.
    public func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else {
            append("\"\"")
            return
        }
        let length = bytes.count
        var index = 0
        // SAFETY: each word load reads `index..<index + 8` with `index + 8 <= length`.
        while length - index >= 8, !JSONByteScan.needsAttention(UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)) {
            index &+= 8
        }
        // The last few bytes in one (overlapping) word. SAFETY: `length >= 8`.
        if length >= 8, length - index < 8, !JSONByteScan.needsAttention(UnsafeRawPointer(source + length - 8).loadUnaligned(as: UInt64.self)) {
            index = length
        }
        while index < length {
            let byte = source[index]
            if byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C { break }
            index &+= 1
        }
        if index == length {
            reserve(length + 2)
            base[count] = UInt8(ascii: "\"")
            (base + count + 1).update(from: source, count: length)
            base[count + 1 + length] = UInt8(ascii: "\"")
            count &+= length + 2
            return
        }
        var escaped: [UInt8] = []
        JSONWriter.appendEscaped(utf8: bytes, to: &escaped)
        append(escaped)
    }

    public func removeAll() {
        count = 0
    }

    /// The bytes written so far, valid only inside `body`.
    public func withBytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes written so far (tests, small outputs).
    public var bytes: [UInt8] { withBytes { Array($0) } }
}
