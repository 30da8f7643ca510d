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

    /// The smallest cache, giving up on the first clear: long searches finish by NFA simulation.
    public static let dfaSimulationFallback: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: simulationFallback))
    }

    public static let dfaNoByteClasses: EngineRunner.Factory = { document, domain in
        DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: noByteClasses))
    }

    /// 4 states of 256 columns: at or above the minimum of any automaton.
    static let tinyBudget = LazyDFA.minimumCacheCapacity(classes: 256)

    public static let tinyCache = automata(.init(cacheCapacity: tinyBudget, maxClearsPerSearch: .max))
    public static let simulationFallback = automata(.init(cacheCapacity: tinyBudget, maxClearsPerSearch: 0))
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
        ("dfa-no-byte-classes", dfaNoByteClasses),
    ]
}
