/// Every limit and budget of the engine, in one place, each with its default.
///
/// AASA files come from other people's servers and URLs from the whole internet, so every size
/// the engine handles is bounded here. Past a limit the engine reports which limit was hit and
/// how to raise it; it never crashes and never allocates without bound.
public struct Configuration: Sendable, Equatable {
    /// Largest document accepted, in bytes; inclusive (SPEC 2). Default 128 KiB, as Apple.
    public var maxDocumentBytes: Int = 131_072
    /// Deepest JSON nesting accepted (SPEC 2). Default 512.
    public var maxJSONDepth: Int = 512
    /// Longest URL matched, in bytes; longer URLs give an error record. Default 64 KiB.
    public var maxURLBytes: Int = 65_536

    public init() {}

    /// The defaults, as documented above.
    public static let `default` = Configuration()
}
