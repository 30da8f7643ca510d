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
    /// The NFA this automaton determinises: decoded, or (a stored table's) decoded on request.
    private let source: Source
    private enum Source: Sendable {
        case decoded(NFA)
        case deferred(DeferredNFA)
    }

    /// The NFA. For an automaton loaded with its table (`init(deferred:…)`) it is decoded now if
    /// no one has asked before: searches never ask.
    public var nfa: NFA {
        switch source {
        case .decoded(let nfa): return nfa
        case .deferred(let deferred): return deferred.nfa
        }
    }

    /// The NFA's state count, without decoding a deferred one (its declared count then).
    public var nfaStateCount: Int {
        switch source {
        case .decoded(let nfa): return nfa.stateCount
        case .deferred(let deferred): return deferred.declaredStateCount
        }
    }

    /// The stored NFA of an automaton loaded with its table, still in its stored form.
    var deferredNFA: DeferredNFA? {
        if case .deferred(let deferred) = source { return deferred }
        return nil
    }

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
    public convenience init(
        nfa: NFA, configuration: Configuration = .init(), classes: ByteClasses? = nil, prebuilt: Prebuilt? = nil,
        choice: AutomatonChoice? = nil
    ) throws(AutomatonError) {
        let classes = classes ?? (configuration.useByteClasses ? nfa.byteClasses() : .singletons)
        try self.init(
            source: .decoded(nfa), configuration: configuration, classes: classes, prebuilt: prebuilt,
            choice: choice
                ?? AutomatonChoice(
                    strategy: prebuilt == nil ? .lazyDFA : prebuilt?.isDense == true ? .denseTable : .compactTable,
                    reason: .unplanned, nfaStates: nfa.stateCount, classes: classes.count,
                    maxClearsPerSearch: configuration.maxClearsPerSearch))
    }

    /// An automaton that reads `table` for every search, its NFA left stored until asked for
    /// (`DeferredNFA`): what a compiled artifact's table-backed automata load as.
    convenience init(
        deferred: DeferredNFA, table: Prebuilt, configuration: Configuration, classes: ByteClasses, choice: AutomatonChoice
    ) throws(AutomatonError) {
        try self.init(source: .deferred(deferred), configuration: configuration, classes: classes, prebuilt: table, choice: choice)
    }

    private init(
        source: Source, configuration: Configuration, classes: ByteClasses, prebuilt: Prebuilt?, choice: AutomatonChoice
    ) throws(AutomatonError) {
        self.source = source
        self.prebuilt = prebuilt
        self.choice = choice
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

    /// A search that has built this many states over a stretch of its text, more than one
    /// for every two bytes of the stretch, reads the rest by NFA simulation (`NFASimulation`);
    /// over a longer stretch, the count starts again from there. Such a text keeps
    /// making subsets the cache has never seen, and building a state costs a simulated step
    /// plus sorting, hashing and storing a subset no search may meet again. Real documents'
    /// URLs build a state a byte only along a rule's literal text, and their states repeat
    /// after it (a search of a warm cache builds none); `/*a` followed by twenty `?` makes a
    /// new subset for nearly every byte of a long random `a`/`b` path.
    // PERF: `aasa match` of 20 random `a`/`b` paths of 60 KB against `/*a` and twenty `?`:
    // 0.8 s and 119 MiB → 0.35 s and 41 MiB; ten 64 KB paths of random letters against `*a` and
    // 200 `?` in four path modes, 1.9–2.4 s and 362 MiB → 0.4–0.5 s and 45 MiB; the same records
    // (`Benchmarks/Records/2026-12-07-simulate-new-subsets.md`). The quick gate's 154 figures
    // do not move: real URLs build no such stretch.
    static let simulateAfterStates = 1_024

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
    func makeCache(sharing meter: WorkMeter, account: LazyCacheMemory? = nil) -> Cache {
        Cache(dfa: self, meter: meter, account: account)
    }

    /// Heap bytes of the immutable part.
    public var memoryUsage: Int {
        let nfaBytes: Int
        switch source {
        case .decoded(let nfa): nfaBytes = nfa.memoryUsage
        case .deferred(let deferred): nfaBytes = deferred.encoded.count
        }
        return nfaBytes + 256 + classes.count + (prebuilt?.memoryUsage ?? 0)
    }
}

extension LazyDFA {
    /// The budget and behaviour of a lazy DFA: the automaton group of the one `Configuration`
    /// (cache bytes, byte classes, clears per search), so that limits live in one place.
    public typealias Configuration = AASAKit.Configuration.Automata
}
