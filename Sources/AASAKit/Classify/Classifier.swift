/// The Classify folder: the library half of `aasa classify`, many documents against one URL
/// stream. `DomainDocuments` finds one document per domain in a rules directory,
/// `ClassifierRules` holds the host table (`DomainTable`) and reads, compiles (or decodes from an
/// artifact) each domain's document the first time a URL of its host arrives, with its
/// pre-rendered output fragments (letting all of them go past `loaded-bytes`, `DocumentBudget`),
/// and one `Classifier` per worker thread turns URL bytes into NDJSON, TSV or CSV records in a
/// `RecordBuffer`.
///
/// What it will not do: read the input or write the output (the CLI's `Pipeline` cuts batches,
/// keeps input order and writes; records only go into buffers here), decide a URL itself beyond
/// reading the decision row its document's plan computed for the path (`PathRowTable`; the
/// thread's `DFAMatcher` for the domain's automata, shared by the domains serving one document,
/// or `ReferenceMatcher` when asked for, does the rest), or drop a line: a host no
/// document serves gets a record with no domain, and a URL that cannot be split, a document that
/// could not be loaded or a URL over its work budget gets an error record.
///
/// This type classifies URLs for one thread: it routes each URL to its domain's document by
/// host, decides every app, and appends the record in the chosen format to a byte buffer.
///
/// Make one per worker thread from a shared `ClassifierRules`; it owns that thread's DFA caches
/// and counters. With warm caches, classifying an ASCII URL allocates nothing: the URL is split
/// in place, the decision lands in reused arrays, and the record is assembled from pre-rendered
/// fragments.
public final class Classifier {
    public let rules: ClassifierRules
    public let format: RecordFormat
    // PERF: a Classifier is used by one thread at a time, so the dynamic exclusivity checks
    // on its hot properties only cost time (about 5% of a classify run, callgrind): they live
    // in one `UnsharedCell`.
    private let state: UnsharedCell<State>
    /// The bytes of lazy DFA states this thread's matchers hold together.
    private let cacheMemory = LazyCacheMemory()
    struct State {
        var counts = (records: 0, errors: 0, withoutDomain: 0)
        /// What `cacheMemory` may reach before every cache of the thread is emptied: twice
        /// `dfa-cache-bytes`, the bound of one cache, and at least `minimumCacheBudget` (from the
        /// configuration of the first matcher made; every document of a run is compiled under
        /// the same one).
        var cacheBudget = Int.max
        var cacheReleases = 0
        /// Per domain index: the number of its slot in `slots`, or -1 before this thread meets
        /// the domain.
        var slotNumbers: [Int32]
        /// This thread's view of each domain it has met, in the order it met them: so memory
        /// grows with the domains the stream touches, and the slots of a stream's busy domains
        /// sit together.
        var slots: [DomainSlot] = []
        /// This thread's matcher for each set of automata met so far
        /// (`CompiledDocument.automata`): domains serving the same document share one, and
        /// with it the states its caches have built.
        var matchers: [ObjectIdentifier: DFAMatcher] = [:]
        /// The fleet's `DocumentBudget.generation` when this thread last dropped its slots: when
        /// it moves, every document was let go, and the thread drops its own references too.
        var generation = 0
        /// The counts of the slots dropped so far (`retireSlots`); nil until one is.
        var retired: ClassifyStatistics?
        // TSV/CSV scratch for the apps and rules columns, reused so a record allocates nothing.
        var appsColumn: [UInt8] = []
        var rulesColumn: [UInt8] = []
    }

    /// Fields of the input record passed through to the output.
    public struct Extra: Sendable {
        /// A JSON object literal, written as `"fields": {...}` in NDJSON output.
        public var json: [UInt8]?
        /// Extra columns for TSV/CSV output.
        public var columns: [[UInt8]]

        public init(json: [UInt8]? = nil, columns: [[UInt8]] = []) {
            self.json = json
            self.columns = columns
        }

    }

