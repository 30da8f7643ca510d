/// Chooses how each automaton, each path mode's split and the document's path run
/// (`Strategy`), from what can be measured before any URL arrives.
public enum Planner {
    /// The one size boundary between the table strategies: bytes of dense DFA rows (states ×
    /// byte classes × 4). Under it, an automaton compiled in this process stays a `lazyDFA` (its
    /// cache warms within a few URLs and holds just the states URLs visit, packed in visiting
    /// order, which walks faster than a whole table: peers suite, 10 and 100 rules, 5% to 14%
    /// slower with a whole minimised table, same instruction count), and one compiled by
    /// `aasa compile` gets a `denseTable` (`LazyDFA.Prebuilt.Budget.maxTableBytes`: a
    /// fleet of short-lived workers then skips the warm-up). Over it, the dense rows would not
    /// stay in a core's L2 cache (1 MiB here): the whole DFA is determinised at compile time
    /// into a `compactTable` when it is bounded, because a lazy DFA pays for every state the
    /// first URL to reach it builds, each thread its own, and a large document has more states
    /// than a day's URLs may visit. `automata.compactTableMinimumBytes` and the artifact budget
    /// both default to this value.
    public static let denseRowLimit = 1 << 20

    /// The automaton of `nfa`, run as the plan chooses: with the dense table `stored` in an
    /// artifact when there is one; otherwise as a compact table when `compactTable` says so;
    /// otherwise lazily.
    public static func automaton(
        _ nfa: NFA, configuration: LazyDFA.Configuration, stored: LazyDFA.Prebuilt? = nil, budget: EagerBudget? = nil
    )
        throws(AutomatonError) -> LazyDFA
    {
        let classes = configuration.useByteClasses ? nfa.byteClasses() : .singletons
        func choice(_ strategy: Strategy, _ reason: AutomatonChoice.Reason) -> AutomatonChoice {
            AutomatonChoice(
                strategy: strategy, reason: reason, nfaStates: nfa.stateCount, classes: classes.count,
                maxClearsPerSearch: configuration.maxClearsPerSearch)
        }
        if let stored {
            let strategy: Strategy = stored.isDense ? .denseTable : .compactTable
            return try LazyDFA(
                nfa: nfa, configuration: configuration, classes: classes, prebuilt: stored,
                choice: choice(strategy, .storedTable(states: stored.stateCount, bytes: stored.stateCount * stored.stride * 4)))
        }
        let (table, reason) = compactTable(nfa, classes: classes.count, configuration: configuration, budget: budget)
        return try LazyDFA(
            nfa: nfa, configuration: configuration, classes: classes, prebuilt: table,
            choice: choice(table == nil ? .lazyDFA : .compactTable, reason))
    }

    /// The automaton of an artifact's stored dense `table`, its NFA left stored
    /// (`DeferredNFA`): the table answers every search.
    static func automaton(deferred: DeferredNFA, table: LazyDFA.Prebuilt, configuration: LazyDFA.Configuration)
        throws(AutomatonError) -> LazyDFA
    {
        let classes = configuration.useByteClasses ? ByteClasses(classOf: table.classOf, count: table.stride) : .singletons
        return try LazyDFA(
            deferred: deferred, table: table, configuration: configuration, classes: classes,
            choice: AutomatonChoice(
                strategy: .denseTable, reason: .storedTable(states: table.stateCount, bytes: table.stateCount * table.stride * 4),
                nfaStates: deferred.declaredStateCount, classes: classes.count, maxClearsPerSearch: configuration.maxClearsPerSearch))
    }

    /// The dense table `aasa compile` stores for `dfa`: its own when it has a dense one, else its
    /// minimised DFA when that fits `budget` (`LazyDFA.Prebuilt.Budget`, by default
    /// `denseRowLimit`); nil keeps it lazy in the artifact (a compact table is built again at
    /// load, by `automaton`).
    /// `spent`: the work determinising took (none for a table the automaton has already).
    public static func storedTable(for dfa: LazyDFA, budget: LazyDFA.Prebuilt.Budget, spent: inout Int) -> LazyDFA.Prebuilt? {
        spent = 0
        if let table = dfa.prebuilt, table.isDense { return table }
        return LazyDFA.Prebuilt(nfa: dfa.nfa, budget: budget, spent: &spent)
    }

