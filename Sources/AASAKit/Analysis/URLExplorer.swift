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
/// texts are restricted to bytes all modes leave unchanged: every outcome found is real, but
/// some may be missed. A state budget bounds the work (`Result.complete`).
struct URLExplorer {
    /// One reachable outcome: per document, the rules that all match some URL; and URLs that
    /// show it (up to the requested number, shortest first).
    struct Outcome {
        var alive: [Bitset]
        var witnesses: [String]
    }

    struct Result {
        var outcomes: [Outcome]
        /// Every rule compares in one mode and the query is modelled exactly: an outcome not
        /// listed is impossible (when `complete` too).
        var exact: Bool
        /// The search ended within its state budget.
        var complete: Bool
        var policy: ComponentText.Policy

        /// Whether "no URL does X" follows from X being absent from the outcomes.
        var isProof: Bool { exact && complete }
        /// Work the search spent (`maxWork`'s unit), for callers that share one budget.
        var work = 0

        /// Why the outcomes are not a proof, for people; empty when they are.
        func incompleteness(_ sides: [AnalysisDocument]) -> [String] {
            var reasons: [String] = []
            if !complete { reasons.append("the exploration hit its state budget") }
            if policy == .common {
                reasons.append("rules compare text in ways the search cannot read alike (percentEncoded differs, or caseSensitive differs with non-ASCII literals or query items)")
            }
            if sides.contains(where: \.hasTextQueries) && sides.contains(where: \.hasItemQueries) {
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

    init(
        sides: [AnalysisDocument], domain: String, maxStates: Int = Configuration.Automata().maxAnalysisStates,
        maxWork: Int = Configuration.Automata().maxAnalysisWork,
        witnessesPerOutcome: Int = 1
    ) {
        self.sides = sides
        self.domain = domain
        self.maxStates = maxStates
        self.maxWork = maxWork
        self.witnessesPerOutcome = witnessesPerOutcome
    }

    func explore() -> Result {
        let modes = sides.reduce(into: Set<TextMode>()) { $0.formUnion($1.modes) }
        let textQueries = sides.contains { $0.hasTextQueries }
        let itemQueries = sides.contains { $0.hasItemQueries }
        let policy = Self.policy(modes: modes, sides: sides)
        let exact = policy != .common && !(textQueries && itemQueries)
        var search = Search(
            explorer: self,
            phases: makePhases(policy: policy, textQueries: textQueries, itemQueries: itemQueries && !textQueries),
            policy: policy)
        let complete = search.run()
        var result = Result(outcomes: search.outcomes, exact: exact, complete: complete, policy: policy)
        result.work = search.phases.reduce(0) { $0 + $1.tracks.reduce(0) { $0 + $1.work } }
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
                    var foldsInput = false
                    if case .exact(let space) = policy { foldsInput = mode.folded && !space.folded }
                    result.append(Track(nfa: nfa, side: side, foldsInput: foldsInput, maxWork: maxWork))
                }
            }
            return result
        }
        phases.append(Phase(kind: .path, tracks: tracks { $0.path[$1.index] }, policy: policy))
        if textQueries {
            phases.append(Phase(kind: .query, tracks: tracks { $0.queryText[$1.index] }, policy: policy))
        }
        if itemQueries {
            var names = Set<ExactString>()
            for document in sides { for byName in document.items { names.formUnion(byName.keys) } }
            for key in names.sorted(by: { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }) {
                let name = key.string
                var phase = Phase(kind: .itemValue(name: name), tracks: tracks { $0.items[$1.index][key]?.nfa }, policy: policy)
                if !ComponentText.canWriteName(name, policy: policy) { phase.forbidAllBytes() }
                phases.append(phase)
            }
        }
        if sides.contains(where: { side in side.compiledRules.contains { side.fragmentConstrained[$0] } }) {
            phases.append(Phase(kind: .fragment, tracks: tracks { $0.fragment[$1.index] }, policy: policy))
        }
        return phases
    }
}

