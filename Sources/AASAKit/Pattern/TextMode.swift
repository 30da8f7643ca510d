/// How a rule compares text: the two flags of SPEC 11 and 12 that change the bytes compared.
///
/// The compiler builds one automaton per component kind *and* mode, and the matcher produces
/// each URL component in exactly the modes some rule needs, so a document whose rules all use
/// the defaults pays for one mode only.
public struct TextMode: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `percentEncoded: false`: the URL text is percent-decoded (and both sides put in NFC).
    public var decoded: Bool
    /// `caseSensitive: false`: both sides are folded to lower case.
    public var folded: Bool

    public init(decoded: Bool, folded: Bool) {
        self.decoded = decoded
        self.folded = folded
    }

    public init(caseSensitive: Bool, percentEncoded: Bool) {
        self.init(decoded: !percentEncoded, folded: !caseSensitive)
    }

    /// All four modes, in a fixed order (used for stable dumps and dense indexing).
    public static let all: [TextMode] = [
        TextMode(decoded: false, folded: false), TextMode(decoded: false, folded: true),
        TextMode(decoded: true, folded: false), TextMode(decoded: true, folded: true),
    ]

    /// Dense index 0..<4, the position in `all`.
    public var index: Int { (decoded ? 2 : 0) + (folded ? 1 : 0) }

    public static func < (lhs: TextMode, rhs: TextMode) -> Bool { lhs.index < rhs.index }

    public var description: String {
        (decoded ? "decoded" : "raw") + "/" + (folded ? "folded" : "exact")
    }
}
