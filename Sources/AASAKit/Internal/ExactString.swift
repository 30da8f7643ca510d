/// The Internal folder: small types several layers share and none owns: `ExactString` (this
/// file), `BytesKey` (bytes as a dictionary key), `SparseSet` (a set of small integers cleared in
/// constant time, for the determiniser's closures), and the types that hold the engine's unchecked memory access, each saying why it
/// is unsafe and what keeps it safe: `BufferView` (`ByteView`), `ScratchBuffer`, `UnsharedCell`,
/// `MappedFile`, `FileDescriptorRead`, `RecordFragments`, `PathRowTable` and `DecisionBuffer`;
/// and the two the commands share for what they print and write: `VisibleText` (terminal-safe
/// quoting of text from elsewhere) and `PathName` (a path's folder and name). Nothing here
/// parses documents or decides URLs: the blocks hold what other layers computed (record pieces,
/// a plan's table and rows), and no SPEC behaviour lives here beyond what this type's
/// comparison means and the ASCII folding `PathRowTable` reads a path with.
///
/// A string compared and hashed by its Unicode scalars, not by Swift's canonical equivalence.
///
/// `String ==` treats `"café"` (precomposed) and `"cafe\u{301}"` (decomposed) as equal. AASA
/// compares text scalar by scalar with no normalisation (SPEC 12: NFC only where
/// `percentEncoded` is false, and then done explicitly), so every dictionary or set keyed by
/// user text (query item names, variable names, app IDs, JSON keys) uses this instead.
public struct ExactString: Hashable, Sendable, CustomStringConvertible {
    public let string: String

    public init(_ string: String) {
        self.string = string
    }

    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.isExactly(rhs.string)
    }

    /// The UTF-8 bytes in one call (a native string's own storage, else a copy).
    // PERF: with `isExactly` comparing storage, not views: 344 762 → 330 000 instructions a
    // document on first use (`aasa classify --jobs 1 --rules` over the 250 real documents, one
    // URL each, callgrind, minus an empty input).
    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    public var description: String { string }
}

extension String {
    /// Scalar-by-scalar equality (see `ExactString`).
    @inline(__always)
    func isExactly(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let same = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in ByteView(mine).bytesEqual(ByteView(theirs)) }
        }
        return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
