/// Why a whole document could not be used.
///
/// SPEC 2 keeps this list short on purpose: only these failures reject a document; every other
/// problem is a `Diagnostic` and the rest of the document still works. `overLimit` cannot happen
/// to a document within the default size: its limits exist for callers who raise that size.
public enum DocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON (or not UTF-8, or nested deeper than the limit).
    case invalidJSON(JSONParseError)
    /// The document is JSON, but its root is not an object.
    case rootNotObject(found: String)
    /// The document is larger than the configured limit. The limit is inclusive.
    case tooLarge(size: Int, limit: Int)
    /// The document passes another of the `Configuration.document` limits (patterns, pattern
    /// length, variables, values per variable).
    case overLimit(DocumentLimitError)

    /// The stable code shared with lint (`invalid-json`, `root-not-object`, `too-large`).
    public var code: String {
        switch self {
        case .invalidJSON: return "invalid-json"
        case .rootNotObject: return "root-not-object"
        case .tooLarge: return "too-large"
        case .overLimit: return "over-limit"
        }
    }

    public var description: String {
        switch self {
        case .invalidJSON(let error):
            return error.description
        case .rootNotObject(let found):
            return "the document root must be a JSON object, found \(found)"
        case .tooLarge(let size, let limit):
            // A stream (a pipe, a device) is read one byte past the limit and no further: its
            // size is then unknown, only that it is over.
            let size = size == limit + 1 ? "more than \(limit)" : "\(size)"
            return "the document is \(size) bytes, over the limit of \(limit) bytes (\(Configuration.Limit.documentBytes.hint))"
        case .overLimit(let error):
            return error.description
        }
    }
}
