/// The oracle's query component (SPEC 7).
enum QueryComparison {
    static func evaluate(
        _ pattern: QueryPattern, _ query: String, text: ReferenceText, variables: ReferenceVariables
    ) -> [ComponentEvaluation] {
        switch pattern {
        case .text(let pattern):
            let compared = text.normalize(query)
            let matched = Glob(pattern, text: text, variables: variables).matches(compared)
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
            let items: [(name: String, value: String)] =
                query.isEmpty
                ? []
                : query.split(separator: "&", omittingEmptySubsequences: false).map { item in
                    if let equals = item.firstIndex(of: "=") {
                        return (text.normalize(String(item[..<equals])), text.normalize(String(item[item.index(after: equals)...])))
                    }
                    return (text.normalize(String(item)), "")
                }
            return predicates.map { predicate in
                let name = text.normalizeLiteral(predicate.name)
                let glob = Glob(predicate.pattern, text: text, variables: variables)
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
