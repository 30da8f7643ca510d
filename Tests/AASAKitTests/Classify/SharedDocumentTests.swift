@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Domains serving the same document share one compile (a rules directory: the same file
/// bytes) or one decoded body (an artifact), and each worker thread keeps one matcher for those
/// automata: an interleaved stream then writes, for every domain, the records it would get alone.
final class SharedDocumentTests: XCTestCase {
    static let shop = #"{"applinks": {"details": [{"appIDs": ["T.shop"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
    static let shopOtherApp = #"{"applinks": {"details": [{"appIDs": ["U.other"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
    static let news = #"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["T.news"], "components": [{"/": "/story/?*", "?": {"id": "*"}}]}]}}"#
    static let broken = #"{"applinks": {"details": [}"#

    /// A rules directory: one `NAME.json` per domain.
    func rulesDirectory(_ files: [(domain: String, json: String)]) throws -> String {
        let folder = try makeTemporaryFolder("shared-documents")
        for file in files {
            try Data(file.json.utf8).write(to: folder.appendingPathComponent("\(file.domain).json"))
        }
        return folder.path
    }

    func compiled(_ rules: ClassifierRules, _ domain: String) throws -> CompiledDocument {
        let found = try XCTUnwrap(rules.domains.first { $0.name == domain })
        guard case .compiled(let compiled) = found.loaded.state else { throw XCTSkip("\(domain) did not compile") }
        return compiled
    }

    /// Every URL over `hosts` and `paths`, hosts interleaved.
    func stream(hosts: [String], paths: [String]) -> [String] {
        paths.flatMap { path in hosts.map { "https://\($0)\(path)" } }
    }

    /// The NDJSON record of each URL, all through one classifier (one thread's matchers).
    func records(_ rules: ClassifierRules, _ urls: [String]) -> [String] {
        let classifier = Classifier(rules: rules, format: .ndjson)
        return urls.map { url in
            let out = RecordBuffer()
            var bytes = Array(url.utf8)
            bytes.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
            return String(decoding: out.bytes, as: UTF8.self)
        }
    }

    static let paths = ["/items/1", "/help/1", "/story/x?id=1", "/STORY/y?id=2", "/story/z", "/", "/items/caf%C3%A9"]

    func test_rulesDirectory_domainsServingTheSameFileShareOneCompile() throws {
        let folder = try rulesDirectory([("a.example", Self.shop), ("b.example", Self.shop), ("c.example", Self.shopOtherApp)])
        let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: .dfa)
        let a = try compiled(rules, "a.example")
        let b = try compiled(rules, "b.example")
        let c = try compiled(rules, "c.example")
        XCTAssertTrue(a.automata === b.automata, "the same file bytes compile once")
        XCTAssertFalse(a.automata === c.automata, "other bytes compile on their own")
        XCTAssertEqual([a.domain, b.domain, c.domain], ["a.example", "b.example", "c.example"])
        XCTAssertEqual(b.appIDs, ["T.shop"])
    }

    func test_rulesDirectory_interleavedDomainsSharingAMatcher_writeTheReferenceRecords() throws {
        let files = [("a.example", Self.shop), ("b.example", Self.news), ("c.example", Self.shop), ("d.example", Self.news), ("e.example", Self.shopOtherApp)]
        let folder = try rulesDirectory(files)
        let listing = try DomainDocuments.listing(folder)
        let urls = stream(hosts: files.map(\.0) + ["A.EXAMPLE", "unserved.example"], paths: Self.paths)
        let expected = records(ClassifierRules(listing: listing, engine: .reference), urls)
        let got = records(ClassifierRules(listing: listing, engine: .dfa), urls)
        XCTAssertEqual(got, expected)
        // Each domain names itself and its own apps in its records.
        XCTAssertTrue(got.contains { $0.contains(#""domain": "c.example", "apps": ["T.shop"]"#) })
        XCTAssertTrue(got.contains { $0.contains(#""domain": "e.example", "apps": ["U.other"]"#) })
    }

    func test_rulesDirectory_aFailureIsNotShared_eachDomainNamesItsOwnFile() throws {
        let folder = try rulesDirectory([("a.example", Self.broken), ("b.example", Self.broken), ("c.example", Self.shop)])
        let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: .dfa)
        for name in ["a.example", "b.example"] {
            let reason = try XCTUnwrap(rules.domains.first { $0.name == name }?.loaded.failure)
            XCTAssertTrue(reason.contains("\(name).json"), reason)
        }
        XCTAssertNil(rules.domains.first { $0.name == "c.example" }?.loaded.failure)
    }

    func test_artifact_interleavedDomainsSharingABody_writeTheReferenceRecords() throws {
        let files = [("a.example", Self.shop), ("b.example", Self.shopOtherApp), ("c.example", Self.news), ("d.example", Self.shop)]
        let folder = try rulesDirectory(files)
        let documents = try DomainDocuments.directory(folder, configuration: .default)
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(documents: documents, engine: .dfa), budget: .init(), counts: &counts)
        XCTAssertEqual(counts.bodies, 2, "shop and its other-app copy share a body")
        let file = try makeTemporaryFolder("shared-artifact").appendingPathComponent("rules.aasac")
        try Data(bytes).write(to: file)
        let mapped = try CompiledArtifact.open(path: file.path)
        let urls = stream(hosts: files.map(\.0) + ["unserved.example"], paths: Self.paths)
        let expected = records(ClassifierRules(documents: documents, engine: .reference), urls)
        XCTAssertEqual(records(ClassifierRules(artifact: mapped), urls), expected)
        XCTAssertTrue(expected.contains { $0.contains(#""domain": "b.example", "apps": ["U.other"]"#) })
    }

    func test_oneThreadKeepsOneMatcherPerSetOfAutomata() throws {
        let folder = try rulesDirectory([("a.example", Self.shop), ("b.example", Self.shop), ("c.example", Self.news)])
        let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: .dfa)
        let classifier = Classifier(rules: rules, format: .ndjson)
        let out = RecordBuffer()
        for url in ["https://a.example/items/1", "https://b.example/items/2", "https://c.example/story/x?id=1"] {
            var bytes = Array(url.utf8)
            bytes.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
        }
        XCTAssertEqual(classifier.matcherCount, 2)
    }
}
