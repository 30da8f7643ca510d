import AASAKit
import XCTest

/// Documents of many rules each naming a few query items (campaign links: `/offer/*` with
/// `?ref=*&id=*`) are analysed whole: after a URL's path, the walk writes values only for the
/// items some rule still alive names, since no other item can change what the URL decides.
/// Walking every item's values after every path ran out of the state budget at 40 such rules,
/// so lint checked nothing and diff missed a one-rule change. Every witness is re-checked by
/// the reference matcher.
final class QueryItemWalkTests: XCTestCase {
    typealias F = AnalysisFixture

    /// `count` rules `/pNN/*`, each naming two items of its own, one of them required; rule
    /// `changed` excluded when `exclude` is set.
    private func campaignRules(_ count: Int, exclude changed: Int? = nil) -> [String] {
        (0..<count).map { index in
            let flag = index == changed ? #", "exclude": true"# : ""
            return #"{"/": "/p\#(index)/*", "?": {"ref\#(index)": "?*", "id\#(index)": "c*"}\#(flag)}"#
        }
    }

    private func document(_ rules: [String]) throws -> AASADocument {
        try F.components("[" + rules.joined(separator: ", ") + "]")
    }

    func test_lint_fortyRulesOfTwoQueryItemsEach_isAnalysedWholeAndFindsTheUnreachableRule() throws {
        // Rule 40 asks for more than rule 7 on rule 7's paths: every URL it matches, rule 7
        // decides first.
        let rules = campaignRules(40) + [#"{"/": "/p7/deal", "?": {"ref7": "x*", "id7": "c1"}}"#]
        let findings = F.lint(try document(rules))
        XCTAssertEqual(findings.filter { $0.code == "analysis-incomplete" }.map(\.message), [])
        let unreachable = findings.filter { $0.code == "unreachable-rule" }
        XCTAssertEqual(unreachable.map(\.path.description), ["applinks.details[0].components[40]"])
        let witness = try XCTUnwrap(unreachable.first?.witness)
        XCTAssertEqual(try F.oracle(try document(rules), witness), AppDecision(app: F.app, kind: .match, entry: 0, rule: 7))
    }

    func test_diff_oneOfFortyQueryRulesTurnedToAnExclusion_isFoundWithCheckedWitnesses() throws {
        let old = try document(campaignRules(40))
        let new = try document(campaignRules(40, exclude: 13))
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        XCTAssertNil(diff.incompleteness)
        XCTAssertEqual(diff.changes.map { "\($0.old.kind.rawValue):\($0.old.rule ?? -1)->\($0.new.kind.rawValue):\($0.new.rule ?? -1)" },
                       ["match:13->exclude:13"])
        for change in diff.changes {
            XCTAssertFalse(change.urls.isEmpty)
            for url in change.urls {
                XCTAssertEqual(try F.oracle(old, url), change.old, url)
                XCTAssertEqual(try F.oracle(new, url), change.new, url)
            }
        }
    }

    func test_diff_fortyQueryRulesInAnotherOrder_isProvenEquivalent() throws {
        let rules = campaignRules(40)
        let diff = try SemanticDiff(old: try document(rules), new: try document(rules.reversed()), domain: F.domain)
        XCTAssertEqual(diff.verdict, .equivalent)
    }

    /// After a path, the items of every rule it ruled out are crossed in one step, not one
    /// node an item: at 200 rules (400 item names) a node per item and path outcome ran out of
    /// the state budget, so lint checked nothing and diff left its list unfinished.
    func test_twoHundredRulesOfTwoQueryItemsEach_lintAndDiffAreWhole() throws {
        let rules = campaignRules(200) + [#"{"/": "/p7/deal", "?": {"ref7": "x*", "id7": "c1"}}"#]
        let findings = F.lint(try document(rules))
        XCTAssertEqual(findings.filter { $0.code == "analysis-incomplete" }.map(\.message), [])
        XCTAssertEqual(findings.filter { $0.code == "unreachable-rule" }.map(\.path.description), ["applinks.details[0].components[200]"])
        let old = try document(campaignRules(200))
        let new = try document(campaignRules(200, exclude: 66))
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertNil(diff.incompleteness)
        XCTAssertEqual(diff.changes.map { "\($0.old.kind.rawValue):\($0.old.rule ?? -1)->\($0.new.kind.rawValue):\($0.new.rule ?? -1)" },
                       ["match:66->exclude:66"])
        for url in diff.changes.flatMap(\.urls) {
            XCTAssertEqual(try F.oracle(new, url), AppDecision(app: F.app, kind: .exclude, entry: 0, rule: 66), url)
        }
    }

    /// An item no alive rule names is still written when a later rule's item needs a value
    /// beside it: passing over one phase keeps the phases after it.
    func test_cover_aRuleNeedingTwoItemsBehindOneNamingOneGetsAURLWithBoth() throws {
        let document = try F.components(
            #"[{"/": "/a/*", "?": {"b": "1"}, "exclude": true}, {"/": "/a/*", "?": {"a": "?*", "b": "?*"}}, {"/": "/z"}]"#)
        let coverage = try Coverage(document: document, domain: F.domain)
        XCTAssertTrue(coverage.isProof)
        let url = try XCTUnwrap(coverage.items.first { $0.rule == 1 }?.url)
        XCTAssertEqual(try F.oracle(document, url), AppDecision(app: F.app, kind: .match, entry: 0, rule: 1))
        XCTAssertTrue(url.contains("a=") && url.contains("b="), url)
    }
}
