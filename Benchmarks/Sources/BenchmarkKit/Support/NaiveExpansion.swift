import AASAKit

/// Apple's substitution-variable example (the same text as `Tests/_AASATestSupport`, which an
/// executable cannot import): localized food pages under `/$(lang)_$(region)/`, the Canadian
/// variant excluded for the common foods and given a second variable.
public enum AppleExample {
    public static let domain = "example.com"
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

    /// URLs for the example: hits and misses over languages, regions and foods.
    public static func urls(count: Int, seed: UInt64) -> [String] {
        var random = SeededRandom(seed: seed)
        let languages = PredefinedVariables.values(of: "lang") ?? ["en"]
        let regions = (PredefinedVariables.values(of: "region") ?? ["US"]) + ["UK", "XX"]
        let foods = ["burrito", "pizza", "sushi", "samosa", "poutine", "butter-tart", "tacos"]
        return (0..<count).map { _ in
            let region = random.chance(0.2) ? "CA" : random.pick(regions)
            let language = random.chance(0.05) ? "xx" : random.pick(languages)
            let slash = random.chance(0.5) ? "/" : ""
            return "https://example.com/\(language)_\(region)/\(random.pick(foods))\(slash)"
        }
    }
}

/// What a compiler that expands variables into pattern lists would have to store.
public enum NaiveExpansion {
    /// One pattern per combination of variable values, over every rule's path pattern (the
    /// legacy `NOT ` prefix counted as text). Returns (patterns, bytes of pattern text).
    public static func size(of document: AASADocument) -> (patterns: Int, bytes: Int) {
        var patterns = 0
        var bytes = 0
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        let domainDefaults = document.applinks?.defaults ?? RuleKeys()
        for entry in document.entries {
            for rule in entry.rules {
                let text = rule.keys.path ?? entry.defaults.path ?? domainDefaults.path ?? "*"
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
