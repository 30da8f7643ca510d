import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `Classifier.classification(ofWholeLine:limits:)`, the values libaasa hands out, says what the
/// record `classify(wholeLine:limits:into:)` writes for the same line, on both engines.
final class ClassificationTests: XCTestCase {
    func test_valuesAreTheRecordsFields_onBothEngines() throws {
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus").path
        let documents = try DomainDocuments.directory(corpus, configuration: .default)
        var lines: [[UInt8]] = []
        for domain in documents.sources.map(\.domain) {
            let text = try String(contentsOfFile: "\(corpus)/\(domain)/urls.txt", encoding: .utf8)
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        }
        // Lines that are not URLs, and a URL over a lowered url-bytes limit.
        lines += [[0xFF], [], Array(" \t\r".utf8), Array(#"{"url": 1}"#.utf8), Array("https://museum.example/\(String(repeating: "a", count: 300))".utf8)]
        var limits = Configuration.default.input
        limits.maxURLBytes = 200
        for engine in [ClassifierRules.Engine.dfa, .reference] {
            let classifier = Classifier(rules: ClassifierRules(documents: documents, engine: engine), format: .ndjson)
            var decided = 0
            for var line in lines {
                let out = RecordBuffer()
                let values = line.withUnsafeMutableBufferPointer { bytes -> Classification in
                    classifier.classify(wholeLine: UnsafeBufferPointer(bytes), limits: limits, into: out)
                    return classifier.classification(ofWholeLine: UnsafeBufferPointer(bytes), limits: limits)
                }
                let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.bytes)) as? [String: Any])
                let context = "\(engine) \(String(decoding: out.bytes, as: UTF8.self))"
                XCTAssertEqual(values.domain, record["domain"] as? String, context)
                XCTAssertEqual(values.error, record["error"] as? String, context)
                XCTAssertEqual(values.apps, (record["apps"] as? [String]) ?? [], context)
                let decisions = (record["decisions"] as? [[String: Any]]) ?? []
                XCTAssertEqual(values.decisions.count, decisions.count, context)
                for (value, fields) in zip(values.decisions, decisions) {
                    XCTAssertEqual(value.app, fields["app"] as? String, context)
                    XCTAssertEqual(value.kind.rawValue, fields["decision"] as? String, context)
                    XCTAssertEqual(value.entry, fields["entry"] as? Int, context)
                    XCTAssertEqual(value.rule, fields["rule"] as? Int, context)
                }
                if !values.apps.isEmpty { decided += 1 }
            }
            XCTAssertGreaterThan(decided, 100, "\(engine): the corpus opens apps")
        }
    }
}

/// The exact bytes of `classify`'s NDJSON records: key order, spacing and escaping are a format
/// users parse with `jq`, `cut` and Spark schemas. Both engines share the record writer's pieces
/// (the no-match tail, the head), so agreement between them cannot catch a slip here.
final class RecordBytesTests: XCTestCase {
    func test_ndjsonRecords_areTheDocumentedBytes_onBothEngines() throws {
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus").path
        let documents = try DomainDocuments.directory(corpus, configuration: .default)
        let museum = "MUSE4EX123.org.example.museum"
        let guide = "MUSE4EX123.org.example.museum.guide"
        let expected: [(url: String, record: String)] = [
            ("https://museum.example/nothing-decides-this",
             #"{"url": "https://museum.example/nothing-decides-this", "domain": "museum.example", "apps": [], "decisions": [{"app": "\#(museum)", "decision": "no_match"}, {"app": "\#(guide)", "decision": "no_match"}]}"#),
            ("https://museum.example/tickets/today?event=monet",
             #"{"url": "https://museum.example/tickets/today?event=monet", "domain": "museum.example", "apps": ["\#(museum)"], "decisions": [{"app": "\#(museum)", "decision": "match", "entry": 0, "rule": 2}, {"app": "\#(guide)", "decision": "no_match"}]}"#),
            ("https://museum.example/admin/users",
             #"{"url": "https://museum.example/admin/users", "domain": "museum.example", "apps": [], "decisions": [{"app": "\#(museum)", "decision": "exclude", "entry": 0, "rule": 0}, {"app": "\#(guide)", "decision": "no_match"}]}"#),
            ("https://unserved.example/\"quoted\"",
             #"{"url": "https://unserved.example/\"quoted\"", "domain": null, "apps": [], "decisions": []}"#),
            ("museum.example/no-scheme",
             #"{"url": "museum.example/no-scheme", "domain": null, "error": "no scheme: a URL must start with a scheme such as \"https:\""}"#),
        ]
        for engine in [ClassifierRules.Engine.dfa, .reference] {
            let classifier = Classifier(rules: ClassifierRules(documents: documents, engine: engine), format: .ndjson)
            for (url, record) in expected {
                let out = RecordBuffer()
                Array(url.utf8).withUnsafeBufferPointer { classifier.classify($0, into: out) }
                XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), record + "\n", "\(engine) \(url)")
            }
        }
    }
}
