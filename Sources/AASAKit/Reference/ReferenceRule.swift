/// A rule with every key resolved through the defaults chain (SPEC 10), as the oracle sees it.
public struct ReferenceRule: Sendable {
    public var path: String
    public var query: QueryPattern
    public var fragment: String
    public var exclude: Bool
    public var caseSensitive: Bool
    public var percentEncoded: Bool

    /// The more specific level wins, per key: rule, then entry defaults, then domain defaults,
    /// then the built-in values. A legacy `paths` string takes only the two flags from the chain.
    init(_ rule: Rule, entry: Entry, domainDefaults: RuleKeys) {
        let levels = [rule.keys, entry.defaults, domainDefaults, RuleKeys.builtIn]
        func first<T>(_ key: KeyPath<RuleKeys, T?>) -> T? {
            for level in levels {
                if let value = level[keyPath: key] { return value }
            }
            return nil
        }
        caseSensitive = first(\.caseSensitive) ?? true
        percentEncoded = first(\.percentEncoded) ?? true
        if rule.isLegacyPath {
            path = rule.keys.path ?? "*"
            query = .text("*")
            fragment = "*"
            exclude = rule.keys.exclude ?? false
        } else {
            path = first(\.path) ?? "*"
            query = first(\.query) ?? .text("*")
            fragment = first(\.fragment) ?? "*"
            exclude = first(\.exclude) ?? false
        }
    }
}
