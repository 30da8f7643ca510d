@testable import AASAKit
import XCTest
import _AASATestSupport

/// The compact form of a compile-time table (`LazyDFA.Prebuilt.Compact`): runs of literal
/// states, chain and self-loop steps, and the suffix side's fast paths must decide exactly as
/// the lazy cache and the reference do, wherever a text ends or leaves them.
final class CompactTableTests: XCTestCase {
    private func document(_ rules: [String], apps: [String] = ["ABCDE12345.com.example.app"]) throws -> AASADocument {
        let components = rules.map { rule in rule.hasPrefix("{") ? rule : #"{"/": "\#(rule)"}"# }.joined(separator: ", ")
        let appIDs = apps.map { "\"\($0)\"" }.joined(separator: ", ")
        let json = #"{"applinks": {"details": [{"appIDs": [\#(appIDs)], "components": [\#(components)]}]}}"#
        return try AASADocument(bytes: Array(json.utf8))
    }

    /// Every cut of every text, and each cut followed by a byte that leaves the literal (ASCII,
    /// and the first byte of a two-byte scalar), decided by the compact table, the lazy cache
    /// and the reference.
    private func assertAgreeAtEveryCut(
        _ document: AASADocument, texts: [String], configuration: Configuration, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let compact = DFAMatcher(try CompiledDocument(document: document, domain: "example.com", configuration: configuration))
        let lazy = DFAMatcher(try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.lazyOnly))
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        for text in texts {
            let bytes = Array(text.utf8)
            for cut in 0...bytes.count {
                let head = String(decoding: bytes[0..<cut], as: UTF8.self)
                for tail in ["", "q", "é", "é/x", "/", "qq/reviews"] {
                    let url = "https://example.com" + head + tail
                    let expected = try reference.decide(url, app: nil)
                    XCTAssertEqual(try compact.decide(url, app: nil), expected, "compact: \(url)", file: file, line: line)
                    XCTAssertEqual(try lazy.decide(url, app: nil), expected, "lazy: \(url)", file: file, line: line)
                }
            }
        }
    }

    func test_runs_textEndingOrLeavingInsideARun_decidesAsTheLazyCache() throws {
        let rules = [
            "/products/summer-collection/*", "/products/summer-sale", "/products/summer-sale/?", "/blog/2024/*/comments",
            #"{"/": "/products/winter-*", "exclude": true}"#, "/products/winter-boots", "/p/*", "/ö/long-literal-after-unicode",
        ]
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        let tables = compiled.labelledAutomata.compactMap { $0.dfa.prebuilt?.compact }
        XCTAssertFalse(tables.isEmpty, "the configuration builds compact tables")
        XCTAssertGreaterThan(tables.map(\.runCount).reduce(0, +), 0, "literals longer than one state make runs")
        try assertAgreeAtEveryCut(
            document,
            texts: [
                "/products/summer-collection/x", "/products/summer-sale/1", "/blog/2024/05/comments", "/products/winter-boots",
                "/ö/long-literal-after-unicode",
            ],
            configuration: EngineConfigurations.compactTables)
    }

    /// Split patterns on compact tables: the suffix trie's runs (long shared suffixes), nodes
    /// with up to eight children (looked up without a loop) and more (a dense table), the
    /// depth-3 entry table, and texts shorter than three bytes.
    func test_suffixSide_runsWideNodesAndShortTexts_decideAsTheReference() throws {
        var rules = ["/a/*/category/reviews", "/b/*/product/reviews", "*/x/reviews", "/c/*.html", "/d/*-old.html"]
        rules += (0..<12).map { "/n\($0)/*\($0)/end" }  // the node of `/end` has 12 children (dense)
        rules += (0..<5).map { "/m/*\($0)/mid" }  // five children: the packed lookup
        let document = try document(rules)
        let texts = [
            "/a/1/category/reviews", "/b/2/product/reviews", "/q/x/reviews", "/c/page.html", "/d/page-old.html", "/n7/77/end",
            "/n11/11/end", "/m/3/mid", "/ab",
        ]
        try assertAgreeAtEveryCut(document, texts: texts, configuration: EngineConfigurations.compactSplit)
        try assertAgreeAtEveryCut(document, texts: texts, configuration: EngineConfigurations.splitAll)
        // A two-byte suffix turns the depth-3 entry table off: the walk starts at the root.
        let short = try self.document(rules + ["*/z"])
        try assertAgreeAtEveryCut(short, texts: texts + ["/y/z", "/z"], configuration: EngineConfigurations.compactSplit)
    }

