import Foundation
import AASAKit
import XCTest
import _AASATestSupport

/// The analyses against the reference matcher on generated documents (every SPEC feature):
/// every URL that cover or diff prints must have the claimed decisions, and every proof ("no
/// URL reaches this rule", "equivalent") must survive the generator's targeted URLs.
final class AnalysisDifferentialTests: XCTestCase {
    private let domain = "example.com"
    /// The former default `analysis-work` (10 M, a third of today's): these tests check that
    /// what the analyses claim is true, which needs no larger walk, and the larger default made
    /// them up to three times as long in the test build.
    private let configuration: Configuration = {
        var configuration = Configuration()
        configuration.automata.maxAnalysisWork = 10_000_000
        return configuration
    }()

    func test_coverURLsAreDecidedByTheirRuleAndUnreachableProofsHold() throws {
        let tally = Self.seedsTwoAtATime(1...400) { seed in try self.checkCover(seed: seed) }
        XCTAssertGreaterThan(tally.first, 1_000)
        XCTAssertGreaterThan(tally.second, 20)
        XCTAssertTrue(tally.failures.isEmpty, tally.failures.prefix(10).joined(separator: "\n"))
    }

    func test_diffWitnessesReallyDifferAndEquivalenceProofsHold() throws {
        let tally = Self.seedsTwoAtATime(1...300) { seed in try self.checkDiff(seed: seed) }
        XCTAssertGreaterThan(tally.first, 200)
        XCTAssertGreaterThan(tally.second, 10)
        XCTAssertTrue(tally.failures.isEmpty, tally.failures.prefix(10).joined(separator: "\n"))
    }

    /// Lint's claims of absence, whichever walk proved them (one text, or one per mode class
    /// when the rules' modes cannot share one): a rule said never to match or never to decide
    /// decides no URL, and a catch-all's apps are decided by it or an earlier rule on every URL.
    func test_lintClaimsOfAbsenceHold() throws {
        let tally = Self.seedsTwoAtATime(1...200) { seed in try self.checkLint(seed: seed) }
        // 379 claims, 341 of them on documents in several modes, when written.
        XCTAssertGreaterThan(tally.first, 200)
        XCTAssertGreaterThan(tally.second, 150)
        XCTAssertTrue(tally.failures.isEmpty, tally.failures.prefix(10).joined(separator: "\n"))
    }

    /// Claims checked, claims made on documents whose rules are in several modes, and
    /// failures, for one generated document.
    private func checkLint(seed: UInt64) throws -> SeedTally {
        var tally = SeedTally()
        var generator = DifferentialGenerator(seed: seed)
        let json = generator.document()
        let document = try AASADocument(json: json)
        let findings = SemanticLint.findings(document: document, domain: domain, configuration: configuration)
        // (entry, rule) of each claim, read from the finding's JSON path.
        func place(_ finding: LintFinding) -> (entry: Int, rule: Int)? {
            let text = finding.path.description
            guard let match = text.firstMatch(of: /details\[(\d+)\]\.(?:components|paths)\[(\d+)\]$/) else { return nil }
            return (Int(match.1) ?? -1, Int(match.2) ?? -1)
        }
        let silent = findings.filter { ["never-matches", "unreachable-rule"].contains($0.code) }.compactMap(place)
        let catchAll = findings.filter { $0.code == "catch-all" }.compactMap(place)
        guard !silent.isEmpty || !catchAll.isEmpty else { return tally }
        tally.first += silent.count + catchAll.count
        let resolved = EffectiveRule.resolve(document)
        if Set(resolved.map(\.mode)).count > 1 { tally.second += silent.count + catchAll.count }
        let reference = ReferenceMatcher(document: document, domain: domain)
        let appsOf = Dictionary(
            resolved.map { ("\($0.entryIndex) \($0.ruleIndex)", $0.apps.map { document.appIDs[$0] }) }, uniquingKeysWith: { a, _ in a })
        for _ in 0..<300 {
            let url = generator.url(for: json)
            guard let decisions = try? reference.decide(url, app: nil).decisions else { continue }
            for decision in decisions {
                guard let entry = decision.entry, let rule = decision.rule else { continue }
                if silent.contains(where: { $0 == (entry, rule) }) {
                    tally.failures.append("seed \(seed): \(url) is decided by entry \(entry) rule \(rule), said never to decide\n\(json.serialized())")
                }
            }
            // A catch-all matches every URL of the domain; the generator also aims at others.
            let onDomain = ["https://", "http://"].contains { url.hasPrefix($0 + domain + "/") }
            for (entry, rule) in catchAll where onDomain {
                for app in appsOf["\(entry) \(rule)"] ?? [] {
                    let decision = decisions.first { $0.app == app }
                    guard let decidedEntry = decision?.entry, let decidedRule = decision?.rule,
                        (decidedEntry, decidedRule) <= (entry, rule)
                    else {
                        tally.failures.append("seed \(seed): \(url) is not decided by the catch-all entry \(entry) rule \(rule) or before it for \(app)\n\(json.serialized())")
                        continue
                    }
                }
            }
        }
        return tally
    }

