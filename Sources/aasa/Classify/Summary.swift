import AASAKit
import Foundation

/// The end-of-run summary of `classify`: for a person on stderr, and as JSON for `--stats` and
/// `--summary json`.
struct Summary {
    let rules: ClassifierRules
    let statistics: ClassifyStatistics
    let elapsed: Double
    let jobs: Int
    /// False when the run stopped before the end of the input (a closed or failed output, a
    /// failed read): the counts are then those of the records classified until it stopped.
    var complete = true

    var rate: Double { elapsed > 0 ? Double(statistics.records) / elapsed : 0 }

    /// For a person on stderr. Domain names (file names) and app IDs (a third party's document)
    /// are shown escaped, on one line each, so that a document cannot paint the terminal or add
    /// a summary line of its own.
    var text: String {
        var lines: [String] = []
        lines.append(
            "classified \(counted(statistics.records, "record")) in \(String(format: "%.2f", elapsed)) s"
                + " (\(String(format: "%.0f", rate)) records/s, \(counted(jobs, "job"))): \(counted(statistics.errors, "error")),"
                + " \(statistics.withoutDomain) without a document")
        // The busiest domains first; the full table is in --stats.
        let busiest = rules.domains.indices.filter { statistics.domainRecords[$0] > 0 }
            .sorted { (statistics.domainRecords[$0], rules.domains[$1].name) > (statistics.domainRecords[$1], rules.domains[$0].name) }
        for index in busiest.prefix(Self.domainsShown) {
            let domain = rules.domains[index]
            let apps = (domain.appIDsIfLoaded ?? []).enumerated().compactMap { app, name -> String? in
                let count = app < statistics.appMatches[index].count ? statistics.appMatches[index][app] : 0
                return count > 0 ? "\(VisibleText.excerpt(name, limit: 200)) \(count)" : nil
            }
            let detail = apps.isEmpty ? "" : " (" + apps.joined(separator: ", ") + ")"
            lines.append(
                "  \(VisibleText.excerpt(domain.name, limit: 200)): \(counted(statistics.domainRecords[index], "record")), \(statistics.domainMatched[index]) opened an app\(detail)")
        }
        if busiest.count > Self.domainsShown {
            lines.append("  … and \(counted(busiest.count - Self.domainsShown, "more domain")) (all of them in --stats)")
        }
        let releases = rules.documentReleases
        if releases > 0 {
            lines.append(
                "  the loaded documents passed loaded-bytes, so all were let go \(counted(releases, "time")) and loaded again as needed"
                    + " (\(Configuration.Limit.loadedBytes.hint))")
        }
        let failures = rules.failuresSoFar
        if !failures.isEmpty {
            let names = failures.prefix(Self.domainsShown).map { VisibleText.excerpt($0.domain, limit: 200) }.joined(separator: ", ")
            let more = failures.count > Self.domainsShown ? ", …" : ""
            lines.append("  \(counted(failures.count, "document")) could not be used (\(failures.count == 1 ? "its" : "their") URLs got error records): \(names)\(more)")
        }
        return lines.joined(separator: "\n")
    }

    static let domainsShown = 12

    var json: String {
        var domains: [JSONValue] = []
        // The domains URLs reached, as the text lists them: a rules directory's others were
        // never loaded (their apps unknown), and a fleet's would fill the file with zeros.
        for (index, domain) in rules.domains.enumerated() where statistics.domainRecords[index] > 0 {
            let apps = (domain.appIDsIfLoaded ?? []).enumerated().map { app, name -> JSONValue in
                let count = app < statistics.appMatches[index].count ? statistics.appMatches[index][app] : 0
                return .object(JSONObject(members: [("app", .string(name)), ("matches", .number(String(count)))]))
            }
            domains.append(
                .object(
                    JSONObject(members: [
                        ("domain", .string(domain.name)), ("records", .number(String(statistics.domainRecords[index]))),
                        ("opened_app", .number(String(statistics.domainMatched[index]))), ("apps", .array(apps)),
                    ])))
        }
        let root = JSONValue.object(
            JSONObject(members: [
                ("records", .number(String(statistics.records))), ("errors", .number(String(statistics.errors))),
                ("without_domain", .number(String(statistics.withoutDomain))),
                ("seconds", .number(String(format: "%.6f", elapsed))),
                ("records_per_second", .number(String(format: "%.0f", rate))), ("jobs", .number(String(jobs))),
                ("complete", .bool(complete)), ("cache_releases", .number(String(statistics.cacheReleases))),
                ("document_releases", .number(String(rules.documentReleases))),
                ("domains", .array(domains)),
                (
                    "unusable_documents",
                    .array(
                        rules.failuresSoFar.map {
                            .object(JSONObject(members: [("domain", .string($0.domain)), ("reason", .string($0.reason))]))
                        })
                ),
            ]))
        return root.serialized() + "\n"
    }
}
