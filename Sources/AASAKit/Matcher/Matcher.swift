import Foundation

/// The Matcher layer: from URL bytes to per-app decisions, through the compiled automata.
///
/// Fourth stage of the pipeline (document → pattern → automaton → **matcher**). Per URL:
/// split it without allocating (`URLSplitter`; a URL starting with `https://` and the domain
/// skips that and the host check); check the host; normalise each component once per text mode
/// that some rule uses (`ComponentNormalizer`); run one DFA pass per component kind and mode (a
/// path mode whose `literal * literal` rules were split also reads the path's last bytes,
/// `SuffixSplit`). When every rule uses one mode, the path's accepted set has a decision row
/// (per app, the rule that decides on the path alone) and most URLs end there; otherwise walk
/// the accepted rules in rule order, checking each against the query and fragment results, and
/// give each app the first rule that passes (SPEC 3). Query and fragment automata run only when
/// a path-accepted rule needs them, so a URL whose path matches nothing costs one pass over its
/// path. `docs/architecture.md` follows a URL through these steps.
///
/// What the Matcher folder will not do: parse documents or compile patterns (a
/// `CompiledDocument` is built once and shared by every thread), re-encode or clean up the URL
/// (no dot segments, IDNA or WHATWG fixes: it is compared as written), or guess: a URL it cannot
/// split, or whose work passes the budget (`WorkMeter`), is an error (`URLSplitError`), never a
/// decision.
///
/// Cost is proportional to the URL's length plus the number of rules its path matches, and flat
/// in the number of rules of the document.
///
/// `DFAMatcher` holds per-thread caches and buffers: make one per thread from a shared
/// `CompiledDocument`.
///
/// ```swift
/// let compiled = try CompiledDocument(document: document, domain: "example.com")
/// let matcher = DFAMatcher(compiled)
/// let decision = try matcher.decide("https://example.com/buy/1", app: nil)
/// ```
public final class DFAMatcher: DecisionEngine {
    public let compiled: CompiledDocument
    let pathCaches: [LazyDFA.Cache?]
    var queryCaches: [LazyDFA.Cache?]
    var fragmentCaches: [LazyDFA.Cache?]
    var groupCaches: [[ExactString: LazyDFA.Cache]]
    /// When every rule compares paths in one text mode (the usual case): that automaton's cache
    /// and the mode, so the hot path skips the per-mode bookkeeping.
    private let soloCache: LazyDFA.Cache?
    /// `soloCache` for the hot path.
    ///
    /// PERF: reading `soloCache` into a local cost a retain and a release per URL, 40 of about
    /// 410 instructions (peers suite, 10 rules, callgrind); `_withUnsafeGuaranteedRef` borrows
    /// it instead. SAFETY: `soloCache`, a constant of this matcher, holds the cache strongly.
    private let soloCacheReference: Unmanaged<LazyDFA.Cache>?
    private let soloMode: TextMode
    /// The solo path mode's `SuffixSplit`, if its `literal * literal` patterns were split.
    private let soloSplit: SuffixSplit?
    /// `soloSplit`, borrowed on the hot path as `soloCacheReference` is (same reason).
    private let soloSplitReference: Unmanaged<SuffixSplit>?
    /// `soloSplit.endings`, held here: the hot path reads it without going through the split.
    private let splitEndings: SuffixEndings
    /// Rule ids are below this; path-automaton tags from it on are `SuffixSplit` prefix groups.
    private let ruleLimit: Int32
    /// The rules of split patterns that matched the last path searched (sorted), and scratch.
    @exclusivity(unchecked) private var splitRules: [Int32] = []
    /// Per rule: its query and fragment are `*`, so a path match alone decides.
    private let decidesOnPath: [Bool]
    /// Per rule, when the document names 8 to 63 apps: a bit per app it names, and the top
    /// bit when it needs the query or fragment; empty otherwise (see `ruleAppBytes`).
    ///
    /// Why: merging the split rules that matched is done per URL, and `rules[rule].apps` is
    /// two dependent loads (and a retain) into memory a large document's URLs keep cold; this
    /// is one (10 000 generated path rules: about a fifth of a URL's time, A/B).
    private let ruleAppBits: [UInt64]
    /// `ruleAppBits` in a byte a rule when the document names at most 7 apps (the top bit:
    /// needs the query or fragment), and then `ruleAppBits` is empty: 10 KB at 10 000 rules
    /// instead of 80, which stays in cache (10 000 generated path rules, A/B).
    private let ruleAppBytes: [UInt8]
    /// The solo path automaton's decision rows, computed at compile time for every tag set
    /// (`CompiledDocument.PathDecisions`); nil when they are computed here, on first sight.
    private let hasSharedDecisions: Bool
    // Two arrays rather than the optional struct, which was copied (its two arrays retained
    // and released) on every URL.
    private let sharedWidth: Int
    private let sharedInlineGroups: Int
    private let sharedFirstAppSlot: Int
    private let sharedRows: [Int32]
    private let sharedGroupTags: [Int32]
    /// Decision rows (one rule id or -1 per app) of the solo path cache's tag sets, found
    /// through `LazyDFA.Cache.annotations`; valid for the cache's `clearCount` below.
    @exclusivity(unchecked) private var decisionRows: [Int32] = []
    @exclusivity(unchecked) private var decisionRowsClearCount = 0
    private let rules: [CompiledDocument.RuleInfo]
    private let domainBytes: [UInt8]
    /// `https://` + `domainBytes`, or empty when the domain is not a plain host name (empty, or
    /// holding `#`, `/`, `:`, `?`, `@`, `[`, `\`, or a byte outside printable ASCII): with such
    /// a byte, `URLSplitter` would not read `https://` + the domain as that host (a `\` makes it an
    /// error), and the shortcut must read every URL as the splitter does.
    private let plainPrefix: [UInt8]
    @exclusivity(unchecked) var normalizer = ComponentNormalizer()
    @exclusivity(unchecked) var queryItems = QueryItemEvaluator()
    /// Per app: the deciding rule id, or -1. Reused across URLs.
    // PERF: a DFAMatcher belongs to one thread, so dynamic exclusivity checks on its per-URL
    // state are pure cost (callgrind, classify corpus run).
    @exclusivity(unchecked) public private(set) var decidingRule: [Int32]
    /// Whether `decidingRule` may hold a rule id: when not, clearing it for the next URL is
    /// skipped (most URLs match nothing).
    @exclusivity(unchecked) private var decidedSomething = true
    // Per-URL scratch, reused so that deciding a URL allocates nothing once warm.
    @exclusivity(unchecked) private var accepted: [TagSet] = []
    @exclusivity(unchecked) private var cursors: [Int] = []
    @exclusivity(unchecked) private var queryTags: [TagSet?] = [nil, nil, nil, nil]
    @exclusivity(unchecked) private var fragmentTags: [TagSet?] = [nil, nil, nil, nil]
    @exclusivity(unchecked) private var itemsEvaluated = false

