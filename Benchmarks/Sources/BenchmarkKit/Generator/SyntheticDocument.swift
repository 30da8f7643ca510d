import AASAKit

/// A generated AASA document and what the URL stream generator needs to know about its rules.
///
/// Three shapes, each a pure function of (kind, rule count, seed):
/// - `paths`: path-only `components`, like a large retailer's or publisher's file: sections
///   and pages, trailing `/*`, a few mid-path `*` and `?` runs, about 8% exclusions;
/// - `prefixes`: the same sections and pages with wildcards only at the end (`/s/page/*`,
///   `/s/page*`, `/s/page`): the easy case for any automaton, kept as a diagnostic;
/// - `variables`: path-only rules built on `$(lang)`, `$(region)`, `$(digit)`, `$(alnum)` and
///   custom variables (some values with `?` or `*`), some rules case-insensitive or compared
///   percent-decoded;
/// - `queries`: paths plus query-item dictionaries (`"id": "?*"`), whole-query patterns and
///   fragment patterns.
///
/// Rules are spread over two entries (`main` + `clip`, then `main` + `partner`), so deciding a
/// URL means deciding three apps.
public struct SyntheticDocument: Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case paths, prefixes, variables, queries

        /// How the workload titles name the rules: "1 000 path rules".
        public var ruleNoun: String {
            switch self {
            case .paths: return "path rules"
            case .prefixes: return "prefix rules"
            case .variables: return "variable rules"
            case .queries: return "query rules"
            }
        }
    }

    /// What a query rule asks of the query.
    enum QuerySpec: Sendable {
        /// Items that must be present with a value matching the pattern (a dictionary).
        case items([(name: String, pattern: String)])
        /// A pattern over the whole query text.
        case text(String)
    }

    struct GeneratedRule: Sendable {
        var path: String
        var query: QuerySpec?
        var fragment: String?
        var exclude: Bool
        var caseInsensitive: Bool
        var decoded: Bool
    }

    public let kind: Kind
    public let ruleCount: Int
    public let seed: UInt64
    public let domain: String
    public let apps: [String]
    /// The document as JSON text.
    public let text: String
    let rules: [GeneratedRule]
    let variables: [String: [String]]

    /// `true` when no rule constrains the query or fragment (the regex baseline can run it).
    public var isPathOnly: Bool { rules.allSatisfy { $0.query == nil && $0.fragment == nil } }

    public static let defaultDomain = "bench.example"
    public static let defaultApps = [
        "ABCDE12345.com.example.main", "ABCDE12345.com.example.clip", "FGHIJ67890.com.example.partner",
    ]

    /// Parses the generated text (the size limit is lifted: 100 000 rules is several MB).
    public func parsed() throws -> AASADocument {
        var configuration = Configuration()
        configuration.document.maxPatterns = .max
        configuration.document.maxBytes = max(configuration.document.maxBytes, text.utf8.count)
        return try AASADocument(bytes: Array(text.utf8), configuration: configuration)
    }
}

extension SyntheticDocument {
    /// Generates a document of `ruleCount` rules (1 to 100 000) of the given kind.
    public init(kind: Kind, ruleCount: Int, seed: UInt64 = 0xA5A5_2026) {
        precondition(ruleCount >= 1 && ruleCount <= 100_000, "rule count must be within 1...100 000")
        // FNV-1a of the kind's name: a stable mix (Swift's hashValue is seeded per process).
        let kindHash = kind.rawValue.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        var random = SeededRandom(seed: seed ^ (UInt64(ruleCount) &* 0x9E37_79B9) ^ kindHash)
        var words = Vocabulary(ruleCount: ruleCount)
        var variables: [String: [String]] = [:]
        var variableNames: [String] = []
        if kind == .variables {
            let count = min(400, max(2, ruleCount / 25))
            for index in 0..<count {
                let name = index < Vocabulary.variableNames.count ? Vocabulary.variableNames[index] : "var\(index)"
                var values: [String] = []
                var seen = Set<String>()
                for _ in 0..<random.int(3...30) {
                    var value = words.leaf(&random)
                    switch random.int(0...19) {
                    case 0: value += "-??"
                    case 1: value += "-*"
                    case 2: value = "cr\u{E8}me-" + value
                    default: break
                    }
                    if seen.insert(value).inserted { values.append(value) }
                }
                variables[name] = values
                variableNames.append(name)
            }
        }

        var rules: [GeneratedRule] = []
        var seenPaths = Set<String>()
        rules.reserveCapacity(ruleCount)
        while rules.count < ruleCount {
            var rule: GeneratedRule
            switch kind {
            case .paths: rule = Self.pathRule(&random, &words)
            case .prefixes: rule = Self.prefixRule(&random, &words)
            case .variables: rule = Self.variableRule(&random, &words, variableNames)
            case .queries: rule = Self.queryRule(&random, &words)
            }
            // Distinct rules: a duplicate would be unreachable and make the workload lopsided.
            let key = "\(rule.path)|\(rule.exclude)|\(rule.caseInsensitive)|\(rule.decoded)|\(String(describing: rule.query))|\(rule.fragment ?? "")"
            if seenPaths.insert(key).inserted { rules.append(rule) }
        }

        self.kind = kind
        self.ruleCount = ruleCount
        self.seed = seed
        self.domain = Self.defaultDomain
        self.apps = Self.defaultApps
        self.rules = rules
        self.variables = variables
        self.text = Self.render(rules: rules, variables: variables, variableNames: variableNames, apps: Self.defaultApps)
    }

