import AASAKit

/// Every engine configuration the suites run, by name.
public enum EngineConfigurations {
    public static let reference: EngineRunner.Factory = { ReferenceMatcher(document: $0, domain: $1) }

    public static let dfaDefault: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain))
    }

    /// The smallest cache each automaton accepts: states are evicted constantly, so every
    /// clearing path runs, but no search gives up.
    public static let dfaTinyCache: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: tinyCache))
    }

    /// The lazy DFA alone, with the default cache: no automaton determinised at compile time.
    public static let dfaLazyOnly: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: lazyOnly))
    }

    /// Every automaton determinised at compile time into the compact table form, however small.
    public static let dfaCompactTables: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: compactTables))
    }

    /// Every `literal * literal` path pattern matched as prefix and suffix (`SuffixSplit`),
    /// however few a document has (by default only from 32 on).
    public static let dfaSplitAll: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: splitAll))
    }

    /// Both at once: every automaton a compact table and every `literal * literal` pattern
    /// split, so the suffix side reads its prefix groups from the compile-time decision rows.
    public static let dfaCompactSplit: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: compactSplit))
    }

    /// The smallest cache, giving up on the first clear: long searches finish by NFA simulation
    /// (with every pattern that can be split, split, so the simulation meets prefix groups too).
    public static let dfaSimulationFallback: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: simulationFallback))
    }

    public static let dfaNoByteClasses: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: noByteClasses))
    }

    /// 4 states of 256 columns: at or above the minimum of any automaton.
    static let tinyBudget = LazyDFA.minimumCacheCapacity(classes: 256)

    // The cache configurations build no eager table: they exist to run the lazy cache.
    public static let tinyCache = automata(.init(cacheCapacity: tinyBudget, maxClearsPerSearch: .max, eagerMaxStates: 0))
    public static let simulationFallback = automata(
        .init(cacheCapacity: tinyBudget, maxClearsPerSearch: 0, suffixSplitMinimum: 0, eagerMaxStates: 0))
    public static let lazyOnly = automata(.init(eagerMaxStates: 0))
    public static let compactTables = automata(.init(eagerMinimumTableBytes: 0))
    public static let splitAll = automata(.init(suffixSplitMinimum: 0))
    public static let compactSplit = automata(.init(suffixSplitMinimum: 0, eagerMinimumTableBytes: 0))
    public static let noByteClasses = automata(.init(useByteClasses: false))

    /// The default configuration with other automaton settings.
    static func automata(_ automata: Configuration.Automata) -> Configuration {
        var configuration = Configuration()
        configuration.automata = automata
        return configuration
    }

    /// Every configuration of the compiled engine, labelled.
    public static let allDFA: [(String, EngineRunner.Factory)] = [
        ("dfa", dfaDefault), ("dfa-tiny-cache", dfaTinyCache), ("dfa-simulation", dfaSimulationFallback),
        ("dfa-no-byte-classes", dfaNoByteClasses), ("dfa-split-all", dfaSplitAll), ("dfa-lazy-only", dfaLazyOnly),
        ("dfa-compact-tables", dfaCompactTables), ("dfa-compact-split", dfaCompactSplit),
    ]
}
