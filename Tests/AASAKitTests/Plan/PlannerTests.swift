@testable import AASAKit
import XCTest
import _AASATestSupport

/// The plan decides how each automaton runs; the automaton layer only does what it is told.
final class PlannerTests: XCTestCase {
    /// 40 `literal * literal` path rules under one prefix and 1 000 long literal paths: a
    /// split, and a DFA whose dense rows pass `Planner.denseRowLimit`.
    static let large: AASADocument? = {
        let split = (0..<40).map { #"{"/": "/shop/*/review-\#($0)"}"# }
        let literal = (0..<1_000).map { #"{"/": "/catalogue/section-\#($0 * 7_919 % 10_007)/item-\#($0)/details"}"# }
        let text = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": ["# + (split + literal).joined(separator: ",") + "]}]}}"
        return try? AASADocument(bytes: Array(text.utf8))
    }()

    func test_plan_makesALargeDFAACompactTable_andLazyDFAMadeDirectlyNeverBuildsOne() throws {
        let compiled = try CompiledDocument(document: try XCTUnwrap(Self.large), domain: "example.com")
        let path = try XCTUnwrap(compiled.path.compactMap { $0 }.first)
        guard case .compact(_, let denseBytes, _, let limit) = path.choice.reason else {
            return XCTFail("\(path.choice)")
        }
        XCTAssertEqual(path.choice.strategy, .compactTable)
        XCTAssertGreaterThan(denseBytes, limit)
        XCTAssertEqual(limit, Planner.denseRowLimit)
        XCTAssertNotNil(path.prebuilt?.compact)
        let direct = try LazyDFA(nfa: path.nfa)
        XCTAssertNil(direct.prebuilt, "LazyDFA.init builds no table of its own")
        XCTAssertEqual(direct.choice.strategy, .lazyDFA)
        XCTAssertEqual(direct.choice.reason, .unplanned)
        XCTAssertEqual(compiled.plan.path.strategy, .soloPathCompiledRows)
        XCTAssertEqual(compiled.plan.splits.map(\.isSplit), [true])
    }

    func test_plan_keepsTheSameDFALazyUnderARaisedLimitOrWithTablesOff() throws {
        var configuration = Configuration()
        configuration.automata.compactTableMinimumBytes = 1 << 40
        let raised = try CompiledDocument(document: try XCTUnwrap(Self.large), domain: "example.com", configuration: configuration)
        let path = try XCTUnwrap(raised.path.compactMap { $0 }.first)
        XCTAssertNil(path.prebuilt)
        XCTAssertEqual(path.choice.strategy, .lazyDFA)
        guard case .denseRowsWithinLimitAtMost = path.choice.reason else { return XCTFail("\(path.choice)") }
        XCTAssertEqual(raised.plan.path.strategy, .soloPathRowsOnFirstSight)
        configuration = Configuration()
        configuration.automata.eagerMaxStates = 0
        let off = try CompiledDocument(document: try XCTUnwrap(Self.large), domain: "example.com", configuration: configuration)
        XCTAssertEqual(off.plan.automata.map(\.choice.reason), [.tablesOff])
    }

    /// A document's automata share one `eager-dfa-work`: the large document's rules in all four
    /// path modes, with every automaton asked for a table, get tables while the budget lasts,
    /// the rest stay lazy, and the decisions are the reference's either way.
    func test_plan_sharesOneEagerWorkBudgetAcrossADocumentsAutomata() throws {
        let modes = ["", #", "caseSensitive": false"#, #", "percentEncoded": false"#, #", "caseSensitive": false, "percentEncoded": false"#]
        let literal = (0..<300).map { index in #"{"/": "/catalogue/section-\#(index)/details""# + modes[index % 4] + "}" }
        let text = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": ["# + literal.joined(separator: ",") + "]}]}}"
        let document = try AASADocument(bytes: Array(text.utf8))
        var configuration = Configuration()
        configuration.automata.compactTableMinimumBytes = 0
        let unbounded = try CompiledDocument(document: document, domain: "example.com", configuration: configuration)
        XCTAssertEqual(unbounded.plan.automata.map(\.choice.strategy), Array(repeating: .compactTable, count: 4))
        // Room to try the largest table allowed (twice the NFA plus 1 024 states, times the
        // classes) once, not twice.
        let largest = unbounded.plan.automata.map { ($0.choice.nfaStates * 2 + 1_024) * $0.choice.classes }.max() ?? 0
        configuration.automata.eagerMaxWork = largest * 6 / 5
        let bounded = try CompiledDocument(document: document, domain: "example.com", configuration: configuration)
        let strategies = bounded.plan.automata.map(\.choice.strategy)
        XCTAssertTrue(strategies.contains(.compactTable), "\(bounded.plan.automata)")
        XCTAssertTrue(strategies.contains(.lazyDFA), "\(bounded.plan.automata)")
        for automaton in bounded.plan.automata where automaton.choice.strategy == .lazyDFA {
            guard case .documentWorkSpent = automaton.choice.reason else { return XCTFail("\(automaton.choice)") }
            XCTAssertTrue("\(automaton.choice)".contains("eager-dfa-work"), "\(automaton.choice)")
        }
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        let matcher = DFAMatcher(bounded)
        for index in stride(from: 0, to: 300, by: 7) {
            for url in ["https://example.com/catalogue/section-\(index)/details", "https://example.com/CATALOGUE/section-\(index)/%64etails"] {
                XCTAssertEqual(try matcher.decide(url, app: nil), try reference.decide(url, app: nil), url)
            }
        }
    }

    func test_plan_ofAnArtifact_namesTheStoredDenseTablesAndSplit() throws {
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus").path
        let rules = ClassifierRules(documents: try DomainDocuments.directory(corpus, configuration: .default), engine: .dfa)
        let bytes = CompiledArtifact.encode(rules)
        let result: Result<[CompiledArtifact.Domain], ArtifactError> = bytes.withUnsafeBytes { raw in
            do throws(ArtifactError) { return .success(try CompiledArtifact.decode(raw)) } catch { return .failure(error) }
        }
        var documents = 0
        for domain in try result.get() {
            guard case .compiled(let compiled) = domain.state else { continue }
            documents += 1
            for (label, choice) in compiled.plan.automata {
                XCTAssertEqual(choice.strategy, .denseTable, "\(domain.name) \(label)")
                guard case .storedTable = choice.reason else { return XCTFail("\(domain.name) \(label): \(choice)") }
            }
            XCTAssertTrue(compiled.plan.lines.allSatisfy { !$0.contains("candidates") }, "an artifact does not know the candidates")
        }
        XCTAssertGreaterThan(documents, 0)
    }
}
