import AASAKit
import Foundation

/// The end-of-run summary of `classify`: for a person on stderr, and as JSON for `--stats`.
struct Summary {
    let rules: ClassifierRules
    let statistics: ClassifyStatistics
    let elapsed: Double
    let jobs: Int

    var rate: Double { elapsed > 0 ? Double(statistics.records) / elapsed : 0 }

    var text: String {
        var lines: [String] = []
        lines.append(
            String(
                format: "classified %ld records in %.2f s (%.0f records/s, %ld jobs): %ld errors, %ld without a document",
                statistics.records, elapsed, rate, jobs, statistics.errors, statistics.withoutDomain))
        for (index, domain) in rules.domains.enumerated() where statistics.domainRecords[index] > 0 {
            let apps = domain.appIDs.enumerated().compactMap { app, name -> String? in
                let count = statistics.appMatches[index][app]
                return count > 0 ? "\(name) \(count)" : nil
            }
            let detail = apps.isEmpty ? "" : " (" + apps.joined(separator: ", ") + ")"
            lines.append(
                "  \(domain.name): \(statistics.domainRecords[index]) records, \(statistics.domainMatched[index]) opened an app\(detail)")
        }
        return lines.joined(separator: "\n")
    }

    var json: String {
        var domains: [JSONValue] = []
        for (index, domain) in rules.domains.enumerated() {
            let apps = domain.appIDs.enumerated().map { app, name -> JSONValue in
                .object(JSONObject(members: [("app", .string(name)), ("matches", .number(String(statistics.appMatches[index][app])))]))
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
                ("domains", .array(domains)),
            ]))
        return root.serialized() + "\n"
    }
}
