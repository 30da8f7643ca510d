/// Finding which rules' path patterns match a URL's path: one searcher per path strategy of the
/// plan (`PathPlan`). `DFAMatcher` drives them: it searches the path, lets the solo searcher
/// settle the URL from a decision row when it can, and otherwise walks the rules found, in rule
/// order, checking each one's query and fragment.
///
/// A searcher owns the per-thread state of its strategy (the automaton caches, the split rules
/// found, the rows met so far); what it reads is the plan's (`TagLayout`, `RuleApps`,
/// `DecisionRows`). It never decides an app by itself except through a decision row, which the
/// plan computed (or `FirstSightRows` computes) from the rules in order, as SPEC 3 says.
protocol PathSearcher {
    /// Searches `path`, as written in the URL after the authority; each searcher normalises it
    /// for its modes and drops the trailing `/` run (SPEC 5).
    mutating func search(_ path: ByteView, normalizer: inout ComponentNormalizer)

    /// Calls `body` with each rule whose path pattern matched the last path searched, in rule
    /// order (lowest id first), until `body` returns false.
    mutating func walkRules(_ body: (Int32) -> Bool)
}

/// `soloPathCompiledRows` and `soloPathRowsOnFirstSight`: every rule compares paths in one
/// text mode, so one automaton answers, and its accepted tag set has a decision row (per app,
/// the rule that decides on the path alone) that settles most URLs without their query or
/// fragment. The mode's split `literal * literal` patterns, if any, are searched beside it.
struct SoloPathSearcher: PathSearcher {
    // What a URL decided from a compiled row reads comes first, so that it shares as few cache
    // lines as it can (a fleet URL finds few of its matcher's lines in the L1 cache). PERF: see
    // `DomainSlot`.
    /// The automaton's whole table when the cache shares its tag sets (what `searchTagSet` would
    /// read, through the cache and the automaton): read directly, a fleet URL misses two
    /// objects fewer.
    let table: LazyDFA.Prebuilt?
    /// The plan's `PathRowTable`, when it has one: read instead of `table` (the same answers,
    /// in one block).
    let rowTable: PathRowTable.View?
    let mode: TextMode
    /// The mode's `SuffixSplit`, if its `literal * literal` patterns were split.
    let split: SuffixSplit?
    // The plan's compile-time rows (`DecisionRows`), field by field: the optional struct was
    // copied (its two arrays retained and released) on every URL.
    let hasCompiledRows: Bool
    /// The tag set of the last path searched (an index into `cache.tagSets`).
    private(set) var tagSet: Int32 = 0
    let rowWidth: Int
    let compiledRows: [Int32]
    let cache: LazyDFA.Cache
    /// `split.endings`, held here: the hot path reads it without going through the split.
    let endings: SuffixEndings
    let layout: TagLayout
    let apps: RuleApps
    let rules: [CompiledDocument.RuleInfo]
    let appCount: Int
    let groupTags: [Int32]
    /// `endings` without a split: never read, made once.
    private static let noEndings = SuffixEndings(segments: [], others: [])
    /// Rows computed on first sight when the plan has none.
    var firstSight = FirstSightRows()
    /// The rules of split patterns that matched the last path searched (sorted).
    private(set) var splitRules: [Int32] = []

    init(cache: LazyDFA.Cache, mode: TextMode, split: SuffixSplit?, plan: PathPlan, rules: [CompiledDocument.RuleInfo], appCount: Int) {
        self.cache = cache
        table = cache.prebuiltSharesTagSets ? cache.dfa.prebuilt : nil
        rowTable = cache.prebuiltSharesTagSets && cache.dfa.prebuilt === plan.rowTable?.source ? plan.rowTable?.view : nil
        self.mode = mode
        self.split = split
        endings = split?.endings ?? Self.noEndings
        layout = plan.layout
        apps = plan.apps
        self.rules = rules
        self.appCount = appCount
        // The compiled rows are numbered as the prebuilt table's tag sets, which the cache then
        // uses as its own (`prebuiltSharesTagSets`).
        let compiled = cache.prebuiltSharesTagSets ? plan.decisionRows : nil
        hasCompiledRows = compiled != nil
        rowWidth = compiled?.width ?? 0
        compiledRows = compiled?.rows ?? []
        groupTags = compiled?.groupTags ?? []
    }

