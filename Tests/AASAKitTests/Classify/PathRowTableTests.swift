@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `classify` decides a routed URL from its document's `PathRowTable` when the path alone
/// settles it, without the matcher: in every text mode it must give the matcher's (and the
/// reference engine's) records, leaving to the matcher every path the table cannot read as
/// written (escapes in a decoded mode, non-ASCII text in a folded or decoded one) and every
/// decision that needs the query or fragment.
final class PathRowTableTests: XCTestCase {
    /// One document per text mode, each with a rule that needs the query (its paths take the
    /// matcher's way) beside rules decided on the path alone.
    static let documents: [(domain: String, json: String)] = [
        ("raw.example", document(defaults: "")),
        ("folded.example", document(defaults: #""caseSensitive": false"#)),
        ("decoded.example", document(defaults: #""percentEncoded": false"#)),
        ("both.example", document(defaults: #""caseSensitive": false, "percentEncoded": false"#)),
    ]

    static func document(defaults: String) -> String {
        #"{"applinks": {"defaults": {\#(defaults)}, "details": [{"appIDs": ["T.one", "T.two"], "components": ["#
            + #"{"/": "/help/*", "exclude": true}, {"/": "/items/*"}, {"/": "/straße/*"}, {"/": "/café"}, {"/": "/a b/*"}, "#
            + #"{"/": "/a/b"}, {"/": "/story/*", "?": {"id": "?*"}}]}, {"appID": "T.three", "components": [{"/": "/items/7"}]}]}}"#
    }

    static let paths = [
        "", "/", "/items/1", "/ITEMS/1", "/items/7", "/items/7/", "/items//", "/help/x", "/HELP/x", "/straße/x", "/STRASSE/x",
        "/stra%C3%9Fe/x", "/STRA%E1%BA%9EE/x", "/STRAẞE/x", "/café", "/CAFÉ", "/caf%C3%A9", "/cafe\u{301}", "/cafe%CC%81",
        "/a%20b/c", "/a b/c", "/a%2Fb", "/a/b", "/A/B/", "/%", "/%zz", "/story/x?id=1", "/story/x", "/STORY/x?id=", "/items/1#f",
        "/items/1?q", "/nothing",
    ]

    func artifactRules() throws -> (artifact: ClassifierRules, reference: ClassifierRules) {
        let folder = try makeTemporaryFolder("row-table")
        for file in Self.documents {
            try Data(file.json.utf8).write(to: folder.appendingPathComponent("\(file.domain).json"))
        }
        let documents = try DomainDocuments.directory(folder.path, configuration: .default)
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(documents: documents, engine: .dfa), budget: .init(), counts: &counts)
        let file = folder.appendingPathComponent("rules.aasac")
        try Data(bytes).write(to: file)
        let artifact = ClassifierRules(artifact: try CompiledArtifact.open(path: file.path))
        return (artifact, ClassifierRules(documents: documents, engine: .reference))
    }

    func test_artifactRecords_decidedFromRowTables_areTheReferenceRecords_inEveryTextMode() throws {
        let (artifact, reference) = try artifactRules()
        for domain in artifact.domains {
            guard case .compiled(let compiled) = domain.loaded.state else { return XCTFail("\(domain.name) did not load") }
            // Otherwise this test would only compare the matcher with the reference.
            XCTAssertNotNil(compiled.routedRows, "\(domain.name): no row table, so classify would not use one")
        }
        let urls = Self.paths.flatMap { path in Self.documents.map { "https://\($0.domain)\(path)" } }
        let outputs = [artifact, reference].map { rules in
            let classifier = Classifier(rules: rules, format: .ndjson)
            let records = urls.map { url in
                let out = RecordBuffer()
                var bytes = Array(url.utf8)
                bytes.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
                return String(decoding: out.bytes, as: UTF8.self)
            }
            return (records, classifier.statistics)
        }
        for (url, (got, expected)) in zip(urls, zip(outputs[0].0, outputs[1].0)) {
            XCTAssertEqual(got, expected, url)
        }
        XCTAssertEqual(outputs[0].1.domainRecords, outputs[1].1.domainRecords)
        XCTAssertEqual(outputs[0].1.domainMatched, outputs[1].1.domainMatched)
        XCTAssertEqual(outputs[0].1.appMatches, outputs[1].1.appMatches)
        // The three kinds of path this test is about all occur.
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://folded.example/STRAẞE/x", "domain": "folded.example", "apps": ["T.one", "T.two"]"#) })
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://decoded.example/a%2Fb", "domain": "decoded.example", "apps": ["T.one", "T.two"]"#) })
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://both.example/ITEMS/1", "domain": "both.example", "apps": ["T.one", "T.two"]"#) })
    }

    /// The block answers as the dense table and rows it was made from, for normalised text, and
    /// for ASCII text as written once trimmed (and lowercased in a folded mode).
    func test_rowTable_answersAsTheTableAndRowsItWasMadeFrom() throws {
        let (artifact, _) = try artifactRules()
        var random = RandomSource(seed: 19)
        let pieces = ["/", "items", "ITEMS", "help", "7", "a", "b", " ", "straße", "STRASSE", "café", "%", "x", "story", "é"]
        var compared = 0
        for domain in artifact.domains {
            guard case .compiled(let compiled) = domain.loaded.state, let mode = compiled.pathPlan.modes.first,
                let table = compiled.path[mode.index]?.prebuilt, let rows = compiled.pathPlan.decisionRows,
                let block = compiled.routedRows?.view
            else { return XCTFail("\(domain.name) has no row table") }
            for _ in 0..<2_000 {
                let text = (0..<random.int(0...6)).map { _ in random.pick(pieces) }.joined()
                let bytes = Array(text.utf8)
                let expected = bytes.withView { max(table.acceptIndex($0), 0) }
                XCTAssertEqual(bytes.withView { block.tagSet(of: $0) }, expected, text)
                let start = Int(expected) * rows.width
                let row = rows.rows[start + DecisionRows.decidedSlot] == 0 ? nil : Array(rows.rows[(start + 3)..<(start + rows.width)])
                XCTAssertEqual(block.decidedRow(expected).map { Array($0) }, expected == 0 ? Array(repeating: -1, count: rows.width - 3) : row, text)
                let asWritten = bytes.withView { block.tagSet(ofUnnormalized: $0) }
                let readable = mode.index == 0 || (text.utf8.allSatisfy { $0 < 0x80 } && (!mode.decoded || !text.contains("%")))
                XCTAssertEqual(asWritten == nil, !readable, "\(mode) \(text)")
                if readable {
                    var trimmed = mode.folded ? text.lowercased() : text
                    while trimmed.hasSuffix("/") { trimmed.removeLast() }
                    XCTAssertEqual(asWritten, Array(trimmed.utf8).withView { max(table.acceptIndex($0), 0) }, "\(mode) \(text)")
                }
                compared += 1
            }
        }
        XCTAssertEqual(compared, 8_000)
    }
}
