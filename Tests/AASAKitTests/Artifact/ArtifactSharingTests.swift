@testable import AASAKit
import XCTest
import _AASATestSupport

/// Domains compiled from the same rules share one body in an artifact (since format 5): each still
/// decides as its own domain with its own app IDs, and damage to a shared body fails every
/// domain using it, and only those.
final class ArtifactSharingTests: XCTestCase {
    static let shop = #"{"applinks": {"details": [{"appIDs": ["T.shop"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
    static let shopOtherApp = #"{"applinks": {"details": [{"appIDs": ["U.other"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
    static let news = #"{"applinks": {"details": [{"appIDs": ["T.news"], "components": [{"/": "/story/?*", "?": {"id": "*"}}]}]}}"#

    func domain(_ name: String, _ json: String) throws -> CompiledArtifact.Domain {
        let compiled = try CompiledDocument(document: try AASADocument(bytes: Array(json.utf8)), domain: name)
        return CompiledArtifact.Domain(name: name, file: "rules/\(name).json", state: .compiled(compiled))
    }

    func encode(_ domains: [CompiledArtifact.Domain]) -> (bytes: [UInt8], counts: CompiledArtifact.Counts) {
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(artifact: domains), budget: .init(), counts: &counts)
        return (bytes, counts)
    }

    func write(_ bytes: [UInt8]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sharing-\(UUID().uuidString).aasac")
        try Data(bytes).write(to: file)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        return file
    }

    /// The body number of each entry of `mapped`.
    func bodies(_ mapped: CompiledArtifact.Mapped) -> [Int?] {
        mapped.entries.map { entry in
            if case .compiled(let body, _) = entry.kind { return body }
            return nil
        }
    }

    func test_artifact_domainsWithTheSameDocumentShareOneBody() throws {
        let (bytes, counts) = encode([try domain("a.example", Self.shop), try domain("b.example", Self.shop)])
        XCTAssertEqual(counts.bodies, 1)
        let mapped = try CompiledArtifact.open(path: try write(bytes).path)
        XCTAssertEqual(mapped.bodyCount, 1)
        XCTAssertEqual(bodies(mapped), [0, 0])
        XCTAssertEqual(mapped.entries.map(\.file), ["rules/a.example.json", "rules/b.example.json"])
        let one = encode([try domain("a.example", Self.shop)]).bytes
        XCTAssertLessThan(bytes.count - one.count, 64, "a second domain of the same document costs its index entry alone")
        // Decoded once: both documents hold the same automata.
        let first = try XCTUnwrap(try mapped.document(0).get().path.compactMap { $0 }.first)
        let second = try XCTUnwrap(try mapped.document(1).get().path.compactMap { $0 }.first)
        XCTAssertTrue(first === second)
        for name in ["a.example", "b.example"] {
            let index = try XCTUnwrap(mapped.entries.firstIndex { $0.name == name })
            let compiled = try mapped.document(index).get()
            XCTAssertEqual(compiled.domain, name)
            let matcher = DFAMatcher(compiled)
            XCTAssertEqual(try matcher.decide("https://\(name)/items/1", app: nil).matchedApps, ["T.shop"])
            XCTAssertEqual(try matcher.decide("https://\(name)/help/1", app: nil).matchedApps, [])
        }
    }

    func test_artifact_documentsDifferingOnlyInAppIDsShareABodyAndKeepTheirOwnApps() throws {
        let (bytes, counts) = encode([try domain("a.example", Self.shop), try domain("b.example", Self.shopOtherApp)])
        XCTAssertEqual(counts.bodies, 1)
        let mapped = try CompiledArtifact.open(path: try write(bytes).path)
        XCTAssertEqual(bodies(mapped), [0, 0])
        let a = DFAMatcher(try mapped.document(0).get())
        let b = DFAMatcher(try mapped.document(1).get())
        XCTAssertEqual(try a.decide("https://a.example/items/1", app: nil).matchedApps, ["T.shop"])
        XCTAssertEqual(try b.decide("https://b.example/items/1", app: nil).matchedApps, ["U.other"])
    }

    func test_artifact_differentRulesDoNotShare() throws {
        let (bytes, counts) = encode([try domain("a.example", Self.shop), try domain("b.example", Self.news)])
        XCTAssertEqual(counts.bodies, 2)
        let mapped = try CompiledArtifact.open(path: try write(bytes).path)
        XCTAssertEqual(bodies(mapped), [0, 1])
        let b = DFAMatcher(try mapped.document(1).get())
        XCTAssertEqual(try b.decide("https://b.example/story/x?id=1", app: nil).matchedApps, ["T.news"])
        XCTAssertEqual(try b.decide("https://b.example/items/1", app: nil).matchedApps, [])
    }

    /// An automaton's stored form is worked out once per distinct NFA (`forms`): a document
    /// encoded after others that share some of its NFAs, or none, is written byte for byte the
    /// same, and its counts are its own.
    func test_body_isTheSameWhicheverNFAsWereEncodedBefore() throws {
        // The same path patterns as `shop` in another case mode, a query of its own: some NFAs
        // shared with what comes before, some not.
        let mixed = #"{"applinks": {"details": [{"appIDs": ["T.m"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}, {"/": "/Story/*", "caseSensitive": false, "?": {"id": "?*"}}]}]}}"#
        func body(_ json: String, after earlier: [String]) throws -> ([UInt8], CompiledArtifact.Counts) {
            var forms = CompiledDocument.StoredForms()
            var ignored = CompiledArtifact.Counts()
            for text in earlier {
                var writer = BinaryWriter()
                try CompiledDocument(document: try AASADocument(bytes: Array(text.utf8)), domain: "e.example")
                    .encode(into: &writer, budget: .init(), counts: &ignored, forms: &forms)
            }
            var counts = CompiledArtifact.Counts()
            var writer = BinaryWriter()
            try CompiledDocument(document: try AASADocument(bytes: Array(json.utf8)), domain: "m.example")
                .encode(into: &writer, budget: .init(), counts: &counts, forms: &forms)
            return (writer.bytes, counts)
        }
        let alone = try body(mixed, after: [])
        XCTAssertGreaterThan(alone.1.prebuilt + alone.1.lazy, 2)
        for earlier in [[Self.shop], [Self.news], [Self.shop, Self.news, Self.shopOtherApp], [mixed]] {
            let after = try body(mixed, after: earlier)
            XCTAssertEqual(after.0, alone.0, "after \(earlier)")
            XCTAssertEqual(after.1, alone.1, "after \(earlier)")
        }
    }

    /// A document's stored tables share `maxDocumentWork`: with none, every automaton is stored
    /// without a table; with a little, the first ones get theirs and the rest none; every way,
    /// the decoded domain decides as the document does. Each form's work is charged again when
    /// a later document reuses it, so a body does not depend on what was encoded before it.
    func test_storedTables_shareTheDocumentsWork() throws {
        let json = ##"{"applinks": {"details": [{"appIDs": ["T.m"], "components": [{"/": "/items/*", "?": {"id": "?*", "k": "v*"}, "#": "f*"}, {"/": "/help/*", "caseSensitive": false}]}]}}"##
        let compiled = try CompiledDocument(document: try AASADocument(bytes: Array(json.utf8)), domain: "m.example")
        func body(_ budget: LazyDFA.Prebuilt.Budget, after earlier: Int = 0) -> ([UInt8], CompiledArtifact.Counts) {
            var forms = CompiledDocument.StoredForms()
            var ignored = CompiledArtifact.Counts()
            for _ in 0..<earlier {
                var writer = BinaryWriter()
                compiled.encode(into: &writer, budget: budget, counts: &ignored, forms: &forms)
            }
            var counts = CompiledArtifact.Counts()
            var writer = BinaryWriter()
            compiled.encode(into: &writer, budget: budget, counts: &counts, forms: &forms)
            return (writer.bytes, counts)
        }
        let automata = body(.init()).1.prebuilt + body(.init()).1.lazy
        XCTAssertEqual(body(.init()).1.prebuilt, automata, "every automaton gets its table")
        XCTAssertEqual(body(.init(maxDocumentWork: 0)).1.prebuilt, 0)
        // The smallest budget that gives some automaton its table leaves the others none.
        var (none, some) = (0, LazyDFA.Prebuilt.Budget().maxDocumentWork)
        while some - none > 1 {
            let middle = (none + some) / 2
            if body(.init(maxDocumentWork: middle)).1.prebuilt > 0 { some = middle } else { none = middle }
        }
        XCTAssertLessThan(body(.init(maxDocumentWork: some)).1.prebuilt, automata)
        XCTAssertEqual(body(.init(maxDocumentWork: some), after: 2).0, body(.init(maxDocumentWork: some)).0)
        let urls = ["https://m.example/items/1?id=x&k=v1#f1", "https://m.example/items/1?k=v", "https://m.example/HELP/a", "https://m.example/other"]
        let original = DFAMatcher(compiled)
        for work in [0, some, LazyDFA.Prebuilt.Budget().maxDocumentWork] {
            var counts = CompiledArtifact.Counts()
            let rules = ClassifierRules(artifact: [CompiledArtifact.Domain(name: "m.example", file: "m", state: .compiled(compiled))])
            let bytes = CompiledArtifact.encode(rules, budget: .init(maxDocumentWork: work), counts: &counts)
            let mapped = try CompiledArtifact.open(path: try write(bytes).path)
            let decoded = DFAMatcher(try mapped.document(0).get())
            for url in urls {
                XCTAssertEqual(try decoded.decide(url, app: nil).matchedApps, try original.decide(url, app: nil).matchedApps, "\(url), work \(work)")
            }
        }
    }

    /// The first body starts right after the index; damage there fails both domains that share
    /// it, each with an error record's reason and a report, and leaves the third one usable.
    func test_mappedArtifact_damagedSharedBodyFailsEveryDomainUsingIt() throws {
        var (bytes, _) = encode([
            try domain("a.example", Self.shop), try domain("b.example", Self.news), try domain("c.example", Self.shop),
        ])
        let indexLength = (0..<8).reduce(0) { $0 | Int(bytes[16 + $1]) << (8 * $1) }
        bytes[CompiledArtifact.headerSize + indexLength] ^= 0x5A
        let mapped = try CompiledArtifact.open(path: try write(bytes).path)
        XCTAssertEqual(bodies(mapped), [0, 1, 0])
        let reported = Reported()
        let rules = ClassifierRules(artifact: mapped) { domain, _ in reported.add(domain) }
        for domain in rules.domains {
            switch (domain.name, domain.state) {
            case ("b.example", .compiled): break
            case ("a.example", .failed(let reason)), ("c.example", .failed(let reason)):
                XCTAssertTrue(reason.contains("checksum mismatch"), reason)
            default: XCTFail("\(domain.name): \(domain.state)")
            }
        }
        XCTAssertEqual(Set(reported.names), ["a.example", "c.example"])
        let classifier = Classifier(rules: rules, format: .ndjson)
        let out = RecordBuffer()
        var url = Array("https://c.example/items/1".utf8)
        url.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
        let record = String(decoding: out.bytes, as: UTF8.self)
        XCTAssertTrue(record.contains(#""error""#), record)
    }
}
