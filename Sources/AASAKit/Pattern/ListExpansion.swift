/// What expanding a document's substitution variables into plain pattern lists would cost: the
/// approach this engine exists to avoid, measured so that tests and benchmarks can put the
/// compiled automaton's size next to it.
public struct ListExpansion: Sendable, Equatable {
    /// Patterns after replacing every `$(name)` by each of its values, in every combination.
    public var patterns: Int
    /// Bytes of pattern text those patterns would hold.
    public var bytes: Int

    /// The expansion of every rule's path pattern of `document`.
    /// - Complexity: O(pattern pieces); the counts are computed, never materialised.
    public init(of document: AASADocument) {
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        let domainDefaults = document.applinks?.defaults ?? RuleKeys()
        var patterns = 0
        var bytes = 0
        for entry in document.entries {
            for rule in entry.rules {
                // The rule's own path, else the defaults chain's (SPEC 10).
                let text = rule.keys.path ?? (rule.isLegacyPath ? nil : entry.defaults.path ?? domainDefaults.path) ?? "*"
                // (expansions so far, total bytes of those expansions), piece by piece.
                var count = 1
                var total = 0
                for piece in Pattern(parsing: text).pieces {
                    switch piece {
                    case .variable(let name):
                        let values = variables.resolve(name) ?? []
                        let valueBytes = values.reduce(0) { $0 + $1.utf8.count }
                        total = total * values.count + valueBytes * count
                        count *= values.count
                    case .literal(let literal):
                        total += literal.utf8.count * count
                    case .anyOne, .anyMany:
                        total += count
                    }
                }
                patterns += count
                bytes += total
            }
        }
        self.patterns = patterns
        self.bytes = bytes
    }
}
