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
/// The naive list expansion of a document, from the library (`ListExpansion`).
public enum NaiveExpansion {
    public static func size(of document: AASADocument) -> (patterns: Int, bytes: Int) {
        let expansion = ListExpansion(of: document)
        return (expansion.patterns, expansion.bytes)
    }
}
