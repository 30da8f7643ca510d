import AASAKit
import XCTest

/// Snapshot tests of the stable dumps behind `aasa debug nfa|dfa`.
final class AutomatonDumpTests: XCTestCase {
    let document = """
        {"applinks": {"substitutionVariables": {"v": ["ab", "ac"]}, "details": [{"appIDs": ["T.a"],
         "components": [{"/": "/b/*"}, {"/": "/$(v)", "exclude": true}]}]}}
        """

    func test_dump_minimizedDFASnapshot() throws {
        let compiled = try CompiledDocument(document: AASADocument(bytes: Array(document.utf8)), domain: "example.com")
        let path = try XCTUnwrap(compiled.labelledAutomata.first?.dfa)
        let text = AutomatonDump.describe(try DenseDFA(nfa: path.nfa).minimized())
        XCTAssertEqual(
            text,
            """
            dfa: 7 states (0 dead, 1 start), 7 byte classes
            classes: 0=[00-2e'.'] 1=[2f'/'] 2=[30'0'-60'`'] 3=[61'a'] 4=[62'b'] 5=[63'c'] 6=[64'd'-ff]
            1: [2f'/'] -> 2
            2: [61'a'] -> 3; [62'b'] -> 4
            3: [62'b'-63'c'] -> 5
            4 accept {r0}: [2f'/'] -> 6
            5 accept {r1}: (no edges)
            6 accept {r0}: [00-ff] -> 6

            """)
    }

    func test_dump_isStableAcrossCompilations() throws {
        let first = try CompiledDocument(document: AASADocument(bytes: Array(document.utf8)), domain: "example.com")
        let second = try CompiledDocument(document: AASADocument(bytes: Array(document.utf8)), domain: "example.com")
        for (a, b) in zip(first.labelledAutomata, second.labelledAutomata) {
            XCTAssertEqual(AutomatonDump.describe(a.dfa.nfa), AutomatonDump.describe(b.dfa.nfa))
            XCTAssertEqual(
                AutomatonDump.describe(try DenseDFA(nfa: a.dfa.nfa)), AutomatonDump.describe(try DenseDFA(nfa: b.dfa.nfa)))
        }
    }

    func test_minimization_keepsTheLanguage() throws {
        let compiled = try CompiledDocument(document: AASADocument(bytes: Array(document.utf8)), domain: "example.com")
        let nfa = try XCTUnwrap(compiled.labelledAutomata.first?.dfa.nfa)
        let dense = try DenseDFA(nfa: nfa)
        let minimal = dense.minimized()
        XCTAssertLessThanOrEqual(minimal.stateCount, dense.stateCount)
        for path in ["/b", "/b/", "/b/x/y", "/ab", "/ac", "/ad", "/a", "", "/bb"] {
            var bytes = Array(path.utf8)
            let a = bytes.withUnsafeMutableBufferPointer { dense.search(UnsafeBufferPointer($0)) }
            let b = bytes.withUnsafeMutableBufferPointer { minimal.search(UnsafeBufferPointer($0)) }
            XCTAssertEqual(a, b, path)
        }
    }
}