extension URLExplorer {
    /// One automaton being stepped, with its subsets interned and its transitions memoised.
    ///
    /// A track that `foldsInput` reads the written text folded (SPEC 11): ASCII capitals as
    /// lower case, and the Kelvin sign U+212A (E2 84 AA), the one non-ASCII scalar that folds to
    /// ASCII, as `k`. Its state then also remembers how much of E2 84 it has seen: state ids are
    /// `subset * 3 + pending`.
    final class Track {
        let side: Int
        let foldsInput: Bool
        let determinizer: Determinizer
        var scratch = Determinizer.Scratch()
        var subsets: [Determinizer.Subset] = []
        var ids: [Determinizer.Subset: Int32] = [:]
        /// `table[subset * classCount + class]`, -1 while unknown.
        var table: [Int32] = []
        var classCount = 0
        var representatives: [UInt8] = []
        private(set) var start: Int32 = 0
        /// NFA positions stepped so far: the cost of determinisation.
        private(set) var work = 0
        /// The exploration's work budget: a closure is abandoned as it passes what is left of it.
        let maxWork: Int

        init(nfa: NFA, side: Int, foldsInput: Bool, maxWork: Int) {
            self.side = side
            self.foldsInput = foldsInput
            self.maxWork = maxWork
            determinizer = Determinizer(nfa: nfa)
        }

        private var statesPerSubset: Int32 { foldsInput ? 3 : 1 }

        /// Fixes the byte classes of the phase; state 0 is the dead state.
        func prepare(classCount: Int, representatives: [UInt8]) {
            self.classCount = classCount
            self.representatives = representatives
            _ = intern(Determinizer.Subset(positions: [], tags: []))
            guard let first = determinizer.start(scratch: &scratch, cap: maxWork) else {
                overBudget()
                return
            }
            work += scratch.visits
            start = intern(first) * statesPerSubset
        }

        /// The subset's id (not a state id).
        func intern(_ subset: Determinizer.Subset) -> Int32 {
            if let id = ids[subset] { return id }
            let id = Int32(subsets.count)
            subsets.append(subset)
            ids[subset] = id
            table.append(contentsOf: repeatElement(-1, count: classCount * Int(statesPerSubset)))
            return id
        }

        func step(_ state: Int32, class cls: Int) -> Int32 {
            let slot = Int(state) * classCount + cls
            if table[slot] >= 0 { return table[slot] }
            let next = state == 0 ? 0 : transition(state, representatives[cls])
            table[slot] = next
            return next
        }

        private func transition(_ state: Int32, _ byte: UInt8) -> Int32 {
            let subset = state / statesPerSubset
            guard foldsInput else { return feed(subset, [byte]) }
            switch (state % 3, byte) {
            case (0, 0xE2): return subset * 3 + 1
            case (0, _): return feed(subset, [(0x41...0x5A).contains(byte) ? byte | 0x20 : byte]) * 3
            case (1, 0x84): return subset * 3 + 2
            case (1, _): return feed(subset, [0xE2, byte]) * 3
            case (_, 0xAA): return feed(subset, [UInt8(ascii: "k")]) * 3
            default: return feed(subset, [0xE2, 0x84, byte]) * 3
            }
        }

        /// The subset after reading `bytes` from subset `id`.
        private func feed(_ id: Int32, _ bytes: [UInt8]) -> Int32 {
            var current = id
            for byte in bytes where current != 0 {
                work += subsets[Int(current)].positions.count + 1
                guard let next = determinizer.step(subsets[Int(current)], on: byte, scratch: &scratch, cap: max(0, maxWork - work))
                else {
                    overBudget()
                    return 0
                }
                work += scratch.visits
                current = intern(next)
            }
            return current
        }

