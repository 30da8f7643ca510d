/// Walks the space of all URLs of a domain through the product of one or two documents'
/// automata, and reports every distinct outcome (which rules match together) with example URLs.
///
/// This is what lets lint, diff and cover *prove* things instead of sampling. A URL is written
/// phase by phase: the path, then the query (its text, or one value per item name the
/// documents mention, each possibly repeated), then the fragment. Inside a phase the explorer
/// steps every automaton of that component at once, byte class by byte class (the subset
/// construction of the matcher, shared through `Determinizer`); at the end of a phase it keeps
/// the rules whose component matched. A product state is (phase, text context, one DFA state per
/// automaton, the rules still alive); breadth-first search over these states visits each once,
/// so it terminates, and the first URL found for an outcome is a shortest one.
///
/// An *outcome* is the set of rules that match one URL. From the set of all reachable outcomes
/// follow the decisions of every app for every URL: a rule that decides in no outcome is
/// unreachable, two documents whose outcomes give the same decisions are equivalent.
///
/// Exactness: when every rule of both documents compares text in one mode, texts are that
/// mode's normalised text and the exploration is exact (`Result.exact`). With several modes,
/// `Strategy` says what is given up: real outcomes only, but maybe not all (lint, cover); all
/// real outcomes, with pairings no one URL has (diff's proof); or URLs read through every
/// mode, for witnesses only. A state budget bounds the work (`Result.complete`).
struct URLExplorer {
    /// One reachable outcome: per document, the rules that all match some URL; and URLs that
    /// show it (up to the requested number, shortest first).
    struct Outcome {
        var alive: [Bitset]
        var witnesses: [String]
        /// The same URLs spelled with another mode class's text for some component
        /// (`Strategy.perModeClass` writes one text per class; `witnesses` spell the first).
        /// One of them may have the outcome for real where the first spelling does not.
        var otherSpellings: [String] = []
    }

    struct Result {
        var outcomes: [Outcome]
        /// Every rule compares in one mode and the query is modelled exactly: an outcome not
        /// listed is impossible (when `complete` too).
        var exact: Bool
        /// The search ended within its state budget.
        var complete: Bool
        var policy: ComponentText.Policy
        /// Whether each outcome's URLs have it for real (the matcher still re-checks them). A
        /// walk that reads each mode class on a text of its own (`Strategy.perModeClass`) finds
        /// every real outcome, but may pair texts no one URL has.
        var witnessesAreReal = true
        /// What the walk spent of its budgets (states visited, NFA positions stepped).
        var states = 0
        var work = 0
        /// The limit an incomplete walk ran out of (`analysis-states` or `analysis-work`).
        var exhausted: Configuration.Limit?

        /// Whether "no URL does X" follows from X being absent from the outcomes.
        var isProof: Bool { exact && complete }

        /// Why the outcomes are not a proof, for people; empty when they are.
        func incompleteness(_ sides: [AnalysisDocument]) -> [String] {
            var reasons: [String] = []
            if !complete {
                let limit = exhausted ?? .analysisStates
                reasons.append("the exploration hit its \(limit == .analysisWork ? "work" : "state") budget (\(limit.hint))")
            }
            if !exact && policy == .common {
                reasons.append("rules compare text in ways the search cannot read alike (percentEncoded differs, or caseSensitive differs with non-ASCII literals or query items)")
            }
            if !exact && sides.contains(where: \.hasTextQueries) && sides.contains(where: \.hasItemQueries) {
                reasons.append("query rules mix text patterns and item dictionaries")
            }
            return reasons
        }
    }

    let sides: [AnalysisDocument]
    let domain: String
    let maxStates: Int
    /// Budget of determinisation work (NFA positions stepped and visited by closures), which is
    /// what large subsets cost; deterministic, unlike a deadline, so the same document always
    /// gives the same report. A closure is abandoned as soon as it passes what is left.
    let maxWork: Int
    let witnessesPerOutcome: Int

    /// The budgets have no defaults: every analysis passes its configuration's, so that
    /// `--limit analysis-states` and `analysis-work` reach each one.
    init(sides: [AnalysisDocument], domain: String, maxStates: Int, maxWork: Int, witnessesPerOutcome: Int = 1) {
        self.sides = sides
        self.domain = domain
        self.maxStates = maxStates
        self.maxWork = maxWork
        self.witnessesPerOutcome = witnessesPerOutcome
    }

    /// How the walk writes texts when rules compare them in several ways.
    enum Strategy {
        /// One text per component for every automaton; with modes it cannot read alike, only
        /// bytes all modes read the same (`ComponentText.Policy.common`): real outcomes, but
        /// not a proof. What lint and cover use.
        case standard
        /// Like `standard` when that is a proof; otherwise each *mode class* (rules that read
        /// one written text alike: one decoding, and both cases when folding can be applied
        /// on the fly) gets a text of its own, query text and item values are written
        /// independently, and each query item is written per mode. Every real URL's outcome is
        /// among the outcomes (each class's text ranges over all its real texts), so absence
        /// is a proof; but an outcome may pair texts that no one URL has.
        case perModeClass
        /// The URL text as written, read by every automaton through its own normalisation:
        /// percent-decoding and ASCII folding on the fly. Outcomes are those of real URLs up to
        /// what is not modelled (NFC, folding beyond ASCII, decoded bytes that are not UTF-8),
        /// which the matcher's re-check filters out; not a proof. What diff uses for witnesses
        /// when `perModeClass` pairs texts. With rules of both query shapes, one walk cannot
        /// write the query as text and as items at once: it writes the text, and
        /// `rawQueryItems` the items.
        case rawText
        /// `rawText` writing query items where rules of both shapes exist (text query rules
        /// are then not taken down by the query).
        case rawQueryItems

        /// The walks on the URL's own text that `sides` need: the query as items too when
        /// their rules have both query shapes.
        static func rawTextWalks(_ sides: [AnalysisDocument]) -> [Strategy] {
            sides.contains(where: \.hasTextQueries) && sides.contains(where: \.hasItemQueries) ? [.rawText, .rawQueryItems] : [.rawText]
        }
    }

