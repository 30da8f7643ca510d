/// Every limit and budget of the engine, in one place, each with its default.
///
/// AASA files come from other people's servers and URLs from the whole internet, so every size
/// the engine handles is bounded here. Past a limit the engine reports which limit was hit and
/// how to raise it (`Limit`, whose names are the CLI's `--limit NAME=VALUE`); it never crashes
/// and never allocates without bound. `docs/limits.md` says what happens past each limit and how
/// memory grows.
///
/// The defaults are far above anything a real document needs (the 250 real documents of the
/// shared corpus have at most 40 patterns of at most 70 bytes and no custom variable; Apple's
/// largest predefined variable has 631 values), and the document limits other than size and
/// depth cannot be reached by a document within the default 128 KiB at all: they start to
/// matter when that size limit is raised.
public struct Configuration: Sendable, Equatable {
    /// Limits on one document, checked while it is read and decoded: past one, the whole
    /// document is refused (`DocumentError`), because skipping part of it could turn an
    /// `exclude` into a `match`.
    public var document = Document()
    /// Limits and budgets of the compiled automata.
    public var automata = Automata()
    /// Limits on the URL streams.
    public var input = Input()

    public init() {}

    /// The defaults, as documented on each field.
    public static let `default` = Configuration()

    public struct Document: Sendable, Equatable {
        /// Largest document accepted, in bytes; inclusive (SPEC 2). Default 128 KiB, as Apple.
        /// A larger file is refused after reading at most this many bytes plus one.
        public var maxBytes = 131_072
        /// Deepest JSON nesting accepted, the root object being level 1 (SPEC 2). Default 512.
        public var maxJSONDepth = 512
        /// Most patterns in one document: path, query and fragment patterns of every rule and
        /// of the defaults, query item values, and legacy `paths` strings. Default 65,536 (a
        /// 128 KiB document holds at most about 43,700).
        public var maxPatterns = 65_536
        /// Longest single pattern or variable value, in UTF-8 bytes. Default 65,536, as a URL.
        public var maxPatternBytes = 65_536
        /// Most custom substitution variables in one document. Default 4,096.
        public var maxVariables = 4_096
        /// Most values of one custom variable. Default 65,536 (Apple's `$(lang)` has 631).
        public var maxValuesPerVariable = 65_536

        public init() {}
    }

