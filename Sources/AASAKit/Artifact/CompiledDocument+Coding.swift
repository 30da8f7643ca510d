extension CompiledDocument {
    /// The stored forms already worked out, by NFA bytes and the work they were allowed: the
    /// form is a function of those two (and the budget's table bounds) alone, and a fleet's
    /// documents repeat the same NFAs thousands of times. Each form keeps the work finding it
    /// took, charged again to every document that reuses it, so that a document's bytes do not
    /// depend on what was encoded before it.
    public struct StoredForms {
        struct Key: Hashable {
            var nfa: [UInt8]
            var allowance: Int
        }

        var known: [Key: (form: [UInt8], spent: Int)] = [:]

        public init() {}
    }

    /// Each automaton is written as its NFA's length in bytes and its NFA, followed by a flag
    /// and, when it fits `budget` and does not outweigh the NFA `tableBytesPerNFAByte` times in
    /// the file, its prebuilt DFA table; `counts` tallies which form each got. The tables of one
    /// document share `budget.maxDocumentWork`: an automaton is allowed what is left of it (up
    /// to `budget.maxWork`), and once it is spent the rest are stored without tables (loading
    /// may still build them, under its own `eager-dfa-work`). Why the NFA's length (format 6):
    /// loading steps over the NFA of an automaton with a table, which its searches never read
    /// (`DeferredNFA`).
    // PERF: `aasa compile` of the 10 000-domain fleet (`AASA_BENCH_KEEP_FLEET=1 aasa-bench
    // --suite fleet`, 320 distinct bodies) 11.4 → 1.0 s (median of three alternated runs),
    // artifact byte-identical: building each domain's tables was nearly all of it.
    func encode(
        into writer: inout BinaryWriter, budget: LazyDFA.Prebuilt.Budget, counts: inout CompiledArtifact.Counts,
        forms: inout StoredForms
    ) {
        var left = budget.maxDocumentWork
        func automaton(_ dfa: LazyDFA) {
            let nfa: [UInt8]
            if let deferred = dfa.deferredNFA {
                // Loaded from an artifact and never decoded: its stored bytes are its encoding.
                nfa = deferred.encoded
            } else {
                var nfaWriter = BinaryWriter()
                dfa.nfa.encode(into: &nfaWriter)
                nfa = nfaWriter.bytes
            }
            writer.varint(nfa.count)
            writer.append(nfa)
            let key = StoredForms.Key(nfa: nfa, allowance: max(0, min(budget.maxWork, left)))
            let stored = forms.known[key] ?? {
                var allowed = budget
                allowed.maxWork = key.allowance
                var spent = 0
                // Tried even with nothing left: a table the automaton already has (an artifact
                // loaded and written again) costs nothing to store.
                let form = Self.storedForm(of: dfa, nfaBytes: nfa.count, budget: allowed, spent: &spent)
                forms.known[key] = (form, spent)
                return (form, spent)
            }()
            left -= stored.spent
            if stored.form.first == Self.storedTable { counts.prebuilt += 1 } else { counts.lazy += 1 }
            writer.append(stored.form)
        }
        // The domain and app IDs are the index's (`CompiledArtifact`): what is left is the same
        // for every domain compiled from the same rules, and is stored once for all of them.
        writer.varint(appIDs.count)
        writer.varint(rules.count)
        var previousApps: [Int32]?
        for rule in rules {
            writer.varint(rule.entryIndex)
            writer.varint(rule.ruleIndex)
            // Format 7: a rule naming the apps of the rule before it (the rules of one entry)
            // says so in a flag rather than listing them again, and is decoded sharing them.
            let sameApps = rule.apps == previousApps
            previousApps = rule.apps
            let query: Int
            switch rule.queryKind {
            case .universal: query = 0
            case .text: query = 1
            case .items: query = 2
            }
            writer.write(
                UInt8((rule.exclude ? 1 : 0) | (rule.fragmentIsUniversal ? 2 : 0) | rule.mode.index << 2 | query << 4 | (sameApps ? 64 : 0)))
            if !sameApps { writer.naturals(rule.apps) }
            if case .items(let predicates) = rule.queryKind { writer.naturals(predicates) }
        }
        writer.varint(predicateCount)
        writer.write(UInt8(pathSplits.enumerated().reduce(0) { $0 | ($1.element == nil ? 0 : 1 << $1.offset) }))
        for split in pathSplits {
            guard let split else { continue }
            writer.texts(split.prefixes)
            writer.varint(split.entries.count)
            for entry in split.entries {
                writer.varint(Int(entry.group))
                writer.text(entry.suffix)
                writer.varint(Int(entry.rule))
            }
        }
        let present = [path, queryText, fragment].joined()
        writer.fixed(present.enumerated().reduce(0) { $0 | ($1.element == nil ? 0 : 1 << $1.offset) }, width: 2)
        for dfa in present {
            if let dfa { automaton(dfa) }
        }
        for groups in queryGroups {
            let names = groups.keys.sorted { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }
            writer.varint(names.count)
            for name in names {
                guard let group = groups[name] else { continue }
                writer.text(name.string)
                automaton(group.dfa)
                writer.naturals(group.predicates)
                writer.naturals(group.failOnMissing)
            }
        }
    }

    /// What follows an automaton's NFA in the artifact: its form's flag, then the table for
    /// `storedTable`.
    private static func storedForm(of dfa: LazyDFA, nfaBytes: Int, budget: LazyDFA.Prebuilt.Budget, spent: inout Int) -> [UInt8] {
        // Artifacts store dense tables only; a compact one is built again at load.
        guard let table = Planner.storedTable(for: dfa, budget: budget, spent: &spent) else { return [storedLazy] }
        var stored = BinaryWriter()
        stored.write(storedTable)
        table.encode(into: &stored)
        if stored.bytes.count - 1 <= tableBytesPerNFAByte * nfaBytes { return stored.bytes }
        // Loading would try to determinise it up to twice its NFA's states and give up: the file
        // says so, and loading does not try.
        return [table.stateCount > 2 * dfa.nfaStateCount + 1_024 ? storedLazyAndLarge : storedLazy]
    }

    /// The forms an automaton is stored in, after its NFA: without a table; with its prebuilt
    /// table; without a table, its whole DFA being larger than loading would build (twice its
    /// NFA's states plus 1 024), so that loading leaves it lazy without trying.
    static let storedLazy: UInt8 = 0
    static let storedTable: UInt8 = 1
    static let storedLazyAndLarge: UInt8 = 2

    /// Most bytes a prebuilt table may take in the file per byte of its NFA there. Why: a table
    /// that outweighs its NFA this much is a DFA that blew up (patterns with several `*` each,
    /// such as `/*/privacy-policy` next to `/*/legal-notices`: a real 2.3 KB document makes
    /// 7 721 states and 88 KB of rows, from an NFA of 1.1 KB), and one such document made half
    /// of an artifact; the lazy DFA builds just the states the URLs visit. Every other table of
    /// the real documents is within 8 times its NFA.
    static let tableBytesPerNFAByte = 16

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

    /// An automaton's NFA from exactly the bytes stored for it, accepting only tags below
    /// `tagLimit` (its rules, or its query predicates).
    static func decodeNFA(from reader: inout BinaryReader, tagLimit: Int, limits: Configuration.Automata) throws(ArtifactError) -> NFA {
        let nfa = try NFA.decode(from: &reader, limits: limits)
        guard reader.remaining == 0 else { throw .corrupt("an automaton's NFA is not the length stored") }
        for kind in nfa.kinds {
            if case .match(let tag) = kind, Int(tag) >= tagLimit { throw .corrupt("an automaton accepts an unknown rule") }
        }
        return nfa
    }

    /// The stored NFA of an automaton loaded with its table, decoded (and checked as
    /// `decodeNFA` checks it) only when something asks for it. Its state count and variable
    /// positions, the first two numbers it declares, are held to `nfa-states` and
    /// `variable-positions` now, so that a lowered limit refuses an artifact's documents as it
    /// refuses their compilation (`classify --compiled` and `--rules` give the same records
    /// under the same limits), although the table is bounded on its own and never runs the NFA.
    static func deferredNFA(_ stored: ByteView, tagLimit: Int, limits: Configuration.Automata) throws(ArtifactError) -> DeferredNFA {
        var header = BinaryReader(stored)
        let declared = try header.natural()
        guard declared <= limits.maxNFAStates else { throw .overLimit(.nfaStates, found: declared, maximum: limits.maxNFAStates) }
        let positions = try header.natural()
        guard positions <= limits.maxVariablePositions else {
            throw .overLimit(.variablePositions, found: positions, maximum: limits.maxVariablePositions)
        }
        return DeferredNFA(encoded: Array(stored), declaredStateCount: declared) { bytes in
            bytes.withView { view in
                var reader = BinaryReader(view)
                return try? decodeNFA(from: &reader, tagLimit: tagLimit, limits: limits)
            }
        }
    }

    static let appCountMismatch = "a domain's app IDs are not its rules'"

    /// Why a stored automaton could not be set up under the loading configuration: a DFA cache
    /// budget below what the automaton needs is a limit given to `classify`, as it is when
    /// compiling; it was reported as a corrupt artifact.
    static func loadingError(_ error: AutomatonError) -> ArtifactError {
        if case .budgetTooSmall(let minimum, let given) = error { return .overLimit(.dfaCacheBytes, found: minimum, maximum: given) }
        return .corrupt("\(error)")
    }

    /// The document of `domain` with `appIDs`, from a body that every domain compiled from the
    /// same rules shares.
    static func decode(from reader: inout BinaryReader, domain: String, appIDs: [String], configuration: Configuration)
        throws(ArtifactError) -> CompiledDocument
    {
        guard try reader.natural() == appIDs.count else { throw .corrupt(appCountMismatch) }
        // A rule takes at least five bytes.
        let ruleCount = try reader.length(elementSize: 5)
        var rules: [RuleInfo] = []
        rules.reserveCapacity(ruleCount)
        var predicateIDs: [Int32] = []
        for _ in 0..<ruleCount {
            let entryIndex = try reader.natural()
            let ruleIndex = try reader.natural()
            let flags = Int(try reader.uint8())
            guard flags < 1 << 7, flags >> 4 & 3 != 3 else { throw .corrupt("unknown rule flags") }
            let apps: [Int32]
            if flags & 64 != 0 {
                guard let previous = rules.last else { throw .corrupt("the first rule names the apps of no rule before it") }
                apps = previous.apps
            } else {
                apps = try reader.naturals()
                guard apps.allSatisfy({ Int($0) < appIDs.count }) else { throw .corrupt("a rule names an unknown app") }
            }
            let queryKind: QueryKind
            switch flags >> 4 & 3 {
            case 0: queryKind = .universal
            case 1: queryKind = .text
            default:
                let predicates = try reader.naturals()
                predicateIDs += predicates
                queryKind = .items(predicates: predicates)
            }
            rules.append(
                RuleInfo(
                    entryIndex: entryIndex, ruleIndex: ruleIndex, exclude: flags & 1 == 1, apps: apps,
                    mode: TextMode.all[flags >> 2 & 3], queryKind: queryKind, fragmentIsUniversal: flags & 2 == 2))
        }
        // Every predicate belongs to the rule that lists it, so there are no more of them than
        // the rules list: a count read from the file alone would size each thread's per-URL
        // predicate row (`QueryItems`) at whatever a crafted artifact claims.
        let predicateCount = try reader.natural()
        guard predicateCount <= predicateIDs.count else { throw .corrupt("more query predicates than the rules name") }
        guard predicateIDs.allSatisfy({ Int($0) < predicateCount }) else {
            throw .corrupt("a query predicate number is out of range")
        }
        // PERF: a table-backed automaton's NFA left stored (format 6): a URL with first use on
        // the 10 000-domain fleet stream 2 714 -> 2 362 instructions (`AASA_BENCH_KEEP_FLEET=1
        // aasa-bench --suite fleet`, `aasa classify --compiled --jobs 1`, callgrind, stream −
        // empty input), the stream's wall time after start-up 245 -> 225 ms (medians of 21
        // alternated runs), records identical.
        // The body's compile-time tables share one `eager-dfa-work`, as compiling it did.
        let budget = EagerBudget(configuration.automata.eagerMaxWork)
        // `nfa-states` holds for the body's automata together, as it did when they were
        // compiled (`DocumentNFAs`): each is held to what the ones before it left.
        var statesUsed = 0
        func automaton(tagLimit: Int) throws(ArtifactError) -> LazyDFA {
            var limits = configuration.automata
            limits.maxNFAStates -= statesUsed
            do {
                let (dfa, states) = try automaton(tagLimit: tagLimit, limits: limits)
                statesUsed += states
                return dfa
            } catch .overLimit(.nfaStates, let found, _) {
                throw .overLimit(.nfaStates, found: statesUsed + found, maximum: configuration.automata.maxNFAStates)
            }
        }
        /// The automaton and the NFA states it declares.
        func automaton(tagLimit: Int, limits: Configuration.Automata) throws(ArtifactError) -> (LazyDFA, Int) {
            // The NFA is stepped over first: with a table that is kept, it stays stored.
            let nfaBytes = try reader.length(elementSize: 1)
            let stored = try reader.bytes(nfaBytes)
            let form = try reader.uint8()
            guard form <= Self.storedLazyAndLarge else { throw .corrupt("unknown automaton form") }
            if form == Self.storedTable {
                let table = try LazyDFA.Prebuilt.decode(from: &reader, nfaBytes: nfaBytes, tagLimit: tagLimit)
                // `eager-dfa-states` bounds the tables a process holds, whoever built them: a
                // larger table is left out and the automaton runs lazily, as it does compiled
                // under that limit (0, always lazy, is how the tests exercise the cache).
                if table.stateCount <= configuration.automata.eagerMaxStates {
                    let deferred = try Self.deferredNFA(stored, tagLimit: tagLimit, limits: limits)
                    do {
                        return (
                            try Planner.automaton(deferred: deferred, table: table, configuration: configuration.automata),
                            deferred.declaredStateCount
                        )
                    } catch {
                        throw Self.loadingError(error)
                    }
                }
            }
            var nfaReader = BinaryReader(stored)
            let nfa = try Self.decodeNFA(from: &nfaReader, tagLimit: tagLimit, limits: limits)
            do {
                var automata = Self.loadingConfiguration(nfa: nfa, encodedBytes: nfaBytes, configuration.automata)
                if form == Self.storedLazyAndLarge { automata.eagerMaxStates = 0 }
                return (try Planner.automaton(nfa, configuration: automata, budget: budget), nfa.stateCount)
            } catch {
                throw Self.loadingError(error)
            }
        }
        var splits: [SuffixSplit?] = []
        let splitModes = Int(try reader.uint8())
        guard splitModes < 1 << TextMode.all.count else { throw .corrupt("unknown split modes") }
        for mode in TextMode.all {
            guard splitModes >> mode.index & 1 == 1 else {
                splits.append(nil)
                continue
            }
            let prefixes = try reader.texts()
            var entries: [SuffixSplit.Entry] = []
            for _ in 0..<(try reader.length(elementSize: 3)) {
                let group = try reader.natural()
                let suffix = try reader.text()
                let rule = try reader.natural()
                guard group < prefixes.count, rule < rules.count, !suffix.isEmpty else {
                    throw .corrupt("a split path pattern names an unknown prefix or rule")
                }
                entries.append(SuffixSplit.Entry(group: Int32(group), suffix: suffix, rule: Int32(rule)))
            }
            splits.append(SuffixSplit(groupBase: Int32(rules.count), prefixes: prefixes, entries: entries))
        }
        let present = try reader.fixed(width: 2)
        guard present < 1 << (3 * TextMode.all.count) else { throw .corrupt("unknown automata") }
        var components: [[LazyDFA?]] = []
        for component in 0..<3 {
            var perMode: [LazyDFA?] = []
            for mode in TextMode.all {
                guard present >> (component * TextMode.all.count + mode.index) & 1 == 1 else {
                    perMode.append(nil)
                    continue
                }
                // Path automata of a split mode also accept its prefix groups' tags.
                let groups = component == 0 ? splits[mode.index]?.prefixes.count ?? 0 : 0
                perMode.append(try automaton(tagLimit: rules.count + groups))
            }
            components.append(perMode)
        }
        var groups: [[ExactString: QueryGroup]] = []
        for _ in TextMode.all {
            var modeGroups: [ExactString: QueryGroup] = [:]
            for _ in 0..<(try reader.length(elementSize: 3)) {
                let name = try reader.text()
                let dfa = try automaton(tagLimit: predicateCount)
                let predicates = try reader.naturals()
                let failOnMissing = try reader.naturals()
                guard (predicates + failOnMissing).allSatisfy({ Int($0) < predicateCount }) else {
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