    /// Searches the path (trailing `/` run dropped, normalised for the mode when it is not raw
    /// and exact), leaving its tag set in `tagSet` and the split patterns that match in
    /// `splitRules`.
    @inline(__always)
    mutating func search(_ path: ByteView, normalizer: inout ComponentNormalizer) {
        if !mode.decoded && !mode.folded {
            searchNormalized(path[0..<PathNormalization.trimmedPathLength(path)])
            return
        }
        normalizer.withNormalized(path, mode: mode) { normalized in
            searchNormalized(normalized[0..<PathNormalization.trimmedPathLength(normalized)])
        }
    }

    @inline(__always)
    private mutating func searchNormalized(_ text: ByteView) {
        // The table's tag sets are the cache's, index for index: its answer is `searchTagSet`'s.
        if let rowTable {
            tagSet = rowTable.tagSet(of: text)
        } else if let accept = table?.acceptIndex(text) {
            tagSet = max(accept, 0)
        } else {
            tagSet = cache.searchTagSet(text)
        }
        guard split != nil else { return }
        if endings.mayEnd(text) {
            collectSplitRules(text)
        } else if !splitRules.isEmpty {
            splitRules.removeAll(keepingCapacity: true)
        }
    }

    /// `splitRules` for the path just searched. Out of line: most documents split nothing, and
    /// inlined, this code kept the hot closure of `decide(bytes:)` from being inlined itself.
    // PERF: peers suite, 10 rules, callgrind: 387 instructions a URL inlined, 331 out of line.
    @inline(never)
    private mutating func collectSplitRules(_ text: ByteView) {
        if !splitRules.isEmpty { splitRules.removeAll(keepingCapacity: true) }
        guard tagSet != 0, let split else { return }
        if hasCompiledRows {
            let start = Int(tagSet) * rowWidth
            let count = Int(compiledRows[start + DecisionRows.groupCountSlot])
            guard count > 0 else { return }
            let low = Int(compiledRows[start + DecisionRows.groupStartSlot])
            groupTags.withView { tags in
                split.collect(text, forward: tags[low..<(low + count)], into: &splitRules)
            }
            return
        }
        split.collect(text, tagSets: cache.tagSets, tagSet: tagSet, into: &splitRules)
    }

    /// What the decision row of the last path searched settled.
    enum RowOutcome {
        /// The path matched no rule: every app is `no_match`, and `decisions` is untouched.
        case nothingMatched
        /// `decisions` holds the URL's decision.
        case decided
        /// Some rule the walk would reach needs the query or fragment; `decisions` is untouched.
        case needsWalk
    }

    /// Sets `decisions` (cleared by the caller) from the decision row of the last tag set when
    /// it has one.
    ///
    /// PERF: one DFA walk and a row copy per URL instead of a walk over the accepted rules with
    /// their query and fragment checks (peers suite, 10 path rules, callgrind: 1 400 → 1 000
    /// instructions a URL with the tag-set index search; 470 → 412 once the path is searched
    /// before the query and fragment are split).
    @inline(__always)
    mutating func decideFromRow(onlyApp: Int?, decisions: DecisionBuffer) -> RowOutcome {
        if tagSet == 0 { return .nothingMatched }
        let row: Int32
        if hasCompiledRows {
            let start = Int(tagSet) * rowWidth
            row = compiledRows[start + DecisionRows.decidedSlot] == 0 ? -1 : Int32(start + DecisionRows.firstAppSlot)
        } else {
            row = firstSight.row(of: tagSet, cache: cache, layout: layout, rules: rules, apps: apps, appCount: appCount)
        }
        guard row >= 0 else { return .needsWalk }
        // A split rule that needs the query or fragment sends the URL the long way, before
        // anything is written.
        let splitMatched = !splitRules.isEmpty
        if splitMatched {
            if apps.masks.isEmpty {
                for rule in splitRules where !apps.decidesOnPath[Int(rule)] { return .needsWalk }
            } else {
                for rule in splitRules where apps.masks[Int(rule)] & RuleApps.needsMoreBit != 0 { return .needsWalk }
            }
        }
        if hasCompiledRows {
            Self.copyRow(from: compiledRows, at: Int(row), onlyApp: onlyApp, to: decisions)
        } else {
            Self.copyRow(from: firstSight.rows, at: Int(row), onlyApp: onlyApp, to: decisions)
        }
        // Split patterns that matched take an app from a later rule (the first rule decides).
        if splitMatched { mergeSplitRules(onlyApp: onlyApp, into: decisions) }
        return .decided
    }

