/// Proves two documents equivalent without walking any URL: when every app meets the same
/// normalised rules in the same order in both, every URL gets the same decision (SPEC 3 decides
/// an app by its first matching rule, and a rule's match depends only on what is compared here).
///
/// This is what makes a re-serialised document (keys reordered, indented, `appID` written as a
/// one-element `appIDs`, defaults hoisted, rules regrouped into entries) equivalent even when
/// its rules mix text modes or query shapes that the URL walk cannot prove, or are too many to
/// walk. The comparison is of `EffectiveRule`s, after the defaults chain, pattern parsing,
/// slash rules and literal normalisation: text that differs only in ways those erase compares
/// equal; anything else (even an equivalent but different pattern) is left to the walk.
enum RuleIdentity {
    /// The most (app, rule) pairs compared: an entry naming many apps with many rules would make
    /// the per-app sequences quadratic in the document; past this the walk decides instead.
    static let maxComparedPairs = 1_000_000

    /// Whether every app of `apps` meets identical effective rules in `old` and `new`, and every
    /// substitution variable those rules use resolves to the same values in both.
    static func sameRules(_ old: AASADocument, _ new: AASADocument, apps: [String]) -> Bool {
        let sides = [old, new].map(Side.init)
        guard sides.allSatisfy({ $0.pairCount <= maxComparedPairs }) else { return false }
        // Interned signatures: equal ids mean byte-identical signatures, compared once.
        var interned: [[UInt8]: Int32] = [:]
        let ids = sides.map { side in
            side.signatures.map { signature -> Int32 in
                if let id = interned[signature] { return id }
                let id = Int32(interned.count)
                interned[signature] = id
                return id
            }
        }
        var variables = Set<ExactString>()
        for app in apps {
            let key = ExactString(app)
            let sequences = [0, 1].map { side in (sides[side].rulesByApp[key] ?? []).map { ids[side][$0] } }
            guard sequences[0] == sequences[1] else { return false }
            for rule in sides[0].rulesByApp[key] ?? [] { variables.formUnion(sides[0].variables[rule].map(ExactString.init)) }
        }
        let resolved = sides.map { $0.document.applinks?.substitutionVariables ?? SubstitutionVariables() }
        for name in variables {
            let values = resolved.map { $0.resolve(name.string)?.map(ExactString.init) }
            guard values[0] == values[1] else { return false }
        }
        return true
    }

    /// One document's rules as signatures, and, per app, the rules that name it in order.
    private struct Side {
        let document: AASADocument
        var signatures: [[UInt8]] = []
        /// Per rule: the variable names its patterns refer to.
        var variables: [[String]] = []
        var rulesByApp: [ExactString: [Int]] = [:]
        /// How many (app, rule) pairs the sequences hold.
        var pairCount = 0

        init(_ document: AASADocument) {
            self.document = document
            let rules = EffectiveRule.resolve(document)
            let appIDs = document.appIDs
            pairCount = rules.reduce(0) { $0 + $1.apps.count }
            guard pairCount <= RuleIdentity.maxComparedPairs else { return }
            for rule in rules {
                var signature = Signature()
                signature.write(rule)
                signatures.append(signature.bytes)
                variables.append(signature.variables)
                for app in rule.apps { rulesByApp[ExactString(appIDs[app]), default: []].append(rule.id) }
            }
        }
    }

    /// A byte string that two rules share exactly when they compare URLs alike: mode, exclusion,
    /// and every pattern piece, with lengths so that no two pieces run together. Strings are
    /// compared as UTF-8 bytes: in a raw mode a precomposed and a decomposed accent differ.
    private struct Signature {
        var bytes: [UInt8] = []
        var variables: [String] = []

        mutating func write(_ rule: EffectiveRule) {
            bytes.append(UInt8(rule.mode.index))
            bytes.append(rule.exclude ? 1 : 0)
            count(rule.path.count)
            for alternative in rule.path { write(alternative) }
            switch rule.query {
            case .universal:
                bytes.append(0)
            case .text(let pattern):
                bytes.append(1)
                write(pattern)
            case .items(let items):
                bytes.append(2)
                count(items.count)
                for item in items {
                    write(item.name)
                    write(item.pattern)
                }
            }
            write(rule.fragment)
        }

        mutating func write(_ pattern: Pattern) {
            count(pattern.pieces.count)
            for piece in pattern.pieces {
                switch piece {
                case .literal(let text):
                    bytes.append(0)
                    write(text)
                case .anyOne:
                    bytes.append(1)
                case .anyMany:
                    bytes.append(2)
                case .variable(let name):
                    bytes.append(3)
                    write(name)
                    variables.append(name)
                }
            }
        }

        mutating func write(_ text: String) {
            count(text.utf8.count)
            bytes.append(contentsOf: text.utf8)
        }

        mutating func count(_ value: Int) {
            let value = UInt64(value)
            for shift in Swift.stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
    }
}
