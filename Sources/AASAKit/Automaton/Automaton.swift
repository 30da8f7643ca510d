/// The Automaton layer: the compiler from patterns to automata, and the automata that run.
///
/// Third stage of the pipeline (document → pattern → **automaton** → plan → matcher). In: the
/// normalised patterns of every rule of a document, for one component kind and text mode, each
/// tagged with its rule number, plus the document's substitution variables. Out: an automaton
/// that reads a component's bytes once and answers with the *set* of rules whose pattern matches
/// the whole component.
///
/// - `NFA/` is a Thompson construction over UTF-8 bytes: literals are byte chains, `?` is one
///   UTF-8 scalar, `*` a self-loop, and each variable a trie shared by every pattern that uses it
///   through call/return states (see `NFA`). Variables are never expanded into pattern lists:
///   Apple's `$(lang)_$(region)/$(food)` example would be 652 454 patterns (`ListExpansion`).
/// - `Alphabet/` partitions the 256 bytes into the classes no transition tells apart
///   (`ByteClasses`), so a DFA row has a column per class; `Primitives/` holds `TagSet`, what
///   an accepting state carries.
/// - `Split/` takes `literal * literal` path patterns out of the NFA when a document has many
///   (`SuffixSplit`): the DFA checks `P*`, a probe or a reversed trie checks the suffix, so the
///   DFA stays linear in the number of rules instead of multiplying pending suffixes.
/// - `Determinize/` is the subset construction every DFA shares.
/// - `Lazy/` is the engine that runs: a lazy DFA building states on demand into a per-thread
///   `LazyDFA.Cache` with a byte budget; when the budget is spent it clears the cache and goes
///   on, and past a number of clears in one search, or when a search keeps building states it
///   has never seen, it finishes that search by NFA simulation (`Simulation/`, a bitset a byte
///   when the automaton is small and calls no variable): never wrong, slower than cached
///   states and faster than building them. This is the design of RE2's
///   `dfa.cc` and of regex-automata's `hybrid` module. A `WorkMeter` bounds what one URL may
///   cost. An automaton whose whole DFA is large but bounded is determinised when it is made
///   instead, into a table every thread shares (`LazyDFA+Eager.swift`), and one loaded from an
///   artifact may bring its table with it (`LazyDFA+Prebuilt.swift`): searches then never build
///   a state.
/// - `Eager/` determinises completely: `DenseDFA` and `Minimize` for stable dumps (`aasa debug
///   dfa`) and for the tables artifacts store, `CompactTable` for the shared tables of large
///   automata. `docs/internals.md` says which strategy an automaton gets, and when.
///
/// Not here: URL splitting and text normalisation (the matcher's job, once per URL), rule order
/// and app decisions (the matcher combines the accept sets), and backtracking of any kind. Nor
/// does anything here decide what an exceeded budget means: a search reports it, the matcher
/// turns it into an error record.
///
/// Alternatives rejected: one regex per rule scanned in order (cost grows with rules; that is
/// the baseline the benchmarks beat), eager DFAs for every document (state blow-up on hostile
/// `*a*a*…` documents; the lazy DFA only builds the states real URLs visit), and NFA simulation
/// as the main engine (several times slower per byte).
public enum AutomatonOverview {}
