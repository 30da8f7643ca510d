import AASAKit
import XCTest
import _AASATestSupport

/// The whole case suite on the reference matcher, through the library.
final class ReferenceSuiteTests: XCTestCase {
    func test_suite_everyCasePassesOnReference() throws {
        let all = try CaseSuite.load()
        XCTAssertGreaterThanOrEqual(all.count, 200, "the suite must keep at least 200 cases")
        // `AASA_CASE=substring`: only the cases whose name contains it.
        let cases = CaseSelection.select(all, filter: CaseSelection.filter)
        if let filter = CaseSelection.filter, cases.isEmpty { XCTFail("no case name contains \(filter)") }
        for testCase in cases {
            if let failure = EngineRunner.check(testCase, engine: { ReferenceMatcher(document: $0, domain: $1) }) {
                XCTFail("[\(testCase.file)] \(testCase.name) (SPEC \(testCase.spec)): \(failure)")
            }
        }
    }

    func test_suite_namesAreUniqueAndEverySpecSectionIsCovered() throws {
        let cases = try CaseSuite.load()
        var seen = Set<String>()
        for testCase in cases {
            XCTAssertTrue(seen.insert(testCase.name).inserted, "duplicate case name \(testCase.name)")
        }
        let sections = Set(cases.map { $0.spec.split(separator: ".").first.map(String.init) ?? $0.spec })
        for section in 2...12 {
            XCTAssertTrue(sections.contains(String(section)), "no case pins SPEC \(section)")
        }
    }
}
