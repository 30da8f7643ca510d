/// The Plan layer: which strategy runs each automaton of a compiled document, and why.
///
/// Fourth stage of the pipeline (document → pattern → automaton → **plan** → matcher).
/// A document compiles into a few automata (per text mode: a path, a query text and a fragment
/// automaton, and one per query item name; `DocumentNFAs`). Every one of them gives the same
/// answers however it runs; what changes is speed and memory. `Planner` makes each choice
/// once, from measured properties (NFA states, byte classes, the size a table would have,
/// split candidates, the configuration), and returns a value that names the `Strategy` and says
/// why in one line (`DocumentPlan.lines`, `aasa debug plan`). The other layers do what they are
/// told: `LazyDFA` runs the table it is handed or none, `SuffixSplit.split` asks
/// `Planner.splits`, `DFAMatcher` reads `PathPlan`, and `aasa compile` stores the table
/// `Planner.storedTable` picks.
///
/// The strategies, in the order the planner considers them for one automaton:
/// - `denseTable`: a minimised DFA stored in a compiled artifact (`aasa compile`) and loaded
///   as it is; small automata get one (`LazyDFA.Prebuilt.Budget`).
/// - `compactTable`: the whole DFA determinised when the document is compiled, in the compact
///   form (`Eager/CompactTable.swift`), when its dense rows would pass
///   `automata.compactTableMinimumBytes` (by default `Planner.denseRowLimit`) and the DFA stays
///   within `eager-dfa-states` and twice its NFA's states plus 1 024.
/// - `lazyDFA`: states built on demand into a per-thread cache (`LazyDFA.Cache`): the default.
/// - `nfaSimulation`: not chosen ahead: a lazy search that clears its cache more than
///   `maxClearsPerSearch` times, or keeps building states it has never seen
///   (`LazyDFA.simulateAfterStates`), finishes by simulation (`LazyDFA.Cache.searchTagSet`).
///
/// For a path mode's `literal * literal` patterns: `suffixSplit` (`SuffixSplit`) when there are
/// at least `suffixSplitMinimum` of them. For the document's path, how the matcher turns a tag
/// set into per-app decisions: `soloPathCompiledRows` (its table and rows also laid out in one
/// block, `PathRowTable`, which `classify` reads a routed URL's path from before the matcher),
/// `soloPathRowsOnFirstSight`, `multiModePath` (for two modes with dense tables, `classify` reads
/// both tables and the rows of their tag-set pairs from one `PathRowTable` first), or
/// `noPathAutomaton` for a document without rules (`PathPlan`).
///
/// What the Plan folder will not do: search, build tables itself (it asks `LazyDFA.Prebuilt`),
/// or change an answer: every strategy is checked against the reference matcher on the whole
/// case suite (`Tests/_AASATestSupport/EngineConfigurations.swift` forces the lazy DFA, the
/// simulation, the compact table, the suffix split and compiled rows; the planned configuration
/// and the artifact tests reach the others). It does not
/// choose per URL either: the plan is fixed when the document is compiled or loaded, except
/// for the NFA-simulation fallback, which the plan allows and the cache counts
/// (`LazyDFA.Cache.fallbackCount`).
public enum Strategy: String, Sendable, CaseIterable, CustomStringConvertible {
    /// States built on demand, per thread, into a cache of `automata.cacheCapacity` bytes.
    case lazyDFA = "lazy-dfa"
    /// A minimised dense table built by `aasa compile` and stored in the artifact.
    case denseTable = "dense-table"
    /// The whole DFA determinised at compile time into the compact table form.
    case compactTable = "compact-table"
    /// The lazy DFA's fallback after too many cache clears in one search, or too many new states.
    case nfaSimulation = "nfa-simulation"
    /// A path mode's `literal * literal` patterns matched as prefix (in the DFA) and suffix.
    case suffixSplit = "suffix-split"
    /// One path mode, its decision rows computed once at compile time for every tag set.
    case soloPathCompiledRows = "solo-path-compiled-rows"
    /// One path mode, each matcher computing a tag set's decision row the first time it meets it.
    case soloPathRowsOnFirstSight = "solo-path-rows-on-first-sight"
    /// Several path modes: each mode's automaton runs and their rules merge by rule id.
    case multiModePath = "multi-mode-path"
    /// The document has no rule, so no path automaton: every URL of the domain is `no_match`.
    case noPathAutomaton = "no-path-automaton"

    public var description: String { rawValue }
}