    /// `everyRule` keeps every rule in the outcomes of a `perModeClass` or `rawText` walk,
    /// which otherwise drop the rules that can no longer decide (diff needs decisions only;
    /// lint's proofs ask about every rule).
    func explore(_ strategy: Strategy = .standard, everyRule: Bool = false) -> Result {
        let modes = sides.reduce(into: Set<TextMode>()) { $0.formUnion($1.modes) }
        let textQueries = sides.contains { $0.hasTextQueries }
        let itemQueries = sides.contains { $0.hasItemQueries }
        let policy = Self.policy(modes: modes, sides: sides)
        let exact = policy != .common && !(textQueries && itemQueries)
        let phases: [Phase]
        var result = Result(outcomes: [], exact: exact, complete: false, policy: policy)
        switch strategy {
        case .perModeClass where !exact:
            phases = makeClassPhases(modes: modes, textQueries: textQueries, itemQueries: itemQueries)
            result.exact = true
            result.witnessesAreReal = false
        case .rawText:
            phases = makeRawTextPhases(textQueries: textQueries, itemQueries: itemQueries && !textQueries)
            result.exact = false
        case .rawQueryItems:
            phases = makeRawTextPhases(textQueries: false, itemQueries: itemQueries)
            result.exact = false
        case .standard, .perModeClass:
            phases = makePhases(policy: policy, textQueries: textQueries, itemQueries: itemQueries && !textQueries)
        }
        let tally = WorkTally()
        for phase in phases {
            for track in phase.tracks {
                track.maxWork = maxWork
                tally.total += track.work
                track.tally = tally
            }
        }
        // Diff needs only decisions; lint and cover ask about every rule. A walk that never
        // takes text query rules down (`rawQueryItems`) keeps every rule too: those rules would
        // otherwise hide every later rule they share apps with, for URLs whose query they do
        // not match.
        let decisionsOnly = !everyRule && (strategy == .perModeClass || strategy == .rawText)
        var search = Search(explorer: self, phases: phases, tally: tally, decisionsOnly: decisionsOnly)
        result.complete = search.run()
        result.states = search.nodes.count
        result.work = search.work
        result.outcomes = search.outcomes
        if !result.complete { result.exhausted = search.nodes.count > maxStates ? .analysisStates : .analysisWork }
        return result
    }

    /// The text the explorer writes. One mode: that mode's text. Case-sensitive and
    /// case-insensitive rules together (same decoding): unfolded text, which the
    /// case-insensitive automata read folded (`Track.foldsInput`); exact when their literals
    /// are ASCII and item names compare one way. Anything else: the common bytes.
    static func policy(modes: Set<TextMode>, sides: [AnalysisDocument]) -> ComponentText.Policy {
        guard let first = modes.first else { return .exact(TextMode(decoded: false, folded: false)) }
        if modes.count == 1 { return .exact(first) }
        guard Set(modes.map(\.decoded)).count == 1, sides.allSatisfy({ $0.foldedLiteralsAreASCII }),
            Set(sides.flatMap(\.itemCases)).count <= 1
        else { return .common }
        return .exact(TextMode(decoded: first.decoded, folded: false))
    }

    /// The phases a URL is written in, each with the automata that read it.
    private func makePhases(policy: ComponentText.Policy, textQueries: Bool, itemQueries: Bool) -> [Phase] {
        var phases: [Phase] = []
        func tracks(_ automaton: (AnalysisDocument, TextMode) -> NFA?) -> [Track] {
            var result: [Track] = []
            for (side, document) in sides.enumerated() {
                for mode in TextMode.all {
                    guard let nfa = automaton(document, mode) else { continue }
                    var transform = Track.Transform.none
                    if case .exact(let space) = policy, mode.folded && !space.folded { transform = .foldASCII }
                    result.append(Track(nfa: nfa, side: side, transform: transform))
                }
            }
            return result
        }
        phases.append(Phase(kind: .path, tracks: tracks { $0.path[$1.index] }, policy: policy, modes: TextMode.all))
        if textQueries {
            phases.append(Phase(kind: .query, tracks: tracks { $0.queryText[$1.index] }, policy: policy, modes: TextMode.all))
        }
        if itemQueries {
            for key in itemNames(modes: TextMode.all) {
                let name = key.string
                var phase = Phase(
                    kind: .itemValue(name: name), tracks: tracks { $0.items[$1.index][key]?.nfa }, policy: policy, modes: TextMode.all)
                if !ComponentText.canWriteName(name, policy: policy) { phase.forbidAllBytes() }
                phases.append(phase)
            }
        }
        if hasFragmentRules {
            phases.append(Phase(kind: .fragment, tracks: tracks { $0.fragment[$1.index] }, policy: policy, modes: TextMode.all))
        }
        return phases
    }

    private var hasFragmentRules: Bool {
        sides.contains { side in side.compiledRules.contains { side.fragmentConstrained[$0] } }
    }

    /// The query item names some rule in `modes` compares, in byte order.
    private func itemNames(modes: [TextMode]) -> [ExactString] {
        var names = Set<ExactString>()
        for document in sides { for mode in modes { names.formUnion(document.items[mode.index].keys) } }
        return names.sorted { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }
    }

    /// `Strategy.perModeClass`: per component, one phase per mode class, each writing the text
    /// its class compares; item values per (mode, name), since a name may stand for different
    /// items in different modes.
    ///
    /// Why this is a proof: a real URL gives each class one text, which that class's phase can
    /// write (its policy is the class's own exact one), and each (mode, name) a list of values,
    /// which that item's phase can write; the phases are independent, so the walk reaches that
    /// combination, and each automaton reads there exactly what the matcher would.
    private func makeClassPhases(modes: Set<TextMode>, textQueries: Bool, itemQueries: Bool) -> [Phase] {
        var classes: [(written: TextMode, modes: [TextMode])] = []
        for decoded in [false, true] {
            let group = modes.filter { $0.decoded == decoded }.sorted()
            // Both cases read one unfolded text when folding on the fly is exact (ASCII
            // literals, as in `policy(modes:sides:)`); item names are written per mode anyway.
            if group.count == 2, sides.allSatisfy(\.foldedLiteralsAreASCII) {
                classes.append((TextMode(decoded: decoded, folded: false), group))
            } else {
                classes += group.map { ($0, [$0]) }
            }
        }
        var phases: [Phase] = []
        func addPhases(_ kind: ComponentText.Kind, _ automaton: (AnalysisDocument, TextMode) -> NFA?) {
            for modeClass in classes {
                var tracks: [Track] = []
                for (side, document) in sides.enumerated() {
                    for mode in modeClass.modes {
                        guard let nfa = automaton(document, mode) else { continue }
                        tracks.append(Track(nfa: nfa, side: side, transform: mode.folded && !modeClass.written.folded ? .foldASCII : .none))
                    }
                }
                // A class with no automaton for this component has nothing to decide in it.
                if tracks.isEmpty && kind != .path { continue }
                phases.append(Phase(kind: kind, tracks: tracks, policy: .exact(modeClass.written), modes: modeClass.modes))
            }
        }
        addPhases(.path) { $0.path[$1.index] }
        if textQueries { addPhases(.query) { $0.queryText[$1.index] } }
        if itemQueries {
            for mode in modes.sorted() {
                for key in itemNames(modes: [mode]) {
                    var tracks: [Track] = []
                    for (side, document) in sides.enumerated() {
                        if let nfa = document.items[mode.index][key]?.nfa { tracks.append(Track(nfa: nfa, side: side, transform: .none)) }
                    }
                    var phase = Phase(kind: .itemValue(name: key.string), tracks: tracks, policy: .exact(mode), modes: [mode])
                    if !ComponentText.canWriteName(key.string, policy: .exact(mode)) { phase.forbidAllBytes() }
                    phases.append(phase)
                }
            }
        }
        if hasFragmentRules { addPhases(.fragment) { $0.fragment[$1.index] } }
        return phases
    }

