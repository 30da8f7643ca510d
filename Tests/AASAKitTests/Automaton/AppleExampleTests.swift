import AASAKit
import BenchmarkKit
import XCTest
import _AASATestSupport

/// Apple's `$(lang)_$(region)/$(food)` example compiles to a small automaton, far below what
/// any expansion of the variables into pattern lists could occupy, and decides correctly.
final class AppleExampleTests: XCTestCase {
    func test_appleExample_automatonIsFarSmallerThanListExpansion() throws {
        let document = try AASADocument(bytes: Array(AppleExample.json.utf8))
        let naive = ListExpansion(of: document)
        XCTAssertGreaterThan(naive.patterns, 600_000, "the example expands to hundreds of thousands of patterns")
        XCTAssertGreaterThan(naive.bytes, 9_000_000)

        let compiled = try CompiledDocument(document: document, domain: "example.com")
        // Everything compiled, the compile-time DFA tables included, stays under 1 MB, and the
        // NFAs the tables are built from are at least 100x smaller than the expansion.
        XCTAssertLessThan(compiled.memoryUsage, 1 << 20, "the compiled document must stay under 1 MB")
        XCTAssertLessThan(compiled.memoryUsage * 10, naive.bytes, "at least 10x smaller than the expansion, tables included")
        let nfaBytes = compiled.labelledAutomata.reduce(0) { $0 + $1.dfa.nfa.memoryUsage }
        XCTAssertLessThan(nfaBytes * 100, naive.bytes, "NFAs at least 100x smaller than the expansion")

        // Fully determinised and minimised, the path automaton still fits in well under 1 MB.
        let path = try XCTUnwrap(compiled.labelledAutomata.first { $0.label.hasPrefix("path") }?.dfa)
        let dense = try DenseDFA(nfa: path.nfa, maxStates: 100_000).minimized()
        XCTAssertLessThan(dense.memoryUsage, 1 << 20)
    }

    func test_appleExample_decisionsAgreeWithReference() throws {
        let document = try AASADocument(bytes: Array(AppleExample.json.utf8))
        let matcher = DFAMatcher(try CompiledDocument(document: document, domain: "example.com"))
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        let expectations: [(String, DecisionKind, Int?)] = [
            ("https://example.com/en_US/pizza/", .match, 2),
            ("https://example.com/fr_CA/pizza/", .exclude, 1),
            ("https://example.com/fr_CA/poutine", .match, 0),
            ("https://example.com/en_UK/pizza/", .noMatch, nil),
            ("https://example.com/en_GB/sushi", .match, 2),
            ("https://example.com/xx_US/pizza/", .noMatch, nil),
            ("https://example.com/en_US/tacos/", .noMatch, nil),
        ]
        for (url, kind, rule) in expectations {
            let fast = try matcher.decide(url, app: nil)
            XCTAssertEqual(fast, try reference.decide(url, app: nil), url)
            XCTAssertEqual(fast.decisions.first?.kind, kind, url)
            XCTAssertEqual(fast.decisions.first?.rule, rule, url)
        }
    }
}
