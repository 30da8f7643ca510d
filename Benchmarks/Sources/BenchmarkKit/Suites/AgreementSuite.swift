import AASAKit
import Foundation

/// The agreement suite: every URL of every suite decided by both engines, the lazy DFA and the
/// reference matcher; each difference is listed with the document, the URL and both records,
/// and fails the run.
///
/// URLs another suite already checked in this run are not decided twice. The reference is slow
/// by design (hundreds of microseconds to hundreds of milliseconds per URL on large synthetic
/// documents), so each workload gets a time budget on every core; where the budget ends before
/// the URLs do, the table says how many were covered.
enum AgreementSuite {
    struct Coverage {
        var name: String
        var urls = 0
        var checked = 0
        var earlier = 0
        var disagreements = 0
        var seconds = 0.0
    }

    /// The URLs of each workload checked whatever the budget: the reference takes up to a second
    /// a URL on the large generated documents, so the budget alone, on a loaded machine, could
    /// leave a workload with hardly any URL checked.
    static let minimumURLs = 16

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "agreement")
        let profile = context.profile
        let threads = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))
        var rows: [Coverage] = []

        func check(
            _ row: inout Coverage, label: String, document: String, compiled: CompiledDocument, reference: ReferenceMatcher, urls: [String],
            deadline: UInt64
        ) {
            let earlier = min(urls.count, context.checkedPrefix[label] ?? 0)
            let started = Clock.now()
            let (checked, found) = Agreement.checkParallel(
                suite: "agreement", document: document, compiled: compiled, reference: reference, urls: urls, start: earlier,
                deadline: deadline, minimum: Self.minimumURLs, threads: threads)
            row.urls += urls.count
            row.earlier += earlier
            row.checked += earlier + checked
            row.disagreements += found.count
            row.seconds += Double(Clock.now() - started) / 1e9
            report.disagreements += found
            context.checkedPrefix[label] = earlier + checked
        }
        func deadline() -> UInt64 { Clock.now() + UInt64(profile.agreementBudgetNanoseconds) }

        // Synthetic workloads of the match suite.
        for (kind, rules) in MatchSuite.workloads(profile) {
            // A synthetic workload that no longer compiles is a failure of the run, not a row
            // left out: the agreement would otherwise pass with nothing checked.
            let workload = try context.store.synthetic(kind, rules: rules)
            var row = Coverage(name: "synthetic \(workload.label) (\(Format.count(workload.document.ruleCount)) \(kind.ruleNoun))")
            check(
                &row, label: workload.label, document: "synthetic \(workload.label) (seed \(context.options.seed))",
                compiled: workload.compiled, reference: workload.reference, urls: workload.urls.urls, deadline: deadline())
            rows.append(row)
        }

        // Apple's example and the bundled scenarios.
        do {
            let document = try AASADocument(bytes: Array(AppleExample.json.utf8))
            let compiled = try CompiledDocument(document: document, domain: AppleExample.domain)
            var row = Coverage(name: "Apple's example, generated URLs")
            check(
                &row, label: "apple-example", document: "Apple's example", compiled: compiled,
                reference: ReferenceMatcher(document: document, domain: AppleExample.domain),
                urls: AppleExample.urls(count: profile.quick ? 1_000 : 10_000, seed: context.options.seed), deadline: deadline())
            rows.append(row)
        }
        for scenario in context.store.bundledScenarios() {
            let document = try AASADocument(bytes: scenario.document)
            let compiled = try CompiledDocument(document: document, domain: scenario.domain)
            var row = Coverage(name: "corpus/\(scenario.domain) (urls.txt)")
            check(
                &row, label: "corpus/\(scenario.domain)", document: "corpus/\(scenario.domain)", compiled: compiled,
                reference: ReferenceMatcher(document: document, domain: scenario.domain), urls: scenario.urls, deadline: deadline())
            rows.append(row)
        }

        // The real corpus and the multi-domain scenario.
        if let missing = context.store.sharedCorpusMissing(["aasa/real", "urls/combined_http_dedup.txt"]) {
            context.say("_real corpus skipped: \(missing)_\n")
            report.partsSkipped = (report.partsSkipped ?? []) + ["real corpus: \(missing)"]
        } else {
            var notes: [String] = []
            let loaded = RealSuite.load(try context.store.realDocuments(), domain: { _ in RealSuite.domain }, notes: &notes)
            let urls = try context.store.realURLs(rewrittenTo: RealSuite.domain, count: profile.realURLs)
            var row = Coverage(name: "\(loaded.count) real documents × \(Format.count(urls.count)) real URLs")
            let end = deadline()
            for document in loaded {
                check(
                    &row, label: "real/\(document.name)", document: "real/\(document.name) as \(RealSuite.domain)",
                    compiled: document.compiled, reference: ReferenceMatcher(document: document.parsed, domain: RealSuite.domain),
                    urls: urls, deadline: end)
            }
            rows.append(row)

            if context.store.sharedCorpusMissing(["domains/MAPPING.tsv"]) == nil {
                var byHost: [String: [String]] = [:]
                var documents: [String: RealSuite.Loaded] = [:]
                for (domain, document) in try context.store.domainMapping() {
                    let host = domain.lowercased()
                    if documents[host] == nil, let first = RealSuite.load([document], domain: { _ in domain }, notes: &notes).first {
                        documents[host] = first
                    }
                }
                for url in try context.store.realURLs().prefix(profile.multiDomainURLs) {
                    if let host = HostRouter.host(of: url), documents[host] != nil { byHost[host, default: []].append(url) }
                }
                var multi = Coverage(name: "multi-domain: \(documents.count) domains, routed real URLs")
                let end = deadline()
                for (host, hostURLs) in byHost.sorted(by: { $0.key < $1.key }) {
                    guard let document = documents[host] else { continue }
                    check(
                        &multi, label: "multi/\(host)", document: "domains/\(host).json", compiled: document.compiled,
                        reference: ReferenceMatcher(document: document.parsed, domain: host), urls: hostURLs, deadline: end)
                }
                rows.append(multi)
            }
        }

        var table = Table(
            title: "agreement: lazy DFA vs reference on the URLs of every suite (the first ones within a budget of \(Format.milliseconds(profile.agreementBudgetNanoseconds)) per workload, and at least \(Self.minimumURLs) whatever the time), decision per app (kind, entry, rule), \(threads) threads",
            columns: ["workload", "disagreements", "URLs", "decided by both", "coverage", "of which in earlier suites", "time"])
        var total = Coverage(name: "**total**")
        for row in rows {
            table.rows.append([
                row.name, row.disagreements == 0 ? "0" : "**\(row.disagreements)**", Format.count(row.urls), Format.count(row.checked),
                Format.percent(Double(row.checked) / Double(max(1, row.urls))), Format.count(row.earlier), String(format: "%.1f s", row.seconds),
            ])
            total.urls += row.urls
            total.checked += row.checked
            total.earlier += row.earlier
            total.disagreements += row.disagreements
            total.seconds += row.seconds
        }
        table.rows.append([
            total.name, "**\(total.disagreements)**", Format.count(total.urls), Format.count(total.checked),
            Format.percent(Double(total.checked) / Double(max(1, total.urls))), Format.count(total.earlier), String(format: "%.1f s", total.seconds),
        ])
        var note = "Coverage below 100% means the reference ran out of budget (it costs microseconds per rule and app; on the large synthetic documents a single URL takes tens to hundreds of milliseconds): the URLs checked are always the first ones of the stream, which is shuffled. "
        note += "Disagreements are listed below the suite with both records."
        table.notes.append(note)
        context.emit(table, into: &report)
        report.timings["urls_checked_total"] = Double(total.checked)
        report.counters["disagreements"] = Double(total.disagreements)
        return report
    }
}
