/// The decoder's `Diagnostic`s as lint findings, each with a fix hint.
///
/// The decoder already says *what* it skipped; it does not say how to fix it, because the model
/// must stay free of advice text. Hints are worked out here from the code and the path, so a hint
/// can name the exact keys allowed where an unknown key was found.
enum DiagnosticFindings {
    /// `tree`: the JSON the document came from, for hints that depend on what was written.
    static func finding(for diagnostic: Diagnostic, tree: JSONTree) -> LintFinding {
        LintFinding(
            code: diagnostic.code, severity: diagnostic.severity, path: diagnostic.path, message: diagnostic.message,
            hint: hint(for: diagnostic, written: tree.value(at: diagnostic.path)))
    }

    static func hint(for diagnostic: Diagnostic, written: JSONValue? = nil) -> String? {
        switch diagnostic.code {
        case "wrong-type":
            return wrongTypeHint(at: diagnostic.path)
        case "unknown-key":
            return unknownKeyHint(at: diagnostic.path)
        case "apps-not-empty":
            return #"write "apps": [], or drop the key, which iOS 13 and later do not need; apps are named in "details""#
        case "components-and-paths":
            return #"keep "paths" only for iOS 12 and earlier, saying the same as "components"; otherwise remove it"#
        case "query-predicate-not-string":
            return queryPredicateHint(written)
        case "invalid-variable-name":
            return #"rename the variable without "$", "(" or ")" and refer to it as $(name)"#
        default:
            return nil
        }
    }

    /// How to write a query item's pattern, by what was written instead (SPEC 7).
    private static func queryPredicateHint(_ written: JSONValue?) -> String {
        switch written {
        case .null?:
            return #"write "*" to accept any value (a missing item too), "?*" for a non-empty one, or remove the item to leave it unconstrained"#
        case .array?:
            return #"an item takes one pattern: for alternatives, name a substitution variable, "$(choices)", defined as "substitutionVariables": {"choices": ["a", "b"]}"#
        case .object?:
            return #"write one pattern string; names of other items go beside this one in the same dictionary"#
        default:
            return #"quote the value: "1", not 1; "*" accepts any value and "?*" a non-empty one"#
        }
    }

    /// What the key at the end of `path` takes, by the format's rules.
    private static func wrongTypeHint(at path: JSONPath) -> String {
        switch path.lastKey {
        case "exclude"?, "caseSensitive"?, "percentEncoded"?:
            return "write true or false, without quotes"
        case "/"?, "#"?, "appID"?, "comment"?:
            return "write a JSON string"
        case "?"?:
            return #"write a pattern string, or an object of item names to pattern strings"#
        case "appIDs"?, "apps"?, "paths"?:
            return "write an array of strings"
        case "components"?, "details"?:
            return "write an array of objects"
        case "applinks"?, "defaults"?, "substitutionVariables"?:
            return "write a JSON object"
        default:
            if path.parent.lastKey == "substitutionVariables" { return #"write an array of strings: "name": ["a", "b"]"# }
            return "write the value with the JSON type the message names, or remove it"
        }
    }

    /// The keys allowed where the unknown key was found, recognised from the path's shape.
    private static func unknownKeyHint(at path: JSONPath) -> String? {
        guard let key = path.lastKey else { return nil }
        let known = knownKeys(in: path.parent)
        if let suggestion = KeySpelling.nearest(to: key, in: known) {
            return "rename it to \"\(suggestion)\""
        }
        let list = known.map { "\"\($0)\"" }.joined(separator: ", ")
        return "remove it, or use one of the keys allowed here: \(list)"
    }

    private static func knownKeys(in object: JSONPath) -> [String] {
        let steps = object.components
        switch (steps.count >= 2 ? steps[steps.count - 2] : nil, steps.last) {
        case (nil, nil):
            return DocumentDecoder.serviceKeys
        case (nil, .key("applinks")?):
            return DocumentDecoder.appLinksKeys
        case (nil, .key(_)?):
            return ["apps"]
        case (_, .key("defaults")?):
            return DocumentDecoder.defaultsKeys
        case (.key("components")?, .index(_)?):
            return DocumentDecoder.ruleKeys
        default:
            return DocumentDecoder.entryKeys
        }
    }
}
