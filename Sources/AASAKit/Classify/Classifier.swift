/// The Classify folder: the library half of `aasa classify`, many documents against one URL
/// stream. `DomainDocuments` finds one document per domain in a rules directory,
/// `ClassifierRules` compiles each once (on the worker threads, `ParallelMap`) with the host
/// table (`DomainTable`) and pre-rendered output fragments, and one `Classifier` per worker
/// thread turns URL bytes into NDJSON, TSV or CSV records in a `RecordBuffer`.
///
/// What it will not do: read the input or write the output (the CLI's `Pipeline` cuts batches,
/// keeps input order and writes; records only go into buffers here), decide a URL itself (each
/// domain's `DFAMatcher`, or `ReferenceMatcher` when asked for, does), or drop a line: a host no
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
    // on its hot properties only cost time (about 5% of a classify run, callgrind).
    @exclusivity(unchecked) public internal(set) var statistics: ClassifyStatistics
    @exclusivity(unchecked) private var matchers: [DFAMatcher?]
    /// Each domain's loaded document, once this thread has met it: the shared slot's lock is
    /// taken once per domain, not per URL.
    @exclusivity(unchecked) var loaded: [ClassifierRules.Loaded?]
    // TSV/CSV scratch for the apps and rules columns, reused so a record allocates nothing.
    @exclusivity(unchecked) private var appsColumn: [UInt8] = []
    @exclusivity(unchecked) private var rulesColumn: [UInt8] = []

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
        self.statistics = ClassifyStatistics(rules: rules)
        self.matchers = Array(repeating: nil, count: rules.domains.count)
        self.loaded = Array(repeating: nil, count: rules.domains.count)
    }

    /// Classifies one URL (trimmed, valid UTF-8) and appends its record to `out`.
    ///
    /// `extra` is optional rather than defaulting to an empty `Extra`: copying even an empty
    /// one retains and releases its two arrays, twice per URL (callgrind, classify run).
    public func classify(_ url: UnsafeBufferPointer<UInt8>, extra: Extra? = nil, into out: RecordBuffer) {
        switch route(url) {
        case .unsplittable(let message):
            appendError(url: url, domain: nil, message: message, extra: extra, into: out)
        case .noDomain:
            appendRecord(url: url, domain: nil, decisions: [], ruleOf: [], extra: extra, into: out)
        case .failed(let domainIndex, let message):
            appendError(url: url, domain: domainIndex, message: message, extra: extra, into: out)
        case .decided(let domainIndex, let decisions, let excluded):
            appendRecord(url: url, domain: domainIndex, decisions: decisions, ruleOf: excluded, extra: extra, into: out, countInto: true)
        }
    }

    /// What one URL came to, before it becomes a record (`classify`) or values (`classification`),
    /// so that both say the same thing.
    enum Routed {
        /// Not a URL the engine can split: an error record without a domain.
        case unsplittable(String)
        /// No document serves the host.
        case noDomain
        /// The domain's document is unusable, or deciding the URL failed.
        case failed(domain: Int, message: String)
        /// Per app the deciding rule id (or -1) and whether that rule excludes.
        case decided(domain: Int, decisions: [Int32], excluded: [Bool])
    }

    @inline(__always)
    func route(_ url: UnsafeBufferPointer<UInt8>) -> Routed {
        statistics.records += 1
        let parts: URLParts
        do {
            parts = try URLSplitter.split(url)
        } catch {
            statistics.errors += 1
            return .unsplittable(error.description)
        }
        guard let domainIndex = rules.table.lookup(UnsafeBufferPointer(rebasing: url[parts.host])) else {
            statistics.withoutDomain += 1
            return .noDomain
        }
        statistics.domainRecords[domainIndex] += 1
        if let matcher = matchers[domainIndex] { return decide(matcher, domainIndex, url: url, parts: parts) }
        let document: ClassifierRules.Loaded
        if let known = loaded[domainIndex] {
            document = known
        } else {
            document = rules.domains[domainIndex].loaded
            loaded[domainIndex] = document
            statistics.countApps(of: domainIndex, document.appIDs.count)
        }
        switch document.state {
        case .failed(let reason):
            statistics.errors += 1
            return .failed(domain: domainIndex, message: "the document could not be loaded: \(reason)")
        case .compiled(let compiled):
            let matcher = DFAMatcher(compiled)
            matchers[domainIndex] = matcher
            return decide(matcher, domainIndex, url: url, parts: parts)
        case .reference(let reference):
            let decision: URLDecision
            do {
                decision = try reference.decide(String(decoding: url, as: UTF8.self), app: nil)
            } catch {
                statistics.errors += 1
                return .failed(domain: domainIndex, message: error.description)
            }
            // Map the reference's (entry, rule) back to the rule ids the templates use.
            let ids = decision.decisions.map { app -> Int32 in
                guard let entry = app.entry, let rule = app.rule else { return -1 }
                return Int32(document.ruleText.firstIndex(of: Array("\(entry):\(rule)".utf8)) ?? -1)
            }
            return .decided(domain: domainIndex, decisions: ids, excluded: decision.decisions.map { $0.kind == .exclude })
        }
    }

    @inline(__always)
    private func decide(_ matcher: DFAMatcher, _ domainIndex: Int, url: UnsafeBufferPointer<UInt8>, parts: URLParts) -> Routed {
        matcher.decide(routed: url, parts: parts)
        if matcher.workExceeded {
            statistics.errors += 1
            let error = URLSplitError.workLimitExceeded(limit: matcher.meter.limit)
            return .failed(domain: domainIndex, message: error.description)
        }
        let ruleInfo = matcher.compiled.rules
        scratchExcluded.removeAll(keepingCapacity: true)
        for rule in matcher.decidingRule { scratchExcluded.append(rule >= 0 && ruleInfo[Int(rule)].exclude) }
        return .decided(domain: domainIndex, decisions: matcher.decidingRule, excluded: scratchExcluded)
    }

    @exclusivity(unchecked) private var scratchExcluded: [Bool] = []

    /// Writes a record; `decisions[app]` is the deciding rule id or -1, `ruleOf[app]` whether
    /// that rule excludes.
    private func appendRecord(
        url: UnsafeBufferPointer<UInt8>, domain domainIndex: Int?, decisions: [Int32], ruleOf excluded: [Bool],
        extra: Extra?, into out: RecordBuffer, countInto count: Bool = false
    ) {
        let domain = domainIndex.map { rules.domains[$0] }
        // Set whenever a record has decisions: the domain was met, so this thread loaded it.
        let document = domainIndex.flatMap { loaded[$0] }
        var matched = false
        switch format {
        case .ndjson where domain == nil && extra?.json == nil:
            // The common case in a mixed stream: no document serves the host.
            out.append(#"{"url": "#)
            out.appendJSONString(url)
            out.append(#", "domain": null, "apps": [], "decisions": []}\#n"#)
        case .ndjson:
            appendHead(url: url, domain: domain, into: out)
            out.append(#", "apps": ["#)
            var first = true
            for (app, rule) in decisions.enumerated() where rule >= 0 && !excluded[app] {
                if !first { out.append(", ") }
                first = false
                if let document { out.append(document.appJSON[app]) }
            }
            out.append(#"], "decisions": ["#)
            for (app, rule) in decisions.enumerated() {
                guard let document else { break }
                if app > 0 { out.append(", ") }
                out.append(#"{"app": "#)
                out.append(document.appJSON[app])
                if rule < 0 {
                    out.append(#", "decision": "no_match"}"#)
                } else {
                    out.append(excluded[app] ? #", "decision": "exclude""# : #", "decision": "match""#)
                    out.append(document.ruleJSONSuffix[Int(rule)])
                }
            }
            out.append(UInt8(ascii: "]"))
            if let json = extra?.json {
                out.append(#", "fields": "#)
                out.append(json)
            }
            out.append("}\n")
        case .tsv, .csv:
            appendHead(url: url, domain: domain, into: out)
            appsColumn.removeAll(keepingCapacity: true)
            rulesColumn.removeAll(keepingCapacity: true)
            for (app, rule) in decisions.enumerated() where rule >= 0 && !excluded[app] {
                guard let document else { break }
                if !appsColumn.isEmpty {
                    appsColumn.append(UInt8(ascii: "|"))
                    rulesColumn.append(UInt8(ascii: "|"))
                }
                appsColumn.append(contentsOf: document.appIDs[app].utf8)
                rulesColumn.append(contentsOf: document.ruleText[Int(rule)])
            }
            format.appendField(appsColumn, to: out)
            out.append(format.delimiter)
            format.appendField(rulesColumn, to: out)
            out.append(format.delimiter)
            appendExtraColumns(extra, to: out)
            out.append(UInt8(ascii: "\n"))
        }
        if count, let domainIndex {
            for (app, rule) in decisions.enumerated() where rule >= 0 && !excluded[app] {
                statistics.appMatches[domainIndex][app] += 1
                matched = true
            }
            if matched { statistics.domainMatched[domainIndex] += 1 }
        }
    }

    /// The start every record shares: `{"url": …, "domain": …` (NDJSON) or `url⇥domain⇥`.
    private func appendHead(url: UnsafeBufferPointer<UInt8>, domain: ClassifierRules.Domain?, into out: RecordBuffer) {
        switch format {
        case .ndjson:
            out.append(#"{"url": "#)
            out.appendJSONString(url)
            out.append(#", "domain": "#)
            if let domain { out.append(domain.json) } else { out.append("null") }
        case .tsv, .csv:
            format.appendField(url, to: out)
            out.append(format.delimiter)
            if let domain { format.appendField(domain.nameBytes, to: out) }
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
    public func appendError(
        url: UnsafeBufferPointer<UInt8>, domain domainIndex: Int?, message: String, extra: Extra? = nil,
        into out: RecordBuffer
    ) {
        let domain = domainIndex.map { rules.domains[$0] }
        switch format {
        case .ndjson:
            appendHead(url: url, domain: domain, into: out)
            out.append(#", "error": "#)
            var message = message
            message.withUTF8 { out.appendJSONString($0) }
            if let json = extra?.json {
                out.append(#", "fields": "#)
                out.append(json)
            }
            out.append("}\n")
        case .tsv, .csv:
            appendHead(url: url, domain: domain, into: out)
            out.append(format.delimiter)
            out.append(format.delimiter)
            format.appendField(Array(message.utf8), to: out)
            appendExtraColumns(extra, to: out)
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// An error record for an input line that is not a URL at all (invalid UTF-8, too long).
    public func appendUnreadable(text: String, message: String, extra: Extra? = nil, into out: RecordBuffer) {
        statistics.records += 1
        statistics.errors += 1
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { appendError(url: UnsafeBufferPointer($0), domain: nil, message: message, extra: extra, into: out) }
    }
}
