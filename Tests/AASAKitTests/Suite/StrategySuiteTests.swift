@testable import AASAKit
import XCTest
import _AASATestSupport

/// The whole case suite on the compiled engine, once per strategy configuration
/// (`EngineConfigurations.strategies`): every one must give the expected answers, and each
/// checks that the strategy it is named after actually ran, through the document's plan
/// (`CompiledDocument.plan`) or, for the NFA-simulation fallback, the caches' statistics.
///
/// `AASA_CASE=substring` runs only the cases whose name contains it; `Tests/Cases/skips.txt`
/// lists (configuration, case) pairs not run, each with its reason.
final class StrategySuiteTests: XCTestCase {
    func test_suite_planned() throws { try runSuite("planned") }
    func test_suite_lazyDFA() throws { try runSuite("lazy-dfa") }
    func test_suite_lazyDFATinyCacheThatForcesClearing() throws { try runSuite("lazy-dfa-tiny-cache") }
    func test_suite_nfaSimulation() throws { try runSuite("nfa-simulation") }
    func test_suite_compactTable() throws { try runSuite("compact-table") }
    func test_suite_suffixSplit() throws { try runSuite("suffix-split") }
    func test_suite_compactTableWithSuffixSplitAndCompiledRows() throws { try runSuite("compact-table-suffix-split") }
    func test_suite_noByteClasses() throws { try runSuite("no-byte-classes") }

    func test_skipList_namesOnlyExistingConfigurationsAndCases() throws {
        let names = Set(try CaseSuite.load().map(\.name))
        let problems = try SkipList.load().problems(
            configurations: Set(EngineConfigurations.strategies.map(\.name)), caseNames: names)
        XCTAssertEqual(problems, [])
    }

    func test_skipList_givesEachSkippedPairItsReasonAndRefusesIncompleteLines() throws {
        let list = try SkipList(parsing: """
            # comment

            lazy-dfa | some case | issue 99: wrong answer
            """)
        XCTAssertEqual(list.reason(configuration: "lazy-dfa", caseName: "some case"), "issue 99: wrong answer")
        XCTAssertNil(list.reason(configuration: "compact-table", caseName: "some case"))
        XCTAssertEqual(
            list.problems(configurations: ["lazy-dfa"], caseNames: ["other case"]), ["unknown case some case"])
        XCTAssertThrowsError(try SkipList(parsing: "lazy-dfa | some case"))
        XCTAssertThrowsError(try SkipList(parsing: "lazy-dfa | some case |  "))
    }

    func test_caseFilter_keepsTheCasesWhoseNameContainsIt() throws {
        let cases = try CaseSuite.load()
        let name = try XCTUnwrap(cases.first?.name)
        XCTAssertEqual(CaseSelection.select(cases, filter: name).map(\.name).contains(name), true)
        XCTAssertLessThan(CaseSelection.select(cases, filter: name).count, cases.count)
        XCTAssertEqual(CaseSelection.select(cases, filter: nil).count, cases.count)
    }

    /// Holds the engine a factory made, so that the run can read its plan and statistics.
    private final class Made: @unchecked Sendable {
        var matcher: DFAMatcher?
    }

    /// What the cases of one run showed of the strategies, summed.
    private struct Tally {
        var compactTables = 0
        var splits = 0
        var compiledRows = 0
        var fallbacks = 0
        var clears = 0
    }

    private func runSuite(_ name: String) throws {
        let configuration = try XCTUnwrap(EngineConfigurations.named(name))
        let all = try CaseSuite.load()
        XCTAssertFalse(all.isEmpty)
        let filter = CaseSelection.filter
        let cases = CaseSelection.select(all, filter: filter)
        if let filter, cases.isEmpty { XCTFail("no case name contains \(CaseSelection.variable)=\(filter)") }
        let skips = try SkipList.load()
        var tally = Tally()
        for testCase in cases {
            let label = "[\(name)] [\(testCase.file)] \(testCase.name) (SPEC \(testCase.spec))"
            if skips.reason(configuration: name, caseName: testCase.name) != nil { continue }
            let made = Made()
            let factory = configuration.factory
            let failure = EngineRunner.check(testCase) { document, domain in
                let engine = try factory(document, domain)
                made.matcher = engine as? DFAMatcher
                return engine
            }
            if let failure { XCTFail("\(label): \(failure)") }
            guard let matcher = made.matcher else { continue }
            for problem in check(configuration, matcher, &tally) { XCTFail("\(label): \(problem)") }
        }
        // Whole-suite evidence: only meaningful on the whole suite.
        guard filter == nil else { return }
        switch name {
        case "lazy-dfa-tiny-cache": XCTAssertGreaterThan(tally.clears, 0, "the tiny cache never cleared")
        case "nfa-simulation": XCTAssertGreaterThan(tally.fallbacks, 0, "no search finished by NFA simulation")
        case "compact-table": XCTAssertGreaterThan(tally.compactTables, 0, "no compact table was built")
        case "suffix-split": XCTAssertGreaterThan(tally.splits, 0, "no path pattern was split")
        case "compact-table-suffix-split":
            XCTAssertGreaterThan(tally.splits, 0, "no path pattern was split")
            XCTAssertGreaterThan(tally.compiledRows, 0, "no document used compile-time decision rows")
        default: break
        }
    }

    /// What is wrong with `matcher`'s plan or statistics for `configuration`: the plan must
    /// describe the automata as they are, and the forced strategy must run wherever it can.
    private func check(_ configuration: StrategyConfiguration, _ matcher: DFAMatcher, _ tally: inout Tally) -> [String] {
        let compiled = matcher.compiled
        let plan = compiled.plan
        var problems: [String] = []
        for ((label, choice), automaton) in zip(plan.automata, compiled.labelledAutomata) {
            let actual: Strategy =
                automaton.dfa.prebuilt == nil ? .lazyDFA : automaton.dfa.prebuilt?.isDense == true ? .denseTable : .compactTable
            if choice.strategy != actual { problems.append("\(label): the plan says \(choice.strategy), it runs \(actual)") }
            if choice.strategy == .compactTable { tally.compactTables += 1 }
        }
        tally.splits += plan.splits.filter(\.isSplit).count
        if plan.path.strategy == .soloPathCompiledRows { tally.compiledRows += 1 }
        let statistics = matcher.cacheStatistics
        tally.fallbacks += statistics.fallbacks
        tally.clears += statistics.clears
        let automata = configuration.configuration.automata
        if automata.eagerMaxStates == 0 {
            for (label, choice) in plan.automata where choice.strategy != .lazyDFA {
                problems.append("\(label): \(choice.strategy), expected lazy-dfa")
            }
        }
        if automata.compactTableMinimumBytes == 0 && automata.eagerMaxStates > 0 {
            for (label, choice) in plan.automata where choice.strategy != .compactTable {
                switch choice.reason {
                case .notDetermined, .notCompactable: continue
                default: problems.append("\(label): \(choice), expected compact-table")
                }
            }
        }
        if automata.suffixSplitMinimum == 0 {
            for split in plan.splits where split.candidates > 0 && !split.isSplit {
                problems.append("split \(split.mode): \(split), expected suffix-split")
            }
        }
        if automata.maxClearsPerSearch == .max && statistics.fallbacks > 0 {
            problems.append("\(statistics.fallbacks) searches fell back to NFA simulation with no clear limit")
        }
        if !automata.useByteClasses {
            for (label, choice) in plan.automata where choice.classes != 256 {
                problems.append("\(label): \(choice.classes) byte classes, expected 256")
            }
        }
        return problems
    }
}
