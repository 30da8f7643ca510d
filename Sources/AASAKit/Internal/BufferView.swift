import Foundation

/// A read-only view of elements another value owns, for loops that read input many times per
/// byte.
///
/// Why unsafe: it holds a pointer, not the owner, and its reads are not bounds-checked in release
/// builds. What makes it safe: a view is only ever made inside a closure that lends it memory
/// (`Array.withView`, `ScratchBuffer.withView`, or a caller's own `UnsafeBufferPointer`
/// parameter) and dies with that closure, and every read names an index its caller has already
/// compared with `count`. Each read `assert`s that comparison, so the test builds
/// (`-assert-config Debug`) check every one of them.
///
/// It will not own, copy or grow memory (`ScratchBuffer` does), and it will not outlive the
/// closure that made it.
struct BufferView<Element> {
    /// The borrowed elements, to hand on to an API that takes a buffer pointer.
    let buffer: UnsafeBufferPointer<Element>

    @inline(__always)
    init(_ buffer: UnsafeBufferPointer<Element>) {
        self.buffer = buffer
    }

    @inline(__always)
    var count: Int { buffer.count }

    @inline(__always)
    var isEmpty: Bool { buffer.isEmpty }

    @inline(__always)
    subscript(index: Int) -> Element {
        assert(index >= 0 && index < buffer.count, "view read out of bounds")
        // SAFETY: the caller passes `index < count` (asserted above); the memory is lent for the
        // view's lifetime.
        return buffer[index]
    }

    /// The elements `range`, which must lie within `0..<count`.
    @inline(__always)
    subscript(range: Range<Int>) -> BufferView {
        assert(range.lowerBound >= 0 && range.upperBound <= buffer.count, "view slice out of bounds")
        // SAFETY: `range` lies within the buffer (asserted above).
        return BufferView(UnsafeBufferPointer(rebasing: buffer[range]))
    }
}

extension BufferView: Sequence {
    @inline(__always)
    func makeIterator() -> UnsafeBufferPointer<Element>.Iterator { buffer.makeIterator() }

    /// The elements are contiguous, so generic algorithms (`String(validating:)`,
    /// `elementsEqual`, `Array.append(contentsOf:)`) take their fast paths.
    @inline(__always)
    func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R? {
        try body(buffer)
    }
}

/// A view of bytes: the word loads and C string routines the byte scanners use.
typealias ByteView = BufferView<UInt8>