    public struct Automata: Sendable, Equatable {
        /// Most NFA states a document's automata may have together (a document has up to
        /// twelve, plus one per query item name, and each calling a variable holds its own copy
        /// of it). Default 1,000,000: about 50 MB; Apple's example needs 1,166, the largest
        /// real document a few hundred, and 128 KB of plain patterns at most about 270,000.
        public var maxNFAStates = 1_000_000
        /// Bytes the lazy DFA cache of one automaton may use, per thread (default 128 MiB).
        ///
        /// A ceiling, not an allocation: a cache holds only the states its searches visited,
        /// a few kilobytes for a typical document. Large documents need room: the peers
        /// benchmark measured a 5.6 MB working set at 1 000 rules and 92.5 MB at 10 000, and a
        /// 2 MiB budget made those 18x and 120x slower by clearing constantly
        /// (`Benchmarks/Peers`). RE2::Set gets 1 GiB in the same comparison.
        /// Past it the cache is cleared and the search goes on: slower, never wrong.
        public var cacheCapacity = 128 << 20
        /// Bytes of compiled documents a lazily loaded fleet (`classify --rules DIR` or
        /// `--compiled`) keeps at once, all threads together: their automata, rule tables and
        /// record pieces (default 1 GiB). Past it, every document loaded is let go, and each is
        /// loaded again (read and compiled, or decoded) when its domain next comes: slower, never
        /// wrong. Real documents hold a few kilobytes each, so a fleet of a hundred thousand
        /// stays far below it; a stream of hostile documents (tens of megabytes each, within
        /// every other limit) is held to it.
        public var maxLoadedBytes = 1 << 30
        /// Merge bytes no transition distinguishes into classes (default on). Not a limit: the
        /// test suite turns it off to check that classes never change an answer.
        public var useByteClasses = true
        /// After this many cache clears within one search, finish that search by NFA
        /// simulation instead of thrashing the cache (default 8). 0 means: at the first clear.
        public var maxClearsPerSearch = 8
        /// A path automaton whose mode has at least this many `literal * literal` patterns
        /// (`/shop/*/reviews`, `/p/item-*.html`) matches them in two halves (`SuffixSplit`):
        /// the DFA reads the prefix and the `*`, a suffix trie the end. Default 32: below it
        /// the one DFA stays small and one pass is cheaper than two. A pattern whose prefix no
        /// other pattern shares stays whole (`SuffixSplit.isolatedShapes`) unless this is 0.
        /// Not a limit: the test suite sets 0 (split whatever can be) and `Int.max` (never) to
        /// check that the split never changes an answer.
        public var suffixSplitMinimum = 32
        /// Determinise an automaton completely when it is compiled (`Planner`: a compact table),
        /// if its DFA has at most this many states (and no more than twice its NFA's) and its
        /// dense rows would pass `compactTableMinimumBytes`: searches then never build a state,
        /// and all threads share one table. Default 262 144 (a 10 000-rule generated path
        /// document's automaton has 138 107 states and takes about half a second). 0: always
        /// lazy (the test suite's cache configurations, which must exercise the lazy cache).
        public var eagerMaxStates = 1 << 18
        /// Most work one document's compile-time tables may take together, in table cells
        /// (states × byte classes) plus NFA positions read and visited while determinising:
        /// an automaton is tried only while its largest table fits what is left, and every
        /// attempt is charged what it spent, built or not. Why per document: each automaton is
        /// bounded on its own, but a variable called from all twelve automata of a 128 KB
        /// document gives twelve tables of about 100 000 states. Default 8,388,608, about 0.4 s:
        /// four times what the largest generated path document Apple accepts needs (about 2.1
        /// million). 0: always lazy.
        public var eagerMaxWork = 1 << 23
        /// An automaton whose whole DFA would fit in this many bytes of dense rows stays lazy
        /// when compiled in process (default `Planner.denseRowLimit`, 1 MiB, the same bound
        /// under which `aasa compile` stores a dense table): its cache warms within a few URLs
        /// and walks faster than a whole table. Over it, the plan tries a compact table. Not a
        /// limit: the test suite sets 0 to run every answer through a compact table.
        public var compactTableMinimumBytes = Planner.denseRowLimit
        /// Most variable positions one automaton may have: over every call of a substitution
        /// variable (a distinct place in the pattern trie that enters it), the states of the
        /// variable's sub-automaton. A DFA state is a set of (NFA state, return point) pairs, so
        /// this bounds how large one can grow through variables: shared sub-automata keep the
        /// NFA small, but each call can make every state of the variable live again. Default
        /// 8,000,000: `$(lang)` is 175 states (its minimal automaton), and a 128 KiB document has
        /// room for at most about 5 700 distinct calls of it (`*ab*$(lang)`, 23 bytes a rule), so
        /// no document Apple accepts is refused for calling built-in variables, with room for
        /// literal custom ones (SPEC 2 fails a document only for its JSON, its root and its
        /// size). What a URL's closures can then cost is bounded by `maxURLWork`, as for any
        /// other pattern.
        public var maxVariablePositions = 8_000_000
        /// Most work deciding one URL may take, in NFA positions (see `docs/limits.md`): the
        /// closures of the DFA states its bytes lead to, counted for every state over
        /// `LazyDFA.heavyWeight` positions and for every closure built. Past it the URL gets an
        /// error record, never a decision. Default 500,000: a few tens of milliseconds, a
        /// hundred times what any URL of the shared corpora or the case suite needs
        /// (`WorkBudgetTests` decides them all under 5 000). At least `LazyDFA.heavyWeight`: a
        /// lower value is raised to it (the CLI refuses one), since below the weight of a heavy
        /// transition whether a URL runs over would depend on which engine decides it, and
        /// `--rules`, `--compiled` and the reference could give different records.
        public var maxURLWork = 500_000 {
            didSet { maxURLWork = max(maxURLWork, LazyDFA.heavyWeight) }
        }
        /// Most work of one analysis (`lint`, `diff`, `cover`), in NFA positions stepped and
        /// visited while exploring the document's URLs. Past it the analysis stops and claims
        /// only what it proved (a note says so). Default 30,000,000: enough for every document of
        /// the shared real corpus (the heaviest, eleven exclusions of which seven search
        /// substrings, needs about 27 million); a walk that uses all of it takes about a second
        /// on a slow 2-core host, `cover`'s searches rule by rule (dearer a position) up to a few
        /// seconds.
        public var maxAnalysisWork = 30_000_000
        /// Most product states one analysis explores (each a tuple of DFA states and the rules
        /// still alive); default 100,000, about 100 MB at worst.
        public var maxAnalysisStates = 100_000
        /// Most pairs of a rule and an app one analysis holds: those a document's rules name
        /// (every rule of an entry, times the entry's apps), and the changes a diff finds (an
        /// app and its deciding rule on either side). What `lint`, `diff` and `cover` keep and
        /// print grows with these pairs, not with the states they explore: 3 800 rules of an
        /// entry naming 3 500 apps made `cover` abort at 4 GB and `diff` at 8 GB. Default
        /// 200,000, about a second and 200 MB at most: five thousand times the largest
        /// real document's.
        public var maxAnalysisPairs = 200_000

