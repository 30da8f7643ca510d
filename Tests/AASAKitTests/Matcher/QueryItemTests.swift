@testable import AASAKit
import XCTest

/// Query dictionaries (SPEC 7) on the compiled engine: a URL's work follows its own items, not
/// the names its document lists (`QueryItemEvaluator`).
final class QueryItemTests: XCTestCase {
    func compile(_ json: String) throws -> CompiledDocument {
        try CompiledDocument(document: try AASADocument(bytes: Array(json.utf8)), domain: "x.example")
    }

    /// A document naming `count` items `k0`…, each needing a value starting with `v` (an empty
    /// value does not do: every item must be present).
    func manyNames(_ count: Int) -> String {
        let items = (0..<count).map { #""k\#($0)": "v*""# }.joined(separator: ", ")
        return #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/p", "?": {\#(items)}}]}]}}"#
    }

    func test_aMatcher_makesTheCacheOfAnItemName_onlyWhenAURLHasThatItem() throws {
        let compiled = try compile(manyNames(1_000))
        XCTAssertEqual(compiled.queryGroups[TextMode(decoded: false, folded: false).index].count, 1_000)
        let matcher = DFAMatcher(compiled)
        XCTAssertEqual(matcher.queryItemCacheCount, 0)
        XCTAssertEqual(try matcher.decide("https://x.example/p?k7=v1&other=1", app: nil).decisions.first?.kind, .noMatch)
        XCTAssertEqual(matcher.queryItemCacheCount, 1, "only k7 was named")
        XCTAssertEqual(try matcher.decide("https://x.example/q?k8=v", app: nil).decisions.first?.kind, .noMatch)
        XCTAssertEqual(matcher.queryItemCacheCount, 1, "the path decided: the query was not read")
        let all = (0..<1_000).map { "k\($0)=v\($0)" }.joined(separator: "&")
        XCTAssertEqual(try matcher.decide("https://x.example/p?" + all, app: nil).decisions.first?.kind, .match)
        XCTAssertEqual(matcher.queryItemCacheCount, 1_000)
        // One item wrong or missing among a thousand still fails the rule.
        let oneWrong = all.replacingOccurrences(of: "k500=v500", with: "k500=w")
        XCTAssertEqual(try matcher.decide("https://x.example/p?" + oneWrong, app: nil).decisions.first?.kind, .noMatch)
        let oneMissing = all.replacingOccurrences(of: "k999=v999", with: "")
        XCTAssertEqual(try matcher.decide("https://x.example/p?" + oneMissing, app: nil).decisions.first?.kind, .noMatch)
    }

    /// Rules sharing item names, names folded together (`caseSensitive: false`), repeated items,
    /// values an empty item satisfies and ones it does not: the counting agrees with the
    /// reference on every combination of these items.
    func test_dictionaries_agreeWithTheReference_onMissingRepeatedAndFoldedItems() throws {
        let json = #"""
            {"applinks": {"details": [{"appIDs": ["T.a", "T.b", "T.c"], "components": [
              {"?": {"id": "?*", "ref": "*"}, "exclude": true, "comment": "id present, any ref"},
              {"?": {"id": "4*", "tag": ""}},
              {"?": {"ID": "1", "Id": "1?"}, "caseSensitive": false},
              {"?": {"tag": "x", "id": ""}},
              {"?": {}},
              {"?": {"ref": "?"}}
            ]}]}}
            """#
        let document = try AASADocument(bytes: Array(json.utf8))
        let compiled = try CompiledDocument(document: document, domain: "x.example")
        let reference = ReferenceMatcher(document: document, domain: "x.example")
        let matcher = DFAMatcher(compiled)
        let items = ["id=42", "id=1", "ID=1", "id=", "id", "tag=x", "tag=", "ref=r", "ref=", "Id=12", "id=7"]
        var compared = 0
        for mask in 0..<(1 << items.count) where mask.nonzeroBitCount <= 4 {
            let query = items.indices.filter { mask >> $0 & 1 == 1 }.map { items[$0] }.joined(separator: "&")
            for url in ["https://x.example/?" + query, "https://x.example/?" + query + "&" + query] {
                let expected = Result { () throws(URLSplitError) in try reference.decide(url, app: nil) }
                let actual = Result { () throws(URLSplitError) in try matcher.decide(url, app: nil) }
                XCTAssertEqual(actual, expected, url)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 1_000)
    }

    /// Per-URL marks are generation stamps: past 2^32 URLs they start again without a stale
    /// stamp reading as the new URL's.
    func test_evaluator_decidesTheSameAcrossTheWrapOfItsGeneration() throws {
        let compiled = try compile(
            #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"?": {"a": "1", "b": "?*"}}]}]}}"#)
        guard case .items = compiled.rules[0].queryKind else { return XCTFail("rule 0 has no dictionary") }
        let queries = ["a=1&b=2", "a=2&b=2", "b=2", "a=1", "", "a=1&b=2", "b=x&a=1&a=1", "a=1&a=3&b=1"]
        func answers(startingAt generation: UInt32) -> [Bool] {
            var evaluator = QueryItemEvaluator(index: compiled.queryItems, generation: generation)
            var normalizer = ComponentNormalizer()
            return queries.map { query in
                Array(query.utf8).withView { evaluator.evaluate($0, normalizer: &normalizer) }
                return evaluator.holds(rule: 0)
            }
        }
        let fresh = answers(startingAt: 0)
        XCTAssertEqual(fresh, [true, false, false, false, false, true, true, false])
        XCTAssertEqual(answers(startingAt: UInt32.max - 3), fresh)
    }

    /// Every item charges the predicates of its name to the URL's budget: 6 500 rules naming
    /// `a` and a query repeating it 94 times would check 611 000 predicates, unbounded by the
    /// query's length alone.
    func test_repeatedItems_chargeTheirNamesPredicatesToTheURLBudget() throws {
        let rules = (0..<6_500).map { #"{"?":{"a":"\#($0)"}}"# }.joined(separator: ",")
        let compiled = try compile(#"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [\#(rules)]}]}}"#)
        let matcher = DFAMatcher(compiled)
        let repeated = "https://x.example/?" + Array(repeating: "a", count: 94).joined(separator: "&")
        XCTAssertThrowsError(try matcher.decide(repeated, app: nil)) { error in
            XCTAssertEqual(error as? URLSplitError, .workLimitExceeded(limit: 500_000))
        }
        // Within the budget, the same matcher decides: `a=5` twice holds rule 5 only.
        let decision = try matcher.decide("https://x.example/?a=5&a=5", app: nil)
        XCTAssertEqual(decision.decisions.first?.kind, .match)
        XCTAssertEqual(decision.decisions.first?.rule, 5)
    }
}
