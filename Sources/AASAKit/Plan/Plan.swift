/// How one automaton runs (`Strategy`) and the measurements that chose it. Set by `Planner`
/// when the automaton is made, kept by it (`LazyDFA.choice`), printed by `aasa debug plan`.
public struct AutomatonChoice: Sendable, Equatable, CustomStringConvertible {
    public let strategy: Strategy
    public let reason: Reason
    /// NFA states and byte classes of the automaton.
    public let nfaStates: Int
    public let classes: Int
    /// With `lazyDFA`: the cache clears one search may make before it finishes by
    /// `nfaSimulation` (`automata.maxClearsPerSearch`).
    public let maxClearsPerSearch: Int

    /// Why the strategy was chosen: what was measured and the bound it was held to.
    public enum Reason: Sendable, Equatable {
        /// Loaded with the dense table `aasa compile` stored (`states`, `bytes` of table).
        case storedTable(states: Int, bytes: Int)
        /// Compile-time tables are off (`eager-dfa-states` 0; also an artifact automaton whose
        /// table would outweigh its NFA, `CompiledDocument.loadingConfiguration`).
        case tablesOff
        /// Even at its most states (`maxStates`: `eager-dfa-states`, at most twice the NFA
        /// plus 1 024) the DFA's dense rows stay within `limit`: not worth determinising.
        case denseRowsWithinLimitAtMost(maxStates: Int, limit: Int)
        /// Determinised: `states` states, whose dense rows (`bytes`) stay within `limit`.
        case denseRowsWithinLimit(states: Int, bytes: Int, limit: Int)
        /// Not determined within `maxStates` states (or eight NFA positions a state): a DFA
        /// that outgrows its NFA is blowing up, and stays lazy.
        case notDetermined(maxStates: Int)
        /// Determined, but the compact form refused it (`LazyDFA.Prebuilt.Compact`).
        case notCompactable(states: Int)
        /// Its largest table (`cells`: states × classes) passes what is left (`left`) of the
        /// document's `eager-dfa-work`, spent on its other automata: lazy.
        case documentWorkSpent(cells: Int, left: Int)
        /// Determinised into a compact table of `tableBytes`; dense rows would take `denseBytes`
        /// (over `limit`).
        case compact(states: Int, denseBytes: Int, tableBytes: Int, limit: Int)
        /// Made with `LazyDFA(nfa:)` directly, outside any plan (tests and tools).
        case unplanned
    }

    public init(strategy: Strategy, reason: Reason, nfaStates: Int, classes: Int, maxClearsPerSearch: Int) {
        self.strategy = strategy
        self.reason = reason
        self.nfaStates = nfaStates
        self.classes = classes
        self.maxClearsPerSearch = maxClearsPerSearch
    }

    /// `strategy (nfa N states, C classes; why)`: stable text, one line.
    public var description: String {
        let why: String
        switch reason {
        case .storedTable(let states, let bytes):
            why = "stored in the artifact: \(states) states, \(bytes) bytes"
        case .tablesOff:
            why = "compile-time tables off (eager-dfa-states 0 or a loaded automaton's table would outweigh its NFA)"
        case .denseRowsWithinLimitAtMost(let maxStates, let limit):
            why = "at most \(maxStates) dfa states: dense rows within \(limit) bytes, not determinised"
        case .denseRowsWithinLimit(let states, let bytes, let limit):
            why = "\(states) dfa states: dense rows \(bytes) bytes within \(limit)"
        case .notDetermined(let maxStates):
            why = "dfa not determined within \(maxStates) states"
        case .notCompactable(let states):
            why = "\(states) dfa states, not compactable"
        case .documentWorkSpent(let cells, let left):
            why = "a table of up to \(cells) cells passes the \(left) left of the document's eager-dfa-work, not determinised"
        case .compact(let states, let denseBytes, let tableBytes, let limit):
            why = "\(states) dfa states: dense rows \(denseBytes) bytes over \(limit), compact \(tableBytes) bytes"
        case .unplanned:
            why = "made outside a plan"
        }
        var fallback = ""
        if strategy == .lazyDFA {
            // `LazyDFA.simulateAfterStates` says when a search's states keep being new.
            fallback = maxClearsPerSearch == .max
                ? "; \(Strategy.nfaSimulation) only when a search's states keep being new"
                : "; \(Strategy.nfaSimulation) after \(maxClearsPerSearch) cache clears in one search, or when its states keep being new"
        }
        return "\(strategy) (nfa \(nfaStates) states, \(classes) classes; \(why)\(fallback))"
    }
}

/// Whether a path mode's `literal * literal` patterns are matched in two halves.
public struct SplitPlan: Sendable, Equatable, CustomStringConvertible {
    public let mode: TextMode
    /// Patterns of the shape `literal * literal` that may be split (after keeping whole those
    /// whose prefix is their own, `SuffixSplit.isolatedShapes`), and the minimum asked for.
    public let candidates: Int
    public let minimum: Int
    /// The split made: its pattern and prefix-group counts; nil when not split.
    public let split: (patterns: Int, groups: Int)?

