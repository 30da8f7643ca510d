/// Variable lookup for the oracle (SPEC 9): a custom variable wins over a predefined one of the
/// same name; an undefined name has no alternatives and never matches.
struct ReferenceVariables {
    var custom: [String: [String]]

    func values(of name: String) -> [String]? {
        custom[name] ?? PredefinedVariables.values(of: name)
    }
}