extension BufferView where Element == UInt8 {
    /// The bytes of raw memory, which a `UInt8` view may always read.
    @inline(__always)
    init(raw: UnsafeRawBufferPointer) {
        // SAFETY: `UInt8` is a trivial one-byte type, so reading any initialised memory through
        // a `UInt8` pointer is well defined (the standard library's raw buffer subscript does
        // the same); the view lives no longer than the raw buffer's loan.
        self.init(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }

    /// The eight bytes `offset..<offset + 8` as one word in memory order (native endianness),
    /// whatever their alignment.
    @inline(__always)
    func word(at offset: Int) -> UInt64 {
        assert(offset >= 0 && offset <= buffer.count - 8, "word read out of bounds")
        // SAFETY: the caller passes `offset + 8 <= count` (asserted above), so the load stays
        // inside the buffer; `loadUnaligned` needs no alignment.
        return UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(as: UInt64.self)
    }

    /// The last eight bytes as one word; `count` must be at least 8.
    @inline(__always)
    var lastWord: UInt64 { word(at: buffer.count - 8) }

    /// The four bytes `offset..<offset + 4` read as a little-endian `UInt32`.
    @inline(__always)
    func uint32LittleEndian(at offset: Int) -> UInt32 {
        assert(offset >= 0 && offset <= buffer.count - 4, "word read out of bounds")
        // SAFETY: the caller passes `offset + 4 <= count` (asserted above).
        return UInt32(littleEndian: UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(as: UInt32.self))
    }

    /// The index of the first `byte` at or after `start`, or `count` if there is none.
    ///
    /// PERF: `memchr` reads several bytes per cycle; a line reader calls this once per line.
    @inline(__always)
    func index(of byte: UInt8, from start: Int) -> Int {
        assert(start >= 0 && start <= buffer.count, "search start out of bounds")
        guard start < buffer.count, let base = buffer.baseAddress else { return buffer.count }
        // SAFETY: `memchr` reads `count - start` bytes from `start`, all inside the buffer.
        guard let found = memchr(base + start, Int32(byte), buffer.count - start) else { return buffer.count }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether the two views hold the same bytes.
    @inline(__always)
    func bytesEqual(_ other: ByteView) -> Bool {
        guard buffer.count == other.buffer.count else { return false }
        guard let base = buffer.baseAddress, let otherBase = other.buffer.baseAddress else { return true }
        // SAFETY: both buffers hold `count` bytes.
        return memcmp(base, otherBase, buffer.count) == 0
    }

    /// The bytes `range` decoded as UTF-8 (invalid sequences become U+FFFD).
    @inline(__always)
    func string(_ range: Range<Int>) -> String {
        String(decoding: self[range].buffer, as: UTF8.self)
    }

    /// The start of the bytes for a message: at most `limit` of them, cut before a UTF-8
    /// sequence rather than inside it (which would show a U+FFFD the text never held), and "…"
    /// when anything was left out, or when `cut` says the bytes themselves were cut already.
    func shownText(limit: Int = 200, cut: Bool = false) -> String {
        let shortened = cut || count > limit
        var end = Swift.min(count, limit)
        if shortened {
            // The last sequence shown, if the cut split it, goes whole: find its lead byte (at
            // most three continuation bytes back) and compare its length with what is shown.
            var lead = end - 1
            while lead > 0, end - lead < 4, self[lead] & 0xC0 == 0x80 { lead -= 1 }
            if lead >= 0 {
                let byte = self[lead]
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if end - lead < length { end = lead }
            }
        }
        return string(0..<end) + (shortened ? "…" : "")
    }

    /// The bytes as a string if they are valid UTF-8, nil otherwise.
    ///
    /// Why not `String(validating:as:)`: it is generic over the encoding and, not inlined into
    /// this module, looks up the metadata of its buffer type at run time on every call, about a
    /// thousand instructions for a short string, and an artifact's index and each domain's app
    /// IDs are thousands of short strings. `isValidUTF8` reads ASCII eight bytes at a time.
    // PERF: the first record of `aasa classify --compiled --jobs 1` over the 100 000-domain
    // artifact of `AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet` (one URL of input): 640 M →
    // 499 M instructions (callgrind), 168 → 151 ms (medians of nine alternated runs); the
    // 10 000-domain stream's start-up 96.6 M → 82.5 M instructions, records identical.
    var validUTF8: String? {
        guard isValidUTF8 else { return nil }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The length of the well-formed UTF-8 sequence at `offset` (below `count`), or nil
    /// (Unicode table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no
    /// truncation). The one decoder of sequences: `isValidUTF8` and the JSON parser (which
    /// reports where a bad one starts) both read through it.
    @inline(__always)
    func utf8SequenceLength(at offset: Int) -> Int? {
        let lead = self[offset]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard count - offset >= length else { return nil }
        let second = self[offset + 1]
        guard second >= low && second <= high else { return nil }
        for index in (offset + 2)..<(offset + length) where self[index] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }

    /// Whether the bytes are well-formed UTF-8 (no overlongs, no surrogates, nothing past
    /// U+10FFFF): input lines (`URLLineReader`) and an artifact's strings are checked here.
    var isValidUTF8: Bool {
        let bytes = self
        var i = 0
        let n = bytes.count
        while i < n {
            // PERF: URLs are nearly all ASCII; eight bytes per step (about 2x on the classify
            // corpus run, `valgrind --tool=callgrind`).
            while n - i >= 8, bytes.word(at: i) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < n else { break }
            // PERF: the last few bytes in one (overlapping) word: an ASCII URL ends here.
            if n >= 8, n - i < 8, bytes.lastWord & 0x8080_8080_8080_8080 == 0 {
                break
            }
            if bytes[i] < 0x80 {
                i += 1
                continue
            }
            guard let length = utf8SequenceLength(at: i) else { return false }
            i += length
        }
        return true
    }
}

extension Array {
    /// Lends a view of the array's elements to `body`; the view must not escape it.
    @inline(__always)
    func withView<Result, Failure: Error>(_ body: (BufferView<Element>) throws(Failure) -> Result) throws(Failure) -> Result {
        // SAFETY: the array is borrowed for the duration of `body`, which cannot mutate it, and
        // the view does not outlive `body`.
        try withUnsafeBufferPointer { (buffer) throws(Failure) -> Result in try body(BufferView(buffer)) }
    }
}

extension Array where Element == UInt8 {
    /// Appends the bytes of `view`.
    @inline(__always)
    mutating func append(contentsOf view: ByteView) {
        append(contentsOf: view.buffer)
    }
}

extension BufferView {
    /// No elements (an absent query or fragment, an outcome without decisions).
    @inline(__always)
    static var empty: BufferView {
        // SAFETY: a buffer of no elements reads no memory.
        BufferView(UnsafeBufferPointer(start: nil, count: 0))
    }

    /// Every element: lets `Array.append(contentsOf:)` reserve once for a lazily mapped view.
    @inline(__always)
    var underestimatedCount: Int { buffer.count }
}
