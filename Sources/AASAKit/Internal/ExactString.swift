/// The Internal folder: small value types several layers share and none owns: `ExactString`
/// (this file) and `SparseSet` (a set of small integers cleared in constant time, for the
/// determiniser's closures). Nothing here knows about documents, URLs or rules, and no SPEC
/// behaviour lives here beyond what this type's comparison means.
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

    // PERF: both compare and hash the UTF-8 bytes as one block rather than byte by byte (a
    // `Hasher.combine` per byte, a generic `elementsEqual`): about a tenth of the instructions
    // of loading a real document (`aasa-bench --quick --suite fleet`, first-use instructions per
    // URL with `--rules`, A/B in the commit that made this change).
    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        guard lhs.string.utf8.count == rhs.string.utf8.count else { return false }
        var left = lhs.string
        var right = rhs.string
        return left.withUTF8 { a in right.withUTF8 { b in a.elementsEqual(b) } }
    }

    public func hash(into hasher: inout Hasher) {
        var text = string
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
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