    /// Lowers each app's deciding rule to each split rule that matched and names it.
    private func mergeSplitRules(onlyApp: Int?, into decisions: DecisionBuffer) {
        guard !apps.masks.isEmpty else {
            for rule in splitRules {
                for app in rules[Int(rule)].apps where onlyApp == nil || Int(app) == onlyApp {
                    let current = decisions[app: Int(app)]
                    if current < 0 || rule < current { decisions[app: Int(app)] = rule }
                }
            }
            return
        }
        for rule in splitRules {
            var mask = apps.masks[Int(rule)] & ~RuleApps.needsMoreBit
            if let onlyApp { mask &= (0..<63).contains(onlyApp) ? 1 << UInt64(onlyApp) : 0 }
            while mask != 0 {
                let app = mask.trailingZeroBitCount
                mask &= mask &- 1
                let current = decisions[app: app]
                if current < 0 || rule < current { decisions[app: app] = rule }
            }
        }
    }

    @inline(__always)
    private static func copyRow(from rows: [Int32], at start: Int, onlyApp: Int?, to decisions: DecisionBuffer) {
        if let onlyApp {
            decisions[app: onlyApp] = rows[start + onlyApp]
            return
        }
        for app in 0..<decisions.count { decisions[app: app] = rows[start + app] }
    }

    /// The automaton's rules and the split ones, merged in rule order.
    mutating func walkRules(_ body: (Int32) -> Bool) {
        // Each tag read from the cache where it lies: the tag set's array copied out was
        // retained around the walk, which calls out for every rule.
        let count = cache.tagCount(of: tagSet)
        var next = 0
        var nextSplit = 0
        while true {
            let tag = next < count ? cache.tag(next, of: tagSet) : Int32.max
            let fromDFA = tag != Int32.max && layout.isRule(tag) ? tag : Int32.max
            let fromSplit = nextSplit < splitRules.count ? splitRules[nextSplit] : Int32.max
            if fromDFA == Int32.max && fromSplit == Int32.max { return }
            if fromDFA < fromSplit { next += 1 } else { nextSplit += 1 }
            if !body(min(fromDFA, fromSplit)) { return }
        }
    }
}

/// `multiModePath`: rules compare paths in several text modes, so each mode's automaton runs
/// (and its split, if any) and their accepted rules are merged by rule id.
struct MultiModePathSearcher: PathSearcher {
    struct ModeAutomaton {
        let mode: TextMode
        let cache: LazyDFA.Cache
        let split: SuffixSplit?

        /// Appends to `found` the rules this automaton accepts for `text`, normalised for its
        /// mode. Mutating, so that it runs on the element in place (`automata[index]`), which
        /// holds `cache` and `split` for the call: reached otherwise, each was retained around
        /// its use.
        @inline(__always)
        mutating func collect(_ text: ByteView, layout: TagLayout, into found: inout [Int32], splitRules: inout [Int32]) {
            let tagSet = cache.searchTagSet(text)
            guard tagSet != 0 else { return }
            cache.withSortedTags(of: tagSet) { tags in
                // Each rule compares paths in one mode, so the modes' lists are disjoint.
                for tag in tags where layout.isRule(tag) { found.append(tag) }
                guard split != nil else { return }
                splitRules.removeAll(keepingCapacity: true)
                split?.collect(text, forward: tags, into: &splitRules)
                found.append(contentsOf: splitRules)
            }
        }
    }

    private(set) var automata: [ModeAutomaton]
    let layout: TagLayout
    /// Per URL: the rules every mode's automaton (and split) accepted, in rule order.
    private var found: [Int32] = []
    /// Scratch for one mode's split rules.
    private var splitRules: [Int32] = []

    init(automata: [ModeAutomaton], layout: TagLayout) {
        self.automata = automata
        self.layout = layout
    }

