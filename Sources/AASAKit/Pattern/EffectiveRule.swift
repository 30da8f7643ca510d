/// A rule with the defaults chain applied and its patterns parsed and normalised: everything the
/// automaton compiler needs, resolved once per document (SPEC 10).
public struct EffectiveRule: Sendable {
    /// Position in the document's evaluation order (entries in order, rules in order): the bit
    /// index of the rule in every rule set.
    public var id: Int
    /// The entry's and rule's numbers in the document's own numbering, for match records.
    public var entryIndex: Int
    public var ruleIndex: Int
    /// Indexes into `AASADocument.appIDs` of the apps the rule's entry names.
    public var apps: [Int]
    public var mode: TextMode
    public var exclude: Bool
    /// The path pattern's alternatives after the slash rules (SPEC 6), literals normalised.
    public var path: [Pattern]
    public var query: Query
    public var fragment: Pattern

    public enum Query: Sendable {
        /// Matches every query: the pattern `*`, or a dictionary voided by a non-string value.
        case universal
        /// A pattern over the whole query text.
        case text(Pattern)
        /// Item predicates; names normalised like the URL's item names (NFC and fold per mode).
        case items([(name: String, pattern: Pattern)])
    }

    /// Every rule of `document`, in evaluation order.
    public static func resolve(_ document: AASADocument) -> [EffectiveRule] {
        // An app's index is its position in `document.appIDs` (first appearance, entries in
        // order), numbered here in the same single pass that reads each entry's apps.
        var appIndex: [ExactString: Int] = [:]
        let domainDefaults = document.applinks?.defaults ?? RuleKeys()
        let entries = document.entries
        var rules: [EffectiveRule] = []
        rules.reserveCapacity(entries.reduce(0) { $0 + $1.rules.count })
        for entry in entries {
            let apps = entry.appIDs.map { app in
                let key = ExactString(app)
                if let index = appIndex[key] { return index }
                let index = appIndex.count
                appIndex[key] = index
                return index
            }
            for rule in entry.rules {
                rules.append(
                    EffectiveRule(
                        id: rules.count, rule: rule, entry: entry, apps: apps, domainDefaults: domainDefaults))
            }
        }
        return rules
    }

    init(id: Int, rule: Rule, entry: Entry, apps: [Int], domainDefaults: RuleKeys) {
        // The chain (SPEC 10): the rule's own key, its entry's defaults, the document's, the
        // built-in ones, read in place rather than copied into an array.
        let builtIn = RuleKeys.builtIn
        func resolved<T>(_ read: (RuleKeys) -> T?) -> T? {
            read(rule.keys) ?? read(entry.defaults) ?? read(domainDefaults) ?? read(builtIn)
        }
        self.id = id
        entryIndex = entry.index
        ruleIndex = rule.index
        self.apps = apps
        let mode = TextMode(caseSensitive: resolved { $0.caseSensitive } ?? true, percentEncoded: resolved { $0.percentEncoded } ?? true)
        self.mode = mode
        func parse(_ text: String) -> Pattern {
            Pattern(parsing: text).normalized(for: mode)
        }
        if rule.isLegacyPath {
            // Legacy `paths` take only the flags from the chain (SPEC 10).
            exclude = rule.keys.exclude ?? false
            path = PathNormalization.alternatives(of: parse(rule.keys.path ?? "*"))
            query = .universal
            fragment = .universal
        } else {
            exclude = resolved { $0.exclude } ?? false
            path = PathNormalization.alternatives(of: parse(resolved { $0.path } ?? "*"))
            fragment = parse(resolved { $0.fragment } ?? "*")
            switch resolved({ $0.query }) ?? .text("*") {
            case .voided:
                query = .universal
            case .text(let text):
                let pattern = parse(text)
                query = pattern.isUniversal ? .universal : .text(pattern)
            case .items(let predicates):
                query = .items(
                    predicates.map { (TextNormalization.normalizeLiteral($0.name, mode: mode), parse($0.pattern)) })
            }
        }
    }
}

extension Pattern {
    /// The pattern with its literals as a rule in `mode` compares them (NFC, folding). Variable
    /// values are normalised by the compiler when it builds each variable's trie for the mode.
    public func normalized(for mode: TextMode) -> Pattern {
        guard mode.decoded || mode.folded else { return self }
        return Pattern(
            pieces: pieces.map { piece in
                if case .literal(let text) = piece {
                    return .literal(TextNormalization.normalizeLiteral(text, mode: mode))
                }
                return piece
            })
    }
}
