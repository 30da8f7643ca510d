import AASAKit

/// Every engine configuration the suites run, by name.
public enum EngineConfigurations {
    public static let reference: EngineRunner.Factory = { ReferenceMatcher(document: $0, domain: $1) }

    /// The compiled engine as the plan sets it up by default (`Planner`).
    public static let planned: EngineRunner.Factory = compiled(.init())

    /// The lazy DFA alone, with the default cache: no automaton determinised at compile time.
    public static let lazyDFA: EngineRunner.Factory = compiled(lazyOnly)

    /// The lazy DFA with the smallest cache each automaton accepts: states are evicted
    /// constantly, so every clearing path runs, but no search gives up.
    public static let lazyDFATinyCache: EngineRunner.Factory = compiled(tinyCache)

    /// The smallest cache, giving up on the first clear: long searches finish by NFA simulation
    /// (with every pattern that can be split, split, so the simulation meets prefix groups too).
    public static let nfaSimulation: EngineRunner.Factory = compiled(simulationFallback)

    /// Every automaton determinised at compile time into the compact table form, however small.
    public static let compactTable: EngineRunner.Factory = compiled(compactTables)

    /// Every `literal * literal` path pattern matched as prefix and suffix (`SuffixSplit`),
    /// however few a document has (by default only from 32 on).
    public static let suffixSplit: EngineRunner.Factory = compiled(splitAll)

    /// Both at once: every automaton a compact table and every `literal * literal` pattern
    /// split, so the suffix side reads its prefix groups from the compile-time decision rows
    /// (`solo-path-compiled-rows`).
    public static let compactTableSuffixSplit: EngineRunner.Factory = compiled(compactSplit)

    /// The planned engine with one byte class per byte.
    public static let noByteClasses: EngineRunner.Factory = compiled(noByteClassesConfiguration)

    static func compiled(_ configuration: Configuration) -> EngineRunner.Factory {
        { document, domain in DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: configuration)) }
    }

    /// 4 states of 256 columns: at or above the minimum of any automaton.
    static let tinyBudget = LazyDFA.minimumCacheCapacity(classes: 256)

    // The cache configurations build no eager table: they exist to run the lazy cache.
    public static let tinyCache = automata(.init(cacheCapacity: tinyBudget, maxClearsPerSearch: .max, eagerMaxStates: 0))
    public static let simulationFallback = automata(
        .init(cacheCapacity: tinyBudget, maxClearsPerSearch: 0, suffixSplitMinimum: 0, eagerMaxStates: 0))
    public static let lazyOnly = automata(.init(eagerMaxStates: 0))
    public static let compactTables = automata(.init(compactTableMinimumBytes: 0))
    public static let splitAll = automata(.init(suffixSplitMinimum: 0))
    public static let compactSplit = automata(.init(suffixSplitMinimum: 0, compactTableMinimumBytes: 0))
    public static let noByteClassesConfiguration = automata(.init(useByteClasses: false))

    /// The default configuration with other automaton settings.
    static func automata(_ automata: Configuration.Automata) -> Configuration {
        var configuration = Configuration()
        configuration.automata = automata
        return configuration
    }

    /// Every configuration of the compiled engine, labelled by the strategy it forces.
    public static let allDFA: [(String, EngineRunner.Factory)] = strategies.map { ($0.name, $0.factory) }

    /// Every configuration of the compiled engine the case suite runs, named after the
    /// strategy it forces (`Strategy`), with what shows that strategy ran (`StrategyCheck`).
    public static let strategies: [StrategyConfiguration] = [
        .init(name: "planned", forces: nil, configuration: .init(), factory: planned),
        .init(name: Strategy.lazyDFA.rawValue, forces: .lazyDFA, configuration: lazyOnly, factory: lazyDFA),
        .init(name: "lazy-dfa-tiny-cache", forces: .lazyDFA, configuration: tinyCache, factory: lazyDFATinyCache),
        .init(name: Strategy.nfaSimulation.rawValue, forces: .nfaSimulation, configuration: simulationFallback, factory: nfaSimulation),
        .init(name: Strategy.compactTable.rawValue, forces: .compactTable, configuration: compactTables, factory: compactTable),
        .init(name: Strategy.suffixSplit.rawValue, forces: .suffixSplit, configuration: splitAll, factory: suffixSplit),
        .init(
            name: "compact-table-suffix-split", forces: .soloPathCompiledRows, configuration: compactSplit,
            factory: compactTableSuffixSplit),
        .init(name: "no-byte-classes", forces: nil, configuration: noByteClassesConfiguration, factory: noByteClasses),
    ]

    /// The configuration named `name` (`strategies`).
    public static func named(_ name: String) -> StrategyConfiguration? {
        strategies.first { $0.name == name }
    }
}

/// One engine configuration of the case suite: its name, the strategy it exists to run (nil:
/// whatever the plan picks), and the configuration it compiles documents under.
public struct StrategyConfiguration: Sendable {
    public let name: String
    public let forces: Strategy?
    public let configuration: Configuration
    public let factory: EngineRunner.Factory
}