    public init(rules: ClassifierRules, format: RecordFormat) {
        self.rules = rules
        self.format = format
        state = UnsharedCell(State(slotNumbers: Array(repeating: -1, count: rules.domains.count)))
    }

    /// The matchers this thread has made: one per set of automata met (`meet`).
    var matcherCount: Int { state.value.matchers.count }

    /// Records written so far (error records included): cheap, read once per batch.
    public var records: Int { state.value.counts.records }

    /// This thread's counts, gathered from the domains it met.
    public var statistics: ClassifyStatistics {
        var statistics = ClassifyStatistics(rules: rules)
        let counts = state.value.counts
        statistics.records = counts.records
        statistics.errors = counts.errors
        statistics.withoutDomain = counts.withoutDomain
        statistics.cacheReleases = state.value.cacheReleases
        if let retired = state.value.retired { statistics.merge(retired) }
        for slot in state.value.slots { statistics.add(domain: slot.index, records: slot.records, matched: slot.matched, appMatches: slot.appMatches) }
        return statistics
    }

    /// Classifies one URL (trimmed, valid UTF-8) and appends its record to `out`.
    ///
    /// `extra` is optional rather than defaulting to an empty `Extra`: copying even an empty
    /// one retains and releases its two arrays, twice per URL (callgrind, classify run).
    public func classify(_ url: UnsafeBufferPointer<UInt8>, extra: Extra? = nil, into out: RecordBuffer) {
        classify(ByteView(url), extra: extra, into: out)
    }

    /// As `classify(_:extra:into:)`, the URL lent as a view; `plain` when the line reader found
    /// it plain (`URLLineReader.Line.url`), so that its record copies it unscanned.
    @inline(__always)
    func classify(_ url: ByteView, plain: Bool = false, extra: Extra? = nil, into out: RecordBuffer) {
        let url = RecordURL(bytes: url, plain: plain)
        switch route(url.bytes) {
        case .unsplittable(let message):
            appendError(url: url, slot: nil, message: message, extra: extra, into: out)
        case .noDomain:
            appendWithoutDomain(url: url, extra: extra, into: out)
        case .failed(let slot, let message):
            appendError(url: url, slot: slot, message: message, extra: extra, into: out)
        case .decided(let slot, let decisions):
            appendRecord(url: url, slot: slot, decisions: decisions, extra: extra, into: out)
        }
    }

    /// A URL as its record shows it: the bytes, and whether they are plain (JSON needs no
    /// escape in them, `URLLineReader.examine`).
    struct RecordURL {
        let bytes: ByteView
        let plain: Bool
    }

    /// What one URL came to, before it becomes a record (`classify`) or values (`classification`),
    /// so that both say the same thing.
    enum Routed {
        /// Not a URL the engine can split: an error record without a domain.
        case unsplittable(String)
        /// No document serves the host.
        case noDomain
        /// The domain's document is unusable, or deciding the URL failed (the slot's number).
        case failed(Int, message: String)
        /// Decided: the slot (its number), and per app the deciding rule id (or -1), lent until
        /// the next URL.
        case decided(Int, BufferView<Int32>)
    }