    /// `Strategy.rawText`: the URL's own text, each automaton reading it through its mode.
    private func makeRawTextPhases(textQueries: Bool, itemQueries: Bool) -> [Phase] {
        let policy = ComponentText.Policy.exact(TextMode(decoded: false, folded: false))
        // The capitals of case-insensitive literals (É for é): what a URL differing only in
        // case from a literal spells.
        var capitals: [[UInt8]: [UInt8]] = [:]
        for document in sides {
            for scalar in document.foldedNonASCIIScalars() {
                for capital in Self.capitals[scalar] ?? [] { capitals[Array(String(capital).utf8)] = Array(String(scalar).utf8) }
            }
        }
        let capitalBytes = Set(capitals.keys.joined()).sorted()
        func tracks(_ automaton: (AnalysisDocument, TextMode) -> NFA?) -> [Track] {
            var result: [Track] = []
            for (side, document) in sides.enumerated() {
                for mode in TextMode.all {
                    guard let nfa = automaton(document, mode) else { continue }
                    let transform: Track.Transform = mode.folded ? .foldScalars(decodes: mode.decoded) : mode.decoded ? .decode : .none
                    result.append(Track(nfa: nfa, side: side, transform: transform, capitals: capitals))
                }
            }
            return result
        }
        var phases = [Phase(kind: .path, tracks: tracks { $0.path[$1.index] }, policy: policy, modes: TextMode.all, capitals: capitalBytes)]
        if textQueries {
            phases.append(
                Phase(kind: .query, tracks: tracks { $0.queryText[$1.index] }, policy: policy, modes: TextMode.all, capitals: capitalBytes))
        }
        if itemQueries {
            for key in itemNames(modes: TextMode.all) {
                var phase = Phase(
                    kind: .itemValue(name: key.string), tracks: tracks { $0.items[$1.index][key]?.nfa }, policy: policy,
                    modes: TextMode.all, capitals: capitalBytes)
                if !ComponentText.canWriteName(key.string, policy: policy) { phase.forbidAllBytes() }
                phases.append(phase)
            }
        }
        if hasFragmentRules {
            phases.append(
                Phase(kind: .fragment, tracks: tracks { $0.fragment[$1.index] }, policy: policy, modes: TextMode.all, capitals: capitalBytes))
        }
        return phases
    }

    /// Per folded non-ASCII scalar, the scalars that fold to it (`TextNormalization.fold`).
    static let capitals: [Unicode.Scalar: [Unicode.Scalar]] = {
        var table: [Unicode.Scalar: [Unicode.Scalar]] = [:]
        for (value, lower) in TextNormalization.foldTable {
            if let capital = Unicode.Scalar(value) { table[lower, default: []].append(capital) }
        }
        return table
    }()
}

extension URLExplorer {
    /// One automaton being stepped, with its subsets interned and its transitions memoised.
    ///
    /// A track that folds (`Transform.foldASCII`) reads the written text folded (SPEC 11): ASCII
    /// capitals as lower case, and the Kelvin sign U+212A (E2 84 AA), the one non-ASCII scalar
    /// that folds to ASCII, as `k`. Its state then also remembers how much of E2 84 it has seen:
    /// state ids are `subset * 3 + pending`. A decoding track (`Transform.decode`) reads a
    /// written escape `%XY` as the byte XY (SPEC 12; `escape(_:byte:)`), every other byte as
    /// itself. A scalar-folding track (`Transform.foldScalars`) gathers the bytes of a scalar
    /// and reads it folded: its states are (subset, pending bytes) pairs, interned as met.
    /// The work of one exploration, shared by its tracks.
    final class WorkTally {
        var total = 0
    }

    final class Track {
        enum Transform: Equatable {
            case none
            case foldASCII
            /// Percent-decoding. NFC and the fallback for decoded bytes that are not UTF-8 are
            /// not modelled: only `Strategy.rawText`, whose outcomes are not proofs, uses it.
            case decode
            /// Simple case folding (SPEC 11) of ASCII and of the capitals the track is given,
            /// after percent-decoding when `decodes`; other scalars are read as they are (so
            /// that only bytes that may spell a capital are held back). For `Strategy.rawText`
            /// only, like `decode`.
            case foldScalars(decodes: Bool)
        }

        /// The (subset, bytes of an unfinished scalar) pairs of a `foldScalars` track.
        private struct ScalarState: Hashable {
            var subset: Int32
            var pending: [UInt8]
        }
        private var scalarStates: [ScalarState] = []
        private var scalarIDs: [ScalarState: Int32] = [:]

        let side: Int
        let transform: Transform
        let determinizer: Determinizer
        /// The determiniser's reused buffers: a step that lands on a known subset allocates
        /// nothing.
        private let scratch: StateScratch
        private var subsets = InternedSubsets()
        /// What the walk reads at every step, memoised: `table[state * classCount + class]`
        /// and `escapes[state * escapeCount + escapeIndex[byte]]`, -1 while unknown, grown as
        /// states are found. Held in one `UnsharedCell`: as the class's own stored properties,
        /// every read was checked for exclusive access at run time, about a fifth of a walk's
        /// instructions. A track belongs to one walk, and its reads and writes do not nest.
        private struct Memo {
            var table: [Int32] = []
            var classCount = 0
            var representatives: [UInt8] = []
            var escapes: [Int32] = []
            var escapeIndex = [Int16](repeating: -1, count: 256)
            var escapeCount = 0
        }
        private let memo = UnsharedCell(Memo())
        private(set) var start: Int32 = 0
        /// NFA positions stepped so far: the cost of determinisation.
        private(set) var work = 0 {
            didSet { tally.total += work - oldValue }
        }
        /// The whole exploration's work, over every track (set by `explore`): read at every
        /// node, so it must not cost a walk over thousands of query item tracks.
        var tally = WorkTally()
        /// The exploration's work budget: a closure is abandoned as it passes what is left of
        /// it (set by `explore` for every track of its phases).
        var maxWork = Int.max

        /// A `foldScalars` track's capitals (UTF-8 → folded UTF-8), and their proper prefixes.
        private let capitals: [[UInt8]: [UInt8]]
        private let capitalPrefixes: Set<[UInt8]>

        init(nfa: NFA, side: Int, transform: Transform, capitals: [[UInt8]: [UInt8]] = [:]) {
            self.side = side
            self.transform = transform
            determinizer = Determinizer(nfa: nfa)
            scratch = StateScratch(stateCount: nfa.stateCount)
            self.capitals = capitals
            var prefixes = Set<[UInt8]>()
            for capital in capitals.keys {
                for length in 1..<max(capital.count, 1) { prefixes.insert(Array(capital.prefix(length))) }
            }
            capitalPrefixes = prefixes
        }

        var foldsASCII: Bool {
            switch transform {
            case .none, .decode: return false
            case .foldASCII, .foldScalars: return true
            }
        }

