import AASAKit

/// The real suite: the real documents of `corpus/aasa/real/` on real URLs, and the
/// multi-domain routing scenario of `corpus/domains/`, lazy DFA against the reference.
///
/// Single domain: every document is compiled for `example.com` and decides the same sample of
/// real URLs (evenly spaced over `corpus/urls/combined_http_dedup.txt`) with the host rewritten
/// to `example.com`. Multi-domain: each document serves its own host (`MAPPING.tsv`), the real
/// URLs keep their hosts and are routed in-process by a dictionary from lowercased host to a
/// per-domain matcher; URLs of other hosts cost the lookup and nothing else.
enum RealSuite {
    static let domain = "example.com"

    struct Loaded {
        var name: String
        var parsed: AASADocument
        var compiled: CompiledDocument
    }

    /// Half the harness's repetitions, odd and at least 3: with an even count the nearest-rank
    /// median (`Statistics.quantile`) is the lower middle sample, with 2 the minimum.
    static func oddRepetitions(_ repetitions: Int) -> Int {
        max(3, repetitions / 2) | 1
    }

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "real")
        if let missing = context.store.sharedCorpusMissing(["aasa/real", "urls/combined_http_dedup.txt"]) {
            report.skipped = "skipped: \(missing)"
            return report
        }
        try singleDomain(context, &report)
        if let missing = context.store.sharedCorpusMissing(["domains/MAPPING.tsv"]) {
            context.say("_multi-domain scenario skipped: \(missing)_\n")
            report.partsSkipped = (report.partsSkipped ?? []) + ["multi-domain scenario: \(missing)"]
        } else {
            try multiDomain(context, &report)
        }
        return report
    }

    /// Parses and compiles every real document for `domain`; lists the ones that fail.
    static func load(_ documents: [NamedDocument], domain: (NamedDocument) -> String, notes: inout [String]) -> [Loaded] {
        var loaded: [Loaded] = []
        for document in documents {
            do {
                let parsed = try AASADocument(bytes: document.bytes)
                let compiled = try CompiledDocument(document: parsed, domain: domain(document))
                loaded.append(Loaded(name: document.name, parsed: parsed, compiled: compiled))
            } catch {
                notes.append("`\(document.name)` not loaded: \(error)")
            }
        }
        return loaded
    }

    static func singleDomain(_ context: RunContext, _ report: inout SuiteReport) throws {
        var notes: [String] = []
        let documents = load(try context.store.realDocuments(), domain: { _ in domain }, notes: &notes)
        let urls = URLBatch(try context.store.realURLs(rewrittenTo: domain, count: context.profile.realURLs))
        context.say("_\(documents.count) real documents × \(Format.count(urls.count)) real URLs_")

        // Counters: fresh matchers, one pass each.
        var states = 0
        var clears = 0
        var fallbacks = 0
        var loopBytes: UInt64? = 0
        for document in documents {
            let matcher = DFAMatcher(document.compiled)
            blackHole(EngineLoops.dfaBytes(matcher, urls))
            let statistics = matcher.cacheStatistics
            states += statistics.statesBuilt
            clears += statistics.clears
            fallbacks += statistics.fallbacks
            let (_, bytes) = context.allocator.allocated { blackHole(EngineLoops.dfaBytes(matcher, urls)) }
            loopBytes = bytes.flatMap { bytes in loopBytes.map { $0 + bytes } }
        }

        let matchers = documents.map { DFAMatcher($0.compiled) }
        let references = documents.map { ReferenceMatcher(document: $0.parsed, domain: domain) }
        let decisions = documents.count * urls.count
        var harness = context.harness
        harness.repetitions = Self.oddRepetitions(harness.repetitions)
        let timings = harness.compare([
            Contender("dfa", items: decisions) { matchers.reduce(0) { $0 &+ EngineLoops.dfaBytes($1, urls) } },
            Contender("reference", items: decisions, slow: true) { references.reduce(0) { $0 &+ EngineLoops.reference($1, urls) } },
        ])
        let dfa = timings["dfa"] ?? .missing
        let reference = timings["reference"] ?? .missing

        // Per document: one warm pass each, for the spread of speed-ups.
        var perDocument: [Double] = []
        var matchedURLs = 0
        for (index, matcher) in matchers.enumerated() {
            let (a, fast) = Clock.measure { EngineLoops.dfaBytes(matcher, urls) }
            let (b, slow) = Clock.measure { EngineLoops.reference(references[index], urls) }
            blackHole(a &+ b)
            perDocument.append(Double(slow) / Double(max(1, fast)))
            urls.forEachBytes { _, bytes in
                // Opens: some app's deciding rule matches rather than excludes.
                if (try? matcher.decide(bytes: bytes)) != nil,
                    matcher.decidingRule.contains(where: { $0 >= 0 && !matcher.compiled.rules[Int($0)].exclude })
                {
                    matchedURLs += 1
                }
            }
        }

        for (index, document) in documents.enumerated() {
            context.checkAgreement(
                suite: "real", label: "real/\(document.name)", document: "real/\(document.name) as \(domain)",
                dfa: DFAMatcher(document.compiled), timed: matchers[index], reference: references[index], urls: urls.urls, into: &report)
        }

        var table = Table(
            title: "lazy DFA vs reference, \(documents.count) real documents (corpus/aasa/real) × \(Format.count(urls.count)) real URLs (host rewritten to \(domain)), 1 thread",
            columns: ["engine", "lazy DFA speed-up", "ns/decision median", "p90", "decisions/s", "decisions"])
        table.rows.append(["lazy DFA, `decide(bytes:)`", "1×", Format.nanoseconds(dfa.median), Format.nanoseconds(dfa.p90), Format.rate(dfa.itemsPerSecond), Format.count(decisions)])
        table.rows.append([
            "reference matcher", "**" + Format.ratio(reference.median / dfa.median) + "**", Format.nanoseconds(reference.median),
            Format.nanoseconds(reference.p90), Format.rate(reference.itemsPerSecond), Format.count(decisions),
        ])
        var note = "A decision is one URL against one document (every app of it). "
        note += "Per document, the speed-up ranges from \(Format.ratio(Statistics.quantile(perDocument, 0))) (min) through \(Format.ratio(Statistics.quantile(perDocument, 0.5))) (median) to \(Format.ratio(Statistics.quantile(perDocument, 1))) (max), one warm pass each. "
        note += "\(Format.count(matchedURLs)) (URL, document) pairs open an app. "
        note += "DFA: \(Format.count(states)) states built in one pass over all documents, \(clears) cache clears, \(fallbacks) NFA fallbacks; \(loopBytes.map { String(format: "%.1f", Double($0) / Double(max(1, decisions))) } ?? "n/a") bytes allocated per decision in a warm loop."
        table.notes.append(note)
        table.notes += notes
        context.emit(table, into: &report)

        report.counters["single.documents"] = Double(documents.count)
        report.counters["single.urls"] = Double(urls.count)
        report.counters["single.nfa_states"] = Double(documents.reduce(0) { $0 + $1.compiled.nfaStateCount })
        report.counters["single.automaton_bytes"] = Double(documents.reduce(0) { $0 + $1.compiled.memoryUsage })
        report.counters["single.dfa_states_built"] = Double(states)
        report.counters["single.dfa_cache_clears"] = Double(clears)
        report.counters["single.dfa_fallbacks"] = Double(fallbacks)
        if let loopBytes { report.counters["single.loop_bytes_allocated"] = Double(loopBytes) }
        report.ratios["single.speedup_vs_reference"] = TrackedRatio(
            value: reference.median / dfa.median, higherIsBetter: true, meaning: "reference ÷ lazy DFA per decision, real documents and URLs")
        report.timings["single.dfa_ns_per_decision"] = dfa.median
        report.timings["single.reference_ns_per_decision"] = reference.median
    }

    static func multiDomain(_ context: RunContext, _ report: inout SuiteReport) throws {
        var notes: [String] = []
        let mapping = try context.store.domainMapping()
        var documents: [(domain: String, loaded: Loaded)] = []
        for (domain, document) in mapping {
            let loaded = load([document], domain: { _ in domain }, notes: &notes)
            if let first = loaded.first { documents.append((domain.lowercased(), first)) }
        }
        let allURLs = try context.store.realURLs()
        let urls = URLBatch(Array(allURLs.prefix(context.profile.multiDomainURLs)))
        let router = HostRouter(documents.map { ($0.domain, $0.loaded) })
        context.say("_multi-domain: \(documents.count) domains, \(Format.count(urls.count)) real URLs_")

        // Deterministic counters on a fresh router: one pass.
        let counting = HostRouter(documents.map { ($0.domain, $0.loaded) })
        let routed = counting.routeDFA(urls)
        let statistics = counting.matchers.values.reduce((0, 0, 0)) {
            let s = $1.cacheStatistics
            return ($0.0 + s.statesBuilt, $0.1 + s.clears, $0.2 + s.fallbacks)
        }
        let (_, loopBytes) = context.allocator.allocated { blackHole(counting.routeDFA(urls).checksum) }

        var harness = context.harness
        harness.repetitions = Self.oddRepetitions(harness.repetitions)
        let timings = harness.compare([
            Contender("dfa", items: urls.count) { router.routeDFA(urls).checksum },
            Contender("reference", items: urls.count, slow: true) { router.routeReference(urls) },
        ])
        let dfa = timings["dfa"] ?? .missing
        let reference = timings["reference"] ?? .missing

        // Agreement on every routed URL, per domain.
        var byHost: [String: [String]] = [:]
        for url in urls.urls {
            if let host = HostRouter.host(of: url), router.matchers[host] != nil { byHost[host, default: []].append(url) }
        }
        for (host, hostURLs) in byHost.sorted(by: { $0.key < $1.key }) {
            guard let timed = router.matchers[host], let oracle = router.references[host] else { continue }
            context.checkAgreement(
                suite: "real", label: "multi/\(host)", document: "domains/\(host).json", dfa: DFAMatcher(timed.compiled), timed: timed,
                reference: oracle, urls: hostURLs, into: &report)
        }

        var table = Table(
            title: "multi-domain routing: \(documents.count) domains (corpus/domains), \(Format.count(urls.count)) real URLs routed by host to a per-domain matcher, lazy DFA vs reference, 1 thread",
            columns: ["engine", "lazy DFA speed-up", "ns/URL median", "p90", "URLs/s", "URLs (routed)"])
        table.rows.append([
            "host dictionary + lazy DFA", "1×", Format.nanoseconds(dfa.median), Format.nanoseconds(dfa.p90), Format.rate(dfa.itemsPerSecond),
            "\(Format.count(urls.count)) (\(Format.count(routed.routed)))",
        ])
        table.rows.append([
            "host dictionary + reference", "**" + Format.ratio(reference.median / dfa.median) + "**", Format.nanoseconds(reference.median),
            Format.nanoseconds(reference.p90), Format.rate(reference.itemsPerSecond), "\(Format.count(urls.count)) (\(Format.count(routed.routed)))",
        ])
        var note = "Per URL: split, ASCII-lowercase the host, look it up, decide every app of that domain's document. "
        note += "\(Format.count(routed.routed)) URLs reach a document, \(Format.count(routed.opened)) open an app, \(Format.count(routed.unsplittable)) cannot be split. "
        note += "DFA: \(Format.count(statistics.0)) states built in one pass, \(statistics.1) cache clears, \(statistics.2) NFA fallbacks; \(loopBytes.map { String(format: "%.1f", Double($0) / Double(max(1, urls.count))) } ?? "n/a") bytes allocated per URL in a warm loop (host keys are small strings)."
        table.notes.append(note)
        table.notes += notes
        context.emit(table, into: &report)

        report.counters["multi.domains"] = Double(documents.count)
        report.counters["multi.routed_urls"] = Double(routed.routed)
        report.counters["multi.dfa_states_built"] = Double(statistics.0)
        report.counters["multi.dfa_cache_clears"] = Double(statistics.1)
        if let loopBytes { report.counters["multi.loop_bytes_allocated"] = Double(loopBytes) }
        report.ratios["multi.speedup_vs_reference"] = TrackedRatio(
            value: reference.median / dfa.median, higherIsBetter: true, meaning: "reference ÷ lazy DFA per routed real URL")
        report.timings["multi.dfa_ns_per_url"] = dfa.median
        report.timings["multi.reference_ns_per_url"] = reference.median
    }
}

