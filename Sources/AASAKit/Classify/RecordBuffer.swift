/// The bytes of a run of output records: what a `Classifier` writes a batch's records into, and
/// what the writer hands to `write(2)` in one call.
///
/// Why not `[UInt8]`: appending to an array checks uniqueness and capacity on every call, and a
/// record is a dozen appends; that was a third of a classify run's instructions (callgrind,
/// shared corpus). Here the bytes live in a `ScratchBuffer`, whose appends are plain stores and
/// copies. A buffer belongs to one thread at a time.
public final class RecordBuffer {
    private let storage: ScratchBuffer<UInt8>
    /// Where a string that needs escaping is escaped, reused so that such a URL (one with
    /// non-ASCII text, say) allocates nothing once warm.
    private let escaped = UnsharedCell<[UInt8]>([])

    public init(capacity: Int = 1 << 16) {
        storage = ScratchBuffer(capacity: max(capacity, 64))
    }

    /// The bytes written so far.
    public var count: Int {
        @inline(__always) get { storage.count }
    }

    /// The bytes it holds room for (what a spare buffer keeps allocated).
    public var capacity: Int { storage.capacity }

    /// Makes room for `extra` more bytes; every `append` does this itself.
    @inline(__always)
    public func reserve(_ extra: Int) {
        storage.reserve(extra)
    }

    @inline(__always)
    public func append(_ byte: UInt8) {
        storage.append(byte)
    }

    @inline(__always)
    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        storage.append(contentsOf: ByteView(bytes))
    }

    @inline(__always)
    func append(_ bytes: ByteView) {
        storage.append(contentsOf: bytes)
    }

    @inline(__always)
    public func append(_ bytes: [UInt8]) {
        storage.append(contentsOf: bytes)
    }

    /// A string literal's bytes, without going through `String`.
    @inline(__always)
    public func append(_ text: StaticString) {
        text.withUTF8Buffer { storage.append(contentsOf: $0) }
    }

    /// `bytes` (well-formed UTF-8) as a JSON string literal, quotes included, exactly as
    /// `JSONWriter.appendEscaped(utf8:to:)` writes it.
    ///
    /// PERF: URLs almost never hold a byte JSON must escape; when eight-byte words show none,
    /// the literal is one copy. Otherwise the escaping is `JSONWriter`'s own.
    public func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>) {
        appendJSONString(ByteView(bytes))
    }

    /// As `appendJSONString(_:)`, the bytes lent as a view; `plain` when they are known to hold
    /// nothing JSON escapes (`URLLineReader.examine` finds that in the pass that checks UTF-8,
    /// see its PERF note), which are then copied unscanned.
    @inline(__always)
    func appendJSONString(_ view: ByteView, plain: Bool = false) {
        if plain {
            storage.append(contentsOf: view, enclosedBy: UInt8(ascii: "\""))
        } else {
            appendJSONStringScanning(view)
        }
    }

    /// `appendJSONString` for bytes not known to be plain: scanned eight bytes at a time, copied
    /// when nothing needs escaping, escaped by `JSONWriter` otherwise.
    @inline(never)
    private func appendJSONStringScanning(_ view: ByteView) {
        let length = view.count
        var index = 0
        while length - index >= 8, !JSONByteScan.needsAttention(view.word(at: index)) {
            index &+= 8
        }
        // The last few bytes in one (overlapping) word.
        if length >= 8, length - index < 8, !JSONByteScan.needsAttention(view.lastWord) {
            index = length
        }
        while index < length {
            let byte = view[index]
            if byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C { break }
            index &+= 1
        }
        if index == length {
            storage.append(contentsOf: view, enclosedBy: UInt8(ascii: "\""))
            return
        }
        escaped.value.removeAll(keepingCapacity: true)
        JSONWriter.appendEscaped(utf8: view, to: &escaped.value)
        append(escaped.value)
    }

    public func removeAll() {
        storage.removeAll()
    }

    /// The bytes written so far, valid only inside `body`.
    public func withBytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withView { (view) throws(Failure) -> Result in try body(view.buffer) }
    }

    /// A copy of the bytes written so far (tests, small outputs).
    public var bytes: [UInt8] { storage.array }
}