        /// A closure passed what was left of the budget: the exploration stops at its next
        /// node (`Search.run` checks `work`), incomplete, so nothing is claimed from it.
        private func overBudget() {
            work = maxWork + 1
        }

        func tags(_ state: Int32) -> [Int32] { subsets[Int(state / statesPerSubset)].tags }
    }

    /// One component of the URL: its automata and the byte classes that tell them, and the text
    /// context, apart.
    struct Phase {
        let kind: ComponentText.Kind
        let tracks: [Track]
        var classOf: [UInt8]
        /// The allowed classes, best representative first.
        var order: [Int]
        var representatives: [UInt8]

        init(kind: ComponentText.Kind, tracks: [Track], policy: ComponentText.Policy) {
            self.kind = kind
            self.tracks = tracks
            let allowed = ComponentText.allowedBytes(kind, policy: policy)
            var boundaries = [Bool](repeating: false, count: 257)
            for track in tracks {
                let classes = track.determinizer.nfa.byteClasses().classOf
                // A folding track reads byte b as fold(b): classes by what it reads.
                let read = { (byte: Int) in track.foldsInput && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                for byte in 1..<256 where classes[read(byte)] != classes[read(byte - 1)] { boundaries[byte] = true }
                if track.foldsInput {
                    for byte in [0xE2, 0xE3, 0x84, 0x85, 0xAA, 0xAB] { boundaries[byte] = true }
                }
            }
            for byte in 1..<256 where allowed[byte] != allowed[byte - 1] { boundaries[byte] = true }
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
            for track in tracks { track.prepare(classCount: count, representatives: representatives) }
        }

        /// A query item whose name no URL can carry: its value is always the empty one.
        mutating func forbidAllBytes() {
            order = []
        }
    }

    /// A product state.
    struct Node: Hashable {
        var phase: Int
        var context: ComponentText.Context
        var states: [Int32]
        /// Per side, the rules still alive (all rules before the path phase ends).
        var alive: [Bitset]
        /// Per side, in a query item phase: the predicates every value so far satisfied.
        var holding: [Bitset]
    }

    /// What led to a node: its parent and the step taken.
    enum Step {
        case root
        case byte(UInt8)
        /// End of the parent's phase, start of the next one.
        case nextPhase
        /// End of one value of a query item, start of another value of the same name.
        case nextValue
    }

    /// The breadth-first search itself, with its node store.
    struct Search {
        let explorer: URLExplorer
        let phases: [Phase]
        let policy: ComponentText.Policy
        var nodes: [Node] = []
        var parents: [Int32] = []
        var steps: [Step] = []
        var index: [Node: Int32] = [:]
        var outcomes: [Outcome] = []
        var outcomeIndex: [[Bitset]: Int] = [:]

        init(explorer: URLExplorer, phases: [Phase], policy: ComponentText.Policy) {
            self.explorer = explorer
            self.phases = phases
            self.policy = policy
        }

        /// Runs to the end or to the budget; `true` when every state was visited.
        mutating func run() -> Bool {
            let sides = explorer.sides
            let root = Node(
                phase: 0, context: ComponentText.Context(), states: phases[0].tracks.map(\.start),
                alive: sides.map { Bitset(capacity: $0.rules.count) },
                holding: sides.map { Bitset.full(capacity: $0.predicateRule.count) })
            add(root, parent: -1, step: .root)
            var next = 0
            while next < nodes.count {
                if nodes.count > explorer.maxStates { return false }
                // Checked at every node: one node can step every class of every automaton.
                if phases.reduce(0, { $0 + $1.tracks.reduce(0) { $0 + $1.work } }) > explorer.maxWork { return false }
                let node = nodes[next]
                let phase = phases[node.phase]
                for cls in phase.order {
                    let byte = phase.representatives[cls]
                    guard let context = node.context.writing(byte, kind: phase.kind) else { continue }
                    var child = node
                    child.context = context
                    for (slot, track) in phase.tracks.enumerated() {
                        child.states[slot] = track.step(node.states[slot], class: cls)
                    }
                    add(child, parent: Int32(next), step: .byte(byte))
                }
                if node.context.canEnd(kind: phase.kind) { finishValue(of: node, id: next) }
                next += 1
            }
            return true
        }

