@testable import AASAKit
import XCTest

/// The two path searchers (`PathSearcher`) answer the same question in different ways: over a
/// one-mode document, `SoloPathSearcher` (with its split and decision rows) and
/// `MultiModePathSearcher` (run on that one mode) must walk the same rules in the same order,
/// and those rules are exactly the ones whose path pattern matches.
final class PathSearcherTests: XCTestCase {
    /// Enough `literal * literal` patterns to be split (`suffixSplitMinimum` 0 below), a rule
    /// that needs the query, and patterns that overlap so a path matches several rules.
    let document = """
        {"applinks": {"details": [
          {"appIDs": ["T.a"], "components": [
            {"/": "/shop/*/reviews"}, {"/": "/shop/*"}, {"/": "/help/*/faq"}, {"/": "/help/*", "?": "x=1"}
          ]},
          {"appIDs": ["T.b", "T.a"], "components": [{"/": "/shop/*/reviews", "exclude": true}, {"/": "*"}]}
        ]}}
        """
    let paths = ["/shop/1/reviews", "/shop/1/reviews/", "/shop/", "/help/x/faq", "/help/faq", "/other", "/", ""]
    /// The rules (evaluation order) whose path pattern matches each path, worked out by hand.
    let expected: [[Int32]] = [
        [0, 1, 4, 5], [0, 1, 4, 5], [1, 5], [2, 3, 5], [3, 5], [5], [5], [5],
    ]

    func test_soloAndMultiModeSearchers_walkTheSameRulesInRuleOrder() throws {
        let parsed = try AASADocument(bytes: Array(document.utf8))
        for splitMinimum in [0, 1_000] {
            var configuration = Configuration.default
            configuration.automata.suffixSplitMinimum = splitMinimum
            let compiled = try CompiledDocument(document: parsed, domain: "example.com", configuration: configuration)
            XCTAssertEqual(compiled.pathModes.count, 1)
            let mode = try XCTUnwrap(compiled.pathModes.first)
            let dfa = try XCTUnwrap(compiled.path[mode.index])
            XCTAssertEqual(compiled.pathSplits[mode.index] != nil, splitMinimum == 0)
            var solo = try Self.soloSearcher(compiled)
            var multi = MultiModePathSearcher(
                automata: [.init(mode: mode, cache: dfa.makeCache(), split: compiled.pathSplits[mode.index])],
                layout: compiled.pathPlan.layout)
            var normalizer = ComponentNormalizer()
            for (path, rules) in zip(paths, expected) {
                let bytes = Array(path.utf8)
                let (fromSolo, fromMulti) = bytes.withView { path in
                    solo.search(path, normalizer: &normalizer)
                    multi.search(path, normalizer: &normalizer)
                    return (Self.walk(&solo), Self.walk(&multi))
                }
                XCTAssertEqual(fromSolo, rules, "solo, split minimum \(splitMinimum), \(path)")
                XCTAssertEqual(fromMulti, rules, "multi-mode, split minimum \(splitMinimum), \(path)")
            }
        }
    }

    func test_walkRules_stopsWhenTheBodySaysSo() throws {
        let parsed = try AASADocument(bytes: Array(document.utf8))
        let compiled = try CompiledDocument(document: parsed, domain: "example.com")
        var solo = try Self.soloSearcher(compiled)
        var normalizer = ComponentNormalizer()
        Array("/shop/1/reviews".utf8).withView { solo.search($0, normalizer: &normalizer) }
        var seen: [Int32] = []
        solo.walkRules { rule in
            seen.append(rule)
            return seen.count < 2
        }
        XCTAssertEqual(seen, [0, 1])
    }