        /// Whether the track reads escapes decoded.
        var decodes: Bool {
            switch transform {
            case .none, .foldASCII, .foldScalars(decodes: false): return false
            case .decode, .foldScalars(decodes: true): return true
            }
        }

        private var foldsScalars: Bool {
            if case .foldScalars = transform { return true }
            return false
        }

        private var statesPerSubset: Int32 { transform == .foldASCII ? 3 : 1 }

        /// Fixes the byte classes of the phase and the bytes it writes escaped; state 0 is the
        /// dead state.
        func prepare(classCount: Int, representatives: [UInt8], escapes: [UInt8]) {
            memo.value.classCount = classCount
            memo.value.representatives = representatives
            for (index, byte) in escapes.enumerated() { memo.value.escapeIndex[Int(byte)] = Int16(index) }
            memo.value.escapeCount = escapes.count
            // The dead subset first (no positions, no tags), as id 0.
            scratch.seeds.removeAll()
            _ = determinizer.closeSeeds(scratch: scratch, cap: 0)
            _ = intern()
            scratch.seeds.removeAll()
            scratch.seeds.append(Determinizer.pack(determinizer.nfa.start, continuation: -1))
            guard determinizer.closeSeeds(scratch: scratch, cap: maxWork) else {
                overBudget()
                return
            }
            work += scratch.visits
            start = intern() * statesPerSubset
            if foldsScalars {
                _ = internScalar(ScalarState(subset: 0, pending: []))
                start = internScalar(ScalarState(subset: start, pending: []))
            }
        }

        /// The state id of a `foldScalars` pair; the dead subset is the dead state whatever
        /// is pending.
        private func internScalar(_ state: ScalarState) -> Int32 {
            let key = state.subset == 0 ? ScalarState(subset: 0, pending: []) : state
            if let id = scalarIDs[key] { return id }
            let id = Int32(scalarStates.count)
            scalarStates.append(key)
            scalarIDs[key] = id
            memo.value.table.append(contentsOf: repeatElement(-1, count: memo.value.classCount))
            return id
        }

        /// A `foldScalars` track's next state on `byte` (decoded already when it decodes): a
        /// capital is fed folded once whole, ASCII at once, anything else as it is.
        private func absorb(_ state: Int32, _ byte: UInt8) -> Int32 {
            guard state != 0 else { return 0 }
            let subset = scalarStates[Int(state)].subset
            let pending = scalarStates[Int(state)].pending + [byte]
            if let folded = capitals[pending] { return internScalar(ScalarState(subset: feed(subset, folded), pending: [])) }
            if capitalPrefixes.contains(pending) { return internScalar(ScalarState(subset: subset, pending: pending)) }
            let read = pending.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            return internScalar(ScalarState(subset: feed(subset, read), pending: []))
        }

        /// The id (not a state id) of the subset the last closure left in `scratch`.
        private func intern() -> Int32 {
            let (id, isNew) = subsets.intern(scratch)
            // A scalar-folding track's table rows are its (subset, pending) states.
            if isNew, !foldsScalars { memo.value.table.append(contentsOf: repeatElement(-1, count: memo.value.classCount * Int(statesPerSubset))) }
            return id
        }

        func step(_ state: Int32, class cls: Int) -> Int32 {
            let slot = Int(state) * memo.value.classCount + cls
            let known = memo.value.table[slot]
            if known >= 0 { return known }
            let next = state == 0 ? 0 : transition(state, memo.value.representatives[cls])
            memo.value.table[slot] = next
            return next
        }

        private func transition(_ state: Int32, _ byte: UInt8) -> Int32 {
            let subset = state / statesPerSubset
            switch transform {
            case .none, .decode: return feed(subset, byte)
            case .foldASCII: break
            case .foldScalars: return absorb(state, byte)
            }
            switch (state % 3, byte) {
            case (0, 0xE2): return subset * 3 + 1
            case (0, _): return feed(subset, (0x41...0x5A).contains(byte) ? byte | 0x20 : byte) * 3
            case (1, 0x84): return subset * 3 + 2
            case (1, _): return feed(subset, [0xE2, byte]) * 3
            case (_, 0xAA): return feed(subset, UInt8(ascii: "k")) * 3
            default: return feed(subset, [0xE2, 0x84, byte]) * 3
            }
        }

        /// The state after the escape `%XY` of `byte` is written: one decoded byte for a decoding
        /// track, three bytes for the others (escapes are ASCII: never inside a Kelvin sign).
        func escape(_ state: Int32, byte: UInt8) -> Int32 {
            let column = Int(memo.value.escapeIndex[Int(byte)])
            // Every byte a phase writes escaped was given to `prepare`; any other is worked out
            // each time.
            guard column >= 0 else { return escaping(state, byte: byte) }
            let slot = Int(state) * memo.value.escapeCount + column
            if slot >= memo.value.escapes.count {
                memo.value.escapes.append(contentsOf: repeatElement(-1, count: (Int(state) + 1) * memo.value.escapeCount - memo.value.escapes.count))
            }
            let known = memo.value.escapes[slot]
            if known >= 0 { return known }
            let next = escaping(state, byte: byte)
            memo.value.escapes[slot] = next
            return next
        }

        private func escaping(_ state: Int32, byte: UInt8) -> Int32 {
            guard state != 0 else { return 0 }
            if decodes { return transition(state, byte) }
            var next = state
            for written in WitnessURL.escape(byte) where next != 0 { next = transition(next, written) }
            return next
        }

        /// The subset after reading `bytes` from subset `id`.
        private func feed(_ id: Int32, _ bytes: [UInt8]) -> Int32 {
            var current = id
            for byte in bytes where current != 0 { current = feed(current, byte) }
            return current
        }

        /// The subset after reading `byte` from subset `id`.
        private func feed(_ id: Int32, _ byte: UInt8) -> Int32 {
            guard id != 0 else { return 0 }
            work += subsets.positionCount(id) + 1
            subsets.withPositions(id) { determinizer.collectSeeds(from: $0, on: byte, scratch: scratch) }
            guard determinizer.closeSeeds(scratch: scratch, cap: max(0, maxWork - work)) else {
                overBudget()
                return 0
            }
            work += scratch.visits
            return intern()
        }

        /// A closure passed what was left of the budget: the exploration stops at its next
        /// node (`Search.run` checks `work`), incomplete, so nothing is claimed from it.
        private func overBudget() {
            work = maxWork + 1
        }

        /// The rules accepted when the text ends in `state` (a folding track is never inside the
        /// Kelvin sign there: texts end on whole scalars; decoded bytes may not, and are read
        /// as they are).
        func tags(_ state: Int32) -> [Int32] {
            guard foldsScalars else { return subsets.tags[Int(state / statesPerSubset)] }
            let pair = scalarStates[Int(state)]
            return subsets.tags[Int(pair.pending.isEmpty ? pair.subset : feed(pair.subset, pair.pending))]
        }
    }