    @inline(__always)
    func route(_ url: ByteView) -> Routed {
        state.value.counts.records &+= 1
        let parts: URLParts
        do {
            parts = try URLSplitter.split(url)
        } catch {
            state.value.counts.errors &+= 1
            return .unsplittable(error.description)
        }
        guard let domainIndex = rules.table.lookup(url[parts.host]) else {
            state.value.counts.withoutDomain &+= 1
            return .noDomain
        }
        if rules.budget.generation.load(ordering: .relaxed) != state.value.generation { retireSlots() }
        var slot = Int(state.value.slotNumbers[domainIndex])
        if slot < 0 { slot = meet(domainIndex) }
        if cacheMemory.bytes > state.value.cacheBudget { releaseCaches() }
        // Most paths are decided by their document's row table alone: read from it here, the
        // URL never reaches the matcher and its objects.
        // PERF: 10 000-domain fleet stream (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`,
        // `aasa classify --compiled --jobs 1`, stream twice − once, cachegrind): a warm URL
        // 1 421 → 1 325 instructions and 2 182 → 2 031 estimated cycles (−6.9%), L1 data read
        // misses 16.1 → 13.5; on one domain 1 631 → 1 462 estimated cycles (−10.4%)
        // (`Benchmarks/Records/2026-12-06-fleet-row-tables.md`, with `perf stat` rounds).
        if let row = state.value.slots[slot].decideFromRows(url[parts.path]) {
            return .decided(slot, row)
        }
        // PERF: the slot is used in place, in the array (a mutating call), never copied out: a
        // reference loaded from a mutable array is retained around any call that might release
        // it, and a slot struct in place holds its matcher for the call.
        switch state.value.slots[slot].decideWithMatcher(url, parts: parts) {
        case .decided:
            return .decided(slot, BufferView(state.value.slots[slot].decisions.buffer))
        case .overBudget(let limit):
            state.value.counts.errors &+= 1
            return .failed(slot, message: URLSplitError.workLimitExceeded(limit: limit).description)
        case .noMatcher:
            break
        }
        switch state.value.slots[slot].document.state {
        case .failed(let reason):
            state.value.counts.errors &+= 1
            return .failed(slot, message: "the document could not be loaded: \(reason)")
        case .compiled:
            // Unreachable: a compiled document's slot has a matcher.
            return .decided(slot, BufferView(state.value.slots[slot].decisions.buffer))
        case .reference(let reference):
            do {
                try state.value.slots[slot].decide(reference: reference, url: url)
            } catch {
                state.value.counts.errors &+= 1
                return .failed(slot, message: error.description)
            }
            return .decided(slot, BufferView(state.value.slots[slot].decisions.buffer))
        }
    }

    /// The slot of a domain this thread meets for the first time (its number in `slots`): its
    /// document (loaded now if no thread has yet) and, for a compiled one, this thread's matcher
    /// for its automata.
    ///
    /// Why a matcher per set of automata rather than per domain: a fleet serves a few documents
    /// under thousands of names, and a matcher's caches fill as URLs arrive; one matcher per
    /// domain would build the same states again for every name. A matcher decides a routed URL
    /// from its bytes and the document's automata alone (the host was matched by the table), so
    /// the domain it was made for does not enter its decisions.
    // PERF: with identical files compiled once (`ClassifierRules`), 10 000-domain fleet stream
    // (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, `aasa classify --jobs 1`, callgrind,
    // stream − empty input): a URL with first use 19 534 → 14 778 instructions with `--rules`,
    // 4 710 → 3 534 with `--compiled` (`Benchmarks/Records/2026-12-02-fleet-sharing.md`).
    @inline(never)
    private func meet(_ domainIndex: Int) -> Int {
        let domain = rules.domains[domainIndex]
        // This thread may pass the fleet's budget: then every document is let go, this
        // thread's first; the one just loaded serves this slot all the same.
        let document = rules.loadCharging(domainIndex)
        if rules.budget.generation.load(ordering: .relaxed) != state.value.generation { retireSlots() }
        var matcher: DFAMatcher?
        if case .compiled(let compiled) = document.state {
            let key = ObjectIdentifier(compiled.automata)
            if let known = state.value.matchers[key], known.decisions.count == compiled.appIDs.count {
                matcher = known
            } else {
                let made = DFAMatcher(compiled, account: cacheMemory)
                if let capacity = compiled.anyAutomaton?.configuration.cacheCapacity {
                    state.value.cacheBudget = min(state.value.cacheBudget, max(capacity * 2, Self.minimumCacheBudget))
                }
                state.value.matchers[key] = made
                matcher = made
            }
        }
        let number = state.value.slots.count
        state.value.slots.append(DomainSlot(index: domainIndex, domain: domain, document: document, matcher: matcher))
        state.value.slotNumbers[domainIndex] = Int32(number)
        return number
    }

