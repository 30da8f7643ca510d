/// The Automaton layer: the compiler from patterns to automata, and the automata that run.
///
/// Third stage of the pipeline (document → pattern → **automaton** → matcher). In: the
/// normalised patterns of every rule of a document, for one component kind and text mode, each
/// tagged with its rule number, plus the document's substitution variables. Out: an automaton
/// that reads a component's bytes once and answers with the *set* of rules whose pattern matches
/// the whole component.
///
/// - `NFA/` is a Thompson construction over UTF-8 bytes: literals are byte chains, `?` is one
///   UTF-8 scalar, `*` a self-loop, and each variable a trie shared by every pattern that uses it
///   through call/return states (see `NFA`). Variables are never expanded into pattern lists:
///   Apple's `$(lang)_$(region)` example would be 1.8 million patterns.
/// - `Determinize/` is the subset construction every DFA shares.
/// - `Lazy/` is the engine that runs: a lazy DFA building states on demand into a per-thread
///   `LazyDFA.Cache` with a byte budget; when the budget is spent it clears the cache and goes
///   on, and past a number of clears in one search it finishes that search by NFA simulation
///   (`Simulation/`): slower, never wrong. This is the design of RE2's `dfa.cc` and of
///   regex-automata's `hybrid` module.
/// - `Eager/` determinises completely, for stable dumps (`aasa debug dfa`) and for artifacts
///   compiled once and shipped.
///
/// Not here: URL splitting and text normalisation (the matcher's job, once per URL), rule order
/// and app decisions (the matcher combines the accept sets), and backtracking of any kind.
///
/// Alternatives rejected: one regex per rule scanned in order (cost grows with rules; that is
/// the baseline the benchmarks beat), eager DFAs for every document (state blow-up on hostile
/// `*a*a*…` documents; the lazy DFA only builds the states real URLs visit), and NFA simulation
/// as the main engine (several times slower per byte).
public enum AutomatonOverview {}