    /// One component of the URL: its automata and the byte classes that tell them, and the text
    /// context, apart.
    struct Phase {
        let kind: ComponentText.Kind
        let tracks: [Track]
        /// What texts the phase writes, and how its URL text is spelled.
        let policy: ComponentText.Policy
        /// `modes[mode.index]`: whether the rules of that mode get their component decided here.
        let modes: [Bool]
        var classOf: [UInt8]
        /// The allowed classes, best representative first.
        var order: [Int]
        var representatives: [UInt8]
        /// With decoding tracks (`Strategy.rawText`): one byte per class of what they read,
        /// each written as an escape `%XY` in one step; `%` is then never written alone, so
        /// every track reads the escape as the matcher would.
        var escapes: [UInt8] = []

        /// `capitals`: bytes of scalars whose folded form some case-insensitive literal holds,
        /// each made a class of its own so that the walk can write them.
        init(kind: ComponentText.Kind, tracks: [Track], policy: ComponentText.Policy, modes: [TextMode], capitals: [UInt8] = []) {
            self.kind = kind
            self.tracks = tracks
            self.policy = policy
            var decided = [Bool](repeating: false, count: 4)
            for mode in modes { decided[mode.index] = true }
            self.modes = decided
            var allowed = ComponentText.allowedBytes(kind, policy: policy)
            let decoding = tracks.filter(\.decodes)
            if !decoding.isEmpty {
                allowed[Int(UInt8(ascii: "%"))] = false
                var escapeBoundaries = [Bool](repeating: false, count: 257)
                // An escaped `/` is trimmed at a decoded path's end (`Node.slashRun`), whatever
                // the automata say of `/`.
                escapeBoundaries[Int(UInt8(ascii: "/"))] = true
                escapeBoundaries[Int(UInt8(ascii: "/")) + 1] = true
                for byte in capitals {
                    escapeBoundaries[Int(byte)] = true
                    escapeBoundaries[Int(byte) + 1] = true
                }
                for track in decoding {
                    let classes = track.determinizer.nfa.byteClasses().classOf
                    let read = { (byte: Int) in track.foldsASCII && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                    for byte in 1..<256 where classes[read(byte)] != classes[read(byte - 1)] { escapeBoundaries[byte] = true }
                }
                var best: [UInt8] = []
                for byte in 0..<256 {
                    if byte == 0 || escapeBoundaries[byte] {
                        best.append(UInt8(byte))
                    } else if ComponentText.rank(UInt8(byte)) < ComponentText.rank(best[best.count - 1]) {
                        best[best.count - 1] = UInt8(byte)
                    }
                }
                // A raw automaton that reads `%` itself (a raw pattern spelling `%20`) tells
                // escapes apart by their hex digits: the bytes whose escapes spell each pair of
                // the hex digits it distinguishes are written too.
                var nibbles = Set<UInt8>()
                for track in tracks where !track.decodes {
                    let classes = track.determinizer.nfa.byteClasses().classOf
                    let read = { (byte: UInt8) in track.foldsASCII && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                    let percent = Int(UInt8(ascii: "%"))
                    guard classes[percent] != classes[percent - 1] || classes[percent] != classes[percent + 1] else { continue }
                    var seenClasses = Set<UInt8>()
                    for (nibble, digit) in "0123456789ABCDEF".utf8.enumerated() where seenClasses.insert(classes[Int(read(digit))]).inserted {
                        nibbles.insert(UInt8(nibble))
                    }
                }
                for high in nibbles {
                    for low in nibbles { best.append(high << 4 | low) }
                }
                escapes = Array(Set(best)).sorted { (ComponentText.rank($0), $0) < (ComponentText.rank($1), $1) }
            }
            var boundaries = [Bool](repeating: false, count: 257)
            for track in tracks {
                let classes = track.determinizer.nfa.byteClasses().classOf
                // A folding track reads byte b as fold(b): classes by what it reads.
                let read = { (byte: Int) in track.foldsASCII && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                for byte in 1..<256 where classes[read(byte)] != classes[read(byte - 1)] { boundaries[byte] = true }
                if track.transform == .foldASCII {
                    for byte in [0xE2, 0xE3, 0x84, 0x85, 0xAA, 0xAB] { boundaries[byte] = true }
                }
            }
            for byte in 1..<256 where allowed[byte] != allowed[byte - 1] { boundaries[byte] = true }
            for byte in capitals {
                boundaries[Int(byte)] = true
                boundaries[Int(byte) + 1] = true
            }
            for byte in ComponentText.utf8Boundaries { boundaries[byte] = true }
            boundaries[Int(UInt8(ascii: "/"))] = true
            boundaries[Int(UInt8(ascii: "/")) + 1] = true
            var classOf = [UInt8](repeating: 0, count: 256)
            var current = 0
            for byte in 0..<256 {
                if byte > 0, boundaries[byte] { current += 1 }
                classOf[byte] = UInt8(current)
            }
            let count = current + 1
            var best = [Int](repeating: -1, count: count)
            for byte in 0..<256 where allowed[byte] {
                let cls = Int(classOf[byte])
                if best[cls] < 0 || ComponentText.rank(UInt8(byte)) < ComponentText.rank(UInt8(best[cls])) { best[cls] = byte }
            }
            self.classOf = classOf
            representatives = best.map { UInt8(truncatingIfNeeded: max($0, 0)) }
            order = (0..<count).filter { best[$0] >= 0 }.sorted { ComponentText.rank(UInt8(best[$0])) < ComponentText.rank(UInt8(best[$1])) }
            for track in tracks { track.prepare(classCount: count, representatives: representatives, escapes: escapes) }
        }

        /// A query item whose name no URL can carry: its value is always the empty one.
        mutating func forbidAllBytes() {
            order = []
            escapes = []
        }
    }

    /// A product state.
    struct Node: Equatable {
        let phase: Int
        let context: ComponentText.Context
        let states: [Int32]
        /// The rules still alive and the predicates holding, by id (`Search.ruleSets`): they
        /// change only where a text ends, so a byte's step copies an id rather than their sets.
        let rules: Int32
        /// In a path that decoding tracks read (`Phase.escapes`), ending in a run of `/`
        /// written or escaped: the tracks' states where the run began. The matcher trims a
        /// decoded path's trailing `/` (SPEC 6, 12), so a decoding track ends there; empty
        /// otherwise.
        var slashRun: [Int32] = []

        /// The node after a byte is written: the same rules and predicates.
        func child(context: ComponentText.Context, states: [Int32], slashRun: [Int32]) -> Node {
            Node(phase: phase, context: context, states: states, rules: rules, slashRun: slashRun)
        }

        /// Every field folded into one word (`WordMix`), for `Search.nodeIndex`: the search
        /// looks a node up per step, and field by field through `Hasher` that was most of a
        /// step's cost.
        // PERF: `aasa cover --limit analysis-work=10000000` of 1 100 rules of eight query items
        // (`HostileInputCLITests.test_coverRuleByRuleSearches_shareOneBudgetThatCountsTheirStates`'s
        // document), callgrind with `SWIFT_DETERMINISTIC_HASHING=1`: 17.27 G → 9.49 G
        // instructions once folded for `Hasher`; `aasa lint` of artsy's real file 3.25 G → 2.94 G.
        var fold: UInt64 {
            var folded = WordMix.mix(WordMix.seed, UInt64(truncatingIfNeeded: phase) << 32 | UInt64(UInt32(bitPattern: rules)))
            for state in states { folded = WordMix.mix(folded, UInt64(UInt32(bitPattern: state))) }
            folded = WordMix.mix(folded, UInt64(states.count) | 1 << 40)
            for state in slashRun { folded = WordMix.mix(folded, UInt64(UInt32(bitPattern: state))) }
            return WordMix.mix(folded, UInt64(slashRun.count) | UInt64(context.bits) << 32 | 2 << 40)
        }
    }

    /// Per side, the rules still alive (all rules before the path phase ends) and, in a query
    /// item phase, the predicates every value so far satisfied.
    struct RuleSet: Hashable {
        var alive: [Bitset]
        var holding: [Bitset]
    }

    /// What led to a node: its parent and the step taken.
    enum Step {
        case root
        case byte(UInt8)
        /// The escape `%XY` of a byte.
        case escape(UInt8)
        /// End of the parent's phase, start of the node's (the next one, or a later one when
        /// the phases in between were passed over: nothing written in them).
        case nextPhase
        /// End of one value of a query item, start of another value of the same name.
        case nextValue
    }

    /// The breadth-first search itself, with its node store.
    struct Search {
        let explorer: URLExplorer
        let phases: [Phase]
        var nodes: [Node] = []
        var parents: [Int32] = []
        var steps: [Step] = []
        /// The nodes by content: ids on `Node.fold`. Nodes are never removed (a search is
        /// bounded by `analysis-states`).
        // PERF: `aasa diff` of two generated 1 KB documents in several modes (the differential
        // tests' seed 271), callgrind with `SWIFT_DETERMINISTIC_HASHING=1`: with the search's
        // other step costs (the escape memo in a flat table, the tracks' memo out of the reach of
        // run-time exclusivity checks, children's states written into one buffer, rule sets by
        // id), 15.94 G → 7.23 G instructions; the analysis suite's rows 28-44% fewer
        // (`aasa-bench --quick --suite analysis`); reports identical
        // (`Benchmarks/Records/2026-12-07-explorer-steps.md`).
        var nodeIndex = HashSlots(capacity: 256)
        /// The rule sets nodes name (`Node.rules`), and their ids.
        var ruleSets: [RuleSet] = []
        var ruleSetIDs: [RuleSet: Int32] = [:]
        var outcomes: [Outcome] = []
        var outcomeIndex: [[Bitset]: Int] = [:]
        /// Per side and rule, the last phase that can take the rule down; `nil` when outcomes
        /// keep every rule (see `dropUndecisive`).
        let lastPhase: [[Int]]?

        /// Every track's work, added up as it is spent.
        let tally: WorkTally
        /// Where each phase's text goes in a witness (`layout(of:)`).
        let layout: (slots: [Slot], items: [String], slotOfPhase: [Int])
        /// Per phase and side, the rules whose component the phase decides (empty for the path,
        /// which is never passed over): a node none of whose alive rules is among them writes
        /// nothing in that phase (`passesOver`).
        let constrained: [[Bitset]]

        /// With `decisionsOnly`, outcomes keep only the rules that can still decide an app.
        init(explorer: URLExplorer, phases: [Phase], tally: WorkTally, decisionsOnly: Bool = false) {
            self.explorer = explorer
            self.phases = phases
            self.tally = tally
            layout = Self.layout(of: phases)
            constrained = phases.map { phase in
                explorer.sides.map { document in
                    var rules = Bitset(capacity: document.rules.count)
                    for rule in document.compiledRules where phase.modes[document.rules[rule].mode.index] {
                        switch phase.kind {
                        case .path, .itemValue: break
                        case .query: if case .text = document.queryConstraints[rule] { rules.insert(rule) }
                        case .fragment: if document.fragmentConstrained[rule] { rules.insert(rule) }
                        }
                    }
                    if case .itemValue(let name) = phase.kind {
                        for mode in TextMode.all where phase.modes[mode.index] {
                            for predicate in document.items[mode.index][ExactString(name)]?.predicates ?? [] {
                                rules.insert(Int(document.predicateRule[Int(predicate)]))
                            }
                        }
                    }
                    return rules
                }
            }
            // Dropping costs the apps of every live rule per finished text: past a few apps per
            // rule on average (an entry naming hundreds of apps), the walk goes without it.
            let appsPerRule = explorer.sides.map { side in
                side.compiledRules.reduce(0) { $0 + side.rules[$1].apps.count } / max(side.compiledRules.count, 1)
            }
            guard decisionsOnly, appsPerRule.allSatisfy({ $0 <= 8 }) else {
                lastPhase = nil
                return
            }
            lastPhase = explorer.sides.map { document in
                var last = [Int](repeating: 0, count: document.rules.count)
                for (index, phase) in phases.enumerated() {
                    for rule in document.rules.indices where phase.modes[document.rules[rule].mode.index] {
                        switch phase.kind {
                        case .path: last[rule] = index
                        case .query: if case .text = document.queryConstraints[rule] { last[rule] = index }
                        case .fragment: if document.fragmentConstrained[rule] { last[rule] = index }
                        case .itemValue: break
                        }
                    }
                    if case .itemValue(let name) = phase.kind {
                        for mode in TextMode.all where phase.modes[mode.index] {
                            for predicate in document.items[mode.index][ExactString(name)]?.predicates ?? [] {
                                last[Int(document.predicateRule[Int(predicate)])] = index
                            }
                        }
                    }
                }
                return last
            }
        }

        /// Takes out of `alive` the rules that can no longer decide any app: each of their apps
        /// already has an earlier alive rule that no phase after `phase` can take down. The
        /// decisions (SPEC 3: the first matching rule per app) stay the same, and states that
        /// differ only in such rules become one, which keeps a diff's walk small.
        private func dropUndecisive(_ alive: inout [Bitset], after phase: Int) {
            guard let lastPhase else { return }
            for (side, document) in explorer.sides.enumerated() {
                var decided = [Bool](repeating: false, count: document.appIDs.count)
                for rule in alive[side].members {
                    let apps = document.rules[rule].apps
                    if apps.allSatisfy({ decided[$0] }) {
                        alive[side].remove(rule)
                    } else if lastPhase[side][rule] <= phase {
                        for app in apps { decided[app] = true }
                    }
                }
            }
        }

        /// Runs to the end or to the budget; `true` when every state was visited.
        mutating func run() -> Bool {
            let sides = explorer.sides
            // Rules not compiled never match; the others fall as phases of their mode end.
            let rules = id(of: RuleSet(
                alive: sides.map { side in
                    var alive = Bitset(capacity: side.rules.count)
                    for rule in side.compiledRules { alive.insert(rule) }
                    return alive
                },
                holding: sides.map { Bitset.full(capacity: $0.predicateRule.count) }))
            let root = Node(phase: 0, context: ComponentText.Context(), states: phases[0].tracks.map(\.start), rules: rules)
            add(root, parent: -1, step: .root)
            var next = 0
            while next < nodes.count {
                if nodes.count > explorer.maxStates { return false }
                // Checked at every node: one node can step every class of every automaton.
                if work > explorer.maxWork { return false }
                let node = nodes[next]
                if passesOver(phase: node.phase, rules: node.rules) {
                    passOver(node, id: next)
                    next += 1
                    continue
                }
                let phase = phases[node.phase]
                // The children's states are written into one buffer, which a child shares only
                // once it is kept: most children are nodes already found, and each used to copy
                // its parent's states before being dropped.
                var states = node.states
                let tracks = phase.tracks
                for cls in phase.order {
                    let byte = phase.representatives[cls]
                    guard let context = node.context.writing(byte, kind: phase.kind) else { continue }
                    for slot in tracks.indices { states[slot] = tracks[slot].step(node.states[slot], class: cls) }
                    add(node.child(context: context, states: states, slashRun: slashRun(after: node, writing: byte)), parent: Int32(next), step: .byte(byte))
                }
                for byte in phase.escapes {
                    var context: ComponentText.Context? = node.context
                    for written in WitnessURL.escape(byte) { context = context?.writing(written, kind: phase.kind) }
                    guard let context else { continue }
                    for slot in tracks.indices { states[slot] = tracks[slot].escape(node.states[slot], byte: byte) }
                    add(node.child(context: context, states: states, slashRun: slashRun(after: node, writing: byte)), parent: Int32(next), step: .escape(byte))
                }
                if node.context.canEnd(kind: phase.kind) { finishValue(of: node, id: next) }
                next += 1
            }
            return true
        }

        /// Whether a node with the rule set `id` starting `phase` (a query, one query item's values,
        /// a fragment) is at a phase that decides none of them, on any side, and is not the last.
        /// Whatever it wrote there, every value would end in the same next node (its alive rules,
        /// every predicate holding again): the one writing nothing (SPEC 7: a missing item reads
        /// as an empty value). So the walk goes straight there (`passOver`), and finds the same
        /// nodes without the ones in between; crossing a run of such phases in one step, it may
        /// meet a node sooner, and show another URL of the same outcome first. The last phase is
        /// walked whole: each text written in it is a witness of its own.
        // PERF: `aasa lint` of 40 rules `/xxxxx/*` naming two query items each (callgrind,
        // `SWIFT_DETERMINISTIC_HASHING=1`): 2 098 M instructions and out of its state budget
        // (100 000) → 271 M and whole; `aasa cover` of 20 rules of eight items 2 514 M → 363 M
        // (`Benchmarks/Records/2026-12-07-explorer-pass-over.md`).
        private func passesOver(phase: Int, rules id: Int32) -> Bool {
            guard phase + 1 < phases.count, phases[phase].kind != .path else { return false }
            let rules = constrained[phase]
            let alive = ruleSets[Int(id)].alive
            for side in alive.indices where alive[side].intersects(rules[side]) { return false }
            return true
        }

        /// The id of `set` among the rule sets nodes name.
        private mutating func id(of set: RuleSet) -> Int32 {
            if let known = ruleSetIDs[set] { return known }
            let id = Int32(ruleSets.count)
            ruleSets.append(set)
            ruleSetIDs[set] = id
            return id
        }

        /// What writing nothing in `node`'s phase leads to (`finishValue` on an empty text that
        /// decides no alive rule): the next phase, with the same rules alive, less those that can
        /// no longer decide an app; and past it, in the same step, every phase that passes over
        /// too (the items of the rules a path left behind), so that a run of them costs one
        /// node rather than one each.
        // PERF: `aasa lint` of 200 rules `/word/*` naming two query items each (the analysis
        // suite's `campaign-200`): out of `analysis-states` (each of 400 item phases a node per
        // path outcome) → whole; see `Benchmarks/Records/2026-12-07-explorer-steps.md`.
        private mutating func passOver(_ node: Node, id: Int) {
            var set = ruleSets[Int(node.rules)]
            // Once is enough: a phase passed over is the last phase of none of the rules alive
            // (it decides none of them), so the phases after it drop no more.
            dropUndecisive(&set.alive, after: node.phase)
            let rules = self.id(of: set)
            var phase = node.phase + 1
            while passesOver(phase: phase, rules: rules) { phase += 1 }
            add(
                Node(phase: phase, context: ComponentText.Context(), states: phases[phase].tracks.map(\.start), rules: rules),
                parent: Int32(id), step: .nextPhase)
        }

        /// `Node.slashRun` once `byte` (or its escape) is written after `node`.
        private func slashRun(after node: Node, writing byte: UInt8) -> [Int32] {
            let phase = phases[node.phase]
            guard phase.kind == .path, !phase.escapes.isEmpty, byte == UInt8(ascii: "/") else { return [] }
            return node.slashRun.isEmpty ? node.states : node.slashRun
        }

        /// NFA positions stepped so far, over every automaton.
        // Why a running total: summed over the tracks at every node, the budget check itself cost
        // nodes × query items, so a document of thousands of items overran the budget's time
        // many times over before the budget stopped it
        // (`HostileInputCLITests.test_thousandsOfQueryItems_lintAndDiffStopWithinBounds`).
        var work: Int { tally.total }

        // PERF: inlined into `run`: outlined, the node was copied through `memcpy` on every
        // call, and the quick analysis rows took 3.0-5.9% more instructions than with the
        // former own table (`aasa-bench --quick --suite analysis`, callgrind;
        // `Benchmarks/Records/2026-12-07-hash-slots-and-reachability.md`).
        @inline(__always)
        private mutating func add(_ node: Node, parent: Int32, step: Step) {
            let hash = node.fold
            var probe = nodeIndex.probe(hash)
            while let known = nodeIndex.next(&probe) {
                if nodes[Int(known)] == node { return }
            }
            nodes.append(node)
            _ = nodeIndex.append(hash: hash)
            parents.append(parent)
            steps.append(step)
        }

        /// The text of the current phase ends at `node`: apply what its automata accepted.
        private mutating func finishValue(of node: Node, id: Int) {
            let phase = phases[node.phase]
            var accepted = explorer.sides.map { Bitset(capacity: max($0.rules.count, $0.predicateRule.count)) }
            for (slot, track) in phase.tracks.enumerated() {
                let state = track.decodes && !node.slashRun.isEmpty ? node.slashRun[slot] : node.states[slot]
                for tag in track.tags(state) { accepted[track.side].insert(Int(tag)) }
            }
            var alive = ruleSets[Int(node.rules)].alive
            var holding = ruleSets[Int(node.rules)].holding
            for (side, document) in explorer.sides.enumerated() {
                switch phase.kind {
                case .path:
                    for rule in alive[side].members where phase.modes[document.rules[rule].mode.index] && !accepted[side].contains(rule) {
                        alive[side].remove(rule)
                    }
                case .query:
                    for rule in alive[side].members where phase.modes[document.rules[rule].mode.index] {
                        if case .text = document.queryConstraints[rule], !accepted[side].contains(rule) { alive[side].remove(rule) }
                    }
                case .itemValue(let name):
                    for mode in TextMode.all where phase.modes[mode.index] {
                        for predicate in document.items[mode.index][ExactString(name)]?.predicates ?? [] where !accepted[side].contains(Int(predicate)) {
                            holding[side].remove(Int(predicate))
                        }
                    }
                case .fragment:
                    for rule in alive[side].members
                    where phase.modes[document.rules[rule].mode.index] && document.fragmentConstrained[rule] && !accepted[side].contains(rule) {
                        alive[side].remove(rule)
                    }
                }
            }
            if case .itemValue = phase.kind {
                // Another value of the same name: every value must satisfy a predicate (SPEC 7).
                let again = Node(
                    phase: node.phase, context: ComponentText.Context(), states: phase.tracks.map(\.start),
                    rules: self.id(of: RuleSet(alive: ruleSets[Int(node.rules)].alive, holding: holding)), slashRun: node.slashRun)
                add(again, parent: Int32(id), step: .nextValue)
                // No more values: predicates some value failed take their rules down.
                for (side, document) in explorer.sides.enumerated() {
                    for predicate in 0..<document.predicateRule.count where !holding[side].contains(predicate) {
                        alive[side].remove(Int(document.predicateRule[predicate]))
                    }
                    holding[side] = Bitset.full(capacity: document.predicateRule.count)
                }
            }
            dropUndecisive(&alive, after: node.phase)
            let nextPhase = node.phase + 1
            if nextPhase < phases.count {
                add(
                    Node(
                        phase: nextPhase, context: ComponentText.Context(), states: phases[nextPhase].tracks.map(\.start),
                        rules: self.id(of: RuleSet(alive: alive, holding: holding))),
                    parent: Int32(id), step: .nextPhase)
            } else {
                record(alive, endingAt: id)
            }
        }

        private mutating func record(_ alive: [Bitset], endingAt id: Int) {
            let index: Int
            if let existing = outcomeIndex[alive] {
                guard outcomes[existing].witnesses.count < explorer.witnessesPerOutcome else { return }
                index = existing
            } else {
                index = outcomes.count
                outcomeIndex[alive] = index
                outcomes.append(Outcome(alive: alive, witnesses: []))
            }
            let spellings = witnesses(endingAt: id)
            outcomes[index].witnesses.append(spellings[0])
            outcomes[index].otherSpellings += spellings.dropFirst()
        }

        /// The URLs written along the path from the root to node `id`: first the one spelling
        /// each component with its first phase's text, then (with one phase per mode class)
        /// the others, at most `maxSpellings` in all.
        private func witnesses(endingAt id: Int) -> [String] {
            var trail: [(phase: Int, step: Step)] = []
            var current = Int32(id)
            while current >= 0 {
                trail.append((nodes[Int(current)].phase, steps[Int(current)]))
                current = parents[Int(current)]
            }
            var texts = [[[UInt8]]](repeating: [], count: phases.count)
            for (phase, step) in trail.reversed() {
                switch step {
                case .root, .nextPhase, .nextValue:
                    texts[phase].append([])
                case .byte(let byte):
                    texts[phase][texts[phase].count - 1].append(byte)
                case .escape(let byte):
                    texts[phase][texts[phase].count - 1] += WitnessURL.escape(byte)
                }
            }
            // Several phases of one component (one per mode class) wrote texts of their own,
            // which no one URL may have: each spelling takes one class's text per component
            // (and per item name), and the matcher's re-check judges them.
            let (slots, items, slotOfPhase) = layout
            var choices = [[(values: [[UInt8]], policy: ComponentText.Policy)]](repeating: [], count: slots.count)
            for (index, (phase, values)) in zip(phases, texts).enumerated() {
                choices[slotOfPhase[index]].append((values, phase.policy))
            }
            func spelling(_ pick: [Int]) -> String {
                var url = WitnessURL(domain: explorer.domain)
                url.items = items.map { ($0, [], .common) }
                for (index, slot) in slots.enumerated() {
                    let (values, policy) = choices[index][pick[index]]
                    let text = WitnessURL.Text(bytes: values.last ?? [], policy: policy)
                    switch slot {
                    case .path: url.path = text
                    case .query: url.query = text
                    case .fragment: url.fragment = text
                    case .item(let item): url.items[item] = (items[item], values, policy)
                    }
                }
                return url.text
            }
            // The first texts, the last ones, then every other pick.
            var picks = [slots.map { _ in 0 }, choices.map { $0.count - 1 }]
            var odometer = slots.map { _ in 0 }
            product: while picks.count < Self.maxSpellings * 2 {
                for index in odometer.indices.reversed() {
                    odometer[index] += 1
                    if odometer[index] < choices[index].count {
                        picks.append(odometer)
                        continue product
                    }
                    odometer[index] = 0
                }
                break
            }
            var spellings: [String] = []
            for pick in picks where spellings.count < Self.maxSpellings {
                let text = spelling(pick)
                if !spellings.contains(text) { spellings.append(text) }
            }
            return spellings
        }

        /// Where a phase's text goes in the URL; an item by its index among the names.
        enum Slot: Hashable {
            case path, query, fragment
            case item(Int)
        }

        /// Where each phase's text goes in a witness: the slots in the order phases first
        /// name them, the item names, and each phase's slot. The same for every witness, so
        /// worked out once: per witness, looking each of thousands of item phases' names up
        /// among the names before it made a witness quadratic in the items.
        static func layout(of phases: [Phase]) -> (slots: [Slot], items: [String], slotOfPhase: [Int]) {
            var slots: [Slot] = []
            var slotIndex: [Slot: Int] = [:]
            var items: [String] = []
            var itemIndex: [ExactString: Int] = [:]
            var slotOfPhase: [Int] = []
            for phase in phases {
                let slot: Slot
                switch phase.kind {
                case .path: slot = .path
                case .query: slot = .query
                case .fragment: slot = .fragment
                case .itemValue(let name):
                    if let known = itemIndex[ExactString(name)] {
                        slot = .item(known)
                    } else {
                        slot = .item(items.count)
                        itemIndex[ExactString(name)] = items.count
                        items.append(name)
                    }
                }
                if let known = slotIndex[slot] {
                    slotOfPhase.append(known)
                } else {
                    slotIndex[slot] = slots.count
                    slotOfPhase.append(slots.count)
                    slots.append(slot)
                }
            }
            return (slots, items, slotOfPhase)
        }

        /// Spellings per witness: enough for two mode classes (raw and decoded) over the
        /// path, the query and the fragment.
        static let maxSpellings = 8
    }
}