        public init(
            maxNFAStates: Int = 1_000_000, cacheCapacity: Int = 128 << 20, useByteClasses: Bool = true,
            maxClearsPerSearch: Int = 8, suffixSplitMinimum: Int = 32, eagerMaxStates: Int = 1 << 18,
            compactTableMinimumBytes: Int = Planner.denseRowLimit, maxVariablePositions: Int = 8_000_000, maxURLWork: Int = 500_000,
            eagerMaxWork: Int = 1 << 23
        ) {
            self.maxNFAStates = maxNFAStates
            self.cacheCapacity = cacheCapacity
            self.useByteClasses = useByteClasses
            self.maxClearsPerSearch = maxClearsPerSearch
            self.suffixSplitMinimum = suffixSplitMinimum
            self.eagerMaxStates = eagerMaxStates
            self.compactTableMinimumBytes = compactTableMinimumBytes
            self.maxVariablePositions = maxVariablePositions
            self.maxURLWork = max(maxURLWork, LazyDFA.heavyWeight)
            self.eagerMaxWork = eagerMaxWork
        }
    }

    public struct Input: Sendable, Equatable {
        /// Longest URL matched, in bytes; a longer one gives an error record. Default 64 KiB.
        public var maxURLBytes = 65_536
        /// Longest input line, in bytes after trimming; a longer one gives an error record and
        /// is never held in memory past this length. Default 64 KiB (#4: "over 64 KiB").
        public var maxLineBytes = 65_536

        public init() {}
    }
}

extension Configuration {
    /// One limit, by the name the CLI's `--limit NAME=VALUE` and every "over the limit" message
    /// use, so that a message always says exactly what to type to raise it.
    public enum Limit: String, CaseIterable, Sendable {
        case documentBytes = "document-bytes"
        case jsonDepth = "json-depth"
        case patterns
        case patternBytes = "pattern-bytes"
        case variables
        case variableValues = "variable-values"
        case nfaStates = "nfa-states"
        case dfaCacheBytes = "dfa-cache-bytes"
        case loadedBytes = "loaded-bytes"
        case eagerDFAStates = "eager-dfa-states"
        case eagerDFAWork = "eager-dfa-work"
        case variablePositions = "variable-positions"
        case urlWork = "url-work"
        case analysisWork = "analysis-work"
        case analysisStates = "analysis-states"
        case analysisPairs = "analysis-pairs"
        case urlBytes = "url-bytes"
        case lineBytes = "line-bytes"

