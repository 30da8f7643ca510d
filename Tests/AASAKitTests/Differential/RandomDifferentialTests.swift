import AASAKit
import XCTest
import _AASATestSupport

/// The compiled engine against the reference on generated documents and URLs: every decision
/// of every app must be identical, entry and rule included.
final class RandomDifferentialTests: XCTestCase {
    /// 2,500 documents x 40 URLs = 100,000 comparisons on the default configuration, plus the
    /// cache-starved configurations on a slice of them.
    func test_differential_randomDocumentsAgreeWithReference() throws {
        var comparisons = 0
        var splitDocuments = 0
        var disagreements: [String] = []
        for seed in UInt64(1)...(UInt64(ProcessInfo.processInfo.environment["DIFF_SEEDS"] ?? "2500") ?? 2500) {
            var generator = DifferentialGenerator(seed: seed)
            let json = generator.document()
            guard let document = try? AASADocument(json: json) else {
                XCTFail("seed \(seed): generated document failed to decode")
                continue
            }
            let reference = ReferenceMatcher(document: document, domain: "example.com")
            var engines: [(String, any DecisionEngine)] = [("planned", try EngineConfigurations.planned(document, "example.com"))]
            // Every other document: its `literal * literal` path patterns split (SuffixSplit),
            // through the lazy cache and through compact tables (prefix groups then read from
            // the compile-time decision rows), on alternate even seeds.
            if seed % 2 == 0 {
                let configuration = seed % 4 == 0 ? EngineConfigurations.splitAll : EngineConfigurations.compactSplit
                let split = try CompiledDocument(document: document, domain: "example.com", configuration: configuration)
                if split.splitPatternCount > 0 { splitDocuments += 1 }
                engines.append((seed % 4 == 0 ? "suffix-split" : "compact-table-suffix-split", DFAMatcher(split)))
            } else {
                // The default builds small tables dense: the others run through the compact
                // form and through the lazy cache alone.
                engines.append(("compact-table", try EngineConfigurations.compactTable(document, "example.com")))
                engines.append(("lazy-dfa", try EngineConfigurations.lazyDFA(document, "example.com")))
            }
            if seed % 10 == 0 {
                engines.append(("lazy-dfa-tiny-cache", try EngineConfigurations.lazyDFATinyCache(document, "example.com")))
                engines.append(("nfa-simulation", try EngineConfigurations.nfaSimulation(document, "example.com")))
            }
            for _ in 0..<40 {
                let url = generator.url(for: json)
                let expected = Result { () throws(URLSplitError) in try reference.decide(url, app: nil) }
                for (label, engine) in engines {
                    let actual = Result { () throws(URLSplitError) in try engine.decide(url, app: nil) }
                    if label == "planned" { comparisons += 1 }
                    if expected != actual, disagreements.count < 20 {
                        disagreements.append(
                            "seed \(seed) [\(label)] \(url)\n  document: \(json.serialized())\n  reference: \(expected)\n  \(label): \(actual)")
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(comparisons, 100_000)
        // The split must have been exercised, not merely configured.
        XCTAssertGreaterThan(splitDocuments, 100, "documents with split path patterns")
        XCTAssertTrue(disagreements.isEmpty, "\(disagreements.count) disagreements:\n" + disagreements.joined(separator: "\n"))
    }
}

extension Result: @retroactive Equatable where Success == URLDecision, Failure == URLSplitError {}
