@testable import AASAKit
import XCTest

/// A compiled artifact's app IDs are held to `document-bytes` (their JSON text), as the document
/// naming them would have been: a crafted artifact naming tens of millions of empty IDs in a few
/// megabytes crashed the loader, since every record of the domain names every app.
final class ArtifactAppIDLimitTests: XCTestCase {
    func artifact(apps: Int) throws -> String {
        let ids = (0..<apps).map { #""T\#($0).example.app.with.a.longish.name""# }.joined(separator: ", ")
        let json = #"{"applinks": {"details": [{"appIDs": [\#(ids)], "components": [{"/": "/items/*"}]}]}}"#
        let domains = try ["a.example", "b.example"].map { name in
            let compiled = try CompiledDocument(document: try AASADocument(bytes: Array(json.utf8)), domain: name)
            return CompiledArtifact.Domain(name: name, file: "rules/\(name).json", state: .compiled(compiled))
        }
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(artifact: domains), budget: .init(), counts: &counts)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("app-limit-\(UUID().uuidString).aasac")
        try Data(bytes).write(to: file)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        return file.path
    }

    func test_artifactDomain_namingAppsPastDocumentBytesIsRefusedByThatLimit() throws {
        // 40 IDs of about 42 bytes: 1 800 bytes of JSON text.
        let path = try artifact(apps: 40)
        var small = Configuration()
        small.document.maxBytes = 1_000
        let refused = try CompiledArtifact.open(path: path, configuration: small)
        // Both domains: the first decodes the shared body, the second shares it.
        for index in 0..<2 {
            guard case .failure(.overLimit(.documentBytes, let found, let maximum)) = refused.document(index) else {
                return XCTFail("domain \(index): \(refused.document(index))")
            }
            XCTAssertGreaterThan(found, 1_000)
            XCTAssertEqual(maximum, 1_000)
            if case .failure(let error) = refused.document(index) { XCTAssertTrue(error.description.contains("document-bytes"), error.description) }
        }
        let accepted = try CompiledArtifact.open(path: path)
        for index in 0..<2 {
            XCTAssertEqual(try accepted.document(index).get().appIDs.count, 40)
        }
    }

    func test_artifactDomain_refusedForItsAppIDsGetsErrorRecords() throws {
        let path = try artifact(apps: 40)
        var small = Configuration()
        small.document.maxBytes = 1_000
        let rules = ClassifierRules(artifact: try CompiledArtifact.open(path: path, configuration: small))
        let classifier = Classifier(rules: rules, format: .ndjson)
        let out = RecordBuffer()
        Array("https://a.example/items/1".utf8).withUnsafeBufferPointer { classifier.classify($0, into: out) }
        let record = String(decoding: out.bytes, as: UTF8.self)
        XCTAssertTrue(record.contains(#""error": "the document could not be loaded"#) && record.contains("document-bytes"), record)
    }
}
