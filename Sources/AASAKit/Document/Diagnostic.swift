/// A non-fatal finding about a document: something the lenient parser skipped or noticed.
///
/// SPEC 2 makes parsing lenient: a wrong-typed piece is skipped and the rest of the document
/// still works. Skipping silently would hide real mistakes in a publisher's file, so every skip
/// becomes one of these values, with a stable `code` that tools can filter on and the JSON path
/// of the piece (`applinks.details[1].appIDs`). Diagnostics are values, not errors: a document
/// with diagnostics still matches URLs.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How much the finding matters to someone publishing the file.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// A piece was ignored, so the file does not do what its author wrote.
        case error
        /// Probably a mistake, but the file still means what its author most likely wanted.
        case warning
        /// Worth knowing; no behaviour depends on it.
        case note

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .error: return 0
            case .warning: return 1
            case .note: return 2
            }
        }
    }

    /// A stable, kebab-case identifier (`wrong-type`, `unknown-key`, …). Codes never change
    /// meaning; new findings get new codes.
    public var code: String
    public var severity: Severity
    /// Where the finding is, as a JSON path from the document root.
    public var path: JSONPath
    /// One lower-case sentence for a person.
    public var message: String

    public init(code: String, severity: Severity, path: JSONPath, message: String) {
        self.code = code
        self.severity = severity
        self.path = path
        self.message = message
    }

    public var description: String {
        "\(severity.rawValue) [\(code)] \(path): \(message)"
    }
}

extension Diagnostic {
    /// A piece had the wrong JSON type and was treated as absent (SPEC 2).
    static func wrongType(_ path: JSONPath, expected: String, found: JSONValue) -> Diagnostic {
        Diagnostic(
            code: "wrong-type", severity: .error, path: path,
            message: "expected \(expected), found \(found.typeName); ignored")
    }

    /// A key the format does not define; ignored (SPEC 2). `suggestion` is a known key the
    /// author probably meant (`casesensitive` → `caseSensitive`).
    static func unknownKey(_ path: JSONPath, key: String, suggestion: String?) -> Diagnostic {
        let hint = suggestion.map { "; did you mean \"\($0)\"?" } ?? ""
        return Diagnostic(
            code: "unknown-key", severity: .warning, path: path,
            message: "unknown key \"\(key)\" is ignored\(hint)")
    }
}