    /// The compact table of `nfa` when it pays and is bounded, and why (or why not).
    ///
    /// At most `eager-dfa-states` states and twice the NFA's plus 1 024 (a DFA that outgrows
    /// that is blowing up, and stays lazy); tried only when that many states could pass
    /// `compactTableMinimumBytes` of dense rows.
    ///
    /// With `budget`, the document's `eager-dfa-work`: tried only when the largest table it
    /// allows (`maxStates` × classes cells) fits what is left, and charged what it spent.
    static func compactTable(_ nfa: NFA, classes: Int, configuration: LazyDFA.Configuration, budget: EagerBudget? = nil)
        -> (LazyDFA.Prebuilt?, AutomatonChoice.Reason)
    {
        let limit = configuration.compactTableMinimumBytes
        guard configuration.eagerMaxStates > 0 else { return (nil, .tablesOff) }
        let maxStates = min(configuration.eagerMaxStates, 2 * nfa.stateCount + 1_024)
        // A DFA that cannot outgrow the minimum is not worth trying.
        guard maxStates >= 2, maxStates * classes * 4 > limit else {
            return (nil, .denseRowsWithinLimitAtMost(maxStates: maxStates, limit: limit))
        }
        if let budget, maxStates * classes > budget.left {
            return (nil, .documentWorkSpent(cells: maxStates * classes, left: max(0, budget.left)))
        }
        switch LazyDFA.Prebuilt.eager(nfa, configuration: configuration, maxStates: maxStates, minimumBytes: limit, budget: budget) {
        case .built(let table):
            let denseBytes = table.stateCount * table.stride * 4
            let compactBytes = table.compact?.memoryUsage ?? 0
            return (table, .compact(states: table.stateCount, denseBytes: denseBytes, tableBytes: compactBytes, limit: limit))
        case .notDetermined:
            return (nil, .notDetermined(maxStates: maxStates))
        case .denseRowsWithinMinimum(let states, let bytes):
            return (nil, .denseRowsWithinLimit(states: states, bytes: bytes, limit: limit))
        case .notCompactable(let states):
            return (nil, .notCompactable(states: states))
        }
    }

    /// Whether a path mode with `candidates` splittable `literal * literal` patterns splits
    /// them (`SuffixSplit`): at `minimum` or more. Below it the one DFA stays small and one
    /// pass is cheaper than two; above it, every pending `*` + suffix would multiply the
    /// states of everything else.
    static func splits(candidates: Int, minimum: Int) -> Bool {
        candidates > 0 && candidates >= minimum
    }

    /// How the matcher turns the path's tag set into decisions, with what it needs to do so.
    ///
    /// One path mode (the usual case) lets the matcher keep one decision row per tag set: when
    /// that automaton has a table whose tag sets start with the empty one, the rows are
    /// computed here once for every tag set (`DecisionRows`, shared by every thread), unless
    /// they would outweigh eight times the table's cells (rows cost tag sets × apps words, two
    /// counts an artifact sets independently: 65 536 tag sets and 10 000 app IDs, under a
    /// megabyte of file, would be 2.6 GB); otherwise each matcher computes a row the first time
    /// it meets a tag set (`FirstSightRows`). Several modes are merged by rule id per URL.
    /// `modes` are the path modes with an automaton in `path`, in `TextMode.all` order.
    static func path(_ path: [LazyDFA?], modes: [TextMode], rules: [CompiledDocument.RuleInfo], appCount: Int) -> PathPlan {
        let layout = TagLayout(ruleCount: rules.count)
        let apps = RuleApps(rules: rules, appCount: appCount)
        guard let mode = modes.first else {
            return PathPlan(strategy: .noPathAutomaton, modes: modes, rows: nil, layout: layout, apps: apps)
        }
        guard modes.count == 1, let dfa = path[mode.index] else {
            return PathPlan(
                strategy: .multiModePath, modes: modes, rows: nil, layout: layout, apps: apps,
                rowTable: modePairRows(path, modes: modes, layout: layout, rules: rules, apps: apps, appCount: appCount))
        }
        guard let table = dfa.prebuilt, table.tagSets.first?.isEmpty == true else {
            return PathPlan(strategy: .soloPathRowsOnFirstSight, modes: modes, rows: nil, layout: layout, apps: apps)
        }
        let rows = PathPlan.Rows(
            tagSets: table.tagSets.count, width: DecisionRows.width(appCount: appCount),
            cells: table.stateCount * table.stride)
        guard rows.tagSets * rows.width <= 8 * rows.cells else {
            return PathPlan(strategy: .soloPathRowsOnFirstSight, modes: modes, rows: rows, layout: layout, apps: apps)
        }
        let decisionRows = DecisionRows(tagSets: table.tagSets, layout: layout, rules: rules, apps: apps, appCount: appCount)
        return PathPlan(
            strategy: .soloPathCompiledRows, modes: modes, rows: rows, layout: layout, apps: apps, decisionRows: decisionRows,
            rowTable: PathRowTable(table: table, rows: decisionRows, appCount: appCount, mode: mode))
    }
}