        /// One line for `--help`.
        public var summary: String {
            switch self {
            case .documentBytes: return "largest document, inclusive"
            case .jsonDepth: return "deepest JSON nesting"
            case .patterns: return "most patterns in one document"
            case .patternBytes: return "longest pattern or variable value"
            case .variables: return "most custom variables in one document"
            case .variableValues: return "most values of one variable"
            case .nfaStates: return "most NFA states of one document's automata together"
            case .dfaCacheBytes: return "lazy DFA cache per automaton and thread (a classify thread's together: twice it, 16 MiB at least)"
            case .loadedBytes: return "compiled documents a classify stream keeps loaded (past it: all let go, loaded again as needed)"
            case .eagerDFAStates: return "DFA states determinised at compile time per automaton (0: lazy)"
            case .eagerDFAWork: return "work of one document's compile-time tables together"
            case .variablePositions: return "most variable calls x variable states in one automaton"
            case .urlWork: return "most NFA positions stepped to decide one URL"
            case .analysisWork: return "most NFA positions stepped by one lint, diff or cover analysis"
            case .analysisStates: return "most product states one lint, diff or cover analysis explores"
            case .analysisPairs: return "most (rule, app) pairs one lint, diff or cover analysis holds"
            case .urlBytes: return "longest URL"
            case .lineBytes: return "longest input line"
            }
        }

        /// The largest value `setLimit` accepts for any limit (1 TiB): above it, the sums the
        /// engine makes with limits (a line window plus a read block) could overflow `Int`.
        public static let ceiling = 1 << 40

        /// What a count of this limit counts, for messages.
        public var unit: String {
            switch self {
            case .variablePositions: return "variable positions (calls x states of the called variable)"
            case .urlWork, .analysisWork: return "NFA positions of work"
            case .eagerDFAWork: return "table cells and NFA positions of work"
            case .analysisStates: return "states"
            case .analysisPairs: return "(rule, app) pairs"
            case .nfaStates, .eagerDFAStates: return "states"
            case .patterns: return "patterns"
            case .variables: return "variables"
            case .variableValues: return "values"
            case .jsonDepth: return "levels"
            default: return "bytes"
            }
        }

        /// What to write to raise this limit.
        public var hint: String { "raise it with --limit \(rawValue)=<n>" }

        /// The largest value `setLimit` accepts for this limit. JSON depth stops at 4 096: a
        /// document's tree is freed without recursion once decoded (`JSONValue.dismantle`), but
        /// lint and the JSON writer still walk a tree a stack frame or more per level, so a
        /// deeper document could overflow a thread's stack (one of 65 000 levels did).
        public var maximum: Int {
            self == .jsonDepth ? 4_096 : Self.ceiling
        }

        /// The smallest value that still lets the engine work (a cache must hold a few states).
        /// `url-work` starts at the weight of a heavy transition (`LazyDFA.heavyWeight`): below
        /// it, a light transition the lazy DFA builds for free would end a URL, while the table
        /// an artifact stores for the same automaton decides it, and `--rules` and `--compiled`
        /// would give different records.
        public var minimum: Int {
            switch self {
            case .urlWork: return LazyDFA.heavyWeight
            case .jsonDepth, .urlBytes, .lineBytes, .nfaStates: return 1
            default: return 0
            }
        }
    }

