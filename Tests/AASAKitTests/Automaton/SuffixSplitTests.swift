@testable import AASAKit
import BenchmarkKit
import XCTest
import _AASATestSupport

/// `literal * literal` path patterns matched as a DFA prefix and a suffix trie (`SuffixSplit`):
/// the same decisions as the reference, only the automaton changes.
final class SuffixSplitTests: XCTestCase {
    private func document(_ rules: [String]) throws -> AASADocument {
        let components = rules.map { rule in rule.hasPrefix("{") ? rule : #"{"/": "\#(rule)"}"# }.joined(separator: ", ")
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [\#(components)]}]}}"#
        return try AASADocument(bytes: Array(json.utf8))
    }

    private func assertAgree(_ rules: [String], _ paths: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.splitAll)
        XCTAssertGreaterThan(compiled.splitPatternCount, 0, "nothing was split", file: file, line: line)
        let matcher = DFAMatcher(compiled)
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        for path in paths {
            let url = "https://example.com" + path
            XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), url, file: file, line: line)
        }
    }

    func test_shape_onlyLiteralStarLiteralPatternsAreSplit() {
        func shape(_ text: String) -> [String]? {
            SuffixSplit.splitShape(Pattern(parsing: text)).map { [$0.prefix, $0.suffix] }
        }
        XCTAssertEqual(shape("/shop/*/reviews"), ["/shop/", "/reviews"])
        XCTAssertEqual(shape("*.html"), ["", ".html"])
        XCTAssertNil(shape("/shop/*"), "a trailing star is a plain prefix: nothing to split")
        XCTAssertNil(shape("/a/*/b/*/c"), "two stars")
        XCTAssertNil(shape("/a/?*/c"), "a `?` has no fixed byte length")
        XCTAssertNil(shape("/$(lang)/*/c"), "a variable has no fixed length")
        XCTAssertNil(shape("/exact"))
    }

    /// With the default minimum, a `P*S` rule whose prefix no other pattern shares (or
    /// extends) stays in the forward automaton; shared prefixes, empty ones and prefixes under
    /// a pattern with a pending `*` are split. Decisions do not change.
    func test_isolatedPrefixesStayWhole_sharedOnesAreSplit() throws {
        var rules = (0..<40).map { "/s\($0 % 4)/*/leaf\($0)" }  // four shared prefixes: split
        rules += (0..<10).map { "/own\($0)-*.html" }  // prefixes of their own: stay
        rules += ["*/any", "/own3-extra", "/deep/*x?", "/deep/page-*.php"]
        // `/own3-` is extended by `/own3-extra`; `/deep/page-` lies under `/deep/*x?`.
        let document = try document(rules)
        let compiled = try CompiledDocument(document: document, domain: "example.com")
        XCTAssertEqual(
            Set(compiled.pathSplits.compactMap { $0 }.flatMap(\.entries).map { Int($0.rule) }),
            Set(Array(0..<40) + [43, 50, 53]), "the shared, empty, extended and nested prefixes are split")
        let matcher = DFAMatcher(compiled)
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        let paths = [
            "/s1/x/leaf5", "/s1/x/leaf6", "/own2-a.html", "/own2-.html", "/own2-a.htm", "/own3-extra", "/own3-x.html", "/q/any",
            "/deep/page-1.php", "/deep/page-1.phpxy", "/deep/axb", "/own9-x/y.html",
        ]
        for path in paths {
            let url = "https://example.com" + path
            XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), url)
        }
    }

    /// The ending filter never turns away a text that ends in a suffix (it may let others
    /// through): whole-segment suffixes by the text's last segment, the others by its last
    /// bytes (as many as the shortest of them has, up to eight); a text shorter than every
    /// suffix ends in none; with a suffix under three bytes outside the segments, the filter
    /// is off. Decisions agree with the reference at every depth.
    func test_endingFilter_neverRejectsATextEndingInASuffix() throws {
        for (extra, windowDepth) in [(["/é"], 0), ([".html"], 5), (["-and-then-some"], 8)] {
            let suffixes = (0..<200).map { "/leaf-number-\($0)" } + extra
            let rules = suffixes.enumerated().map { "/s\($0.offset % 3)/*\($0.element)" }
            let document = try document(rules)
            let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.splitAll)
            let split = try XCTUnwrap(compiled.pathSplits.compactMap { $0 }.first)
            XCTAssertEqual(split.endings.depth, windowDepth, "the window covers the suffixes outside the segments")
            func mayEnd(_ text: String) -> Bool { Array(text.utf8).withView { split.endings.mayEnd($0) } }
            for suffix in suffixes {
                XCTAssertTrue(mayEnd("/s1/x" + suffix), suffix)
                XCTAssertTrue(mayEnd(suffix), suffix)
            }
            XCTAssertFalse(mayEnd("/a"))
            let rejected = (0..<1_000).filter { !mayEnd("/s1/other\($0)x") }.count
            XCTAssertGreaterThan(rejected, 800, "most texts ending in no suffix are turned away")
            let matcher = DFAMatcher(compiled)
            let reference = ReferenceMatcher(document: document, domain: "example.com")
            for path in ["/s0/a/leaf-number-0", "/s1/leaf-number-1", "/s2/b" + extra[0], "/s2/" + extra[0], "/é", "/x.html", "/s2/x.htm"] {
                let url = "https://example.com" + path
                XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), url)
            }
        }
        func split(_ rules: [String]) throws -> SuffixSplit {
            try XCTUnwrap(
                CompiledDocument(document: try document(rules), domain: "example.com", configuration: EngineConfigurations.splitAll)
                    .pathSplits.compactMap { $0 }.first)
        }
        func mayEnd(_ split: SuffixSplit, _ text: String) -> Bool { Array(text.utf8).withView { split.endings.mayEnd($0) } }
        let segments = try split(["/s/*/long-suffix", "/t/*/z"])
        XCTAssertFalse(segments.endings.windowAlways, "a two-byte segment suffix keeps the filter on")
        XCTAssertTrue(mayEnd(segments, "/t/q/z"))
        XCTAssertTrue(mayEnd(segments, "/s/q/long-suffix"))
        XCTAssertFalse(mayEnd(segments, "/t/q/y"))
        XCTAssertFalse(mayEnd(segments, "/s/q/longer-suffix"))
        let short = try split(["/s/*/long-suffix", "/t/*z"])
        XCTAssertTrue(short.endings.windowAlways, "a one-byte suffix outside the segments turns the filter off")
        XCTAssertTrue(mayEnd(short, "/t/q/y"))
    }

    /// A text that ends in a whole-segment suffix has the suffix's filter key whatever comes
    /// before it (the key is the text's last segment when that has at most eight bytes, else
    /// its last eight bytes, so one key per segment of up to eight bytes); a text under eight
    /// bytes with no `/` has none. Random texts over `/`, its high-bit twin 0xAF, NUL and
    /// high bytes, which a borrowing zero-byte test would confuse.
    func test_segmentEndingKey_ofATextEndingInASegment_isTheSegmentsKey() {
        let bytes: [UInt8] = [0x2F, 0xAF, 0x2E, 0x00, 0x61, 0xFF, 0x30]
        var random = SystemRandomNumberGenerator()
        func key(_ text: [UInt8]) -> UInt64? { text.withView { SuffixEndings.segmentKey($0) } }
        for _ in 0..<20_000 {
            let inner = (0..<Int.random(in: 0...22, using: &random)).map { _ in bytes.dropFirst().randomElement(using: &random) ?? 0x61 }
            let segment = [UInt8(ascii: "/")] + inner
            let prefix = (0..<Int.random(in: 0...12, using: &random)).map { _ in bytes.randomElement(using: &random) ?? 0x2F }
            let expected = key(segment)
            XCTAssertNotNil(expected, "\(segment)")
            XCTAssertEqual(key(prefix + segment), expected, "\(prefix) + \(segment)")
        }
        XCTAssertNil(key(Array("c.html".utf8)), "six bytes, no slash")
        XCTAssertNil(key([]))
        let short = ["/", "/a", "/ab", "/map", "/a/map", "/sitemap", "/x/sitemap"].map { key(Array($0.utf8)) }
        XCTAssertEqual(short[3], short[4], "the last segment decides")
        XCTAssertEqual(short[5], short[6])
        XCTAssertEqual(Set(short.prefix(4) + short.suffix(1)).count, 5, "segments of up to eight bytes keep their own keys")
    }

    /// Whole last segments of any length are filtered by the text's last segment, the other
    /// suffixes by its last bytes; one text can end in both kinds (`/page.html`). Decisions
    /// agree with the reference at each length (around the filter's eight-byte key and the
    /// trie's runs), with the text's last segment one byte longer or shorter, and through a
    /// decoded, case-folded mode.
    func test_wholeSegmentSuffixes_ofAnyLengthBesideOtherSuffixes_decideAsTheReference() throws {
        let lengths = [2, 7, 8, 9, 15, 16, 17, 22, 23, 24, 30]
        let leaves: [String] = lengths.map { (length: Int) -> String in "/" + String(repeating: "k", count: length - 1) }
        var rules: [String] = []
        for (index, leaf) in leaves.enumerated() { rules.append("/s\(index % 3)/*" + leaf) }
        rules += ["*.html", "/s0/*/page.html", "*/crème", #"{"/": "/C/*/Mixed", "caseSensitive": false}"#, "/s1/*/a/b"]
        let compiled = try CompiledDocument(document: try document(rules), domain: "example.com", configuration: EngineConfigurations.splitAll)
        XCTAssertEqual(
            compiled.pathSplits.compactMap { $0 }.map(\.segmentSuffixCount).reduce(0, +), 11 + 3,
            "every length, `/page.html`, `/crème`, `/mixed` (folded), but not `/a/b`")
        var paths: [String] = []
        for (index, leaf) in leaves.enumerated() {
            let section = "/s\(index % 3)"
            let other = "/s\((index + 1) % 3)"
            let shorter = String(leaf.dropLast())
            paths.append(section + "/x" + leaf)
            paths.append(section + leaf)
            paths.append(section + "/x" + leaf + "k")
            paths.append(section + "/x" + shorter)
            paths.append(other + "/x" + leaf)
        }
        paths += ["/s0/page.html", "/s0/x/page.html", "/t/page.html", "/q/cr%C3%A8me", "/q/crème", "/c/1/mIXED", "/C/mixed", "/s1/x/a/b", "/s1/a/b", "/s1/b"]
        try assertAgree(rules, paths)
    }

    func test_prefixAndSuffixMustNotOverlap() throws {
        // `/ab*ba` needs 5 bytes: `/aba` starts with `/ab` and ends with `ba`, sharing the `b`.
        try assertAgree(["/ab*ba"], ["/aba", "/abba", "/abxba", "/ab", "/ba"])
        try assertAgree(["*aa"], ["/aa", "/a", "aa", "/xaa"])
    }

    func test_firstMatchingRuleStillDecides_excludeBeforeAndAfterSplitRules() throws {
        try assertAgree(
            [#"{"/": "/p/*.html", "exclude": true}"#, "/p/*", "/q/*/share", #"{"/": "/q/x/*", "exclude": true}"#, "*/share"],
            ["/p/a.html", "/p/a.htm", "/p/", "/q/x/share", "/q/y/share", "/r/share", "/q/x/y"])
    }

    func test_splitRuleNeedingTheQueryTakesTheLongWay() throws {
        try assertAgree(
            [#"{"/": "/a/*/b", "?": {"id": "?*"}}"#, "/a/*", ##"{"/": "*/b", "#": "top"}"##],
            ["/a/x/b?id=1", "/a/x/b?id=", "/a/x/b", "/c/b#top", "/c/b#bottom", "/a/x/b#top"])
    }

    func test_caseInsensitiveAndDecodedModesSplitOnTheirNormalisedText() throws {
        try assertAgree(
            [
                #"{"/": "/Shop/*/Reviews", "caseSensitive": false}"#, #"{"/": "/café/*/crème", "percentEncoded": false}"#,
                "/x/*/y",
            ],
            ["/shop/1/REVIEWS", "/SHOP/reviews", "/caf%C3%A9/1/cr%C3%A8me", "/café/1/crème", "/x/1/y", "/X/1/y"])
    }

    func test_defaultSplitsOnlyFromThirtyTwoEligiblePatterns() throws {
        let few = try CompiledDocument(document: try document((0..<31).map { "/s\($0 % 2)/*/leaf\($0)" }), domain: "example.com")
        XCTAssertEqual(few.splitPatternCount, 0)
        let many = try CompiledDocument(document: try document((0..<32).map { "/s\($0 % 2)/*/leaf\($0)" }), domain: "example.com")
        XCTAssertEqual(many.splitPatternCount, 32)
    }

    /// Hostile: every prefix of a long run of `a` is a prefix group and every suffix a suffix:
    /// the pair lookups stay bounded by the document's pairs, and the answers right.
    func test_manyNestedPrefixesAndSuffixesStayCorrect() throws {
        let rules = (1...40).map { "/" + String(repeating: "a", count: $0) + "*" + String(repeating: "a", count: 41 - $0) }
        try assertAgree(rules, ["/" + String(repeating: "a", count: 41), "/" + String(repeating: "a", count: 42), "/" + String(repeating: "a", count: 4000)])
    }
}

/// Automata determinised whole at compile time (`LazyDFA.Prebuilt(eager:)`): built when the DFA
/// stays small, left lazy when it blows up, and deciding as the lazy cache does.
final class EagerTableTests: XCTestCase {
    func test_smallDocument_staysLazy_unlessTheMinimumIsLowered() throws {
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/buy/*"}, {"/": "/p/?"}]}]}}"#
        let document = try AASADocument(bytes: Array(json.utf8))
        let small = try CompiledDocument(document: document, domain: "example.com")
        XCTAssertTrue(small.labelledAutomata.allSatisfy { !$0.dfa.isPrebuilt }, "a small DFA keeps the lazy cache")
        let compiled = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        XCTAssertTrue(compiled.labelledAutomata.allSatisfy { $0.dfa.isPrebuilt })
        let matcher = DFAMatcher(compiled)
        let before = matcher.cacheStatistics.statesBuilt
        for path in ["/buy/1", "/p/é", "/p/ab", "/", "/buy"] { _ = try matcher.decide("https://example.com" + path, app: nil) }
        XCTAssertEqual(matcher.cacheStatistics.statesBuilt, before, "states built while matching")
    }

    /// `/*a` and 20 `?` needs 2^20 DFA states: the attempt stops at twice the NFA's states.
    func test_blowUpDocument_staysLazyAndStillDecides() throws {
        let pattern = "/*a" + String(repeating: "?", count: 20)
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "\#(pattern)"}]}]}}"#
        let document = try AASADocument(bytes: Array(json.utf8))
        let compiled = try CompiledDocument(document: document, domain: "example.com")
        XCTAssertEqual(compiled.path.compactMap { $0 }.map(\.isPrebuilt), [false])
        // Past the default work budget these URLs are refused (`WorkBudgetTests`); raised, the
        // lazy automaton decides them as the reference does.
        let matcher = DFAMatcher(compiled)
        matcher.limitWork(to: Configuration.Limit.ceiling)
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        for path in ["/xa" + String(repeating: "b", count: 20), "/a" + String(repeating: "b", count: 19)] {
            XCTAssertEqual(try matcher.decide("https://example.com" + path, app: nil), try reference.decide("https://example.com" + path, app: nil))
        }
    }

    /// `*a` 1 000 times, then `*b`: about 1 000 DFA states, well within the state allowance,
    /// but the i-th holds every loop passed so far (thousands of positions), so the compile-time
    /// attempt runs out of its work allowance (eight positions a state) and the automaton stays
    /// lazy, deciding as the reference does. Without that allowance it would be determinised
    /// whole, at the cost of millions of position steps.
    func test_hugeSubsets_stayLazyAndStillDecide() throws {
        let pattern = String(repeating: "*a", count: 1_000) + "*b"
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "\#(pattern)"}]}]}}"#
        let document = try AASADocument(bytes: Array(json.utf8))
        let compiled = try CompiledDocument(document: document, domain: "example.com")
        XCTAssertEqual(compiled.path.compactMap { $0 }.map(\.isPrebuilt), [false])
        // Past the default work budget these URLs are refused (`WorkBudgetTests`); raised, the
        // lazy automaton decides them as the reference does.
        let matcher = DFAMatcher(compiled)
        matcher.limitWork(to: Configuration.Limit.ceiling)
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        for path in ["/" + String(repeating: "a", count: 999) + "b", "/" + String(repeating: "xa", count: 1_000) + "b", "/ab"] {
            let url = "https://example.com" + path
            XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), String(url.prefix(40)))
        }
    }

    /// The split keeps a large generated document's DFA linear, so it is determinised whole
    /// (in the compact form: too large for dense rows) and agrees with the lazy cache.
    func test_generatedPathDocument_isDeterminisedWholeInTheCompactForm() throws {
        let generated = SyntheticDocument(kind: .paths, ruleCount: 2_000)
        let document = try generated.parsed()
        let compiled = try CompiledDocument(document: document, domain: generated.domain)
        let path = try XCTUnwrap(compiled.path.compactMap { $0 }.first)
        XCTAssertTrue(path.isPrebuilt, "over 1 MiB of dense rows: determinised at compile time")
        XCTAssertEqual(path.prebuilt?.isDense, false)
        let lazy = DFAMatcher(try CompiledDocument(document: document, domain: generated.domain, configuration: EngineConfigurations.lazyOnly))
        let eager = DFAMatcher(compiled)
        let before = eager.cacheStatistics.statesBuilt
        for url in URLStream.generate(for: generated, count: 3_000) {
            XCTAssertEqual(try eager.decide(url, app: nil), try lazy.decide(url, app: nil), url)
        }
        XCTAssertEqual(eager.cacheStatistics.statesBuilt, before, "states built while matching")
    }
}