    /// URLs checked, rules proven unreachable, and failures, for one generated document.
    private func checkCover(seed: UInt64) throws -> SeedTally {
        var tally = SeedTally()
        var generator = DifferentialGenerator(seed: seed)
        let json = generator.document()
        let document = try AASADocument(json: json)
        let reference = ReferenceMatcher(document: document, domain: domain)
        let coverage = try Coverage(document: document, domain: domain, configuration: configuration)
        var unreachable = Set<String>()
        for item in coverage.items {
            let claimed = AppDecision(app: item.app, kind: item.decision, entry: item.entry, rule: item.rule)
            if let url = item.url {
                tally.first += 1
                let actual = try reference.decide(url, app: item.app).decisions.first
                if actual != claimed { tally.failures.append("seed \(seed) cover \(url): \(String(describing: actual)) != \(claimed)") }
            } else if coverage.isProof {
                unreachable.insert("\(item.app) \(item.entry) \(item.rule)")
            }
        }
        tally.second += unreachable.count
        guard !unreachable.isEmpty else { return tally }
        for _ in 0..<300 {
            let url = generator.url(for: json)
            guard let decisions = try? reference.decide(url, app: nil).decisions else { continue }
            for decision in decisions {
                if let entry = decision.entry, let rule = decision.rule, unreachable.contains("\(decision.app) \(entry) \(rule)") {
                    tally.failures.append("seed \(seed): \(url) is decided by entry \(entry) rule \(rule), proven unreachable\n\(json.serialized())")
                }
            }
        }
        return tally
    }

    /// Witnesses checked, equivalences tested, and failures, for one generated pair.
    private func checkDiff(seed: UInt64) throws -> SeedTally {
        var tally = SeedTally()
        var generator = DifferentialGenerator(seed: seed)
        let oldJSON = generator.document()
        // The new version: the same generator state drifts, so documents share some rules.
        let newJSON = seed % 3 == 0 ? oldJSON : generator.document()
        let old = try AASADocument(json: oldJSON)
        let new = try AASADocument(json: newJSON)
        let diff = try SemanticDiff(old: old, new: new, domain: domain, witnesses: 2, configuration: configuration)
        let oldReference = ReferenceMatcher(document: old, domain: domain)
        let newReference = ReferenceMatcher(document: new, domain: domain)
        func decision(_ engine: ReferenceMatcher, _ url: String, _ app: String) throws -> AppDecision? {
            try engine.decide(url, app: app).decisions.first
        }
        for change in diff.changes {
            for url in change.urls {
                tally.first += 1
                if try decision(oldReference, url, change.app) != change.old || decision(newReference, url, change.app) != change.new {
                    tally.failures.append("seed \(seed) diff \(url) for \(change.app): claimed \(change.old) -> \(change.new)")
                }
            }
        }
        if seed % 3 == 0 && diff.verdict == .different { tally.failures.append("seed \(seed): a document differs from itself") }
        guard diff.verdict == .equivalent else { return tally }
        tally.second += 1
        for _ in 0..<200 {
            let url = generator.url(for: seed % 2 == 0 ? oldJSON : newJSON)
            guard let before = try? oldReference.decide(url, app: nil), let after = try? newReference.decide(url, app: nil) else { continue }
            let kinds = { (decision: URLDecision) in Dictionary(decision.decisions.map { ($0.app, $0.kind) }, uniquingKeysWith: { a, _ in a }) }
            let apps = Set(before.decisions.map(\.app) + after.decisions.map(\.app))
            for app in apps where (kinds(before)[app] ?? .noMatch) != (kinds(after)[app] ?? .noMatch) {
                tally.failures.append("seed \(seed): proven equivalent, but \(url) differs for \(app)")
            }
        }
        return tally
    }

    struct SeedTally {
        var first = 0
        var second = 0
        var failures: [String] = []
    }

    /// Every seed checked, two at a time (each seed's documents are its own; one at a time, the
    /// two tests took 95 s of the suite on a machine with two cores), the tallies summed; a seed
    /// that throws is a failure.
    private static func seedsTwoAtATime(_ seeds: ClosedRange<UInt64>, _ check: (UInt64) throws -> SeedTally) -> SeedTally {
        let seeds = Array(seeds)
        var total = SeedTally()
        for (seed, result) in zip(seeds, TwoAtATime.map(seeds, check)) {
            let tally = (try? result.get()) ?? SeedTally(failures: ["seed \(seed): \(result)"])
            total.first += tally.first
            total.second += tally.second
            total.failures += tally.failures
        }
        return total
    }
}
