import AASAKit
import XCTest
import _AASATestSupport

/// The whole case suite on the compiled engine, in every configuration that changes how the lazy
/// DFA works but must never change an answer.
final class LazyDFASuiteTests: XCTestCase {
    func test_suite_defaultConfiguration() throws {
        try runSuite(EngineConfigurations.dfaDefault, label: "default")
    }

    func test_suite_tinyCacheThatForcesClearing() throws {
        try runSuite(EngineConfigurations.dfaTinyCache, label: "tinyCache")
    }

    func test_suite_nfaSimulationFallback() throws {
        try runSuite(EngineConfigurations.dfaSimulationFallback, label: "simulationFallback")
    }

    func test_suite_noByteClasses() throws {
        try runSuite(EngineConfigurations.dfaNoByteClasses, label: "noByteClasses")
    }

    func test_suite_everyLiteralStarLiteralPathSplitIntoPrefixAndSuffix() throws {
        try runSuite(EngineConfigurations.dfaSplitAll, label: "splitAll")
    }

    func test_suite_lazyCacheOnlyNoTableBuiltAtCompileTime() throws {
        try runSuite(EngineConfigurations.dfaLazyOnly, label: "lazyOnly")
    }

    func test_suite_compactEagerTables() throws {
        try runSuite(EngineConfigurations.dfaCompactTables, label: "compactTables")
    }

    func test_suite_compactTablesWithEverySplitPatternSplit() throws {
        try runSuite(EngineConfigurations.dfaCompactSplit, label: "compactSplit")
    }

    private func runSuite(_ factory: @escaping EngineRunner.Factory, label: String) throws {
        let cases = try CaseSuite.load()
        XCTAssertFalse(cases.isEmpty)
        for testCase in cases {
            if let failure = EngineRunner.check(testCase, engine: factory) {
                XCTFail("[\(label)] [\(testCase.file)] \(testCase.name) (SPEC \(testCase.spec)): \(failure)")
            }
        }
    }
}
