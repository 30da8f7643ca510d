import Foundation

/// The Matcher layer: from URL bytes to per-app decisions, through the compiled automata.
///
/// Fifth stage of the pipeline (document → pattern → automaton → plan → **matcher**).
/// `DFAMatcher` is a driver; per URL it splits the URL without allocating (`URLSplitter`; a URL
/// starting with `https://` and the domain skips that and the host check), checks the host, and
/// hands the path to the searcher the plan chose (`PathSearcher`: `SoloPathSearcher` when every
/// rule compares paths in one text mode, `MultiModePathSearcher` otherwise). The solo searcher's
/// decision row (per app, the rule that decides on the path alone) settles most URLs there;
/// otherwise the driver walks the rules the path matched, in rule order, checking each one's
/// query and fragment, and gives each app the first rule that passes (SPEC 3). Query and
/// fragment automata run only when a path-matched rule needs them (normalised once per text
/// mode, `ComponentNormalizer`), so a URL whose path matches nothing costs one pass over its
/// path. `docs/internals.md` follows a URL through these steps.
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
    let queryCaches: [LazyDFA.Cache?]
    let fragmentCaches: [LazyDFA.Cache?]
    /// The path searcher the plan's path strategy asks for (`PathPlan`).
    ///
    /// PERF: a DFAMatcher belongs to one thread, so dynamic exclusivity checks on its per-URL
    /// state are pure cost (callgrind, classify corpus run); the searchers and the per-URL state
    /// are therefore each one `UnsharedCell`. Two cells, not one: a searcher's `walkRules` runs
    /// while the rules it reports read and write the per-URL state.
    private let searchers: UnsharedCell<Searchers>
    /// Whether `searchers.value.solo` is set, known once: comparing the optional searcher with
    /// nil copied it out on every URL (8 of the 1 494 instructions of a warm fleet URL, same
    /// measurement as `URLLineReader.examine`'s PERF note).
    private let searchesSolo: Bool
    /// The query-text and fragment automata, each searched at most once a URL, on first need.
    /// A third cell: they are searched while a path searcher walks its rules.
    private let components: UnsharedCell<ComponentSearchers>
    struct Searchers {
        /// `solo` with one path mode, `multi` with several, neither when the document has no rule.
        var solo: SoloPathSearcher?
        var multi: MultiModePathSearcher?
    }
    private let rules: [CompiledDocument.RuleInfo]
    private let domainBytes: [UInt8]
    /// `https://` + `domainBytes`, or empty when the domain is not a plain host name (empty, or
    /// holding `#`, `/`, `:`, `?`, `@`, `[`, `\`, or a byte outside printable ASCII): with such
    /// a byte, `URLSplitter` would not read `https://` + the domain as that host (a `\` makes it an
    /// error), and the shortcut must read every URL as the splitter does.
    private let plainPrefix: [UInt8]
    /// Per app: the deciding rule id, or -1, of the last URL. Reused across URLs.
    let decisions: DecisionBuffer
    /// Per-URL scratch, reused so that deciding a URL allocates nothing once warm.
    private let state = UnsharedCell(URLState())
    struct URLState {
        var normalizer = ComponentNormalizer()
        var queryItems = QueryItemEvaluator()
        /// Whether `decidingRule` may hold a rule id: when not, clearing it for the next URL is
        /// skipped (most URLs match nothing).
        var decidedSomething = true
        /// Whether `components` or `itemsEvaluated` may hold a result of an earlier URL: when
        /// not, forgetting them is skipped (most URLs are decided by the path alone).
        var componentsTouched = false
        var itemsEvaluated = false

        /// Evaluates the query's items once for this URL (`QueryItemEvaluator`).
        mutating func evaluateItems(_ query: ByteView) {
            guard !itemsEvaluated else { return }
            queryItems.evaluate(query, normalizer: &normalizer)
            itemsEvaluated = true
        }
    }

    /// The work budget of the URL being decided, shared by every cache (`WorkMeter`).
    let meter: WorkMeter

    /// `account`, when given, sums the memory of this matcher's caches with those of the other
    /// matchers of its thread (`LazyCacheMemory`).
    public init(_ compiled: CompiledDocument, account: LazyCacheMemory? = nil) {
        self.compiled = compiled
        // Every automaton of a document is compiled under one configuration.
        let meter = WorkMeter(limit: compiled.anyAutomaton?.configuration.maxURLWork ?? Configuration.Automata().maxURLWork)
        self.meter = meter
        pathCaches = compiled.path.map { $0?.makeCache(sharing: meter, account: account) }
        queryCaches = compiled.queryText.map { $0?.makeCache(sharing: meter, account: account) }
        fragmentCaches = compiled.fragment.map { $0?.makeCache(sharing: meter, account: account) }
        decisions = DecisionBuffer(count: compiled.appIDs.count)
        rules = compiled.rules
        domainBytes = compiled.domainBytes
        if !domainBytes.isEmpty && domainBytes.allSatisfy(Self.isPlainHostByte) {
            var prefix = Array("https://".utf8)
            prefix.append(contentsOf: domainBytes)
            plainPrefix = prefix
        } else {
            plainPrefix = []
        }
        // The path strategy is the plan's (`Planner.path`).
        let pathPlan = compiled.pathPlan
        let pathCaches = self.pathCaches
        var searchers = Searchers()
        switch pathPlan.strategy {
        case .soloPathCompiledRows, .soloPathRowsOnFirstSight:
            if let mode = pathPlan.modes.first, let cache = pathCaches[mode.index] {
                searchers.solo = SoloPathSearcher(
                    cache: cache, mode: mode, split: compiled.pathSplits[mode.index], plan: pathPlan, rules: compiled.rules,
                    appCount: compiled.appIDs.count)
            }
        case .multiModePath:
            searchers.multi = MultiModePathSearcher(
                automata: compiled.pathModes.compactMap { mode in
                    guard let cache = pathCaches[mode.index] else { return nil }
                    return .init(mode: mode, cache: cache, split: compiled.pathSplits[mode.index])
                },
                layout: pathPlan.layout)
        default:
            break
        }
        searchesSolo = searchers.solo != nil
        self.searchers = UnsharedCell(searchers)
        components = UnsharedCell(ComponentSearchers(query: queryCaches, fragment: fragmentCaches))
        // Query item caches are made as URLs name their items: a document can name thousands.
        state.value.queryItems = QueryItemEvaluator(index: compiled.queryItems, meter: meter, account: account)
    }

    /// Whether `byte` may be in a domain that `plainPrefix` shortcuts: printable ASCII but
    /// none of `#`, `/`, `:`, `?`, `@`, `[`, `\`.
    private static func isPlainHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "?"), UInt8(ascii: "@"),
            UInt8(ascii: "["), UInt8(ascii: "\\"):
            return false
        default:
            return byte > 0x20 && byte < 0x7F
        }
    }

    /// The query item names this matcher has a cache for: those its URLs have named.
    var queryItemCacheCount: Int { state.value.queryItems.caches.count { $0 != nil } }

    /// Every cache of this matcher.
    private var caches: [LazyDFA.Cache] {
        var caches = (pathCaches + queryCaches + fragmentCaches).compactMap { $0 }
        for case let cache? in state.value.queryItems.caches { caches.append(cache) }
        return caches
    }

    /// Empties every cache of this matcher and gives their memory back (`LazyDFA.Cache.release`),
    /// between two URLs; the states are built again as URLs need them. The query item caches
    /// are dropped, not only emptied (`QueryItemEvaluator.dropCaches`): URLs make them by the
    /// thousand.
    public func releaseCaches() {
        for cache in (pathCaches + queryCaches + fragmentCaches) { cache?.release() }
        state.value.queryItems.dropCaches()
    }

    /// Cache statistics summed over every automaton of this matcher.
    public var cacheStatistics: (statesBuilt: Int, clears: Int, fallbacks: Int, memory: Int) {
        caches.reduce((0, 0, 0, 0)) {
            ($0.0 + $1.statesBuilt, $0.1 + $1.clearCount, $0.2 + $1.fallbackCount, $0.3 + $1.memoryUsage)
        }
    }

    /// App ID → its first index, made when a URL first names an app: a search of the list per
    /// URL made `aasa test` of 200 000 URLs for the last of 3 800 apps take 5.6 s.
    private var appIndexes: [ExactString: Int]?

    /// The index of app `app` in the document's app IDs (the first, if listed twice).
    private func indexOfApp(_ app: String) -> Int? {
        if appIndexes == nil {
            appIndexes = Dictionary(compiled.appIDs.enumerated().map { (ExactString($1), $0) }, uniquingKeysWith: { first, _ in first })
        }
        return appIndexes?[ExactString(app)]
    }

    public func decide(_ url: String, app: String?, host: ServingHost) throws(URLSplitError) -> URLDecision {
        let appIndex = try decideRow(url, app: app, host: host)
        if let app {
            guard let appIndex else { return URLDecision(decisions: [AppDecision(app: app, kind: .noMatch)]) }
            return URLDecision(decisions: [decision(forApp: appIndex)])
        }
        return URLDecision(decisions: compiled.appIDs.indices.map { decision(forApp: $0) })
    }

    /// Decides `url` into `decisions` (for `app` alone when given): that app's index, if the
    /// document names it.
    func decideRow(_ url: String, app: String?, host: ServingHost = .domain) throws(URLSplitError) -> Int? {
        var url = url
        let appIndex = app.flatMap { indexOfApp($0) }
        let result: Result<Void, URLSplitError> = url.withUTF8 { bytes in
            do throws(URLSplitError) {
                let onlyApp = app == nil ? nil : (appIndex ?? -1)
                switch host {
                case .domain: try decide(view: ByteView(bytes), onlyApp: onlyApp)
                case .urlHost: try decide(onItsHost: ByteView(bytes), onlyApp: onlyApp)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return appIndex
    }

    /// As `decide(_:app:)` followed by `matchedApps`, reading the row of rule ids: a matrix URL
    /// costs no decision value per app (an entry of 9 400 apps made `aasa test` build 9 400 per
    /// URL).
    public func opensApp(_ url: String, app: String?, host: ServingHost) throws(URLSplitError) -> Bool {
        let appIndex = try decideRow(url, app: app, host: host)
        func opens(_ index: Int) -> Bool {
            let rule = decisions[app: index]
            return rule >= 0 && !compiled.rules[Int(rule)].exclude
        }
        if app != nil { return appIndex.map(opens) ?? false }
        return (0..<decisions.count).contains(where: opens)
    }

    deinit { decisions.deallocate() }

    /// Per app, the deciding rule id or -1 of the last URL decided (`decide(bytes:onlyApp:)`).
    public var decidingRule: DecidingRules { DecidingRules(matcher: self) }

    /// A read-only view of a matcher's `decidingRule`, valid until its next URL; it keeps the
    /// matcher alive.
    public struct DecidingRules: RandomAccessCollection {
        let matcher: DFAMatcher
        public var startIndex: Int { 0 }
        public var endIndex: Int { matcher.decisions.count }
        public subscript(app: Int) -> Int32 {
            precondition(app >= 0 && app < endIndex, "app index out of range")
            return matcher.decisions[app: app]
        }
    }

    /// The last URL's `decidingRule`, borrowed rather than copied (the classify hot path).
    @inline(__always)
    func withDecisions<R>(_ body: (BufferView<Int32>) -> R) -> R {
        body(BufferView(decisions.buffer))
    }

    /// The decision of app `index` after the last `decide(bytes:onlyApp:)`.
    public func decision(forApp index: Int) -> AppDecision {
        precondition(index >= 0 && index < decisions.count, "app index out of range")
        let rule = decisions[app: index]
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
        try decide(view: ByteView(bytes), onlyApp: onlyApp)
    }

    /// As `decide(bytes:onlyApp:)`, the URL lent as a view.
    func decide(view bytes: ByteView, onlyApp: Int? = nil) throws(URLSplitError) {
        meter.begin()
        try decideWithinBudget(bytes: bytes, onlyApp: onlyApp)
        if meter.exceeded { throw .workLimitExceeded(limit: meter.limit) }
    }

    /// As `decide(view:onlyApp:)` for a URL served by its own host (`ServingHost.urlHost`):
    /// the host check is taken as passed, as for a URL `classify` routed by its host.
    func decide(onItsHost bytes: ByteView, onlyApp: Int?) throws(URLSplitError) {
        meter.begin()
        decide(bytes: bytes, parts: try URLSplitter.split(bytes), onlyApp: onlyApp, hostChecked: true, pathSearched: false)
        if meter.exceeded { throw .workLimitExceeded(limit: meter.limit) }
    }

    /// Whether the last URL decided ran over the work budget (`Configuration.Automata.maxURLWork`):
    /// its `decidingRule` is then meaningless, and the URL is an error
    /// (`URLSplitError.workLimitExceeded`). The throwing `decide` calls check it themselves.
    public var workExceeded: Bool { meter.exceeded }

    /// Gives every later URL a budget of `limit` NFA positions instead of the compiled
    /// document's `maxURLWork` (a service may grant one caller more than another).
    public func limitWork(to limit: Int) {
        meter.limit = limit
    }

    @inline(__always)
    private func decideWithinBudget(bytes: ByteView, onlyApp: Int?) throws(URLSplitError) {
        // PERF: most URLs a matcher sees start with `https://` and its own domain in lowercase:
        // one comparison of that prefix replaces the scheme and authority scans and the host
        // check: 800 → 540 instructions a URL on the peers suite's 10-rule document
        // (callgrind, `aasa-peers --profile ours`). `URLSplitter.split` reads such a
        // URL the same way: scheme `https`, host = the domain, the path from the next byte.
        if let pathStart = plainPrefixLength(bytes) {
            var searched = false
            if searchesSolo, onlyApp != -1, decisions.count > 0 {
                // The path alone first: a decision row settles most URLs without reading
                // their query or fragment.
                let pathEnd = URLSplitter.pathEnd(of: bytes, from: pathStart)
                searchers.value.solo?.search(bytes[pathStart..<pathEnd], normalizer: &state.value.normalizer)
                searched = true
                clearDecisions()
                if applyRow(onlyApp: onlyApp) { return }
            }
            let parts = URLSplitter.parts(
                of: bytes, scheme: 0..<5, host: 8..<(8 + domainBytes.count), pathStart: pathStart)
            decide(bytes: bytes, parts: parts, onlyApp: onlyApp, hostChecked: true, pathSearched: searched)
            return
        }
        decide(bytes: bytes, parts: try URLSplitter.split(bytes), onlyApp: onlyApp, hostChecked: false, pathSearched: false)
    }

    /// Decides a URL already split by `URLSplitter` (callers that routed it by host have).
    /// Check `workExceeded` afterwards.
    public func decide(bytes: UnsafeBufferPointer<UInt8>, parts: URLParts, onlyApp: Int? = nil) {
        meter.begin()
        decide(bytes: ByteView(bytes), parts: parts, onlyApp: onlyApp, hostChecked: false, pathSearched: false)
    }

    /// Decides a URL whose host the caller has already found equal to this document's domain
    /// (ASCII case-insensitively, as SPEC 3 compares): `classify` routes every URL through
    /// `DomainTable`, so checking the host again would compare it twice.
    /// Check `workExceeded` afterwards.
    func decide(routed bytes: ByteView, parts: URLParts) {
        meter.begin()
        decide(bytes: bytes, parts: parts, onlyApp: nil, hostChecked: true, pathSearched: false)
    }

    /// The length of `https://` + the domain when `bytes` starts with them and the authority
    /// ends there (the next byte is `/`, `?`, `#`, or there is none); `nil` otherwise, or when
    /// the domain holds a byte that would change how the authority is read.
    @inline(__always)
    private func plainPrefixLength(_ bytes: ByteView) -> Int? {
        let length = plainPrefix.count
        guard length > 0, bytes.count >= length else { return nil }
        let same = plainPrefix.withView { prefix in bytes[0..<length].bytesEqual(prefix) }
        guard same else { return nil }
        if length == bytes.count { return length }
        let next = bytes[length]
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") ? length : nil
    }

    @inline(__always)
    private func clearDecisions() {
        guard state.value.decidedSomething else { return }
        decisions.clear()
        state.value.decidedSomething = false
    }

    /// Decides a split URL: the host, then the path searcher (unless the prefix shortcut has
    /// already searched the path and found no decision row), then the rule walk.
    private func decide(
        bytes: ByteView, parts: URLParts, onlyApp: Int?, hostChecked: Bool, pathSearched: Bool
    ) {
        clearDecisions()
        guard hostChecked || hostMatches(bytes[parts.host]) else { return }
        if onlyApp == -1 { return }
        // `decisions.count` is the number of apps: `compiled.appIDs` would be two more objects
        // to read.
        var remaining = onlyApp == nil ? decisions.count : 1
        if remaining == 0 { return }

        let path = bytes[parts.path]
        // An absent query or fragment compares as empty text.
        let query = parts.query.map { bytes[$0] } ?? .empty
        let fragment = parts.fragment.map { bytes[$0] } ?? .empty

        if searchesSolo {
            if !pathSearched {
                searchers.value.solo?.search(path, normalizer: &state.value.normalizer)
                if applyRow(onlyApp: onlyApp) { return }
            }
            resetComponentResults()
            var decidedEntry = -1
            searchers.value.solo?.walkRules { rule in
                consider(Int(rule), onlyApp: onlyApp, query: query, fragment: fragment, remaining: &remaining, decidedEntry: &decidedEntry)
                return remaining > 0
            }
            return
        }
        guard searchers.value.multi != nil else { return }
        resetComponentResults()
        searchers.value.multi?.search(path, normalizer: &state.value.normalizer)
        var decidedEntry = -1
        searchers.value.multi?.walkRules { rule in
            consider(Int(rule), onlyApp: onlyApp, query: query, fragment: fragment, remaining: &remaining, decidedEntry: &decidedEntry)
            return remaining > 0
        }
    }

    /// Applies the solo searcher's decision row of the path just searched (`decidingRule` is
    /// clear); returns whether that decided the URL.
    @inline(__always)
    private func applyRow(onlyApp: Int?) -> Bool {
        switch searchers.value.solo?.decideFromRow(onlyApp: onlyApp, decisions: decisions) {
        case .nothingMatched: return true
        case .decided:
            state.value.decidedSomething = true
            return true
        case .needsWalk, nil: return false
        }
    }

    /// Forgets the query and fragment results of the previous URL.
    @inline(__always)
    private func resetComponentResults() {
        guard state.value.componentsTouched else { return }
        state.value.componentsTouched = false
        components.value.forget()
        state.value.itemsEvaluated = false
    }

    /// A rule whose path matched: if its query and fragment hold too, it decides for each of its
    /// apps still undecided.
    ///
    /// `decidedEntry`: the entry of the last rule that held for every app, all of whose apps
    /// (the same for each of its rules) are therefore decided: its later rules are passed over
    /// without visiting their apps. Rules are walked in order, so an entry's rules come
    /// together. Without it, 8 000 matching rules of an entry naming 9 000 apps, beside an app
    /// never decided, cost a 20-byte URL 52 ms (rules × apps).
    @inline(__always)
    private func consider(
        _ rule: Int, onlyApp: Int?, query: ByteView, fragment: ByteView,
        remaining: inout Int, decidedEntry: inout Int
    ) {
        // The rule's fields are read where `rules` holds them: copying the `RuleInfo` out
        // retained its arrays.
        if rules[rule].entryIndex == decidedEntry { return }
        if let onlyApp, !rules[rule].apps.contains(Int32(onlyApp)) { return }
        guard queryMatches(rule: rule, query: query), fragmentMatches(rule: rule, fragment: fragment) else { return }
        for app in rules[rule].apps where decisions[app: Int(app)] < 0 && (onlyApp == nil || Int(app) == onlyApp) {
            decisions[app: Int(app)] = Int32(rule)
            state.value.decidedSomething = true
            remaining -= 1
        }
        if onlyApp == nil { decidedEntry = rules[rule].entryIndex }
    }

    /// Whether the rule's query pattern holds; the query automata run on first need per URL.
    private func queryMatches(rule: Int, query: ByteView) -> Bool {
        switch rules[rule].queryKind {
        case .universal:
            return true
        case .text:
            let mode = rules[rule].mode.index
            if !components.value.query[mode].searched {
                state.value.normalizer.withNormalized(query, mode: rules[rule].mode, updating: &components.value.query[mode]) { automaton, text in
                    automaton.search(text)
                }
                state.value.componentsTouched = true
            }
            return components.value.query[mode].accepted(rule)
        case .items:
            state.value.componentsTouched = true
            state.value.evaluateItems(query)
            return state.value.queryItems.holds(rule: rule)
        }
    }

    private func fragmentMatches(rule: Int, fragment: ByteView) -> Bool {
        if rules[rule].fragmentIsUniversal { return true }
        let mode = rules[rule].mode.index
        if !components.value.fragment[mode].searched {
            state.value.normalizer.withNormalized(fragment, mode: rules[rule].mode, updating: &components.value.fragment[mode]) { automaton, text in
                automaton.search(text)
            }
            state.value.componentsTouched = true
        }
        return components.value.fragment[mode].accepted(rule)
    }

    /// SPEC 3: the host equals the domain, ASCII case-insensitively.
    private func hostMatches(_ host: ByteView) -> Bool {
        guard host.count == domainBytes.count else { return false }
        return domainBytes.withView { domain in
            // PERF: hosts are nearly always written in lowercase, so one memcmp decides; the
            // folding loop (about 16 instructions a byte) runs only for a host that differs
            // (callgrind, `aasa-peers --profile ours`, 10 rules: 177 of 1 000 instructions a URL).
            if host.bytesEqual(domain) { return true }
            for index in 0..<host.count {
                var byte = host[index]
                if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
                if byte != domain[index] { return false }
            }
            return true
        }
    }
}
