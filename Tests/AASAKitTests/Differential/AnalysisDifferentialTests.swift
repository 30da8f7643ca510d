import AASAKit
import XCTest
import _AASATestSupport

/// The analyses against the reference matcher on generated documents (every SPEC feature):
/// every URL that cover or diff prints must have the claimed decisions, and every proof ("no
/// URL reaches this rule", "equivalent") must survive the generator's targeted URLs.
final class AnalysisDifferentialTests: XCTestCase {
    private let domain = "example.com"

    func test_coverURLsAreDecidedByTheirRuleAndUnreachableProofsHold() throws {
        var checkedURLs = 0
        var provenUnreachable = 0
        var failures: [String] = []
        for seed in UInt64(1)...400 {
            var generator = DifferentialGenerator(seed: seed)
            let json = generator.document()
            let document = try AASADocument(json: json)
            let reference = ReferenceMatcher(document: document, domain: domain)
            let coverage = try Coverage(document: document, domain: domain)
            var unreachable = Set<String>()
            for item in coverage.items {
                let claimed = AppDecision(app: item.app, kind: item.decision, entry: item.entry, rule: item.rule)
                if let url = item.url {
                    checkedURLs += 1
                    let actual = try reference.decide(url, app: item.app).decisions.first
                    if actual != claimed { failures.append("seed \(seed) cover \(url): \(String(describing: actual)) != \(claimed)") }
                } else if coverage.isProof {
                    unreachable.insert("\(item.app) \(item.entry) \(item.rule)")
                }
            }
            provenUnreachable += unreachable.count
            guard !unreachable.isEmpty else { continue }
            for _ in 0..<300 {
                let url = generator.url(for: json)
                guard let decisions = try? reference.decide(url, app: nil).decisions else { continue }
                for decision in decisions {
                    if let entry = decision.entry, let rule = decision.rule, unreachable.contains("\(decision.app) \(entry) \(rule)") {
                        failures.append("seed \(seed): \(url) is decided by entry \(entry) rule \(rule), proven unreachable\n\(json.serialized())")
                    }
                }
            }
        }
        XCTAssertGreaterThan(checkedURLs, 1_000)
        XCTAssertGreaterThan(provenUnreachable, 20)
        XCTAssertTrue(failures.isEmpty, failures.prefix(10).joined(separator: "\n"))
    }

    func test_diffWitnessesReallyDifferAndEquivalenceProofsHold() throws {
        var witnesses = 0
        var equivalences = 0
        var failures: [String] = []
        for seed in UInt64(1)...300 {
            var generator = DifferentialGenerator(seed: seed)
            let oldJSON = generator.document()
            // The new version: the same generator state drifts, so documents share some rules.
            let newJSON = seed % 3 == 0 ? oldJSON : generator.document()
            let old = try AASADocument(json: oldJSON)
            let new = try AASADocument(json: newJSON)
            let diff = try SemanticDiff(old: old, new: new, domain: domain, witnesses: 2)
            let oldReference = ReferenceMatcher(document: old, domain: domain)
            let newReference = ReferenceMatcher(document: new, domain: domain)
            func decision(_ engine: ReferenceMatcher, _ url: String, _ app: String) throws -> AppDecision? {
                try engine.decide(url, app: app).decisions.first
            }
            for change in diff.changes {
                for url in change.urls {
                    witnesses += 1
                    if try decision(oldReference, url, change.app) != change.old || decision(newReference, url, change.app) != change.new {
                        failures.append("seed \(seed) diff \(url) for \(change.app): claimed \(change.old) -> \(change.new)")
                    }
                }
            }
            if seed % 3 == 0 && diff.verdict == .different { failures.append("seed \(seed): a document differs from itself") }
            guard diff.verdict == .equivalent else { continue }
            equivalences += 1
            for _ in 0..<200 {
                let url = generator.url(for: seed % 2 == 0 ? oldJSON : newJSON)
                guard let before = try? oldReference.decide(url, app: nil), let after = try? newReference.decide(url, app: nil) else { continue }
                let kinds = { (decision: URLDecision) in Dictionary(decision.decisions.map { ($0.app, $0.kind) }, uniquingKeysWith: { a, _ in a }) }
                let apps = Set(before.decisions.map(\.app) + after.decisions.map(\.app))
                for app in apps where (kinds(before)[app] ?? .noMatch) != (kinds(after)[app] ?? .noMatch) {
                    failures.append("seed \(seed): proven equivalent, but \(url) differs for \(app)")
                }
            }
        }
        XCTAssertGreaterThan(witnesses, 200)
        XCTAssertGreaterThan(equivalences, 10)
        XCTAssertTrue(failures.isEmpty, failures.prefix(10).joined(separator: "\n"))
    }
}
