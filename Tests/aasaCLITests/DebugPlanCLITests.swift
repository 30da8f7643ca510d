import Foundation
import XCTest
import _AASATestSupport

/// `aasa debug plan`: one line for the path, one per path mode's split and one per automaton,
/// each naming the strategy and the measurements that chose it, in stable text.
final class DebugPlanCLITests: XCTestCase {
    func write(_ text: String, _ name: String) throws -> String {
        let url = try makeTemporaryFolder("aasa-plan").appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Two path modes (one rule is case-insensitive), a query item and a fragment.
    static let small = """
        {"applinks": {"details": [{"appIDs": ["T.a"], "components": [
          {"/": "/b/*", "?": {"id": "?*"}}, {"/": "/c", "caseSensitive": false, "#": "top"}]}]}}
        """

    /// 40 `literal * literal` path rules under one prefix (split from 32 on) and 1 000 long
    /// literal paths, whose DFA's dense rows pass 1 MiB (a compact table).
    static var large: String {
        let split = (0..<40).map { #"{"/": "/shop/*/review-\#($0)"}"# }
        let literal = (0..<1_000).map { #"{"/": "/catalogue/section-\#($0 * 7_919 % 10_007)/item-\#($0)/details"}"# }
        return #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": ["#
            + (split + literal).joined(separator: ",") + "]}]}}"
    }

    /// Query-item automata tag predicates, not rules: they are shown as `pN`, each with its rule
    /// in a legend of their own (shown as `rN`, they named the wrong rules).
    func test_dumps_tagQueryItemPredicatesApartFromRules() throws {
        let path = try write(
            #"{"applinks":{"details":[{"appID":"ABCDE12345.x","components":[{"/":"/a"},{"/":"/c","?":{"id":"1"}},{"/":"/d","?":{"id":"2","k":"v"}}]}]}}"#,
            "items.json")
        for kind in ["nfa", "dfa"] {
            let dump = try CLIRunner.run(["debug", kind, path])
            XCTAssertEqual(dump.status, 0, dump.stderr)
            XCTAssertTrue(dump.stdout.contains("query item predicates:\n  p0 = r1\n  p1 = r2\n  p2 = r2\n"), dump.stdout)
            let items = try XCTUnwrap(dump.stdout.range(of: "== query-item")).lowerBound
            let tail = dump.stdout[items...]
            XCTAssertFalse(tail.contains("match r") || tail.contains("{r"), "\(kind): predicates shown as rules: \(tail)")
            XCTAssertTrue(dump.stdout[items...].contains(kind == "nfa" ? "match p0" : "accept {p0}"), String(dump.stdout[items...]))
        }
    }

    /// A variable's name is any string: the NFA dump shows it on its own line, escaped.
    func test_nfaDump_showsAVariableNameWithALineBreakOnOneLine() throws {
        let path = try write(
            #"{"applinks":{"substitutionVariables":{"v\nx":["a"]},"details":[{"appIDs":["ABCDE12345.x"],"components":[{"/":"/$(v\nx)"}]}]}}"#,
            "variable.json")
        let dump = try CLIRunner.run(["debug", "nfa", path])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.stdout.contains("variable $(v\\u{A}x): start "), dump.stdout)
        XCTAssertTrue(dump.stdout.contains("call $(v\\u{A}x) then "), dump.stdout)
    }

    /// The rule legend of `debug nfa|dfa` quotes app IDs from the document: one line each.
    func test_dumps_showAppIDsWithControlCharactersEscaped() throws {
        let document = try write(#"{"applinks": {"details": [{"appIDs": ["T.a\n== path raw/exact ==\u001b[2J"], "components": [{"/": "/a"}]}]}}"#, "app.json")
        for mode in ["nfa", "dfa"] {
            let run = try CLIRunner.run(["debug", mode, document])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertFalse(run.stdout.unicodeScalars.contains { $0.value == 0x1B }, run.stdout)
            XCTAssertTrue(run.stdout.contains(#"[T.a\u{A}== path raw/exact ==\u{1B}[2J]"#), run.stdout)
        }
    }

    /// A rule's line lists at most ten apps, then how many more.
    func test_dumps_listAtMostTenAppsARule() throws {
        let apps = (0..<12).map { "\"T.a\($0)\"" }.joined(separator: ", ")
        let document = try write(#"{"applinks": {"details": [{"appIDs": [\#(apps)], "components": [{"/": "/a"}]}]}}"#, "apps.json")
        let run = try CLIRunner.run(["debug", "nfa", document])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  r0 = entry 0 rule 0 raw/exact [T.a0, T.a1, T.a2, T.a3, T.a4, T.a5, T.a6, T.a7, T.a8, T.a9, and 2 more]\n"), run.stdout)
    }

    func test_plan_ofASmallDocument_namesEveryAutomatonsStrategyAndWhy() throws {
        let run = try CLIRunner.run(["debug", "plan", try write(Self.small, "small.json")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, Self.smallPlan)
    }

    func test_plan_ofALargeDocument_showsTheSuffixSplitAndTheCompactTable() throws {
        let run = try CLIRunner.run(["debug", "plan", try write(Self.large, "large.json")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, Self.largePlan)
    }

    func test_plan_withCompileTimeTablesOff_saysSo() throws {
        let run = try CLIRunner.run(["debug", "plan", try write(Self.large, "large.json"), "--limit", "eager-dfa-states=0"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("path raw/exact: lazy-dfa ("), run.stdout)
        XCTAssertTrue(run.stdout.contains("compile-time tables off"), run.stdout)
        XCTAssertFalse(run.stdout.contains("compact-table"), run.stdout)
    }

    func test_plan_isStableAndDocumentedInHelp() throws {
        let path = try write(Self.large, "large.json")
        XCTAssertEqual(try CLIRunner.run(["debug", "plan", path]).stdout, try CLIRunner.run(["debug", "plan", path]).stdout)
        let help = try CLIRunner.run(["debug", "--help"])
        XCTAssertTrue(help.stdout.contains("aasa debug nfa|dfa|plan"), help.stdout)
        let wrong = try CLIRunner.run(["debug", "plans", path])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("'plan'"), wrong.stderr)
    }

    /// `debug nfa` and `debug dfa` print the same text in every process (hashing is seeded per
    /// process, so one compilation compared with another in the same process cannot show it).
    func test_dumps_areStableAcrossProcesses() throws {
        let variables = #"{"applinks": {"substitutionVariables": {"v": ["ab", "ac"]}, "details": [{"appIDs": ["T.a", "T.b"], "#
            + #""components": [{"/": "/b/*"}, {"/": "/$(v)", "exclude": true}, {"/": "/c/$(lang)", "caseSensitive": false}]}]}}"#
        for document in [try write(variables, "variables.json"), try write(Self.small, "small.json")] {
            for mode in ["nfa", "dfa"] {
                let first = try CLIRunner.run(["debug", mode, document])
                let second = try CLIRunner.run(["debug", mode, document])
                XCTAssertEqual(first.status, 0, first.stderr)
                XCTAssertTrue(first.stdout.contains("== path raw/exact =="), first.stdout)
                XCTAssertEqual(first.stdout, second.stdout, "debug \(mode) \(document)")
            }
        }
    }

    static let smallPlan = """
        plan: rules 2, apps 1, automata 4
        path: multi-mode-path (path modes: raw/exact, raw/folded; each mode's rules merged by rule id)
        split raw/exact: no split (0 literal*literal candidates, minimum 32)
        split raw/folded: no split (0 literal*literal candidates, minimum 32)
        path raw/exact: lazy-dfa (nfa 7 states, 5 classes; at most 1038 dfa states: dense rows within 1048576 bytes, not determinised; nfa-simulation after 8 cache clears in one search, or when its states keep being new)
        query-item "id" raw/exact: lazy-dfa (nfa 7 states, 6 classes; at most 1038 dfa states: dense rows within 1048576 bytes, not determinised; nfa-simulation after 8 cache clears in one search, or when its states keep being new)
        path raw/folded: lazy-dfa (nfa 4 states, 5 classes; at most 1032 dfa states: dense rows within 1048576 bytes, not determinised; nfa-simulation after 8 cache clears in one search, or when its states keep being new)
        fragment raw/folded: lazy-dfa (nfa 5 states, 6 classes; at most 1034 dfa states: dense rows within 1048576 bytes, not determinised; nfa-simulation after 8 cache clears in one search, or when its states keep being new)

        """

    static let largePlan = """
        plan: rules 1040, apps 1, automata 1
        path: solo-path-compiled-rows (path modes: raw/exact; 1002 tag sets x 4 words within 8 x 657545 table cells)
        split raw/exact: suffix-split (40 literal*literal candidates, minimum 32; 40 patterns in 1 prefix groups)
        path raw/exact: compact-table (nfa 19788 states, 35 classes; 18787 dfa states: dense rows 2630180 bytes over 1048576, compact 65192 bytes)

        """
}