        private mutating func add(_ node: Node, parent: Int32, step: Step) {
            guard index[node] == nil else { return }
            index[node] = Int32(nodes.count)
            nodes.append(node)
            parents.append(parent)
            steps.append(step)
        }

        /// The text of the current phase ends at `node`: apply what its automata accepted.
        private mutating func finishValue(of node: Node, id: Int) {
            let phase = phases[node.phase]
            var accepted = explorer.sides.map { Bitset(capacity: max($0.rules.count, $0.predicateRule.count)) }
            for (slot, track) in phase.tracks.enumerated() {
                for tag in track.tags(node.states[slot]) { accepted[track.side].insert(Int(tag)) }
            }
            var alive = node.alive
            var holding = node.holding
            for (side, document) in explorer.sides.enumerated() {
                switch phase.kind {
                case .path:
                    alive[side] = Bitset(capacity: document.rules.count)
                    for rule in accepted[side].members where rule < document.rules.count { alive[side].insert(rule) }
                case .query:
                    for rule in alive[side].members {
                        if case .text = document.queryConstraints[rule], !accepted[side].contains(rule) { alive[side].remove(rule) }
                    }
                case .itemValue(let name):
                    for mode in TextMode.all {
                        for predicate in document.items[mode.index][ExactString(name)]?.predicates ?? [] where !accepted[side].contains(Int(predicate)) {
                            holding[side].remove(Int(predicate))
                        }
                    }
                case .fragment:
                    for rule in alive[side].members where document.fragmentConstrained[rule] && !accepted[side].contains(rule) {
                        alive[side].remove(rule)
                    }
                }
            }
            if case .itemValue = phase.kind {
                // Another value of the same name: every value must satisfy a predicate (SPEC 7).
                var again = node
                again.context = ComponentText.Context()
                again.states = phase.tracks.map(\.start)
                again.holding = holding
                add(again, parent: Int32(id), step: .nextValue)
                // No more values: predicates some value failed take their rules down.
                for (side, document) in explorer.sides.enumerated() {
                    for predicate in 0..<document.predicateRule.count where !holding[side].contains(predicate) {
                        alive[side].remove(Int(document.predicateRule[predicate]))
                    }
                    holding[side] = Bitset.full(capacity: document.predicateRule.count)
                }
            }
            let nextPhase = node.phase + 1
            if nextPhase < phases.count {
                add(
                    Node(phase: nextPhase, context: ComponentText.Context(), states: phases[nextPhase].tracks.map(\.start), alive: alive, holding: holding),
                    parent: Int32(id), step: .nextPhase)
            } else {
                record(alive, endingAt: id)
            }
        }

        private mutating func record(_ alive: [Bitset], endingAt id: Int) {
            if let existing = outcomeIndex[alive] {
                if outcomes[existing].witnesses.count < explorer.witnessesPerOutcome {
                    outcomes[existing].witnesses.append(witness(endingAt: id))
                }
                return
            }
            outcomeIndex[alive] = outcomes.count
            outcomes.append(Outcome(alive: alive, witnesses: [witness(endingAt: id)]))
        }

        /// The URL written along the path from the root to node `id`.
        private func witness(endingAt id: Int) -> String {
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
                }
            }
            var url = WitnessURL(domain: explorer.domain, policy: policy)
            for (phase, values) in zip(phases, texts) {
                switch phase.kind {
                case .path: url.path = values.last ?? []
                case .query: url.query = values.last ?? []
                case .itemValue(let name): url.items.append((name, values))
                case .fragment: url.fragment = values.last ?? []
                }
            }
            return url.text
        }
    }
}