    /// Split rules merge per app through a byte a rule when a document names at most 7 apps,
    /// 64-bit masks up to 63, and the rules' app lists past that.
    func test_splitRulesMergeAcrossApps_beyondSixtyThreeApps() throws {
        for appCount in [3, 20, 70] {
            let apps = (0..<appCount).map { "ABCDE12345.com.example.app\($0)" }
            let json = """
                {"applinks": {"details": [
                  {"appIDs": \(Array(apps.prefix(appCount / 2)).jsonArray), "components": [{"/": "/s/*/leaf"}, {"/": "/t/*", "exclude": true}]},
                  {"appIDs": \(Array(apps.suffix(appCount - appCount / 2)).jsonArray), "components": [{"/": "*/leaf"}, {"/": "/t/*/leaf", "?": {"q": "1"}}]}
                ]}}
                """
            let document = try AASADocument(bytes: Array(json.utf8))
            let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactSplit)
            XCTAssertGreaterThan(compiled.splitPatternCount, 0)
            let matcher = DFAMatcher(compiled)
            let reference = ReferenceMatcher(document: document, domain: "example.com")
            for path in ["/s/1/leaf", "/t/1/leaf", "/t/1/leaf?q=1", "/u/leaf", "/s/leaf", "/leaf"] {
                let url = "https://example.com" + path
                XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), "\(appCount) apps: \(url)")
                XCTAssertEqual(
                    try matcher.decide(url, app: apps[appCount - 1]), try reference.decide(url, app: apps[appCount - 1]),
                    "\(appCount) apps, one app: \(url)")
            }
        }
    }
}

extension Array where Element == String {
    fileprivate var jsonArray: String { "[" + map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
}

extension CompactTableTests {
    /// Literals of 1 to 20 bytes after a branch: runs of every length, left or ended at
    /// every byte.
    func test_runs_literalsOfEveryLength_decideAsTheReference() throws {
        let letters = Array("abcdefghijklmnopqrst")
        let leaves = (1...20).map { length in String(repeating: letters[length - 1], count: length) }
        let rules = leaves.map { "/q/\($0)x/*" } + ["/r", "/rs", "/rstuvwxyz0123456789"]
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        let tables = compiled.labelledAutomata.compactMap { $0.dfa.prebuilt?.compact }
        XCTAssertGreaterThanOrEqual(tables.map(\.runCount).reduce(0, +), 18, "each literal of three bytes or more is a run")
        try assertAgreeAtEveryCut(
            document, texts: leaves.map { "/q/\($0)x/1" } + ["/rstuvwxyz0123456789"], configuration: EngineConfigurations.compactTables)
    }

