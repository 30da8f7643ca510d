@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `classify` decides a routed URL from its document's `PathRowTable` when the path alone
/// settles it, without the matcher: in every text mode it must give the matcher's (and the
/// reference engine's) records, leaving to the matcher every path the table cannot read as
/// written (escapes in a decoded mode, non-ASCII text in a folded or decoded one) and every
/// decision that needs the query or fragment. A document comparing paths in two modes gets a
/// block of both tables and rows for every pair of their tag sets.
final class PathRowTableTests: XCTestCase {
    /// One document per text mode, each with a rule that needs the query (its paths take the
    /// matcher's way) beside rules decided on the path alone.
    static let documents: [(domain: String, json: String)] = [
        ("raw.example", document(defaults: "")),
        ("folded.example", document(defaults: #""caseSensitive": false"#)),
        ("decoded.example", document(defaults: #""percentEncoded": false"#)),
        ("both.example", document(defaults: #""caseSensitive": false, "percentEncoded": false"#)),
        // Two modes: raw text as written beside decoded and folded text (the first table's mode
        // alone would walk escapes and non-ASCII text), and raw text in both cases.
        ("pair.example", document(defaults: "", overrides: #", "caseSensitive": false, "percentEncoded": false"#)),
        ("pair-case.example", document(defaults: #""caseSensitive": false"#, overrides: #", "caseSensitive": true"#)),
    ]

    /// Whether `domain` is one of the documents comparing paths in two modes.
    static func comparesTwoModes(_ domain: String) -> Bool { domain.hasPrefix("pair") }

    /// `overrides` (flags after a comma) go on every other rule, whose paths are then compared
    /// in a second mode.
    static func document(defaults: String, overrides: String = "") -> String {
        #"{"applinks": {"defaults": {\#(defaults)}, "details": [{"appIDs": ["T.one", "T.two"], "components": ["#
            + #"{"/": "/help/*", "exclude": true}, {"/": "/items/*"\#(overrides)}, {"/": "/straße/*"}, {"/": "/café"\#(overrides)}, "#
            + #"{"/": "/a b/*"}, {"/": "/a/b"\#(overrides)}, {"/": "/story/*", "?": {"id": "?*"}}]}, "#
            + #"{"appID": "T.three", "components": [{"/": "/items/7"\#(overrides)}, {"/": "/ITEMS/*"}]}]}}"#
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
            XCTAssertEqual(compiled.pathPlan.modes.count, Self.comparesTwoModes(domain.name) ? 2 : 1, domain.name)
            // `aasa debug plan` says which two-mode documents have the block.
            XCTAssertEqual(
                compiled.pathPlan.description.contains("classify reads mode-pair rows first"), Self.comparesTwoModes(domain.name),
                compiled.pathPlan.description)
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
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://both.example/ITEMS/1", "domain": "both.example", "apps": ["T.one", "T.two", "T.three"]"#) })
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://pair.example/caf%C3%A9", "domain": "pair.example", "apps": ["T.one", "T.two"]"#) })
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://pair.example/ITEMS/1", "domain": "pair.example", "apps": ["T.one", "T.two", "T.three"]"#) })
        XCTAssertTrue(outputs[1].0.contains { $0.contains(#""url": "https://pair-case.example/ITEMS/1", "domain": "pair-case.example", "apps": ["T.three"]"#) })
    }

    /// The block answers as the dense table and rows it was made from, for normalised text, and
    /// for ASCII text as written once trimmed (and lowercased in a folded mode).
    func test_rowTable_answersAsTheTableAndRowsItWasMadeFrom() throws {
        let (artifact, _) = try artifactRules()
        var random = RandomSource(seed: 19)
        let pieces = ["/", "items", "ITEMS", "help", "7", "a", "b", " ", "straße", "STRASSE", "café", "%", "x", "story", "é"]
        var compared = 0
        for domain in artifact.domains where !Self.comparesTwoModes(domain.name) {
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

    /// A block of two modes' tables answers, for ASCII text as written (trimmed, lowercased for
    /// a folded mode), the pair of the tables' tag sets, and its row is the decision of both
    /// tag sets' rules together in rule order, as the matcher merges them.
    func test_modePairBlock_answersAsBothTablesAndTheirMergedRules() throws {
        let (artifact, _) = try artifactRules()
        var random = RandomSource(seed: 23)
        let pieces = ["/", "items", "ITEMS", "help", "7", "a", "b", " ", "straße", "café", "CAFÉ", "%", "%C3%A9", "x", "story"]
        var compared = 0
        for domain in artifact.domains where Self.comparesTwoModes(domain.name) {
            guard case .compiled(let compiled) = domain.loaded.state, compiled.pathPlan.modes.count == 2,
                let first = compiled.path[compiled.pathPlan.modes[0].index]?.prebuilt,
                let second = compiled.path[compiled.pathPlan.modes[1].index]?.prebuilt, let block = compiled.routedRows?.view
            else { return XCTFail("\(domain.name) has no block of two tables") }
            let modes = compiled.pathPlan.modes
            let infos = compiled.pathPlan.apps
            for _ in 0..<2_000 {
                let text = (0..<random.int(0...6)).map { _ in random.pick(pieces) }.joined()
                let asWritten = Array(text.utf8).withView { block.tagSet(ofUnnormalized: $0) }
                let readable = text.utf8.allSatisfy { $0 < 0x80 } && !(modes.contains(where: \.decoded) && text.contains("%"))
                XCTAssertEqual(asWritten == nil, !readable, text)
                compared += 1
                guard readable, let asWritten else { continue }
                var trimmed = text
                while trimmed.hasSuffix("/") { trimmed.removeLast() }
                let tagSets = [(first, modes[0]), (second, modes[1])].map { table, mode in
                    Int(Array((mode.folded ? trimmed.lowercased() : trimmed).utf8).withView { max(table.acceptIndex($0), 0) })
                }
                XCTAssertEqual(Int(asWritten), tagSets[0] * second.tagSets.count + tagSets[1], text)
                let tags = (first.tagSets[tagSets[0]].sorted + second.tagSets[tagSets[1]].sorted).sorted()
                var expected: [Int32] = []
                let decided = DecisionRows.appendRow(
                    for: tags, layout: compiled.pathPlan.layout, rules: compiled.rules, apps: infos, appCount: compiled.appIDs.count,
                    to: &expected)
                XCTAssertEqual(block.decidedRow(asWritten).map { Array($0) }, decided ? expected : nil, text)
            }
        }
        XCTAssertEqual(compared, 4_000)
    }
}
