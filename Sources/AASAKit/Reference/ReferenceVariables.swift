/// Variable lookup for the oracle (SPEC 9): a custom variable wins over a predefined one of the
/// same name; an undefined name has no alternatives and never matches.
///
/// Each variable's alternatives are parsed into glob tokens once per text mode, when the matcher
/// is made: re-parsing `$(lang)`'s 631 values for every rule and URL made the oracle too slow to
/// run 100,000 differential comparisons in the test suite. Every call site shares that parse.
struct ReferenceVariables: Sendable {
    struct Key: Hashable {
        var name: ExactString
        var caseSensitive: Bool
        var percentEncoded: Bool
    }

    let custom: SubstitutionVariables
    private let parsed: [Key: Glob.Alternatives]

    init(custom: SubstitutionVariables, referencedNames: Set<ExactString>) {
        self.custom = custom
        var parsed: [Key: Glob.Alternatives] = [:]
        let unparsed = ReferenceVariables(custom: custom, parsed: [:])
        for name in referencedNames {
            guard let values = unparsed.values(of: name.string) else { continue }
            for caseSensitive in [true, false] {
                for percentEncoded in [true, false] {
                    let text = ReferenceText(caseSensitive: caseSensitive, percentEncoded: percentEncoded)
                    parsed[Key(name: name, caseSensitive: caseSensitive, percentEncoded: percentEncoded)] =
                        Glob.Alternatives(values.map { Glob.tokens(of: $0, allowVariables: false, text: text, variables: unparsed) })
                }
            }
        }
        self.parsed = parsed
    }

    private init(custom: SubstitutionVariables, parsed: [Key: Glob.Alternatives]) {
        self.custom = custom
        self.parsed = parsed
    }

    func values(of name: String) -> [String]? {
        custom[name] ?? PredefinedVariables.values(of: name)
    }

    /// The alternatives of `name` as tokens for `text`'s flags; `nil` when undefined.
    func alternatives(of name: String, text: ReferenceText) -> Glob.Alternatives? {
        if let cached = parsed[Key(name: ExactString(name), caseSensitive: text.caseSensitive, percentEncoded: text.percentEncoded)] {
            return cached
        }
        return values(of: name).map { values in
            Glob.Alternatives(values.map { Glob.tokens(of: $0, allowVariables: false, text: text, variables: self) })
        }
    }
}
