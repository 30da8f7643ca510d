extension CompiledDocument {
    /// Each automaton is written as its NFA followed by its prebuilt DFA table when that fits
    /// `budget` (a flag, then the table); `counts` tallies which form each got.
    func encode(into writer: inout BinaryWriter, budget: LazyDFA.Prebuilt.Budget, counts: inout CompiledArtifact.Counts) {
        func automaton(_ dfa: LazyDFA) {
            dfa.nfa.encode(into: &writer)
            // Artifacts store dense tables only; a compact one is built again at load.
            if let table = Planner.storedTable(for: dfa, budget: budget) {
                counts.prebuilt += 1
                writer.write(true)
                table.encode(into: &writer)
            } else {
                counts.lazy += 1
                writer.write(false)
            }
        }
        writer.write(domain)
        writer.write(appIDs)
        writer.write(rules.count)
        for rule in rules {
            writer.write(rule.entryIndex)
            writer.write(rule.ruleIndex)
            writer.write(rule.exclude)
            writer.write(rule.apps)
            writer.write(UInt8(rule.mode.index))
            switch rule.queryKind {
            case .universal: writer.write(UInt8(0))
            case .text: writer.write(UInt8(1))
            case .items(let predicates):
                writer.write(UInt8(2))
                writer.write(predicates)
            }
            writer.write(rule.fragmentIsUniversal)
        }
        writer.write(predicateCount)
        for split in pathSplits {
            writer.write(split != nil)
            guard let split else { continue }
            writer.write(split.prefixes)
            writer.write(split.entries.count)
            for entry in split.entries {
                writer.write(entry.group)
                writer.write(entry.suffix)
                writer.write(entry.rule)
            }
        }
        for automata in [path, queryText, fragment] {
            for dfa in automata {
                writer.write(dfa != nil)
                if let dfa { automaton(dfa) }
            }
        }
        for groups in queryGroups {
            let names = groups.keys.sorted { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }
            writer.write(names.count)
            for name in names {
                guard let group = groups[name] else { continue }
                writer.write(name.string)
                automaton(group.dfa)
                writer.write(group.predicates)
                writer.write(group.failOnMissing)
            }
        }
    }

    /// Most bytes of eager table an automaton stored without one may build at load, per byte
    /// its NFA takes in the file (`loadingConfiguration`).
    static let eagerBytesPerNFAByte = 256

    /// The configuration an automaton stored without a table is loaded under: as given, unless
    /// the eager table `LazyDFA` may try to build for it (`eager-dfa-states` or twice its NFA's
    /// states plus 1 024, times its byte classes) outweighs its NFA's bytes in the file
    /// `eagerBytesPerNFAByte` times; it then stays lazy, its cache growing with the URLs.
    ///
    /// Why: the 1 024 states of slack and up to 256 classes let a crafted automaton of 800 bytes
    /// keep a 1 MiB table, so that an artifact would cost a thousand times its size; real
    /// automata (hundreds of thousands of states, tens of classes) are far inside the ratio.
    static func loadingConfiguration(nfa: NFA, encodedBytes: Int, _ configuration: Configuration.Automata)
        -> Configuration.Automata
    {
        let classes = configuration.useByteClasses ? nfa.byteClasses().count : 256
        let states = min(configuration.eagerMaxStates, 2 * nfa.stateCount + 1_024)
        guard states * classes * 4 > eagerBytesPerNFAByte * encodedBytes else { return configuration }
        var lazy = configuration
        lazy.eagerMaxStates = 0
        return lazy
    }

    static func decode(from reader: inout BinaryReader, configuration: Configuration) throws(ArtifactError) -> CompiledDocument {
        let domain = try reader.string()
        let appIDs = try reader.strings()
        let ruleCount = try reader.count(elementSize: 20)
        var rules: [RuleInfo] = []
        rules.reserveCapacity(ruleCount)
        var predicateIDs: [Int32] = []
        for _ in 0..<ruleCount {
            let entryIndex = try reader.int()
            let ruleIndex = try reader.int()
            let exclude = try reader.bool()
            let apps = try reader.int32s()
            guard apps.allSatisfy({ $0 >= 0 && Int($0) < appIDs.count }) else { throw .corrupt("a rule names an unknown app") }
            let modeIndex = Int(try reader.uint8())
            guard modeIndex < TextMode.all.count else { throw .corrupt("unknown text mode") }
            let queryKind: QueryKind
            switch try reader.uint8() {
            case 0: queryKind = .universal
            case 1: queryKind = .text
            case 2:
                let predicates = try reader.int32s()
                predicateIDs += predicates
                queryKind = .items(predicates: predicates)
            default: throw .corrupt("unknown query kind")
            }
            rules.append(
                RuleInfo(
                    entryIndex: entryIndex, ruleIndex: ruleIndex, exclude: exclude, apps: apps,
                    mode: TextMode.all[modeIndex], queryKind: queryKind, fragmentIsUniversal: try reader.bool()))
        }
        let predicateCount = try reader.int()
        guard predicateCount >= 0, predicateIDs.allSatisfy({ $0 >= 0 && Int($0) < predicateCount }) else {
            throw .corrupt("a query predicate number is out of range")
        }
        func automaton(tagLimit: Int) throws(ArtifactError) -> LazyDFA {
            let nfaStart = reader.offset
            let nfa = try NFA.decode(from: &reader, limits: configuration.automata)
            let nfaBytes = reader.offset - nfaStart
            for kind in nfa.kinds {
                if case .match(let tag) = kind, Int(tag) >= tagLimit { throw .corrupt("an automaton accepts an unknown rule") }
            }
            var prebuilt = try reader.bool() ? try LazyDFA.Prebuilt.decode(from: &reader, nfa: nfa, tagLimit: tagLimit) : nil
            // `eager-dfa-states` bounds the tables a process holds, whoever built them: a larger
            // table is left out and the automaton runs lazily, as it does compiled under that
            // limit (0, always lazy, is how the tests exercise the cache).
            if let table = prebuilt, table.stateCount > configuration.automata.eagerMaxStates { prebuilt = nil }
            do {
                let automata =
                    prebuilt == nil ? Self.loadingConfiguration(nfa: nfa, encodedBytes: nfaBytes, configuration.automata) : configuration.automata
                return try Planner.automaton(nfa, configuration: automata, stored: prebuilt)
            } catch {
                throw .corrupt("\(error)")
            }
        }
        var splits: [SuffixSplit?] = []
        for _ in TextMode.all {
            guard try reader.bool() else {
                splits.append(nil)
                continue
            }
            let prefixes = try reader.strings()
            var entries: [SuffixSplit.Entry] = []
            for _ in 0..<(try reader.count(elementSize: 12)) {
                let group = try reader.int32()
                let suffix = try reader.string()
                let rule = try reader.int32()
                guard group >= 0, Int(group) < prefixes.count, rule >= 0, Int(rule) < rules.count, !suffix.isEmpty else {
                    throw .corrupt("a split path pattern names an unknown prefix or rule")
                }
                entries.append(SuffixSplit.Entry(group: group, suffix: suffix, rule: rule))
            }
            splits.append(SuffixSplit(groupBase: Int32(rules.count), prefixes: prefixes, entries: entries))
        }
        var components: [[LazyDFA?]] = []
        for component in 0..<3 {
            var perMode: [LazyDFA?] = []
            for mode in TextMode.all {
                // Path automata of a split mode also accept its prefix groups' tags.
                let groups = component == 0 ? splits[mode.index]?.prefixes.count ?? 0 : 0
                perMode.append(try reader.bool() ? try automaton(tagLimit: rules.count + groups) : nil)
            }
            components.append(perMode)
        }
        var groups: [[ExactString: QueryGroup]] = []
        for _ in TextMode.all {
            var modeGroups: [ExactString: QueryGroup] = [:]
            for _ in 0..<(try reader.count()) {
                let name = try reader.string()
                let dfa = try automaton(tagLimit: predicateCount)
                let predicates = try reader.int32s()
                let failOnMissing = try reader.int32s()
                guard (predicates + failOnMissing).allSatisfy({ $0 >= 0 && Int($0) < predicateCount }) else {
                    throw .corrupt("a query predicate number is out of range")
                }
                modeGroups[ExactString(name)] = QueryGroup(dfa: dfa, predicates: predicates, failOnMissing: failOnMissing)
            }
            groups.append(modeGroups)
        }
        return CompiledDocument(
            domain: domain, appIDs: appIDs, rules: rules, path: components[0], pathSplits: splits, queryText: components[1],
            fragment: components[2], queryGroups: groups, predicateCount: predicateCount)
    }
}
