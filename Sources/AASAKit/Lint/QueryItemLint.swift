/// Query item patterns that are only `*`: SPEC 7 counts a missing item as present with an empty
/// value, so `{"url": "*"}` matches URLs without `url` as well, which readers of Apple's examples
/// rarely expect. On the real corpus such a rule was reported unreachable with the hint to move
/// it up, when the fix was `"?*"`; this note says why.
///
/// What it will not do: judge other patterns that admit an empty value (`""`, a variable with an
/// empty value), whose authors wrote the empty case out.
enum QueryItemLint {
    static func findings(document: AASADocument) -> [LintFinding] {
        guard let applinks = document.applinks else { return [] }
        var findings: [LintFinding] = []
        func judge(_ query: QueryPattern?, at path: JSONPath) {
            guard case .items(let predicates)? = query else { return }
            for predicate in predicates where !predicate.pattern.isEmpty && predicate.pattern.utf8.allSatisfy({ $0 == UInt8(ascii: "*") }) {
                let name = VisibleText.excerpt(predicate.name, limit: 100)
                findings.append(
                    LintCatalog.queryItemMatchesAbsent.finding(
                        at: path / "?" / predicate.name,
                        "\"\(name)\": \"\(predicate.pattern)\" also matches URLs without a \"\(name)\" item: a missing item counts as present with an empty value (SPEC 7)",
                        hint: "write \"?*\" to require a value, or keep \"*\" if URLs without the item should match too"))
            }
        }
        judge(applinks.defaults.query, at: .root / "applinks" / "defaults")
        for entry in document.entries {
            judge(entry.defaults.query, at: entry.path / "defaults")
            for rule in entry.rules where !rule.isLegacyPath {
                judge(rule.keys.query, at: entry.path / "components" / rule.index)
            }
        }
        return findings
    }
}