    /// Apple's limit on an `apple-app-site-association` file: 128 KB (swcd does not read a
    /// larger one), the largest document a user can deploy.
    public static let appleLimitBytes = 131_072

    /// The most rules of `kind` whose generated document stays under `bytes` of JSON: a binary
    /// search over rule counts, so a pure function of (kind, bytes, seed). The text grows with
    /// the count but not strictly (each count draws its own rules), so the search may settle a
    /// few rules short of the true maximum; the document it names is always under `bytes`.
    public static func ruleCount(filling bytes: Int, kind: Kind, seed: UInt64 = 0xA5A5_2026) -> Int {
        // A rule takes more than 8 bytes of JSON (`{"/": "/a"}`), which bounds the search.
        var low = 1, high = min(100_000, max(1, bytes / 8))
        guard SyntheticDocument(kind: kind, ruleCount: low, seed: seed).text.utf8.count < bytes else { return 1 }
        while low < high {
            let middle = (low + high + 1) / 2
            if SyntheticDocument(kind: kind, ruleCount: middle, seed: seed).text.utf8.count < bytes {
                low = middle
            } else {
                high = middle - 1
            }
        }
        return low
    }

    /// Where the second entry starts (rules before it belong to `main` + `clip`).
    static func secondEntryStart(_ count: Int) -> Int { count < 4 ? count : (count * 3) / 5 }

    static func pathRule(_ random: inout SeededRandom, _ words: inout Vocabulary) -> GeneratedRule {
        let section = words.section(&random)
        let leaf = words.leaf(&random)
        let path: String
        switch random.int(0...99) {
        case 0..<25: path = "/\(section)/\(leaf)/*"
        case 25..<40: path = "/\(section)/\(leaf)"
        case 40..<50: path = "/\(section)/*/\(leaf)"
        case 50..<58: path = "/\(section)/\(leaf)/????"
        case 58..<68: path = "/\(section)/\(leaf)-*.html"
        case 68..<76: path = "/\(section)/\(leaf)/*/\(words.leaf(&random))/*"
        case 76..<84: path = "/\(section)/\(leaf)*"
        case 84..<90: path = "/\(section)/\(leaf)/??-*"
        case 90..<92: path = "*/\(leaf)"
        default: path = "/\(section)/\(leaf).php"
        }
        return GeneratedRule(
            path: path, query: nil, fragment: nil, exclude: random.chance(0.08), caseInsensitive: false, decoded: false)
    }

    static func prefixRule(_ random: inout SeededRandom, _ words: inout Vocabulary) -> GeneratedRule {
        let section = words.section(&random)
        let leaf = words.leaf(&random)
        let path: String
        switch random.int(0...99) {
        case 0..<45: path = "/\(section)/\(leaf)/*"
        case 45..<70: path = "/\(section)/\(leaf)"
        case 70..<85: path = "/\(section)/\(leaf)*"
        default: path = "/\(section)/\(leaf).php"
        }
        return GeneratedRule(
            path: path, query: nil, fragment: nil, exclude: random.chance(0.08), caseInsensitive: false, decoded: false)
    }

    static func variableRule(_ random: inout SeededRandom, _ words: inout Vocabulary, _ names: [String]) -> GeneratedRule {
        let section = words.section(&random)
        let first = random.pick(names)
        let second = random.pick(names)
        var exclude = random.chance(0.05)
        let path: String
        switch random.int(0...99) {
        case 0..<25: path = "/$(lang)_$(region)/\(section)/$(\(first))/*"
        case 25..<45: path = "/$(lang)/\(section)/$(\(first))"
        case 45..<60: path = "/\(section)/$(\(first))/$(\(second))"
        case 60..<70: path = "/\(section)/$(\(first))-$(digit)$(digit)*"
        case 70..<80: path = "/$(region)/\(section)/\(words.leaf(&random))/*"
        case 80..<85: path = "/\(section)/$(alnum)$(alnum)$(alnum)/\(words.leaf(&random))"
        case 85..<90:
            path = "/$(lang)_CA/\(section)/$(\(first))/"
            exclude = true
        default: path = "/\(section)/\(words.leaf(&random))/*"
        }
        return GeneratedRule(
            path: path, query: nil, fragment: nil, exclude: exclude, caseInsensitive: random.chance(0.2),
            decoded: random.chance(0.1))
    }

