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

    /// `texts`: the URL's components normalised for the rule (`ComparedURL`); `query`, the raw
    /// query that a voided dictionary shows.
    static func evaluate(_ pattern: Prepared, _ query: String, texts: ComparedURL.Texts) -> [ComponentEvaluation] {
        switch pattern {
        case .text(let pattern, let glob):
            let matched = glob.matches(texts.query.scalars)
            return [ComponentEvaluation(component: "?", comparedText: texts.query.string, pattern: pattern, matched: matched)]
        case .voided:
            return [
                ComponentEvaluation(
                    component: "?", comparedText: query, pattern: "(dictionary ignored: non-string value)",
                    matched: true)
            ]
        case .items(let predicates):
            return predicates.map { predicate in
                let values = texts.items[ExactString(predicate.normalizedName)]
                // A missing item counts as present with an empty value; every repetition must match.
                let compared = values?.values.map(\.scalars) ?? [[]]
                return ComponentEvaluation(
                    component: "?\(predicate.name)",
                    comparedText: values?.joined ?? "",
                    pattern: predicate.pattern,
                    matched: compared.allSatisfy { predicate.glob.matches($0) })
            }
        }
    }

    /// The most cells `evaluate` computes against `texts` (`Glob.cells(texts:scalars:)`): every
    /// item value a predicate names is compared, or "" for a missing item, and looking a name up
    /// reads it.
    static func cells(_ pattern: Prepared, texts: ComparedURL.Texts) -> Int {
        switch pattern {
        case .text(_, let glob):
            return glob.cells(texts: 1, scalars: texts.query.scalars.count)
        case .voided:
            return 0
        case .items(let predicates):
            return predicates.reduce(0) { total, predicate in
                let values = texts.items[ExactString(predicate.normalizedName)]
                let compared =
                    values.map { predicate.glob.cells(texts: $0.values.count, scalars: $0.scalars) }
                    ?? predicate.glob.cells(texts: 1, scalars: 0)
                return ReferenceWork.sum(total, predicate.normalizedName.utf8.count, Glob.cellsPerRow, compared)
            }
        }
    }
}
