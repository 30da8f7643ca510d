@testable import AASAKit
import Foundation
import Synchronization
import XCTest
import _AASATestSupport

/// A lazily loaded fleet keeps its documents within `loaded-bytes`: past it, every document is
/// let go by everything holding it (its domain, the caches sharing it, each thread's slot and
/// matcher) and loaded again when its domain next comes. Letting go never changes a record or a
/// count, and a document that failed is reported once.
final class DocumentBudgetTests: XCTestCase {
    /// Distinct documents (no two share a compile), two domains serving the same file, two
    /// differing only in their app IDs (one shape), and one that cannot be read.
    static func files() -> [(domain: String, json: String)] {
        var files: [(domain: String, json: String)] = (0..<6).map { number in
            (
                "d\(number).example",
                #"{"applinks": {"details": [{"appIDs": ["T.app\#(number)", "U.other"], "components": [{"/": "/p\#(number)/*"}, {"/": "/help/*", "exclude": true}, {"/": "/q/*", "?": {"id": "\#(number)*"}}]}]}}"#
            )
        }
        files.append(("same1.example", files[0].json))
        files.append(("shape1.example", files[1].json.replacingOccurrences(of: "T.app1", with: "V.white")))
        files.append(("broken.example", #"{"applinks": {"details": [}"#))
        return files
    }

    static let paths = ["/p0/x", "/p1/y", "/help/p", "/q/1?id=1a", "/q/2?id=2", "/", "/p3/caf%C3%A9"]

    func rulesDirectory() throws -> String {
        let folder = try makeTemporaryFolder("document-budget")
        for file in Self.files() {
            try Data(file.json.utf8).write(to: folder.appendingPathComponent("\(file.domain).json"))
        }
        return folder.path
    }

    /// Every host met in turn, `rounds` times, with an unserved host among them.
    func stream(rounds: Int) -> [String] {
        let hosts = Self.files().map(\.domain) + ["unserved.example"]
        return (0..<rounds).flatMap { round in
            Self.paths.flatMap { path in hosts.map { "https://\($0)\(path)?r=\(round)" } }
        }
    }

    func configuration(loadedBytes: Int) -> Configuration {
        var configuration = Configuration()
        configuration.automata.maxLoadedBytes = loadedBytes
        return configuration
    }

    /// The records of `urls` through one classifier, and its counts.
    static func classify(_ rules: ClassifierRules, _ urls: [String], format: RecordFormat = .ndjson) -> (records: [String], statistics: ClassifyStatistics) {
        let classifier = Classifier(rules: rules, format: format)
        let records = urls.map { url in
            let out = RecordBuffer()
            Array(url.utf8).withUnsafeBufferPointer { classifier.classify($0, into: out) }
            return String(decoding: out.bytes, as: UTF8.self)
        }
        return (records, classifier.statistics)
    }

    func classify(_ rules: ClassifierRules, _ urls: [String], format: RecordFormat = .ndjson) -> (records: [String], statistics: ClassifyStatistics) {
        Self.classify(rules, urls, format: format)
    }

    func assertSameCounts(_ got: ClassifyStatistics, _ expected: ClassifyStatistics, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got.records, expected.records, label, file: file, line: line)
        XCTAssertEqual(got.errors, expected.errors, label, file: file, line: line)
        XCTAssertEqual(got.withoutDomain, expected.withoutDomain, label, file: file, line: line)
        XCTAssertEqual(got.domainRecords, expected.domainRecords, label, file: file, line: line)
        XCTAssertEqual(got.domainMatched, expected.domainMatched, label, file: file, line: line)
        XCTAssertEqual(got.appMatches, expected.appMatches, label, file: file, line: line)
    }

    func test_rulesDirectoryOverItsBudget_letsGoOfItsDocuments_andWritesTheSameRecordsAndCounts() throws {
        let listing = try DomainDocuments.listing(try rulesDirectory())
        let urls = stream(rounds: 3)
        for engine in [ClassifierRules.Engine.dfa, .reference] {
            let kept = ClassifierRules(listing: listing, engine: engine)
            let expected = classify(kept, urls)
            XCTAssertEqual(kept.documentReleases, 0, "\(engine): the default budget holds a small fleet")
            let failures = Mutex<[String]>([])
            // One byte: every document loaded passes it, so each domain met lets go of all.
            let bounded = ClassifierRules(listing: listing, engine: engine, configuration: configuration(loadedBytes: 1)) { domain, _ in
                failures.withLock { $0.append(domain) }
            }
            let got = classify(bounded, urls)
            XCTAssertEqual(got.records, expected.records, "\(engine)")
            assertSameCounts(got.statistics, expected.statistics, "\(engine)")
            XCTAssertGreaterThanOrEqual(bounded.documentReleases, urls.count / 2, "\(engine): loaded again and again")
            XCTAssertEqual(failures.withLock { $0 }, ["broken.example"], "\(engine): a failure is reported once, and kept")
            XCTAssertEqual(bounded.failuresSoFar.map(\.domain), ["broken.example"])
            // The summary still names each domain's apps once its document is let go.
            let index = try XCTUnwrap(bounded.domains.firstIndex { $0.name == "shape1.example" })
            XCTAssertEqual(bounded.domains[index].appIDsIfLoaded, ["V.white", "U.other"])
        }
        XCTAssertTrue(classify(ClassifierRules(listing: listing, engine: .dfa), urls).records.contains { $0.contains(#""decision": "match""#) })
    }

    /// Letting go frees the document: no domain, sharing cache or thread keeps it once the
    /// thread has met the domain that passed the budget. The budget is what `first` hold
    /// together, so that `then` passes it.
    func assertLettingGoFrees(
        _ makeRules: (Configuration) throws -> ClassifierRules, first: [String], then: String, watch: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let probe = try makeRules(.default)
        let held = first.map { name in probe.domains.first { $0.name == name }?.loaded.heldBytes ?? 0 }.reduce(0, +)
        XCTAssertGreaterThan(held, 0, file: file, line: line)
        let rules = try makeRules(configuration(loadedBytes: held))
        let classifier = Classifier(rules: rules, format: .ndjson)
        func classify(_ host: String) {
            let out = RecordBuffer()
            Array("https://\(host)/p0/x?id=1".utf8).withUnsafeBufferPointer { classifier.classify($0, into: out) }
        }
        for host in first { classify(host) }
        XCTAssertEqual(rules.documentReleases, 0, "within the budget", file: file, line: line)
        weak var loaded = rules.domains.first { $0.name == watch }?.loadedIfReady
        weak var document: CompiledDocument? = {
            guard case .compiled(let compiled) = loaded?.state else { return nil }
            return compiled
        }()
        XCTAssertNotNil(loaded, file: file, line: line)
        XCTAssertNotNil(document, file: file, line: line)
        classify(then)
        XCTAssertEqual(rules.documentReleases, 1, file: file, line: line)
        XCTAssertNil(loaded, "let go by the domain, the sharing caches and the thread", file: file, line: line)
        XCTAssertNil(document, file: file, line: line)
        XCTAssertEqual(classifier.matcherCount, 1, "the thread keeps the matcher of the document in use only", file: file, line: line)
        XCTAssertNil(
            rules.domains.first { $0.name == then }?.loadedIfReady, "the one that passed the budget is let go with the others (the thread's slot holds it)",
            file: file, line: line)
    }

    func test_rulesDirectory_documentsLetGo_areFreedByEveryHolder() throws {
        let listing = try DomainDocuments.listing(try rulesDirectory())
        // d0 and same1 share a compile (by content), d1 and shape1 one by shape.
        for watch in ["d0.example", "same1.example", "d1.example", "shape1.example"] {
            try assertLettingGoFrees(
                { ClassifierRules(listing: listing, engine: .dfa, configuration: $0) }, first: ["d0.example", "same1.example", "d1.example", "shape1.example"],
                then: "d2.example", watch: watch)
        }
    }

    func test_artifactOverItsBudget_decodesAgain_andWritesTheSameRecordsAndCounts() throws {
        let folder = try rulesDirectory()
        let documents = try DomainDocuments.directory(folder, configuration: .default)
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(documents: documents, engine: .dfa), budget: .init(), counts: &counts)
        let file = try makeTemporaryFolder("document-budget-artifact").appendingPathComponent("rules.aasac")
        try Data(bytes).write(to: file)
        let urls = stream(rounds: 3)
        for format in [RecordFormat.ndjson, .tsv] {
            let expected = classify(ClassifierRules(artifact: try CompiledArtifact.open(path: file.path)), urls, format: format)
            let failures = Mutex<[String]>([])
            let bounded = ClassifierRules(artifact: try CompiledArtifact.open(path: file.path, configuration: configuration(loadedBytes: 1))) {
                domain, _ in failures.withLock { $0.append(domain) }
            }
            let got = classify(bounded, urls, format: format)
            XCTAssertEqual(got.records, expected.records, "\(format)")
            assertSameCounts(got.statistics, expected.statistics, "\(format)")
            XCTAssertGreaterThanOrEqual(bounded.documentReleases, urls.count / 2)
            XCTAssertEqual(failures.withLock { $0 }, ["broken.example"])
        }
        // A decoded document is freed too: the artifact's own cache of bodies lets it go.
        for watch in ["d0.example", "same1.example", "shape1.example"] {
            try assertLettingGoFrees(
                { ClassifierRules(artifact: try CompiledArtifact.open(path: file.path, configuration: $0)) },
                first: ["d0.example", "same1.example", "d1.example", "shape1.example"], then: "d2.example", watch: watch)
        }
    }

    /// Several threads meeting domains at once, each letting go of all: every record is still
    /// the kept fleet's (a thread's slot keeps its document alive until its next URL).
    func test_threadsLettingGoAtOnce_writeTheSameRecords() throws {
        let listing = try DomainDocuments.listing(try rulesDirectory())
        let urls = stream(rounds: 4)
        let expected = classify(ClassifierRules(listing: listing, engine: .dfa), urls).records
        let bounded = ClassifierRules(listing: listing, engine: .dfa, configuration: configuration(loadedBytes: 1))
        let threads = 4
        let results = ParallelMap.map(threads, threads: threads) { thread in
            // Each thread its own order: rotated.
            let shift = thread * urls.count / threads
            let order = Array(urls[shift...] + urls[..<shift])
            return (shift, Self.classify(bounded, order).records)
        }
        for (shift, records) in results {
            XCTAssertEqual(Array(records[(urls.count - shift)...] + records[..<(urls.count - shift)]), expected)
        }
        XCTAssertGreaterThan(bounded.documentReleases, 0)
    }
}
