/// A lazily determinised DFA over one NFA: immutable, `Sendable`, shared by every thread.
/// When the plan gives it a whole table (`Planner.automaton`: a dense one from an artifact, or
/// a compact one determinised at compile time, `LazyDFA+Eager.swift`), searches read that
/// table, and the cache only hands out its tag sets.
///
/// All mutable state lives in a `LazyDFA.Cache` made by `makeCache()`, one per thread. The
/// automaton checks, at construction, that the configured budget can hold the few states a
/// search needs (`AutomatonError.budgetTooSmall`).
///
/// ```swift
/// let dfa = try LazyDFA(nfa: nfa)
/// let cache = dfa.makeCache()
/// let accepted = dfa.search(bytes, cache: cache)   // TagSet of the patterns matching whole
/// ```
public final class LazyDFA: Sendable {
    public let nfa: NFA
    public let classes: ByteClasses
    public let configuration: Configuration
    /// One byte per class: the determiniser steps on these.
    let representatives: [UInt8]
    /// Bytes one state costs in the cache beyond its subset: its row and bookkeeping.
    let stateOverhead: Int
    /// The whole DFA, determinised ahead of time (compiled artifacts, `LazyDFA+Prebuilt.swift`):
    /// when present, searches read it and never touch the cache.
    let prebuilt: Prebuilt?

    /// How this automaton runs and why: set by `Planner`, which also hands over the table
    /// when it chose one (`unplanned` when made directly).
    public let choice: AutomatonChoice

    /// A lazy DFA over `nfa`, or, with `prebuilt`, one that reads that table. It never decides
    /// to build a table itself: `Planner.automaton` does (`Plan/Planner.swift`).
    public init(
        nfa: NFA, configuration: Configuration = .init(), classes: ByteClasses? = nil, prebuilt: Prebuilt? = nil,
        choice: AutomatonChoice? = nil
    ) throws(AutomatonError) {
        self.nfa = nfa
        let classes = classes ?? (configuration.useByteClasses ? nfa.byteClasses() : .singletons)
        self.prebuilt = prebuilt
        self.choice =
            choice
            ?? AutomatonChoice(
                strategy: prebuilt == nil ? .lazyDFA : prebuilt?.isDense == true ? .denseTable : .compactTable,
                reason: .unplanned, nfaStates: nfa.stateCount, classes: classes.count,
                maxClearsPerSearch: configuration.maxClearsPerSearch)
        self.configuration = configuration
        self.classes = classes
        self.representatives = classes.representatives
        self.stateOverhead = classes.count * 4 + 96
        let minimum = Self.minimumStates * stateOverhead
        if configuration.cacheCapacity < minimum {
            throw .budgetTooSmall(minimum: minimum, given: configuration.cacheCapacity)
        }
    }

    /// A transition whose closure visits at least this many NFA positions is heavy: it is kept
    /// out of the transition table, so every search that takes it charges its weight to the
    /// URL's `WorkMeter` (a cached light transition costs nothing to follow). Real documents'
    /// states hold a handful of positions; hostile ones reach this within a few bytes.
    public static let heavyWeight = 256

    /// Dead, start, current and next: a search can always make progress with four states.
    static let minimumStates = 4

    /// The smallest budget this automaton accepts.
    public var minimumCacheCapacity: Int { Self.minimumStates * stateOverhead }

    /// The smallest budget any automaton with `classes` byte classes accepts; with 256 it
    /// suits every automaton (the "tiny cache" test configuration).
    public static func minimumCacheCapacity(classes: Int) -> Int { minimumStates * (classes * 4 + 96) }

    public func makeCache() -> Cache {
        Cache(dfa: self)
    }

    /// A cache charging its searches to `meter`, which its owner begins once per URL
    /// (`Cache.share(meter:)`).
    func makeCache(sharing meter: WorkMeter) -> Cache {
        Cache(dfa: self, meter: meter)
    }

    /// Heap bytes of the immutable part.
    public var memoryUsage: Int { nfa.memoryUsage + 256 + classes.count + (prebuilt?.memoryUsage ?? 0) }
}

extension LazyDFA {
    /// The budget and behaviour of a lazy DFA: the automaton group of the one `Configuration`
    /// (cache bytes, byte classes, clears per search), so that limits live in one place.
    public typealias Configuration = AASAKit.Configuration.Automata
}