    static func queryRule(_ random: inout SeededRandom, _ words: inout Vocabulary) -> GeneratedRule {
        var rule = pathRule(&random, &words)
        switch random.int(0...99) {
        case 0..<35: rule.query = .items([("id", "?*")])
        case 35..<50: rule.query = .items([("page", "$(digit)*"), ("ref", "*")])
        case 50..<62: rule.query = .text("q=*")
        case 62..<75: rule.query = .items([(words.leaf(&random), words.leaf(&random))])
        default: break
        }
        if random.chance(0.15) { rule.fragment = "\(words.leaf(&random))-*" }
        return rule
    }

    static func render(rules: [GeneratedRule], variables: [String: [String]], variableNames: [String], apps: [String])
        -> String
    {
        var out = "{\n  \"applinks\": {\n"
        if !variableNames.isEmpty {
            out += "    \"substitutionVariables\": {\n"
            out += variableNames.map { name in
                "      \(json(name)): [" + (variables[name] ?? []).map(json).joined(separator: ", ") + "]"
            }.joined(separator: ",\n")
            out += "\n    },\n"
        }
        out += "    \"details\": [\n"
        let split = secondEntryStart(rules.count)
        var entries: [(apps: [String], rules: ArraySlice<GeneratedRule>)] = [([apps[0], apps[1]], rules[..<split])]
        if split < rules.count { entries.append(([apps[0], apps[2]], rules[split...])) }
        out += entries.map { entry in
            var text = "      {\"appIDs\": [" + entry.apps.map(json).joined(separator: ", ") + "], \"components\": [\n"
            text += entry.rules.map { rule in
                var members = ["\"/\": \(json(rule.path))"]
                switch rule.query {
                case .items(let items)?:
                    members.append("\"?\": {" + items.map { "\(json($0.name)): \(json($0.pattern))" }.joined(separator: ", ") + "}")
                case .text(let pattern)?:
                    members.append("\"?\": \(json(pattern))")
                case nil:
                    break
                }
                if let fragment = rule.fragment { members.append("\"#\": \(json(fragment))") }
                if rule.exclude { members.append("\"exclude\": true") }
                if rule.caseInsensitive { members.append("\"caseSensitive\": false") }
                if rule.decoded { members.append("\"percentEncoded\": false") }
                return "        {" + members.joined(separator: ", ") + "}"
            }.joined(separator: ",\n")
            return text + "\n      ]}"
        }.joined(separator: ",\n")
        out += "\n    ]\n  }\n}\n"
        return out
    }

    /// A JSON string literal.
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Section names and page names: real-looking common words first, then pronounceable
/// generated words, so that a 100 000-rule document still has distinct, plausible paths.
struct Vocabulary {
    static let commonSections = [
        "products", "shop", "store", "p", "dp", "item", "category", "collections", "deals", "offers", "promo",
        "share", "s", "u", "user", "profile", "account", "orders", "checkout", "cart", "help", "support", "blog",
        "news", "articles", "video", "watch", "live", "events", "tickets", "booking", "hotels", "flights", "trip",
        "ride", "menu", "restaurants", "recipes", "search", "explore", "tag", "topics", "community", "groups",
        "messages", "invite", "join", "app", "open", "go", "l", "r", "en", "fr", "de", "es", "ja",
    ]
    static let commonLeaves = [
        "index", "new", "latest", "popular", "sale", "summer-sale", "gift-cards", "brands", "top", "featured",
        "details", "reviews", "photos", "map", "about", "faq", "contact", "careers", "press", "terms", "privacy",
        "login", "signup", "settings", "wishlist", "favorites", "history", "status", "track", "returns",
    ]
    static let variableNames = [
        "food", "city", "brand", "size", "color", "team", "genre", "airport", "store-id", "channel", "canadian-food",
    ]
    static let syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zu", "pe", "shi", "do", "ga", "bi", "fo", "ya", "re"]

    let sectionCount: Int
    let leafCount: Int

    init(ruleCount: Int) {
        sectionCount = max(4, min(2_000, ruleCount / 8))
        leafCount = max(40, ruleCount * 2)
    }

    static func word(_ number: Int) -> String {
        var number = number
        var text = ""
        repeat {
            text += syllables[number % syllables.count]
            number /= syllables.count
        } while number > 0
        return text.count < 4 ? text + "n" : text
    }

    mutating func section(_ random: inout SeededRandom) -> String {
        let index = random.skewed(sectionCount)
        return index < Self.commonSections.count ? Self.commonSections[index] : Self.word(10_000 + index)
    }

    mutating func leaf(_ random: inout SeededRandom) -> String {
        if random.chance(0.15) { return random.pick(Self.commonLeaves) }
        let first = Self.word(random.int(0...leafCount))
        return random.chance(0.4) ? first + "-" + Self.word(random.int(0...leafCount)) : first
    }
}