    /// Drops this thread's slots and matchers, keeping their counts (`retired`): the fleet let
    /// go of every document to stay within `loaded-bytes` (`DocumentBudget`), and the
    /// references held here would keep them all alive. Each domain gets a new slot when its
    /// next URL comes.
    @inline(never)
    private func retireSlots() {
        state.value.generation = rules.budget.generation.load(ordering: .acquiring)
        // Added to in place: a copy taken out would copy its per-domain arrays at each release.
        if state.value.retired == nil { state.value.retired = ClassifyStatistics(rules: rules) }
        for slot in state.value.slots {
            state.value.slotNumbers[slot.index] = -1
            state.value.retired?.add(domain: slot.index, records: slot.records, matched: slot.matched, appMatches: slot.appMatches)
        }
        // Their caches' bytes leave this thread's account (`LazyCacheMemory`) with them.
        for matcher in state.value.matchers.values { matcher.releaseCaches() }
        state.value.slots = []
        state.value.matchers = [:]
    }

    /// Empties every lazy cache of this thread, between two URLs: its documents' caches
    /// together passed `cacheBudget`. Each cache is bounded on its own (`dfa-cache-bytes`), but
    /// a fleet meets thousands of documents, and each hostile one could otherwise keep a full
    /// cache for the rest of the run (80 of them held 4.4 GB). The documents in use build their
    /// few states again.
    @inline(never)
    private func releaseCaches() {
        for matcher in state.value.matchers.values { matcher.releaseCaches() }
        state.value.cacheReleases &+= 1
    }

    /// The least `cacheBudget`: a `dfa-cache-bytes` of a few kilobytes bounds each automaton,
    /// and twice that for a whole fleet's caches emptied them every few URLs (the real corpus
    /// at 8 KiB: 0.4 s → 2.1 s).
    static let minimumCacheBudget = 16 << 20

    /// The index in `rules.domains` of slot number `slot`'s domain.
    func domainIndex(ofSlot slot: Int) -> Int { state.value.slots[slot].index }

    /// Slot number `slot`'s domain index and document, lent to `body` with `decisions`.
    @inline(__always)
    func withDecided<R>(_ slot: Int, _ decisions: BufferView<Int32>, _ body: (Int, ClassifierRules.Loaded, BufferView<Int32>) -> R) -> R {
        body(state.value.slots[slot].index, state.value.slots[slot].document, decisions)
    }