    public subscript(limit: Limit) -> Int {
        get {
            switch limit {
            case .documentBytes: return document.maxBytes
            case .jsonDepth: return document.maxJSONDepth
            case .patterns: return document.maxPatterns
            case .patternBytes: return document.maxPatternBytes
            case .variables: return document.maxVariables
            case .variableValues: return document.maxValuesPerVariable
            case .nfaStates: return automata.maxNFAStates
            case .dfaCacheBytes: return automata.cacheCapacity
            case .loadedBytes: return automata.maxLoadedBytes
            case .eagerDFAStates: return automata.eagerMaxStates
            case .eagerDFAWork: return automata.eagerMaxWork
            case .variablePositions: return automata.maxVariablePositions
            case .urlWork: return automata.maxURLWork
            case .analysisWork: return automata.maxAnalysisWork
            case .analysisStates: return automata.maxAnalysisStates
            case .analysisPairs: return automata.maxAnalysisPairs
            case .urlBytes: return input.maxURLBytes
            case .lineBytes: return input.maxLineBytes
            }
        }
        set {
            switch limit {
            case .documentBytes: document.maxBytes = newValue
            case .jsonDepth: document.maxJSONDepth = newValue
            case .patterns: document.maxPatterns = newValue
            case .patternBytes: document.maxPatternBytes = newValue
            case .variables: document.maxVariables = newValue
            case .variableValues: document.maxValuesPerVariable = newValue
            case .nfaStates: automata.maxNFAStates = newValue
            case .dfaCacheBytes: automata.cacheCapacity = newValue
            case .loadedBytes: automata.maxLoadedBytes = newValue
            case .eagerDFAStates: automata.eagerMaxStates = newValue
            case .eagerDFAWork: automata.eagerMaxWork = newValue
            case .variablePositions: automata.maxVariablePositions = newValue
            case .urlWork: automata.maxURLWork = newValue
            case .analysisWork: automata.maxAnalysisWork = newValue
            case .analysisStates: automata.maxAnalysisStates = newValue
            case .analysisPairs: automata.maxAnalysisPairs = newValue
            case .urlBytes: input.maxURLBytes = newValue
            case .lineBytes: input.maxLineBytes = newValue
            }
        }
    }

    /// Sets a limit from `NAME=VALUE` text (the CLI's `--limit`); `VALUE` may end in `K`, `M`
    /// or `G` (binary multiples), since cache budgets and sizes are easier to read that way.
    ///
    /// - Throws: a message naming the known limits when the name or value is wrong.
    public mutating func setLimit(_ assignment: String) throws(LimitSyntaxError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw LimitSyntaxError(message: "--limit needs NAME=VALUE, for instance --limit document-bytes=1M")
        }
        let name = String(assignment[..<equals])
        var text = Substring(assignment[assignment.index(after: equals)...])
        guard let limit = Limit(rawValue: name) else {
            let known = Limit.allCases.map(\.rawValue).joined(separator: ", ")
            throw LimitSyntaxError(message: "unknown limit '\(name)' (known: \(known))")
        }
        var shift = 0
        switch text.last {
        case "K", "k": shift = 10
        case "M", "m": shift = 20
        case "G", "g": shift = 30
        default: break
        }
        if shift > 0 { text = text.dropLast() }
        // The minimum applies to the value, suffix included (`url-work=1G` is far above 256).
        guard let number = Int(text), number >= 0, number <= (limit.maximum >> shift), number << shift >= limit.minimum else {
            throw LimitSyntaxError(
                message:
                    "--limit \(name) needs a whole number from \(limit.minimum) to \(limit.maximum) (K, M, G suffixes allowed), got '\(assignment[assignment.index(after: equals)...])'"
            )
        }
        self[limit] = number << shift
    }
}

/// A `--limit` argument that cannot be understood.
public struct LimitSyntaxError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A document over one of the `Configuration.document` limits other than its size.
public struct DocumentLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    public var limit: Configuration.Limit
    /// The count or length found (at least `maximum + 1`; counting stops there).
    public var found: Int
    public var maximum: Int
    /// Where in the document the limit was passed.
    public var path: JSONPath

    public var description: String {
        let what: String
        switch limit {
        case .patterns: what = "more than \(maximum) patterns"
        case .patternBytes: what = "a pattern of \(found) bytes, over the limit of \(maximum) bytes"
        case .variables: what = "more than \(maximum) substitution variables"
        case .variableValues: what = "a variable with \(found) values, over the limit of \(maximum)"
        default: what = "\(found), over the \(limit.rawValue) limit of \(maximum)"
        }
        return "the document has \(what) at \(path) (\(limit.hint))"
    }
}