/// Routes URLs by host to a per-domain engine: a dictionary from the ASCII-lowercased host to
/// a `DFAMatcher` (and, for comparison, to a `ReferenceMatcher`).
final class HostRouter {
    var matchers: [String: DFAMatcher] = [:]
    var references: [String: ReferenceMatcher] = [:]

    init(_ documents: [(domain: String, loaded: RealSuite.Loaded)]) {
        for (domain, loaded) in documents where matchers[domain] == nil {
            matchers[domain] = DFAMatcher(loaded.compiled)
            references[domain] = ReferenceMatcher(document: loaded.parsed, domain: domain)
        }
    }

    static func host(of url: String) -> String? {
        var url = url
        return url.withUTF8 { bytes in
            guard let parts = try? URLSplitter.split(bytes) else { return nil }
            return lowercasedHost(UnsafeBufferPointer(rebasing: bytes[parts.host]))
        }
    }

    @inline(__always)
    static func lowercasedHost(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for index in 0..<bytes.count {
                let byte = bytes[index]
                buffer[index] = (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    /// Routes and decides every URL with the lazy DFA.
    func routeDFA(_ batch: URLBatch) -> (checksum: Int, routed: Int, opened: Int, unsplittable: Int) {
        var checksum = 0
        var routed = 0
        var opened = 0
        var unsplittable = 0
        batch.forEachBytes { _, bytes in
            guard let parts = try? URLSplitter.split(bytes) else {
                unsplittable += 1
                return
            }
            let host = Self.lowercasedHost(UnsafeBufferPointer(rebasing: bytes[parts.host]))
            guard let matcher = matchers[host] else { return }
            routed += 1
            do {
                try matcher.decide(bytes: bytes)
                var open = false
                for rule in matcher.decidingRule {
                    checksum &+= Int(rule)
                    if rule >= 0, !matcher.compiled.rules[Int(rule)].exclude { open = true }
                }
                if open { opened += 1 }
            } catch {
                checksum &+= 7
            }
        }
        return (checksum, routed, opened, unsplittable)
    }

    /// Routes and decides every URL with the reference matcher.
    func routeReference(_ batch: URLBatch) -> Int {
        var checksum = 0
        for url in batch.urls {
            guard let host = Self.host(of: url), let reference = references[host] else { continue }
            if let decision = try? reference.decide(url, app: nil) {
                for app in decision.decisions { checksum &+= app.rule ?? -1 }
            }
        }
        return checksum
    }
}