    /// A `*` followed by a non-ASCII scalar at every offset of an eight-byte chunk (and of
    /// texts shorter than eight bytes), compared percent-decoded, decides as the reference.
    /// (The eight-byte skip itself is pinned by `test_asciiEnd_findsTheFirstHighByteFromEveryStart`:
    /// a mutation of its tail branch did not make this end-to-end test fail.)
    func test_trailingStar_nonASCIIAtEveryOffset_decidesAsTheReference() throws {
        // Compared percent-decoded: the text holds the scalars' bytes, not `%C3%A9`.
        let document = try document([
            #"{"/": "/p/*é*", "percentEncoded": false}"#, #"{"/": "/p/*", "exclude": true, "percentEncoded": false}"#,
            #"{"/": "/p/*", "percentEncoded": false}"#,
        ])
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        XCTAssertFalse(compiled.labelledAutomata.compactMap { $0.dfa.prebuilt?.compact }.isEmpty, "the path automaton is a compact table")
        let matcher = DFAMatcher(compiled)
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        for before in 0...17 {
            for after in 0...9 {
                for marker in ["é", "%C3%BC", "€", ""] {
                    let url = "https://example.com/p/" + String(repeating: "a", count: before) + marker + String(repeating: "b", count: after)
                    XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), url)
                }
            }
        }
    }

    /// The eight-bytes-at-a-time scan behind it, against a byte loop: every text length up
    /// to 20, every start, no high byte or one at every position.
    func test_asciiEnd_findsTheFirstHighByteFromEveryStart() {
        for length in 0...20 {
            for highAt in [nil] + Array(0..<max(length, 1)).map(Optional.some) {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                if let highAt, highAt < length { bytes[highAt] = 0xC3 }
                bytes.withView { text in
                    for start in 0...length {
                        let expected = (start..<length).first { text[$0] >= 0x80 } ?? length
                        XCTAssertEqual(
                            LazyDFA.Prebuilt.Compact.asciiEnd(of: text, from: start), expected,
                            "length \(length), high byte at \(String(describing: highAt)), from \(start)")
                    }
                }
            }
        }
    }

    /// Suffixes with few pairs and with many, a pair of several rules (rules of one shape),
    /// ending in a word and as whole last segments (the ending filter's two keys), all found
    /// through the hash table, decide as the reference, whatever the text's length against
    /// each pair's shortest text.
    func test_suffixSide_fewAndManyPairs_decideAsTheReference() throws {
        var rules = ["/a/*.few", "/bb/*.few", "*.few"]  // three pairs
        rules += (0..<6).map { "/m\($0)/*.many" }  // six pairs
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactSplit)
        let splits = compiled.pathSplits.compactMap { $0 }
        XCTAssertEqual(splits.map(\.hashedSuffixCount).reduce(0, +), 2)
        XCTAssertEqual(splits.map(\.segmentSuffixCount).reduce(0, +), 0)
        try assertAgreeAtEveryCut(
            document, texts: ["/a/1.few", "/bb.few", "/bb/x.few", "/m3/2.many", "/m5.many", "/z.few", "/a.few"],
            configuration: EngineConfigurations.compactSplit)

        // Two rules of one shape: one pair of two rules; the first decides.
        let twice = try self.document([#"{"/": "/p/*-twice", "exclude": true}"#, "/p/*-twice", "*-once"])
        let twiceSplits = try CompiledDocument(document: twice, domain: "example.com", configuration: EngineConfigurations.compactSplit)
            .pathSplits.compactMap { $0 }
        XCTAssertEqual(twiceSplits.map(\.hashedSuffixCount).reduce(0, +), 2)
        try assertAgreeAtEveryCut(twice, texts: ["/p/1-twice", "/p-once", "/p-twice"], configuration: EngineConfigurations.compactSplit)

        // The same shapes as whole last segments, with `/one` and `/x` (whose `/a/` and `/x`
        // overlap in `/a/x`).
        var segmentRules: [String] = ["/a/*/few", "/bb/*/few", "*/few", "/a/*/one", "/a/*/x"]
        segmentRules += (0..<6).map { (index: Int) -> String in "/m\(index)/*/many" }
        segmentRules += [#"{"/": "/p/*/twice", "exclude": true}"#, "/p/*/twice"]
        let segments = try self.document(segmentRules)
        let segmentSplits = try CompiledDocument(document: segments, domain: "example.com", configuration: EngineConfigurations.compactSplit)
            .pathSplits.compactMap { $0 }
        XCTAssertEqual(segmentSplits.map(\.segmentSuffixCount).reduce(0, +), 5)
        XCTAssertEqual(segmentSplits.map(\.hashedSuffixCount).reduce(0, +), 5)
        try assertAgreeAtEveryCut(
            segments,
            texts: [
                "/a/1/few", "/bb/few", "/bb/x/few", "/z/few", "/zfew", "/few", "/a/one", "/a/b/one", "/b/one", "/a/x", "/a/xx",
                "/a//x", "/m3/2/many", "/m5/many", "/p/1/twice", "/p/twice", "/a/1/few/", "/a/1/xfew",
            ],
            configuration: EngineConfigurations.compactSplit)
    }
}

extension CompactTableTests {
    /// A path's first bytes: texts whose first three bytes reach a record, a state inside a
    /// run or the dead state, texts shorter than three bytes, not starting with `/`, or with a
    /// high byte among the first three, decide as the reference.
    func test_firstBytes_everyKindOfStateAndShortText_decideAsTheReference() throws {
        let rules = [
            "/ab/*", "/ac", "/a?/x", "/b*", "/products/summer-collection/*", "/é/x", "/x/*/y", "/zz", "/k?x",
            #"{"/": "/ab/no", "exclude": true}"#,
        ]
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        XCTAssertFalse(compiled.labelledAutomata.compactMap { $0.dfa.prebuilt?.compact }.isEmpty, "the path automaton is a compact table")
        try assertAgreeAtEveryCut(
            document,
            texts: [
                "/ab/1", "/ac", "/aq/x", "/bbb", "/products/summer-collection/1", "/é/x", "/x/1/y", "/q", "/zz", "/ab/no", "/qq/z",
                "/kéx", "/kax",
                "/aé", "ab/x", "//ab",
            ],
            configuration: EngineConfigurations.compactTables)
    }
}

extension CompactTableTests {
    /// First segments of every length from 1 to 16 bytes between the slashes, a `.` right
    /// after the leading `/`, segments read through a `*`, and near misses, cut at every byte.
    func test_firstSegments_everyLength_decideAsTheReference() throws {
        let names = (1...16).map { length in String("abcdefghijklmnopqrstuvwxyz".prefix(length)) }
        var rules = names.map { "/\($0)/x/*" } + ["/.hidden/*", "/q*/tail", "/a/b/c", "/abcdefg/"]
        rules += [#"{"/": "/abc/no", "exclude": true}"#]
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        XCTAssertFalse(compiled.labelledAutomata.compactMap { $0.dfa.prebuilt?.compact }.isEmpty, "the path automaton is a compact table")
        var texts = names.map { "/\($0)/x/1" } + names.map { "/\($0)q/x/1" } + names.map { "/\($0.dropLast())/x" }
        texts += ["/.hidden/1", "/qq/tail", "/q/tail", "/a/b/c", "/abcdefg/", "/abc/no", "/é/x/1", "/ab"]
        try assertAgreeAtEveryCut(document, texts: texts, configuration: EngineConfigurations.compactTables)
    }
}

extension CompactTableTests {
    /// A compact table built from an automaton leads every text, cut at every byte and
    /// extended, to the same tags as the lazy cache: through runs, chains, dense rows, `*`
    /// loops and high bytes.
    func test_everyCutOfEveryText_acceptsAsTheLazyCache() throws {
        let rules = [
            "/a/*", "/b/x", "/c/long-literal-run", "/d/?", "/e/*/é", "/f", "/g/ß*", "/products/summer-*", "/products/sale",
            #"{"/": "/products/summer-x", "exclude": true}"#, "/*.html",
        ]
        let compiled = try CompiledDocument(document: document(rules), domain: "example.com", configuration: EngineConfigurations.compactTables)
        let texts = ["/a/b", "/b/x", "/c/long-literal-run", "/d/é", "/e/q/é", "/f", "/g/ßé", "/products/summer-x", "/products/sale", "/x.html"]
        let lazy = try CompiledDocument(document: document(rules), domain: "example.com", configuration: EngineConfigurations.lazyOnly)
        var tested = 0
        for (automaton, lazyAutomaton) in zip(compiled.labelledAutomata, lazy.labelledAutomata) {
            let dfa = automaton.dfa
            XCTAssertEqual(automaton.label, lazyAutomaton.label)
            XCTAssertNil(lazyAutomaton.dfa.prebuilt)
            guard dfa.prebuilt?.compact != nil,
                let table = LazyDFA.Prebuilt(eager: dfa.nfa, configuration: dfa.configuration, maxStates: 100_000, minimumBytes: 0),
                table.compact != nil
            else { continue }
            let cache = lazyAutomaton.dfa.makeCache()
            for text in texts {
                let bytes = Array(text.utf8)
                for cut in 0...bytes.count {
                    for tail in ["", "q", "é", "/", "-x"] {
                        let probe = Array(bytes[0..<cut]) + Array(tail.utf8)
                        let expected = probe.withUnsafeBufferPointer { lazyAutomaton.dfa.search($0, cache: cache) }.sorted
                        let accept = probe.withView { table.acceptIndex($0) }
                        let tags = accept < 0 ? [] : table.tagSets[Int(accept)].sorted
                        XCTAssertEqual(tags, expected, String(decoding: probe, as: UTF8.self))
                    }
                }
            }
            tested += 1
        }
        XCTAssertGreaterThan(tested, 0, "the configuration builds compact tables")
    }
}