    /// A record for a URL whose host no document serves: the common case in a mixed stream.
    private func appendWithoutDomain(url: RecordURL, extra: Extra?, into out: RecordBuffer) {
        switch format {
        case .ndjson:
            out.append(#"{"url": "#)
            out.appendJSONString(url.bytes, plain: url.plain)
            out.append(#", "domain": null, "apps": [], "decisions": []"#)
            appendFieldsAndEnd(extra, into: out)
        case .tsv, .csv:
            appendHead(url: url, slot: nil, into: out)
            format.appendField([], to: out)
            out.append(format.delimiter)
            format.appendField([], to: out)
            out.append(format.delimiter)
            appendExtraColumns(extra, to: out)
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// Writes a decided record from `decisions` (per app, the deciding rule id or -1) of slot
    /// number `slot`'s domain, and counts them.
    @inline(__always)
    private func appendRecord(url: RecordURL, slot: Int, decisions: BufferView<Int32>, extra: Extra?, into out: RecordBuffer) {
        let fragments = state.value.slots[slot].fragments
        switch format {
        case .ndjson:
            out.append(#"{"url": "#)
            out.appendJSONString(url.bytes, plain: url.plain)
            // PERF: most URLs decide nothing; their record's tail is one copy: record writing
            // 266 → 149 instructions a URL (quick fleet kept by `AASA_BENCH_KEEP_FLEET=1
            // aasa-bench --quick --suite fleet`, `aasa classify --jobs 1 --rules`, callgrind).
            if !decisions.contains(where: { $0 >= 0 }) {
                out.append(fragments.noMatchTail)
                appendFieldsAndEnd(extra, into: out)
                return
            }
            out.append(#", "domain": "#)
            out.append(fragments.domainJSON)
            out.append(#", "apps": ["#)
            var first = true
            for app in 0..<decisions.count where fragments.opens(decisions[app]) {
                if !first { out.append(", ") }
                first = false
                out.append(fragments.appJSON(app))
            }
            out.append(#"], "decisions": ["#)
            for app in 0..<decisions.count {
                if app > 0 { out.append(", ") }
                out.append(#"{"app": "#)
                out.append(fragments.appJSON(app))
                let rule = Int(decisions[app])
                if rule < 0 {
                    out.append(#", "decision": "no_match"}"#)
                } else {
                    out.append(fragments.excludes(rule) ? #", "decision": "exclude""# : #", "decision": "match""#)
                    out.append(fragments.ruleJSONSuffix(rule))
                }
            }
            out.append(UInt8(ascii: "]"))
            appendFieldsAndEnd(extra, into: out)
        case .tsv, .csv:
            appendHead(url: url, slot: slot, into: out)
            state.value.appsColumn.removeAll(keepingCapacity: true)
            state.value.rulesColumn.removeAll(keepingCapacity: true)
            let document = state.value.slots[slot].document
            for app in 0..<decisions.count where fragments.opens(decisions[app]) {
                if !state.value.appsColumn.isEmpty {
                    state.value.appsColumn.append(UInt8(ascii: "|"))
                    state.value.rulesColumn.append(UInt8(ascii: "|"))
                }
                if let escaped = document.columnAppIDs {
                    state.value.appsColumn.append(contentsOf: escaped[app])
                } else {
                    state.value.appsColumn.append(contentsOf: document.appIDs[app].utf8)
                }
                // Through `document`, not `fragments` (the same pieces): the NDJSON branch
                // then loads only the fields it reads, after the switch (quick fleet, warm).
                state.value.rulesColumn.append(contentsOf: document.fragments.ruleText(Int(decisions[app])))
            }
            format.appendField(state.value.appsColumn, to: out)
            out.append(format.delimiter)
            format.appendField(state.value.rulesColumn, to: out)
            out.append(format.delimiter)
            appendExtraColumns(extra, to: out)
            out.append(UInt8(ascii: "\n"))
        }
        state.value.slots[slot].count(decisions)
    }

    /// The end of every NDJSON record: the passed-through `"fields"`, if any, and `}` + newline.
    @inline(__always)
    private func appendFieldsAndEnd(_ extra: Extra?, into out: RecordBuffer) {
        if let json = extra?.json {
            out.append(#", "fields": "#)
            out.append(json)
        }
        out.append("}\n")
    }

    /// The start every record shares: `{"url": …, "domain": …` (NDJSON) or `url⇥domain⇥`.
    private func appendHead(url: RecordURL, slot: Int?, into out: RecordBuffer) {
        switch format {
        case .ndjson:
            out.append(#"{"url": "#)
            out.appendJSONString(url.bytes, plain: url.plain)
            out.append(#", "domain": "#)
            if let slot { out.append(state.value.slots[slot].fragments.domainJSON) } else { out.append("null") }
        case .tsv, .csv:
            format.appendField(url.bytes, to: out)
            out.append(format.delimiter)
            if let slot { format.appendField(state.value.slots[slot].domain.nameBytes, to: out) }
            out.append(format.delimiter)
        }
    }

    private func appendExtraColumns(_ extra: Extra?, to out: RecordBuffer) {
        guard let extra else { return }
        if let json = extra.json, extra.columns.isEmpty {
            out.append(format.delimiter)
            format.appendField(json, to: out)
        }
        for column in extra.columns {
            out.append(format.delimiter)
            format.appendField(column, to: out)
        }
    }

    /// Appends an error record: `{"url": …, "domain": …, "error": …}` or a row with the error
    /// column filled.
    private func appendError(
        url: RecordURL, slot: Int?, message: String, extra: Extra?, into out: RecordBuffer
    ) {
        switch format {
        case .ndjson:
            appendHead(url: url, slot: slot, into: out)
            out.append(#", "error": "#)
            var message = message
            message.withUTF8 { out.appendJSONString(ByteView($0)) }
            appendFieldsAndEnd(extra, into: out)
        case .tsv, .csv:
            appendHead(url: url, slot: slot, into: out)
            out.append(format.delimiter)
            out.append(format.delimiter)
            format.appendField(Array(message.utf8), to: out)
            appendExtraColumns(extra, to: out)
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// An error record for an input line that is not a URL at all (invalid UTF-8, too long).
    public func appendUnreadable(text: String, message: String, extra: Extra? = nil, into out: RecordBuffer) {
        state.value.counts.records &+= 1
        state.value.counts.errors &+= 1
        Array(text.utf8).withView {
            appendError(url: RecordURL(bytes: $0, plain: false), slot: nil, message: message, extra: extra, into: out)
        }
    }

    /// Counts an input line that is no URL (`classification(ofWholeLine:)`), as its record would.
    func countUnreadable() {
        state.value.counts.records &+= 1
        state.value.counts.errors &+= 1
    }
}

/// One domain as one worker thread sees it, made the first time the thread meets the domain: the
/// shared document, the thread's own matcher for it, and the thread's counts for the summary.
///
/// Why a struct used in place: the classifier keeps its slots in one array and calls into them
/// where they lie (`state.value.slots[n].decideWithMatcher`), so that a URL's hot path copies no
/// reference. A reference loaded from a mutable array is retained around every call that might
/// release it; a mutating call on a slot in place holds the slot, and its `let` matcher with it,
/// for the call's duration. The record pieces and the decisions are raw memory the slot points to
/// (`RecordFragments`, `DecisionBuffer`), owned by the document and the matcher it keeps alive.
// PERF: the slot a struct in place rather than a class: a warm URL of the 10 000-domain fleet
// stream 1 486 → 1 440 instructions with `--compiled`, 1 490 → 1 445 with `--rules`, and
// `swift_retain` calls 1.25 → 0.46 a URL (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`,
// `aasa classify --jobs 1`, callgrind, stream twice − once), records identical.
// PERF: fewer cache lines a warm fleet URL reads (this slot's hot fields first, the record
// pieces in one block, `WorkMeter`'s counts in one cell, `SoloPathSearcher` reading its table
// directly with its hot fields first, the app count taken from the decision row): on the
// 10 000-domain fleet stream (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, `aasa classify
// --compiled --jobs 1`, stream twice − once), L1 data misses a warm URL 24.6 → 20.5 and LL
// misses 6.0 → 5.7 (cachegrind, `FleetSuite.cacheGeometry`), instructions 1 410 → 1 397, and a
// warm pass of the stream 57.5 → 53.8 ms (minima of 41 alternated runs of the stream and of it
// five times over; medians drift with the machine's steal time).
struct DomainSlot {
    // What every URL reads comes first, so that it shares as few cache lines as the slot's
    // place in the array allows.
    /// The document's row table (`CompiledDocument.routedRows`), which decides most paths
    /// without the matcher; owned by `document`.
    let rows: PathRowTable.View?
    /// This thread's matcher, for a compiled document.
    let matcher: DFAMatcher?
    /// Per app, the deciding rule id or -1 for the last URL: the matcher's row, or for a
    /// document decided otherwise, the row `ownDecisions` holds.
    let decisions: DecisionBuffer
    /// The document's record pieces, owned by `document`, which this slot keeps alive.
    let fragments: RecordFragments
    /// Records routed to this slot.
    private(set) var records = 0
    /// Records that opened at least one app.
    private(set) var matched = 0
    /// Per app: records whose decision for it is `match`.
    private(set) var appMatches: [Int]
    let index: Int
    let domain: ClassifierRules.Domain
    let document: ClassifierRules.Loaded
    private let ownDecisions: OwnedDecisions?

    /// `matcher` decides for `document` when it is compiled (it may serve other domains with
    /// the same automata too); nil otherwise.
    init(index: Int, domain: ClassifierRules.Domain, document: ClassifierRules.Loaded, matcher: DFAMatcher?) {
        self.index = index
        self.domain = domain
        self.document = document
        self.matcher = matcher
        if matcher != nil, case .compiled(let compiled) = document.state {
            rows = compiled.routedRows?.view
        } else {
            rows = nil
        }
        if let matcher {
            decisions = matcher.decisions
            ownDecisions = nil
        } else {
            let own = OwnedDecisions(count: document.appIDs.count)
            decisions = own.buffer
            ownDecisions = own
        }
        fragments = document.fragments
        appMatches = Array(repeating: 0, count: document.appIDs.count)
    }

    /// What `decideWithMatcher` did.
    enum MatcherOutcome {
        case decided
        /// The URL ran over the matcher's work budget, this many NFA positions.
        case overBudget(limit: Int)
        /// The document is not compiled: the caller decides otherwise.
        case noMatcher
    }

    /// Counts a routed URL and decides it with this slot's matcher.
    ///
    /// Why optional chaining on the stored property rather than `if let matcher`: binding the
    /// matcher copies the reference, which is then retained and released around the call;
    /// chained, the matcher is used where the slot holds it.
    // PERF: with the matcher's meter a constant (`WorkMeter.limit`), the query and fragment
    // results forgotten only when set, and the tag sets lent rather than copied
    // (`LazyDFA.Cache.withSortedTags`): a warm URL of the 10 000-domain fleet stream 1 675 →
    // 1 590 instructions with `--compiled` (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`,
    // `aasa classify --jobs 1`, callgrind, stream twice − once), records identical.
    @inline(__always)
    mutating func decideWithMatcher(_ url: ByteView, parts: URLParts) -> MatcherOutcome {
        records &+= 1
        guard matcher != nil else { return .noMatcher }
        matcher?.decide(routed: url, parts: parts)
        guard matcher?.workExceeded == true else { return .decided }
        return .overBudget(limit: matcher?.meter.limit ?? 0)
    }

    /// Counts a routed URL and gives its decisions when the row table settles its path alone
    /// (`PathRowTable.View.decidedRow`); nil leaves the URL to the matcher, uncounted.
    @inline(__always)
    mutating func decideFromRows(_ path: ByteView) -> BufferView<Int32>? {
        guard let tagSet = rows?.tagSet(ofUnnormalized: path), let row = rows?.decidedRow(tagSet) else { return nil }
        records &+= 1
        return row
    }

    /// Decides `url` with the reference engine, mapping its (entry, rule) pairs back to rule ids.
    func decide(reference: ReferenceMatcher, url: ByteView) throws(URLSplitError) {
        let decision = try reference.decide(url.string(0..<url.count), app: nil)
        let rules = document.rules
        decisions.clear()
        for (app, outcome) in decision.decisions.enumerated() where app < decisions.count {
            var rule: Int32 = -1
            if let entry = outcome.entry, let index = outcome.rule {
                rule = Int32(rules.firstIndex { $0.entry == entry && $0.rule == index } ?? -1)
            }
            decisions[app: app] = rule
        }
    }

    @inline(__always)
    mutating func count(_ decisions: BufferView<Int32>) {
        var opened = false
        for app in 0..<decisions.count where fragments.opens(decisions[app]) {
            appMatches[app] &+= 1
            opened = true
        }
        if opened { matched &+= 1 }
    }
}

/// The decision row of a slot whose document has no matcher (the reference engine decides it,
/// or it failed to load), freed with this object.
final class OwnedDecisions {
    let buffer: DecisionBuffer

    init(count: Int) {
        buffer = DecisionBuffer(count: count)
    }

    deinit { buffer.deallocate() }
}