    public static func == (lhs: SplitPlan, rhs: SplitPlan) -> Bool {
        lhs.mode == rhs.mode && lhs.candidates == rhs.candidates && lhs.minimum == rhs.minimum
            && lhs.split?.patterns == rhs.split?.patterns && lhs.split?.groups == rhs.split?.groups
    }

    public var isSplit: Bool { split != nil }

    public var description: String {
        // A minimum of -1 marks a split read from an artifact: the candidates are not known.
        let measured = minimum < 0 ? "stored in the artifact" : "\(candidates) literal*literal candidates, minimum \(minimum)"
        if let split {
            return "\(Strategy.suffixSplit) (\(measured); \(split.patterns) patterns in \(split.groups) prefix groups)"
        }
        return "no split (\(measured))"
    }
}

/// How the matcher turns the path automaton's tag set into per-app decisions.
public struct PathPlan: Sendable, Equatable, CustomStringConvertible {
    public let strategy: Strategy
    /// The path modes in use (`TextMode.all` order).
    public let modes: [TextMode]
    /// With one path mode whose automaton has a table: what compile-time rows would take
    /// against their bound (eight times the table's cells); nil otherwise.
    public let rows: Rows?
    /// What the matcher reads path tags with: which are rules (`TagLayout`), which apps each
    /// rule names (`RuleApps`), and with `soloPathCompiledRows` every tag set's decision.
    let layout: TagLayout
    let apps: RuleApps
    let decisionRows: DecisionRows?
    /// With `soloPathCompiledRows`: the path table and `decisionRows` in one block, which the
    /// solo searcher and `classify`'s routed URLs read. With `multiModePath` of two modes whose
    /// tables are dense: both tables and the rows of every pair of their tag sets, which only
    /// `classify` reads (`Planner.modePairRows`).
    let rowTable: PathRowTable?

    init(
        strategy: Strategy, modes: [TextMode], rows: Rows?, layout: TagLayout, apps: RuleApps, decisionRows: DecisionRows? = nil,
        rowTable: PathRowTable? = nil
    ) {
        self.strategy = strategy
        self.modes = modes
        self.rows = rows
        self.layout = layout
        self.apps = apps
        self.decisionRows = decisionRows
        self.rowTable = rowTable
    }

    /// Plans are equal when they make the same choices (what they were made from is not compared).
    public static func == (lhs: PathPlan, rhs: PathPlan) -> Bool {
        lhs.strategy == rhs.strategy && lhs.modes == rhs.modes && lhs.rows == rhs.rows && lhs.layout == rhs.layout
    }

    public struct Rows: Sendable, Equatable {
        public let tagSets: Int
        /// Words a row takes (`DecisionRows.width`).
        public let width: Int
        /// States × byte classes of the table.
        public let cells: Int
    }

    public var description: String {
        let why: String
        switch strategy {
        case .noPathAutomaton: why = "no rule"
        case .multiModePath:
            why = "each mode's rules merged by rule id" + (rowTable.map { "; classify reads mode-pair rows first (\($0.memoryUsage) bytes)" } ?? "")
        default:
            if let rows {
                let bound = strategy == .soloPathCompiledRows ? "within" : "over"
                why = "\(rows.tagSets) tag sets x \(rows.width) words \(bound) 8 x \(rows.cells) table cells"
            } else {
                why = "no compile-time table"
            }
        }
        let modes = self.modes.map(\.description).joined(separator: ", ")
        return "\(strategy) (path modes: \(modes.isEmpty ? "none" : modes); \(why))"
    }
}

/// Every choice made for one compiled document: one line per automaton, per split and for the
/// path (`lines`).
public struct DocumentPlan: Sendable, Equatable {
    /// Each automaton, with the label of `CompiledDocument.labelledAutomata`.
    public let automata: [(label: String, choice: AutomatonChoice)]
    /// The path modes that have a path automaton, in `TextMode.all` order.
    public let splits: [SplitPlan]
    public let path: PathPlan

    public static func == (lhs: DocumentPlan, rhs: DocumentPlan) -> Bool {
        lhs.automata.map(\.label) == rhs.automata.map(\.label) && lhs.automata.map(\.choice) == rhs.automata.map(\.choice)
            && lhs.splits == rhs.splits && lhs.path == rhs.path
    }

    /// The strategies in use, in `Strategy.allCases` order (the runtime fallback excluded).
    public var strategies: Set<Strategy> {
        var result = Set(automata.map(\.choice.strategy))
        if splits.contains(where: \.isSplit) { result.insert(.suffixSplit) }
        result.insert(path.strategy)
        return result
    }

    /// `aasa debug plan`'s text: the path line, each split line, then one line per automaton.
    public var lines: [String] {
        ["path: \(path)"] + splits.map { "split \($0.mode): \($0)" } + automata.map { "\($0.label): \($0.choice)" }
    }
}
