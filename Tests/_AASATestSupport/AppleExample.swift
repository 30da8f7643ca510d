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
    public static func naiveExpansion(of document: AASADocument) -> (patterns: Int, bytes: Int) {
        let expansion = ListExpansion(of: document)
        return (expansion.patterns, expansion.bytes)
    }
}
