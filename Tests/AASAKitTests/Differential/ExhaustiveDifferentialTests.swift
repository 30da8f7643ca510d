import AASAKit
import XCTest
import _AASATestSupport

/// Every pattern up to three pieces over a small alphabet against every path up to three
/// characters, in every text mode: the compiled engine and the reference must agree on all of
/// them (RE2's exhaustive tester, scaled to AASA).
final class ExhaustiveDifferentialTests: XCTestCase {
    func test_exhaustive_smallPatternsAgainstSmallPaths() throws {
        let patternAlphabet = ["a", "A", "/", "*", "?", "é", "$(v)"]
        let pathAlphabet = ["a", "A", "/", "é", "%41", "e%CC%81"]
        var patterns = [""]
        var frontier = [""]
        for _ in 0..<3 {
            frontier = frontier.flatMap { prefix in patternAlphabet.map { prefix + $0 } }
            patterns += frontier
        }
        var paths = ["/"]
        var pathFrontier = ["/"]
        for _ in 0..<3 {
            pathFrontier = pathFrontier.flatMap { prefix in pathAlphabet.map { prefix + $0 } }
            paths += pathFrontier
        }
        var comparisons = 0
        var failures: [String] = []
        for flags in [(true, true), (false, true), (true, false), (false, false)] {
            let components = patterns.map { pattern -> JSONValue in
                .object(JSONObject(members: [("/", .string(pattern)), ("caseSensitive", .bool(flags.0)), ("percentEncoded", .bool(flags.1))]))
            }
            // One entry per pattern, one app per entry: every pattern's verdict is visible.
            let entries = components.enumerated().map { index, rule -> JSONValue in
                .object(JSONObject(members: [("appID", .string("T.app\(index)")), ("components", .array([rule]))]))
            }
            let json = JSONValue.object(JSONObject(members: [
                ("applinks", .object(JSONObject(members: [
                    ("substitutionVariables", .object(JSONObject(members: [("v", .array([.string("a"), .string("é?")]))]))),
                    ("details", .array(entries)),
                ])))
            ]))
            let document = try AASADocument(json: json)
            let matcher = DFAMatcher(try CompiledDocument(document: document, domain: "example.com"))
            let reference = ReferenceMatcher(document: document, domain: "example.com")
            for path in paths {
                let url = "https://example.com" + path
                let fast = try matcher.decide(url, app: nil)
                let slow = try reference.decide(url, app: nil)
                comparisons += fast.decisions.count
                if fast != slow, failures.count < 10 {
                    let differing = zip(fast.decisions, slow.decisions).filter { $0 != $1 }.prefix(3)
                    failures.append("\(flags) \(url): \(differing.map { "dfa \($0.0) vs reference \($0.1)" })")
                }
            }
        }
        XCTAssertGreaterThan(comparisons, 400_000)
        XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
    }
}
