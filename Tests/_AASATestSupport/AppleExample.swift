import AASAKit

/// Apple's substitution-variable example: localized food pages under `/$(lang)_$(region)/`,
/// with the Canadian variant excluded for the common foods and a second variable for the
/// Canadian ones. The tests and the benchmark's compile suite both use it.
public enum AppleExample {
    public static let json = """
        {
          "applinks": {
            "substitutionVariables": {
              "food": ["burrito", "pizza", "sushi", "samosa"],
              "canadian-food": ["poutine", "butter-tart"]
            },
            "details": [{
              "appIDs": ["ABCDE12345.com.example.app"],
              "components": [
                {"/": "/$(lang)_CA/$(canadian-food)/"},
                {"/": "/$(lang)_CA/$(food)/", "exclude": true},
                {"/": "/$(lang)_$(region)/$(food)/"}
              ]
            }]
          }
        }
        """

    /// What a naive compiler would produce: one pattern per combination of variable values.
    /// Returns (patterns, bytes of pattern text).
    public static func naiveExpansion(of document: AASADocument) -> (patterns: Int, bytes: Int) {
        var patterns = 0
        var bytes = 0
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        for entry in document.entries {
            for rule in entry.rules {
                guard let text = rule.keys.path else { continue }
                // Expand piece by piece: (count, total bytes) of the expansions so far.
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
        return (patterns, bytes)
    }
}