    mutating func search(_ path: ByteView, normalizer: inout ComponentNormalizer) {
        // Only when it holds something: emptying the shared empty array (a searcher that has
        // found nothing yet) replaced it and released it, a release a URL.
        if !found.isEmpty { found.removeAll(keepingCapacity: true) }
        // By index, not `for automaton in automata`: copying each element out retained its
        // three references per URL. `self` goes to the closure as an `inout` parameter, not a
        // capture: captured, the mode's cache was retained around its search.
        // PERF: with the mode searched in place (`ModeAutomaton.collect`), `swift_retain` calls
        // on a warm URL of the 10 000-domain fleet stream 0.46 → 0.14, 1 440 → 1 427
        // instructions (`--compiled`; `AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, `aasa
        // classify --jobs 1`, callgrind, stream twice − once): kept for issue 19's "no reference
        // counting per URL", not for speed.
        for index in automata.indices {
            normalizer.withNormalized(path, mode: automata[index].mode, updating: &self) { searcher, normalized in
                searcher.searchNormalized(normalized[0..<PathNormalization.trimmedPathLength(normalized)], mode: index)
            }
        }
        if found.count > 1, automata.count > 1 || !splitRules.isEmpty { found.sort() }
    }

    /// Appends to `found` the rules `automata[mode]` accepts for `text`, normalised for it.
    @inline(__always)
    private mutating func searchNormalized(_ text: ByteView, mode index: Int) {
        automata[index].collect(text, layout: layout, into: &found, splitRules: &splitRules)
    }

    mutating func walkRules(_ body: (Int32) -> Bool) {
        for rule in found where !body(rule) { return }
    }
}

/// Decision rows a matcher computes for the tag sets its URLs meet, when the plan has none
/// from compile time (`soloPathRowsOnFirstSight`). A cache's tag-set numbers are reused after
/// it clears (`LazyDFA.Cache.clearCount`), so the rows are forgotten with them.
struct FirstSightRows {
    /// Per tag set: the offset of its row in `rows`, `notDecidedByPath`, or `unknown`.
    private var rowOfTagSet: [Int32] = []
    private(set) var rows: [Int32] = []
    private var clearCount = 0

    static let notDecidedByPath: Int32 = -1
    static let unknown: Int32 = -2

    /// The offset in `rows` of `tagSet`'s row, or `notDecidedByPath`.
    @inline(__always)
    mutating func row(
        of tagSet: Int32, cache: LazyDFA.Cache, layout: TagLayout, rules: [CompiledDocument.RuleInfo], apps: RuleApps,
        appCount: Int
    ) -> Int32 {
        if cache.clearCount == clearCount, Int(tagSet) < rowOfTagSet.count {
            let known = rowOfTagSet[Int(tagSet)]
            if known != Self.unknown { return known }
        }
        return computeRow(of: tagSet, cache: cache, layout: layout, rules: rules, apps: apps, appCount: appCount)
    }

    @inline(never)
    private mutating func computeRow(
        of tagSet: Int32, cache: LazyDFA.Cache, layout: TagLayout, rules: [CompiledDocument.RuleInfo], apps: RuleApps,
        appCount: Int
    ) -> Int32 {
        if cache.clearCount != clearCount {
            // Given back, not kept: a released cache (`LazyDFA.Cache.release`) gave its own.
            rowOfTagSet = []
            rows = []
            clearCount = cache.clearCount
        }
        let grown = max(0, Int(tagSet) + 1 - rowOfTagSet.count)
        if grown > 0 { rowOfTagSet.append(contentsOf: repeatElement(Self.unknown, count: grown)) }
        let start = Int32(rows.count)
        let decided = DecisionRows.appendRow(
            for: cache.tagSets[Int(tagSet)].sorted, layout: layout, rules: rules, apps: apps, appCount: appCount, to: &rows)
        // The rows count toward the cache's budget, so that it clears (and they go) when full.
        cache.noteDerived(bytes: (rows.count - Int(start) + grown) * MemoryLayout<Int32>.stride)
        let row = decided ? start : Self.notDecidedByPath
        rowOfTagSet[Int(tagSet)] = row
        return row
    }
}