    /// The decision row answers only when the path alone decides: a path whose first rule for
    /// `T.a` needs the query (rule 3, `/help/*` with `?x=1`) must be walked; one where such a
    /// rule comes after the app is decided is not.
    func test_decisionRow_settlesOnlyWhatThePathAloneDecides() throws {
        let parsed = try AASADocument(bytes: Array(document.utf8))
        let compiled = try CompiledDocument(document: parsed, domain: "example.com")
        var solo = try Self.soloSearcher(compiled)
        var normalizer = ComponentNormalizer()
        func outcome(_ path: String) -> (SoloPathSearcher.RowOutcome, [Int32]) {
            let decisions = DecisionBuffer(count: 2)
            defer { decisions.deallocate() }
            Array(path.utf8).withView { solo.search($0, normalizer: &normalizer) }
            return (solo.decideFromRow(onlyApp: nil, decisions: decisions), Array(decisions.buffer))
        }
        // [T.a, T.b]
        XCTAssertEqual(outcome("/shop/").0, .decided)
        XCTAssertEqual(outcome("/shop/").1, [1, 5])
        XCTAssertEqual(outcome("/shop/1/reviews").1, [0, 4])
        XCTAssertEqual(outcome("/help/x/faq").1, [2, 5])
        XCTAssertEqual(outcome("/help/faq").0, .needsWalk)
        XCTAssertEqual(outcome("/help/faq").1, [-1, -1])
    }

    /// The solo searcher of `compiled`'s one path mode, with a fresh cache.
    private static func soloSearcher(_ compiled: CompiledDocument) throws -> SoloPathSearcher {
        let mode = try XCTUnwrap(compiled.pathModes.first)
        let dfa = try XCTUnwrap(compiled.path[mode.index])
        return SoloPathSearcher(
            cache: dfa.makeCache(), mode: mode, split: compiled.pathSplits[mode.index], plan: compiled.pathPlan,
            rules: compiled.rules, appCount: compiled.appIDs.count)
    }

    private static func walk<Searcher: PathSearcher>(_ searcher: inout Searcher) -> [Int32] {
        var rules: [Int32] = []
        searcher.walkRules { rule in
            rules.append(rule)
            return true
        }
        return rules
    }

    /// A matcher forgets one URL's query and fragment results before the next (it skips that
    /// step when the last URL set none): deciding URLs one after the other on one matcher gives
    /// what a fresh matcher gives each, in both path searchers and whatever the order.
    func test_queryAndFragmentResults_ofOneURL_neverDecideTheNext() throws {
        let solo = """
            {"applinks": {"details": [{"appIDs": ["T.a"], "components": [
              {"/": "/p", "?": "x=1", "#": "f", "exclude": true}, {"/": "/p", "?": "x=*"},
              {"/": "/q", "?": {"k": "v"}}, {"/": "/r"}
            ]}]}}
            """
        // A second text mode makes the plan search paths in several modes.
        let multi = solo.replacingOccurrences(of: #"{"/": "/r"}"#, with: #"{"/": "/R", "caseSensitive": false}"#)
        let urls = [
            "https://example.com/p?x=1#f", "https://example.com/p?x=1", "https://example.com/p", "https://example.com/p?x=2#f",
            "https://example.com/q?k=v", "https://example.com/q?k=w", "https://example.com/r", "https://example.com/q",
            "https://example.com/p?y=1#f", "https://example.com/p?x=1#f",
        ]
        for text in [solo, multi] {
            let compiled = try CompiledDocument(document: try AASADocument(bytes: Array(text.utf8)), domain: "example.com")
            let expected = try urls.map { try DFAMatcher(compiled).decide($0, app: nil) }
            for order in [urls.indices.map { $0 }, urls.indices.reversed(), [0, 2, 0, 4, 5, 4, 1, 3, 9, 8, 7, 6]] {
                let matcher = DFAMatcher(compiled)
                for index in order {
                    XCTAssertEqual(try matcher.decide(urls[index], app: nil), expected[index], "\(urls[index]) in \(order)")
                }
            }
        }
        // The two documents do take the two searchers.
        let plans = try [solo, multi].map { try CompiledDocument(document: try AASADocument(bytes: Array($0.utf8)), domain: "example.com").pathPlan.strategy }
        XCTAssertNotEqual(plans[0], .multiModePath)
        XCTAssertEqual(plans[1], .multiModePath)
    }
}
