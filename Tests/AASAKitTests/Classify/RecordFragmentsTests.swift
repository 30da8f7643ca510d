import AASAKit
import Foundation
import XCTest

/// The pre-rendered pieces of a domain's records (`RecordFragments`, built once per document and
/// shared by every thread's slot) hold the bytes the record format documents: entry and rule
/// indices of several digits, and app IDs that need escaping in JSON or quoting in TSV and CSV.
final class RecordFragmentsTests: XCTestCase {
    /// Ten one-rule entries for `T.a"q`, then an eleventh (entry 10) for `T.é\b` whose
    /// eleventh rule (rule 10) matches `/hit`.
    static let document: [UInt8] = {
        var details = (0..<10).map { #"{"appIDs": ["T.a\"q"], "components": [{"/": "/e\#($0)"}]}"# }
        let rules = (0..<10).map { #"{"/": "/r\#($0)"}"# } + [#"{"/": "/hit"}"#]
        details.append(#"{"appIDs": ["T.\u00e9\\b"], "components": [\#(rules.joined(separator: ", "))]}"#)
        return Array(#"{"applinks": {"details": [\#(details.joined(separator: ", "))]}}"#.utf8)
    }()

    func records(_ format: RecordFormat, engine: ClassifierRules.Engine) -> [String] {
        let documents = DomainDocuments.single(bytes: Self.document, name: "ex.example.json", domain: "ex.example", configuration: .default)
        let classifier = Classifier(rules: ClassifierRules(documents: documents, engine: engine), format: format)
        return ["https://ex.example/hit", "https://ex.example/e3", "https://ex.example/none"].map { url in
            let out = RecordBuffer()
            Array(url.utf8).withUnsafeBufferPointer { classifier.classify($0, into: out) }
            return String(decoding: out.bytes, as: UTF8.self)
        }
    }

    func test_ndjsonPieces_writeEveryDigitAndEscapeAppIDs_onBothEngines() {
        let quoted = #""T.a\"q""#
        let accented = #""T.é\\b""#
        for engine in [ClassifierRules.Engine.dfa, .reference] {
            XCTAssertEqual(records(.ndjson, engine: engine), [
                #"{"url": "https://ex.example/hit", "domain": "ex.example", "apps": [\#(accented)], "decisions": [{"app": \#(quoted), "decision": "no_match"}, {"app": \#(accented), "decision": "match", "entry": 10, "rule": 10}]}"# + "\n",
                #"{"url": "https://ex.example/e3", "domain": "ex.example", "apps": [\#(quoted)], "decisions": [{"app": \#(quoted), "decision": "match", "entry": 3, "rule": 0}, {"app": \#(accented), "decision": "no_match"}]}"# + "\n",
                #"{"url": "https://ex.example/none", "domain": "ex.example", "apps": [], "decisions": [{"app": \#(quoted), "decision": "no_match"}, {"app": \#(accented), "decision": "no_match"}]}"# + "\n",
            ], "\(engine)")
        }
    }

    func test_tsvAndCSVRulesColumn_isEntryColonRule_onBothEngines() {
        for engine in [ClassifierRules.Engine.dfa, .reference] {
            XCTAssertEqual(records(.tsv, engine: engine), [
                "https://ex.example/hit\tex.example\tT.é\\b\t10:10\t\n",
                "https://ex.example/e3\tex.example\t\"T.a\"\"q\"\t3:0\t\n",
                "https://ex.example/none\tex.example\t\t\t\n",
            ], "\(engine)")
            XCTAssertEqual(records(.csv, engine: engine), [
                "https://ex.example/hit,ex.example,T.é\\b,10:10,\n",
                "https://ex.example/e3,ex.example,\"T.a\"\"q\",3:0,\n",
                "https://ex.example/none,ex.example,,,\n",
            ], "\(engine)")
        }
    }
}