    /// The work budget of the URL being decided, shared by every cache (`WorkMeter`).
    private(set) var meter: WorkMeter

    public init(_ compiled: CompiledDocument) {
        self.compiled = compiled
        pathCaches = compiled.path.map { $0?.makeCache() }
        queryCaches = compiled.queryText.map { $0?.makeCache() }
        fragmentCaches = compiled.fragment.map { $0?.makeCache() }
        groupCaches = compiled.queryGroups.map { $0.mapValues { $0.dfa.makeCache() } }
        // Every automaton of a document is compiled under one configuration.
        let caches = (pathCaches + queryCaches + fragmentCaches).compactMap { $0 } + groupCaches.flatMap(\.values)
        meter = WorkMeter(limit: caches.first?.dfa.configuration.maxURLWork ?? Configuration.Automata().maxURLWork)
        for cache in caches { cache.share(meter: meter) }
        decidingRule = Array(repeating: -1, count: compiled.appIDs.count)
        queryItems.reserve(predicates: compiled.predicateCount)
        rules = compiled.rules
        domainBytes = compiled.domainBytes
        let plain = !domainBytes.isEmpty && domainBytes.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !"#/:?@[\\".utf8.contains(byte)
        }
        plainPrefix = plain ? Array("https://".utf8) + domainBytes : []
        decidesOnPath = compiled.decidesOnPath
        if compiled.appIDs.count <= 7 {
            ruleAppBytes = zip(compiled.rules, compiled.decidesOnPath).map { rule, decides in
                rule.apps.reduce(decides ? 0 : 0x80) { $0 | 1 << UInt8($1) }
            }
            ruleAppBits = []
        } else if compiled.appIDs.count <= 63 {
            ruleAppBits = zip(compiled.rules, compiled.decidesOnPath).map { rule, decides in
                rule.apps.reduce(decides ? 0 : 1 << 63) { $0 | 1 << UInt64($1) }
            }
            ruleAppBytes = []
        } else {
            ruleAppBits = []
            ruleAppBytes = []
        }
        // The path strategy is the plan's (`Planner.path`): one path mode with decision rows
        // from compile time or computed on first sight, or several modes merged by rule id.
        let pathPlan = compiled.pathPlan
        let solo = pathPlan.strategy == .soloPathCompiledRows || pathPlan.strategy == .soloPathRowsOnFirstSight
        if solo, let mode = pathPlan.modes.first, let cache = pathCaches[mode.index] {
            (soloCache, soloMode) = (cache, mode)
        } else {
            (soloCache, soloMode) = (nil, TextMode(decoded: false, folded: false))
        }
        soloSplit = soloCache == nil ? nil : compiled.pathSplits[soloMode.index]
        // The shared rows are numbered as the prebuilt table's tag sets, which the cache then
        // uses as its own (`prebuiltSharesTagSets`).
        let shared =
            pathPlan.strategy == .soloPathCompiledRows && soloCache?.prebuiltSharesTagSets == true ? compiled.pathDecisions : nil
        hasSharedDecisions = shared != nil
        sharedWidth = shared?.width ?? 0
        sharedInlineGroups = shared?.inlineGroups ?? 0
        sharedFirstAppSlot = shared?.firstAppSlot ?? 0
        sharedRows = shared?.rows ?? []
        sharedGroupTags = shared?.groupTags ?? []
        soloSplitReference = soloSplit.map { Unmanaged.passUnretained($0) }
        splitEndings = soloSplit?.endings ?? SuffixEndings(segments: [], others: [])
        ruleLimit = Int32(compiled.rules.count)
        soloCacheReference = soloCache.map { Unmanaged.passUnretained($0) }
    }

    /// Cache statistics summed over every automaton of this matcher.
    public var cacheStatistics: (statesBuilt: Int, clears: Int, fallbacks: Int, memory: Int) {
        let caches = (pathCaches + queryCaches + fragmentCaches).compactMap { $0 } + groupCaches.flatMap { $0.values }
        return caches.reduce((0, 0, 0, 0)) {
            ($0.0 + $1.statesBuilt, $0.1 + $1.clearCount, $0.2 + $1.fallbackCount, $0.3 + $1.memoryUsage)
        }
    }

    public func decide(_ url: String, app: String?) throws(URLSplitError) -> URLDecision {
        var url = url
        let appIndex = app.flatMap { app in compiled.appIDs.firstIndex { $0.isExactly(app) } }
        let result: Result<Void, URLSplitError> = url.withUTF8 { bytes in
            do throws(URLSplitError) {
                try decide(bytes: bytes, onlyApp: app == nil ? nil : (appIndex ?? -1))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        if let app {
            guard let appIndex else { return URLDecision(decisions: [AppDecision(app: app, kind: .noMatch)]) }
            return URLDecision(decisions: [decision(forApp: appIndex)])
        }
        return URLDecision(decisions: compiled.appIDs.indices.map { decision(forApp: $0) })
    }

    /// The last URL's `decidingRule`, borrowed rather than copied (the classify hot path).
    @inline(__always)
    func withDecisions<R>(_ body: (UnsafeBufferPointer<Int32>) -> R) -> R {
        decidingRule.withUnsafeBufferPointer(body)
    }

    /// The decision of app `index` after the last `decide(bytes:onlyApp:)`.
    public func decision(forApp index: Int) -> AppDecision {
        let rule = decidingRule[index]
        guard rule >= 0 else { return AppDecision(app: compiled.appIDs[index], kind: .noMatch) }
        let info = compiled.rules[Int(rule)]
        return AppDecision(
            app: compiled.appIDs[index], kind: info.exclude ? .exclude : .match, entry: info.entryIndex,
            rule: info.ruleIndex)
    }

    /// Decides one URL given as UTF-8 bytes, leaving the result in `decidingRule` (per app,
    /// the deciding rule id or -1). `onlyApp` restricts the work to one app (-1: an app the
    /// document does not name, so nothing is decided).
    ///
    /// - Complexity: O(URL length + rules the path matches); allocation-free for ASCII URLs
    ///   once the caches are warm.
    public func decide(bytes: UnsafeBufferPointer<UInt8>, onlyApp: Int? = nil) throws(URLSplitError) {
        meter.begin()
        try decideWithinBudget(bytes: bytes, onlyApp: onlyApp)
        if meter.exceeded { throw .workLimitExceeded(limit: meter.limit) }
    }

    /// Whether the last URL decided ran over the work budget (`Configuration.Automata.maxURLWork`):
    /// its `decidingRule` is then meaningless, and the URL is an error
    /// (`URLSplitError.workLimitExceeded`). The throwing `decide` calls check it themselves.
    public var workExceeded: Bool { meter.exceeded }

    /// Gives every later URL a budget of `limit` NFA positions instead of the compiled
    /// document's `maxURLWork` (a service may grant one caller more than another).
    public func limitWork(to limit: Int) {
        meter = WorkMeter(limit: limit)
        for cache in (pathCaches + queryCaches + fragmentCaches).compactMap({ $0 }) + groupCaches.flatMap(\.values) {
            cache.share(meter: meter)
        }
    }

    @inline(__always)
    private func decideWithinBudget(bytes: UnsafeBufferPointer<UInt8>, onlyApp: Int?) throws(URLSplitError) {
        // PERF: most URLs a matcher sees start with `https://` and its own domain in lowercase:
        // one comparison of that prefix replaces the scheme and authority scans and the host
        // check: 800 → 540 instructions a URL on the peers suite's 10-rule document
        // (callgrind, `aasa-peers --profile ours`). `URLSplitter.split` reads such a
        // URL the same way: scheme `https`, host = the domain, the path from the next byte.
        if let pathStart = plainPrefixLength(bytes) {
            var soloTagSet: Int32?
            if let reference = soloCacheReference, onlyApp != -1, !decidingRule.isEmpty {
                // The path alone first: a decision row settles most URLs without reading
                // their query or fragment.
                let pathEnd = URLSplitter.pathEnd(of: bytes, from: pathStart)
                let decided = reference._withUnsafeGuaranteedRef { cache in
                    let tagSet = soloSearch(UnsafeBufferPointer(rebasing: bytes[pathStart..<pathEnd]), cache: cache)
                    soloTagSet = tagSet
                    return applyDecisionRow(tagSet: tagSet, cache: cache, onlyApp: onlyApp)
                }
                if decided { return }
            }
            let parts = URLSplitter.parts(
                of: bytes, scheme: 0..<5, host: 8..<(8 + domainBytes.count), pathStart: pathStart)
            decide(bytes: bytes, parts: parts, onlyApp: onlyApp, hostChecked: true, soloTagSet: soloTagSet)
            return
        }
        decide(bytes: bytes, parts: try URLSplitter.split(bytes), onlyApp: onlyApp)
    }

    /// Decides a URL already split by `URLSplitter` (callers that routed it by host have).
    /// Check `workExceeded` afterwards.
    public func decide(bytes: UnsafeBufferPointer<UInt8>, parts: URLParts, onlyApp: Int? = nil) {
        meter.begin()
        decide(bytes: bytes, parts: parts, onlyApp: onlyApp, hostChecked: false, soloTagSet: nil)
    }

    /// Decides a URL whose host the caller has already found equal to this document's domain
    /// (ASCII case-insensitively, as SPEC 3 compares): `classify` routes every URL through
    /// `DomainTable`, so checking the host again would compare it twice.
    /// Check `workExceeded` afterwards.
    func decide(routed bytes: UnsafeBufferPointer<UInt8>, parts: URLParts) {
        meter.begin()
        decide(bytes: bytes, parts: parts, onlyApp: nil, hostChecked: true, soloTagSet: nil)
    }

    /// The length of `https://` + the domain when `bytes` starts with them and the authority
    /// ends there (the next byte is `/`, `?`, `#`, or there is none); `nil` otherwise, or when
    /// the domain holds a byte that would change how the authority is read.
    @inline(__always)
    private func plainPrefixLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let length = plainPrefix.count
        guard length > 0, bytes.count >= length, let base = bytes.baseAddress else { return nil }
        let same = plainPrefix.withUnsafeBufferPointer { prefix in
            prefix.baseAddress.map { memcmp(base, $0, length) == 0 } ?? false
        }
        guard same else { return nil }
        if length == bytes.count { return length }
        let next = bytes[length]
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") ? length : nil
    }

    /// The solo path automaton's tag set for `path` (trailing `/` run dropped, normalised for
    /// the mode when it is not raw and exact); the split patterns that match are left in
    /// `splitRules`.
    @inline(__always)
    private func soloSearch(_ path: UnsafeBufferPointer<UInt8>, cache: LazyDFA.Cache) -> Int32 {
        let mode = soloMode
        if !mode.decoded && !mode.folded {
            return searchPath(UnsafeBufferPointer(rebasing: path[0..<PathNormalization.trimmedPathLength(path)]), cache: cache)
        }
        return normalizer.withNormalized(path, mode: mode) { normalized in
            searchPath(
                UnsafeBufferPointer(rebasing: normalized[0..<PathNormalization.trimmedPathLength(normalized)]), cache: cache)
        }
    }

    @inline(__always)
    private func searchPath(_ text: UnsafeBufferPointer<UInt8>, cache: LazyDFA.Cache) -> Int32 {
        let tagSet = cache.searchTagSet(text)
        if soloSplitReference != nil {
            if splitEndings.mayEnd(text) {
                collectSplitRules(text, tagSet: tagSet, cache: cache)
            } else if !splitRules.isEmpty {
                splitRules.removeAll(keepingCapacity: true)
            }
        }
        return tagSet
    }

    /// `splitRules` for the path just searched. Out of line: most documents split nothing, and
    /// inlined, this code kept the hot closure of `decide(bytes:)` from being inlined itself
    /// (peers suite, 10 rules, callgrind: 387 instructions a URL inlined, 331 out of line).
    @inline(never)
    private func collectSplitRules(_ text: UnsafeBufferPointer<UInt8>, tagSet: Int32, cache: LazyDFA.Cache) {
        if !splitRules.isEmpty { splitRules.removeAll(keepingCapacity: true) }
        guard tagSet != 0, let reference = soloSplitReference else { return }
        if hasSharedDecisions {
            let start = Int(tagSet) * sharedWidth
            let count = Int(sharedRows[start + CompiledDocument.PathDecisions.groupCountSlot])
            guard count > 0 else { return }
            let groups = start + CompiledDocument.PathDecisions.groupsSlot
            // The groups are in the row (one cache line with the decision), or past
            // `sharedInlineGroups`, in `sharedGroupTags` from where the row says.
            if count <= sharedInlineGroups {
                sharedRows.withUnsafeBufferPointer { rows in
                    reference._withUnsafeGuaranteedRef { split in
                        split.collect(text, forward: UnsafeBufferPointer(rebasing: rows[groups..<(groups + count)]), into: &splitRules)
                    }
                }
                return
            }
            let low = Int(sharedRows[groups])
            sharedGroupTags.withUnsafeBufferPointer { tags in
                reference._withUnsafeGuaranteedRef { split in
                    split.collect(text, forward: UnsafeBufferPointer(rebasing: tags[low..<(low + count)]), into: &splitRules)
                }
            }
            return
        }
        reference._withUnsafeGuaranteedRef { split in
            split.collect(text, tagSets: cache.tagSets, tagSet: tagSet, into: &splitRules)
        }
    }

    @inline(__always)
    private func clearDecisions() {
        guard decidedSomething else { return }
        decidingRule.withUnsafeMutableBufferPointer { decided in
            for index in decided.indices { decided[index] = -1 }
        }
        decidedSomething = false
    }

    /// Sets `decidingRule` from the decision row of `tagSet` when it has one (computing it on
    /// first sight); returns whether that decided the URL. `false` means some rule the walk
    /// would reach needs the query or fragment.
    ///
    /// PERF: one DFA walk and a row copy per URL instead of a walk over the accepted rules
    /// with their query and fragment checks, and no `TagSet` retained per URL (peers suite,
    /// 10 path rules, callgrind: 1 400 → 1 000 instructions a URL with the tag-set index
    /// search; 470 → 412 once the path is searched before the query and fragment are split).
    @inline(__always)
    private func applyDecisionRow(tagSet: Int32, cache: LazyDFA.Cache, onlyApp: Int?) -> Bool {
        clearDecisions()
        if tagSet == 0 { return true }
        let row: Int32
        if hasSharedDecisions {
            let start = Int(tagSet) * sharedWidth
            row = sharedRows[start + CompiledDocument.PathDecisions.decidedSlot] == 0
                ? -1 : Int32(start + sharedFirstAppSlot)
        } else {
            let known = cache.annotations[Int(tagSet)]
            row = known == LazyDFA.Cache.unannotated ? annotate(tagSet: tagSet, cache: cache) : known
        }
        guard row >= 0 else { return false }
        // A split rule that needs the query or fragment sends the URL the long way, before
        // anything is written.
        let splitMatched = !splitRules.isEmpty
        if splitMatched {
            if !ruleAppBytes.isEmpty {
                for rule in splitRules where ruleAppBytes[Int(rule)] >> 7 != 0 { return false }
            } else if ruleAppBits.isEmpty {
                for rule in splitRules where !decidesOnPath[Int(rule)] { return false }
            } else {
                for rule in splitRules where ruleAppBits[Int(rule)] >> 63 != 0 { return false }
            }
        }
        decidedSomething = true
        if hasSharedDecisions {
            copyRow(from: sharedRows, at: Int(row), onlyApp: onlyApp)
        } else {
            copyRow(from: decisionRows, at: Int(row), onlyApp: onlyApp)
        }
        // Split patterns that matched take an app from a later rule (the first rule decides).
        guard splitMatched else { return true }
        if !ruleAppBytes.isEmpty {
            mergeSplitRules(onlyApp: onlyApp) { UInt64(ruleAppBytes[Int($0)] & 0x7F) }
            return true
        }
        if !ruleAppBits.isEmpty {
            mergeSplitRules(onlyApp: onlyApp) { ruleAppBits[Int($0)] & ~(1 << 63) }
            return true
        }
        for rule in splitRules {
            for app in rules[Int(rule)].apps where onlyApp == nil || Int(app) == onlyApp {
                let current = decidingRule[Int(app)]
                if current < 0 || rule < current { decidingRule[Int(app)] = rule }
            }
        }
        return true
    }

    /// Lowers `decidingRule` to each split rule that matched, for the apps of its bit mask.
    @inline(__always)
    private func mergeSplitRules(onlyApp: Int?, appBits: (Int32) -> UInt64) {
        decidingRule.withUnsafeMutableBufferPointer { decided in
            for rule in splitRules {
                var apps = appBits(rule)
                if let onlyApp { apps &= (0..<63).contains(onlyApp) ? 1 << UInt64(onlyApp) : 0 }
                while apps != 0 {
                    let app = apps.trailingZeroBitCount
                    apps &= apps &- 1
                    let current = decided[app]
                    if current < 0 || rule < current { decided[app] = rule }
                }
            }
        }
    }

    @inline(__always)
    private func copyRow(from rows: [Int32], at start: Int, onlyApp: Int?) {
        if let onlyApp {
            decidingRule[onlyApp] = rows[start + onlyApp]
        } else {
            decidingRule.withUnsafeMutableBufferPointer { decided in
                for app in decided.indices { decided[app] = rows[start + app] }
            }
        }
    }

    private func decide(
        bytes: UnsafeBufferPointer<UInt8>, parts: URLParts, onlyApp: Int?, hostChecked: Bool, soloTagSet: Int32?
    ) {
        clearDecisions()
        guard hostChecked || hostMatches(UnsafeBufferPointer(rebasing: bytes[parts.host])) else { return }
        if onlyApp == -1 { return }
        var remaining = onlyApp == nil ? compiled.appIDs.count : 1
        if remaining == 0 { return }

        let path = UnsafeBufferPointer(rebasing: bytes[parts.path])
        let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        let query = parts.query.map { UnsafeBufferPointer(rebasing: bytes[$0]) } ?? empty
        let fragment = parts.fragment.map { UnsafeBufferPointer(rebasing: bytes[$0]) } ?? empty

        if let cache = soloCache {
            let tagSet: Int32
            if let soloTagSet {
                tagSet = soloTagSet
            } else {
                tagSet = soloSearch(path, cache: cache)
                if applyDecisionRow(tagSet: tagSet, cache: cache, onlyApp: onlyApp) { return }
            }
            resetComponentResults()
            // The path automaton's rules and the split ones, merged in rule order.
            let sorted = cache.tagSets[Int(tagSet)].sorted
            var next = 0
            var nextSplit = 0
            while remaining > 0 {
                let fromDFA = next < sorted.count && sorted[next] < ruleLimit ? sorted[next] : Int32.max
                let fromSplit = nextSplit < splitRules.count ? splitRules[nextSplit] : Int32.max
                if fromDFA == Int32.max && fromSplit == Int32.max { break }
                if fromDFA < fromSplit { next += 1 } else { nextSplit += 1 }
                consider(Int(min(fromDFA, fromSplit)), onlyApp: onlyApp, query: query, fragment: fragment, remaining: &remaining)
            }
            return
        }

        // One pass per path mode.
        resetComponentResults()
        accepted.removeAll(keepingCapacity: true)
        for mode in compiled.pathModes {
            guard let dfa = compiled.path[mode.index], let cache = pathCaches[mode.index] else { continue }
            let split = compiled.pathSplits[mode.index]
            let tags = normalizer.withNormalized(path, mode: mode) { normalized in
                let text = UnsafeBufferPointer(rebasing: normalized[0..<PathNormalization.trimmedPathLength(normalized)])
                let tags = dfa.search(text, cache: cache)
                if let split, !tags.isEmpty {
                    splitRules.removeAll(keepingCapacity: true)
                    tags.sorted.withUnsafeBufferPointer { forward in
                        split.collect(text, forward: forward, into: &splitRules)
                    }
                    if !splitRules.isEmpty { accepted.append(TagSet(sorted: splitRules)) }
                }
                return tags
            }
            if !tags.isEmpty { accepted.append(tags) }
        }
        if accepted.isEmpty { return }

        cursors.removeAll(keepingCapacity: true)
        cursors.append(contentsOf: repeatElement(0, count: accepted.count))
        while remaining > 0 {
            // The smallest rule id not yet visited across the modes' accept lists.
            var best = Int32.max
            var bestList = -1
            for list in accepted.indices where cursors[list] < accepted[list].sorted.count {
                let candidate = accepted[list].sorted[cursors[list]]
                if candidate < best {
                    best = candidate
                    bestList = list
                }
            }
            // Tags from `ruleLimit` on are split prefix groups, not rules.
            if bestList < 0 || best >= ruleLimit { break }
            cursors[bestList] += 1
            consider(Int(best), onlyApp: onlyApp, query: query, fragment: fragment, remaining: &remaining)
        }
    }

    /// Forgets the query and fragment results of the previous URL.
    private func resetComponentResults() {
        for index in 0..<4 {
            queryTags[index] = nil
            fragmentTags[index] = nil
        }
        itemsEvaluated = false
    }

    /// Computes the decision row of a solo-path tag set and records it in `cache`'s
    /// annotations: the row's offset in `decisionRows`, or -1 when some rule that would decide
    /// an app also needs the query or fragment (the decision then depends on more than the path).
    private func annotate(tagSet: Int32, cache: LazyDFA.Cache) -> Int32 {
        if cache.clearCount != decisionRowsClearCount {
            // Annotations made before a clear are gone with it, so are the rows they named.
            decisionRows.removeAll(keepingCapacity: true)
            decisionRowsClearCount = cache.clearCount
        }
        let start = Int32(decisionRows.count)
        let decided = CompiledDocument.appendDecisionRow(
            for: cache.tagSets[Int(tagSet)].sorted, rules: rules, decidesOnPath: decidesOnPath,
            appCount: compiled.appIDs.count, to: &decisionRows)
        let row = decided ? start : -1
        cache.annotate(tagSet: tagSet, with: row)
        return row
    }

    /// A rule whose path matched: if its query and fragment hold too, it decides for each of its
    /// apps still undecided.
    @inline(__always)
    private func consider(
        _ rule: Int, onlyApp: Int?, query: UnsafeBufferPointer<UInt8>, fragment: UnsafeBufferPointer<UInt8>,
        remaining: inout Int
    ) {
        let info = rules[rule]
        if let onlyApp, !info.apps.contains(Int32(onlyApp)) { return }
        guard queryMatches(rule: rule, info: info, query: query),
            fragmentMatches(rule: rule, info: info, fragment: fragment)
        else { return }
        for app in info.apps where decidingRule[Int(app)] < 0 && (onlyApp == nil || Int(app) == onlyApp) {
            decidingRule[Int(app)] = Int32(rule)
            decidedSomething = true
            remaining -= 1
        }
    }

    /// Whether the rule's query pattern holds; the query automata run on first need per URL.
    private func queryMatches(rule: Int, info: CompiledDocument.RuleInfo, query: UnsafeBufferPointer<UInt8>) -> Bool {
        switch info.queryKind {
        case .universal:
            return true
        case .text:
            let mode = info.mode.index
            if queryTags[mode] == nil, let dfa = compiled.queryText[mode], let cache = queryCaches[mode] {
                queryTags[mode] = normalizer.withNormalized(query, mode: info.mode) {
                    dfa.search($0, cache: cache)
                }
            }
            return queryTags[mode]?.contains(rule) ?? false
        case .items(let predicates):
            if !itemsEvaluated {
                queryItems.evaluate(query, compiled: compiled, caches: groupCaches, normalizer: &normalizer)
                itemsEvaluated = true
            }
            return queryItems.allHold(predicates)
        }
    }

    private func fragmentMatches(rule: Int, info: CompiledDocument.RuleInfo, fragment: UnsafeBufferPointer<UInt8>) -> Bool {
        if info.fragmentIsUniversal { return true }
        let mode = info.mode.index
        if fragmentTags[mode] == nil, let dfa = compiled.fragment[mode], let cache = fragmentCaches[mode] {
            fragmentTags[mode] = normalizer.withNormalized(fragment, mode: info.mode) {
                dfa.search($0, cache: cache)
            }
        }
        return fragmentTags[mode]?.contains(rule) ?? false
    }

    /// SPEC 3: the host equals the domain, ASCII case-insensitively.
    private func hostMatches(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        guard host.count == domainBytes.count else { return false }
        return domainBytes.withUnsafeBufferPointer { domain in
            guard let hostStart = host.baseAddress, let domainStart = domain.baseAddress else { return true }
            // PERF: hosts are nearly always written in lowercase, so one memcmp decides; the
            // folding loop (about 16 instructions a byte) runs only for a host that differs
            // (callgrind, `aasa-peers --profile ours`, 10 rules: 177 of 1 000 instructions a URL).
            if memcmp(hostStart, domainStart, host.count) == 0 { return true }
            for index in 0..<host.count {
                var byte = host[index]
                if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
                if byte != domain[index] { return false }
            }
            return true
        }
    }
}
