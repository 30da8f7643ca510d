/// The oracle's query component (SPEC 7).
enum QueryComparison {
    /// The `?` value with its globs parsed (and item names normalised) once.
    enum Prepared: Sendable {
        case text(pattern: String, glob: Glob)
        case items([(name: String, normalizedName: String, pattern: String, glob: Glob)])
        case voided
    }

    static func prepare(_ pattern: QueryPattern, text: ReferenceText, variables: ReferenceVariables) -> Prepared {
        switch pattern {
        case .text(let pattern): return .text(pattern: pattern, glob: Glob(pattern, text: text, variables: variables))
        case .voided: return .voided
        case .items(let predicates):
            return .items(
                predicates.map {
                    ($0.name, text.normalizeLiteral($0.name), $0.pattern, Glob($0.pattern, text: text, variables: variables))
                })
        }
    }

    static func evaluate(_ pattern: Prepared, _ query: String, text: ReferenceText) -> [ComponentEvaluation] {
        switch pattern {
        case .text(let pattern, let glob):
            let compared = text.normalize(query)
            let matched = glob.matches(compared)
            return [ComponentEvaluation(component: "?", comparedText: compared, pattern: pattern, matched: matched)]
        case .voided:
            return [
                ComponentEvaluation(
                    component: "?", comparedText: query, pattern: "(dictionary ignored: non-string value)",
                    matched: true)
            ]
        case .items(let predicates):
            // Split on the raw text first, then normalise each name and value: `%26` and `%3D`
            // never split. An empty query has no items.
            // Scalar-wise, not Character-wise: "&" followed by a combining mark is one Character
            // but still two scalars, and SPEC splits on the "&" scalar.
            let items: [(name: String, value: String)] =
                query.isEmpty
                ? []
                : query.unicodeScalars.split(separator: "&", omittingEmptySubsequences: false).map { item in
                    if let equals = item.firstIndex(of: "=") {
                        return (
                            text.normalize(String(Substring(item[..<equals]))),
                            text.normalize(String(Substring(item[item.index(after: equals)...])))
                        )
                    }
                    return (text.normalize(String(Substring(item))), "")
                }
            return predicates.map { predicate in
                let name = predicate.normalizedName
                let glob = predicate.glob
                // Names compare scalar by scalar (String == would equate NFC and NFD spellings).
                let values = items.filter { $0.name.unicodeScalars.elementsEqual(name.unicodeScalars) }.map(\.value)
                // A missing item counts as present with an empty value; every repetition must match.
                let compared = values.isEmpty ? [""] : values
                return ComponentEvaluation(
                    component: "?\(predicate.name)",
                    comparedText: values.isEmpty ? "" : values.joined(separator: " & "),
                    pattern: predicate.pattern,
                    matched: compared.allSatisfy { glob.matches($0) })
            }
        }
    }
}