extension Planner {
    /// For a document comparing paths in two modes, each with a dense table: the block
    /// `classify` reads a routed path's decision from (`PathRowTable`), its rows computed here
    /// for every pair of the two tables' tag sets, as the matcher merges them (`MultiModePathSearcher`:
    /// both modes' rules, in rule order). Nil when the block would pass `PathRowTable.maxBytes`
    /// (checked before any row is computed), a table is missing or not dense, or a mode splits
    /// `literal * literal` patterns (a tag set holds a `SuffixSplit` prefix group): the matcher
    /// then searches the suffixes, and `classify` would not read the block
    /// (`CompiledDocument.routedRows`).
    // PERF: 10 000-domain fleet stream (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`,
    // `aasa classify --compiled --jobs 1`, stream twice − once), where 14% of the lines are of
    // documents comparing paths in two modes: a warm URL 1 325 → 1 256 instructions and 2 031 →
    // 1 917 estimated cycles (−5.6%, cachegrind), L1 data read misses 13.5 → 11.5; a warm pass
    // 36.7 → 34.0 ms (medians of 31 alternated `perf stat` rounds)
    // (`Benchmarks/Records/2026-12-06-fleet-mode-pairs.md`).
    static func modePairRows(
        _ path: [LazyDFA?], modes: [TextMode], layout: TagLayout, rules: [CompiledDocument.RuleInfo], apps: RuleApps, appCount: Int
    ) -> PathRowTable? {
        guard modes.count == 2, let first = path[modes[0].index]?.prebuilt, let second = path[modes[1].index]?.prebuilt,
            first.isDense, second.isDense, first.tagSets.first?.isEmpty == true, second.tagSets.first?.isEmpty == true
        else { return nil }
        let width = DecisionRows.width(appCount: appCount)
        let (pairs, overflow) = first.tagSets.count.multipliedReportingOverflow(by: second.tagSets.count)
        guard !overflow, pairs <= PathRowTable.maxBytes / 4 / width else { return nil }
        // A pair's row without merging its two tag sets: the rule that decides an app is the
        // first of both sets naming it, so the lower of the two sets' first rules for the app,
        // and the row needs the query or fragment when such a first rule does (what
        // `DecisionRows.appendRow` finds walking the merged set, in far fewer steps).
        guard let firstSetRules = firstRules(first.tagSets, layout: layout, rules: rules, appCount: appCount),
            let secondSetRules = firstRules(second.tagSets, layout: layout, rules: rules, appCount: appCount)
        else { return nil }
        var rows = [Int32](repeating: -1, count: pairs * width)
        var row = 0
        for firstSet in first.tagSets.indices {
            for secondSet in second.tagSets.indices {
                var decided = true
                for app in 0..<appCount where decided {
                    let rule = min(firstSetRules[firstSet * appCount + app], secondSetRules[secondSet * appCount + app])
                    guard rule != Int32.max else { continue }
                    decided = apps.decidesOnPath[Int(rule)]
                    rows[row + DecisionRows.firstAppSlot + app] = rule
                }
                rows[row + DecisionRows.decidedSlot] = decided ? 1 : 0
                rows[row + DecisionRows.groupCountSlot] = 0
                rows[row + DecisionRows.groupStartSlot] = 0
                if !decided {
                    for app in 0..<appCount { rows[row + DecisionRows.firstAppSlot + app] = -1 }
                }
                row += width
            }
        }
        return PathRowTable(tables: [(first, modes[0]), (second, modes[1])], rows: rows, width: width, appCount: appCount)
    }
}

extension Planner {
    /// Per tag set of a table, per app: the first rule of the set naming the app (`Int32.max`
    /// for none); nil when a set holds a `SuffixSplit` prefix group.
    static func firstRules(_ tagSets: [TagSet], layout: TagLayout, rules: [CompiledDocument.RuleInfo], appCount: Int) -> [Int32]? {
        var first = [Int32](repeating: Int32.max, count: tagSets.count * appCount)
        for (index, tags) in tagSets.enumerated() {
            // Prefix groups sort after every rule.
            if let last = tags.sorted.last, !layout.isRule(last) { return nil }
            var remaining = appCount
            for tag in tags.sorted {
                for app in rules[Int(tag)].apps where first[index * appCount + Int(app)] == Int32.max {
                    first[index * appCount + Int(app)] = tag
                    remaining -= 1
                }
                if remaining == 0 { break }
            }
        }
        return first
    }
}

/// What is left of one document's `eager-dfa-work` while its automata are planned: shared by
/// the document's automata, so that a document of many large automata (a variable called from
/// all twelve) determinises a few and leaves the rest lazy, in bounded time.
public final class EagerBudget {
    var left: Int

    public init(_ work: Int) { left = work }
}
