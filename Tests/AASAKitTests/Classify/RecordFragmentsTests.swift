@testable import AASAKit
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

    /// Every piece of a block, as bytes.
    func pieces(_ fragments: RecordFragments) -> [[UInt8]] {
        var all = [Array(fragments.noMatchTail), Array(fragments.domainJSON)]
        all += (0..<fragments.appCount).map { Array(fragments.appJSON($0)) }
        all += (0..<fragments.ruleCount).map { Array(fragments.ruleJSONSuffix($0)) }
        all += (0..<fragments.ruleCount).map { Array(fragments.ruleText($0)) }
        all += (0..<fragments.ruleCount).map { [fragments.excludes($0) ? 1 : 0] }
        return all
    }

    /// A domain serving another's document gets the other's block with its own name (and, with
    /// as many other apps, their names) written in: the very pieces a block written for it from
    /// scratch holds, whether its names are longer, shorter or need escaping, with no app, one,
    /// or several, and no rule, one, or many.
    func test_piecesRewrittenForAnotherDomain_equalPiecesWrittenForIt() throws {
        let names = ["a.example", "b.ex", "a-much-longer-name.of.some.example", "q\"uote.example", "é.example", ""]
        let appLists: [[[String]]] = [[[]], [["T.shop"], ["U.a-much-longer-team.app"], ["V\\x"]], [["T.a\"q", "T.é\\b", "U.three"], ["A.1", "B.2", "C.3"]]]
        let ruleLists: [[(entry: Int, rule: Int, exclude: Bool)]] = [
            [], [(0, 0, false)], (0..<40).map { ($0 / 3, $0 % 3 * 1_000, $0 % 4 == 1) },
        ]
        for sameCount in appLists {
            for rules in ruleLists {
                for first in names {
                    let template = try XCTUnwrap(RecordFragments(domain: first, apps: sameCount[0], rules: rules))
                    defer { template.deallocate() }
                    for name in names {
                        for apps in sameCount {
                            let written = try XCTUnwrap(RecordFragments(domain: name, apps: apps, rules: rules))
                            defer { written.deallocate() }
                            let rewritten = try XCTUnwrap(RecordFragments(domain: name, apps: apps, as: template))
                            defer { rewritten.deallocate() }
                            XCTAssertEqual(pieces(rewritten), pieces(written), "\(first) → \(name), \(apps), \(rules.count) rules")
                        }
                        let written = try XCTUnwrap(RecordFragments(domain: name, apps: sameCount[0], rules: rules))
                        defer { written.deallocate() }
                        let renamed = try XCTUnwrap(RecordFragments(domain: name, as: template))
                        defer { renamed.deallocate() }
                        XCTAssertEqual(renamed.appCount, sameCount[0].count)
                        XCTAssertEqual(renamed.ruleCount, rules.count)
                        XCTAssertEqual(pieces(renamed), pieces(written), "\(first) → \(name), same apps, \(rules.count) rules")
                        XCTAssertNil(RecordFragments(domain: name, apps: sameCount[0] + ["X.more"], as: template), "another number of apps")
                    }
                }
            }
        }
    }
}
