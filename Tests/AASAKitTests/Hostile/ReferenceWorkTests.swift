import AASAKit
import Foundation
import XCTest

/// The oracle's work budget (`ReferenceWork`, glob table cells per unit of `url-work`): every
/// cost of a decision is charged before it is spent, so a URL is either decided within the
/// budget's worth of work or refused, whatever the document makes cheap to write and dear to
/// evaluate.
final class ReferenceWorkTests: XCTestCase {
    func oracle(_ text: String, workLimit: Int = Configuration.default.automata.maxURLWork) throws -> ReferenceMatcher {
        ReferenceMatcher(document: try AASADocument(bytes: Array(text.utf8)), domain: "x.example", workLimit: workLimit)
    }

    func verdict(_ oracle: ReferenceMatcher, _ url: String) -> String {
        do { return "\(try oracle.decide(url, app: nil).decisions.map(\.kind))" } catch { return "\(error)" }
    }

    /// An empty pattern has no token, and was charged nothing, while each rule still compared
    /// its whole text: 14 000 rules `{"#": ""}` against a 64 KB fragment took over 20 s (and
    /// 95 s with a fragment of combining marks). Every rule is charged the text it compares.
    func test_rulesOfEmptyPatterns_areChargedTheTextTheyCompare() throws {
        let rules = Array(repeating: ##"{"#": ""}"##, count: 2_000).joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[\#(rules)]}]}}"#
        let limit = 30_000
        let strict = try oracle(text, workLimit: limit)
        let long = "https://x.example/#" + String(repeating: "A", count: 20_000)
        XCTAssertEqual(verdict(strict, long), "work limit exceeded (url-work=\(limit))")
        XCTAssertThrowsError(try strict.explain(long, app: "T.a")) {
            XCTAssertEqual($0 as? URLSplitError, .workLimitExceeded(limit: limit))
        }
        // Within the budget the decision is the rules': the empty fragment matches.
        XCTAssertEqual(verdict(strict, "https://x.example/#" + String(repeating: "A", count: 100)), "[AASAKit.DecisionKind.noMatch]")
        XCTAssertEqual(try strict.decide("https://x.example/", app: nil).decisions.first?.rule, 0)
        XCTAssertEqual(verdict(try oracle(text, workLimit: 200_000), long), "[AASAKit.DecisionKind.noMatch]")
    }

    /// A variable's values were charged their tokens but not the row each one's result is
    /// merged through, nor a row's allocation: a pattern calling a 15 500-value variable 16 000
    /// times against the path `/` (an empty text) was charged about 500 million cells, just under
    /// the default budget, and took 22 s. Each row is charged its allocation (`Glob.cellsPerRow`).
    func test_variableAlternatives_areChargedARowEach_evenAgainstAnEmptyText() throws {
        let values = Array(repeating: #""a""#, count: 1_000).joined(separator: ",")
        let pattern = "/" + String(repeating: "$(v)", count: 1_000)
        let text = #"{"applinks":{"substitutionVariables":{"v":[\#(values)]},"details":[{"appID":"T.a","components":[{"/":"\#(pattern)"}]}]}}"#
        XCTAssertEqual(verdict(try oracle(text, workLimit: 50_000), "https://x.example/"), "work limit exceeded (url-work=50000)")
        XCTAssertEqual(verdict(try oracle(text), "https://x.example/"), "[AASAKit.DecisionKind.noMatch]")
    }

    /// The sizes of a variable's values were summed at every call site when the matcher was
    /// made: 18 s for this pattern (250 KB) before any URL, in a test build. They are counted
    /// once per variable and text mode. A hang guard, not a speed claim.
    func test_aPatternCallingAVariableOfThousandsOfValuesThousandsOfTimes_isPreparedOnce() throws {
        let values = Array(repeating: #""a""#, count: 31_000).joined(separator: ",")
        let pattern = "/" + String(repeating: "$(v)", count: 32_000)
        let text = #"{"applinks":{"substitutionVariables":{"v":[\#(values)]},"details":[{"appID":"T.a","components":[{"/":"\#(pattern)"}]}]}}"#
        var configuration = Configuration()
        configuration.document.maxBytes = 1 << 20
        configuration.document.maxPatternBytes = 1 << 20
        let started = Date()
        let document = try AASADocument(bytes: Array(text.utf8), configuration: configuration)
        let oracle = ReferenceMatcher(document: document, domain: "x.example")
        XCTAssertThrowsError(try oracle.explain("https://x.example/", app: "T.a")) {
            XCTAssertEqual($0 as? URLSplitError, .workLimitExceeded(limit: 500_000))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "18 s when each call site summed the values")
    }

    /// The URL is normalised once per pair of flags, not once per rule, and every evaluation
    /// keeps that one copy: 14 000 rules kept 14 000 folded copies of a 64 KB fragment (464 MB).
    func test_comparedTexts_areNormalisedOncePerMode_andSharedByEveryRule() throws {
        let rules = Array(repeating: ##"{"?": {"q": "x"}, "#": "x"}"##, count: 50).joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appID":"T.a","defaults":{"caseSensitive":false},"components":[\#(rules)]}]}}"#
        let explanation = try oracle(text).explain(
            "https://x.example/?q=" + String(repeating: "Q", count: 400) + "#" + String(repeating: "F", count: 400), app: "T.a")
        XCTAssertEqual(explanation.trail.count, 50)
        func storage(_ component: String) -> Set<UInt> {
            Set(
                explanation.trail.map { evaluation in
                    let text = evaluation.components.first { $0.component == component }?.comparedText ?? ""
                    return text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
                })
        }
        for component in ["?q", "#"] {
            XCTAssertEqual(explanation.trail.first?.components.first { $0.component == component }?.comparedText.utf8.count, 400)
            XCTAssertEqual(storage(component).count, 1, "\(component): one copy for every rule")
        }
    }

    /// The refusal depends on the document and the URL alone: the same matcher refuses and
    /// decides the same URLs in any order, and a fresh one agrees.
    func test_refusal_isTheSameInAnyOrderAndForAFreshMatcher() throws {
        let rules = (0..<300).map { ##"{"/": "/\##($0)/*", "?": {"a": "*b*"}, "#": ""}"## }.joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appID":"T.a","defaults":{"percentEncoded":false},"components":[\#(rules)]}]}}"#
        let urls = (0..<30).map { "https://x.example/\($0 * 10)/" + String(repeating: "%41", count: $0 * 300) + "?a=b#" }
        let limit = 20_000
        let forward = try oracle(text, workLimit: limit)
        let backward = try oracle(text, workLimit: limit)
        let verdicts = urls.map { verdict(forward, $0) }
        XCTAssertEqual(Array(urls.reversed().map { verdict(backward, $0) }.reversed()), verdicts)
        XCTAssertEqual(try urls.map { verdict(try oracle(text, workLimit: limit), $0) }, verdicts)
        XCTAssertTrue(verdicts.contains("work limit exceeded (url-work=\(limit))"), "the shape must reach the budget")
        XCTAssertTrue(verdicts.contains { !$0.hasPrefix("work") }, "and short URLs must be decided")
    }
}
