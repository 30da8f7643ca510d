/// The Internal folder: small types several layers share and none owns: `ExactString` (this
/// file), `SparseSet` (a set of small integers cleared in constant time, for the determiniser's
/// closures), and the types that hold the engine's unchecked memory access, each saying why it
/// is unsafe and what keeps it safe: `BufferView` (`ByteView`), `ScratchBuffer`, `UnsharedCell`,
/// `MappedFile`, `FileDescriptorRead` and `RecordFragments`. Nothing here knows about documents, URLs or
/// rules, and no SPEC behaviour lives here beyond what this type's comparison means.
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
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
    }

    public var description: String { string }
}

extension String {
    /// Scalar-by-scalar equality (see `ExactString`).
    @inline(__always)
    func isExactly(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
