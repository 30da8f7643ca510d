import AASAKit
import XCTest
import _AASATestSupport

/// Each automaton-level lint code on a document that has the problem and one that does not;
/// every witness is re-checked by the reference matcher.
final class SemanticLintTests: XCTestCase {
    typealias F = AnalysisFixture

    private func findings(_ code: String, in document: AASADocument) -> [LintFinding] {
        F.lint(document).filter { $0.code == code }
    }

    func testRuleCoveredByEarlierRuleIsUnreachableWithCoveringRuleAndWitness() throws {
        let document = try F.components(#"[{"/": "/a/*"}, {"/": "/a/b"}]"#)
        let found = findings("unreachable-rule", in: document)
        XCTAssertEqual(found.map(\.path.description), ["applinks.details[0].components[1]"])
        XCTAssertTrue(found[0].message.contains("applinks.details[0].components[0]"), found[0].message)
        let witness = try XCTUnwrap(found[0].witness)
        XCTAssertEqual(try F.oracle(document, witness), AppDecision(app: F.app, kind: .match, entry: 0, rule: 0))
    }

    func testNarrowRuleBeforeWideRuleIsReachable() throws {
        let document = try F.components(#"[{"/": "/a/b"}, {"/": "/a/*"}]"#)
        XCTAssertEqual(findings("unreachable-rule", in: document), [])
    }

    func testRuleCoveredOnlyByTheUnionOfEarlierRulesIsUnreachable() throws {
        // Neither earlier rule covers /x? alone; together they do (one scalar: a digit or not).
        let document = try F.components(#"[{"/": "/x?", "exclude": true}, {"/": "/x"}, {"/": "/x*"}, {"/": "/x?"}]"#)
        let found = findings("unreachable-rule", in: document)
        XCTAssertEqual(found.map(\.path.description), ["applinks.details[0].components[3]"])
    }

    func testRuleReachableOnlyThroughARepeatedQueryItemIsNotUnreachable() throws {
        // Every single value of id satisfies rule 0 or rule 1; only id=&id=x fails both.
        let document = try F.components(#"[{"?": {"id": "?*"}}, {"?": {"id": ""}}, {"/": "/*"}]"#)
        XCTAssertEqual(findings("unreachable-rule", in: document), [])
        let coverage = try Coverage(document: document, domain: F.domain)
        let url = try XCTUnwrap(coverage.items[2].url)
        XCTAssertEqual(try F.oracle(document, url), AppDecision(app: F.app, kind: .match, entry: 0, rule: 2))
    }

    func testPatternNoURLCanHoldNeverMatches() throws {
        XCTAssertEqual(findings("never-matches", in: try F.components(#"[{"/": "/x#y"}]"#)).count, 1)
        // Decoded, "#" arrives as %23, so the same pattern can match.
        let decoded = try F.components(#"[{"/": "/x#y", "percentEncoded": false}]"#)
        XCTAssertEqual(findings("never-matches", in: decoded), [])
        let url = try XCTUnwrap(try Coverage(document: decoded, domain: F.domain).items[0].url)
        XCTAssertEqual(try F.oracle(decoded, url).kind, .match)
    }

    func testUndefinedVariableNeverMatches() throws {
        let document = try F.components(#"[{"/": "/$(nowhere)/x"}]"#)
        XCTAssertEqual(findings("never-matches", in: document).count, 1)
    }

    func testExclusionNoLaterRuleWouldOpenIsUseless() throws {
        let document = try F.components(#"[{"/": "/private", "exclude": true}, {"/": "/shop/*"}]"#)
        let found = findings("useless-exclude", in: document)
        XCTAssertEqual(found.map(\.path.description), ["applinks.details[0].components[0]"])
        let witness = try XCTUnwrap(found[0].witness)
        XCTAssertEqual(try F.oracle(document, witness).kind, .exclude)
    }

    func testExclusionCarvedFromALaterRuleIsUseful() throws {
        let document = try F.components(#"[{"/": "/shop/cart", "exclude": true}, {"/": "/shop/*"}]"#)
        XCTAssertEqual(findings("useless-exclude", in: document), [])
    }

    /// An exclusion whose URLs a later exclusion would take (`/embed` before `/embed/*`, which
    /// also matches `/embed`, in a real file) is useless, but its URLs would not become
    /// no_match, as the message said: it names the later exclusion instead.
    func testUselessExclusionShadowingALaterExclusionNamesIt() throws {
        let document = try F.components(#"[{"/": "/embed", "exclude": true}, {"/": "/embed/*", "exclude": true}, {"/": "/*"}]"#)
        let found = findings("useless-exclude", in: document)
        XCTAssertEqual(found.map(\.path.description), ["applinks.details[0].components[0]"])
        XCTAssertTrue(found[0].message.contains("the exclusion applinks.details[0].components[1]"), found[0].message)
        XCTAssertFalse(found[0].message.contains("no_match"), found[0].message)
        let plain = findings("useless-exclude", in: try F.components(#"[{"/": "/private", "exclude": true}, {"/": "/shop/*"}]"#))
        XCTAssertTrue(plain.first?.message.contains("as no_match instead of exclude") ?? false, "\(plain)")
    }

    func testRuleMatchingEveryURLIsACatchAllQuotingItsComment() throws {
        let document = try F.components(#"[{"/": "/help", "exclude": true}, {"/": "*", "comment": "open everything"}]"#)
        let found = findings("catch-all", in: document)
        XCTAssertEqual(found.map(\.path.description), ["applinks.details[0].components[1]"])
        XCTAssertTrue(found[0].message.contains("open everything"), found[0].message)
        XCTAssertEqual(try F.oracle(document, try XCTUnwrap(found[0].witness)).rule, 1)
    }

    func testRuleWithAQueryConstraintIsNotACatchAll() throws {
        XCTAssertEqual(findings("catch-all", in: try F.components(#"[{"/": "*", "?": {"ref": "?*"}}]"#)), [])
        XCTAssertEqual(findings("catch-all", in: try F.components(#"[{"/": "/a/*"}]"#)), [])
    }

    /// A catch-all after exclusions of its entry follows Apple's pattern already: its hint asks
    /// to check them, not to add some (15 real files were told to do what they had done).
    func test_catchAll_afterExclusionsAsksToCheckThem() throws {
        let bare = findings("catch-all", in: try F.components(#"[{"/": "*"}]"#))
        XCTAssertEqual(bare.first?.hint, "restrict its path, or put exclude rules for the pages that must stay on the web before it")
        let carved = findings("catch-all", in: try F.components(#"[{"/": "/login", "exclude": true}, {"/": "/account/*", "exclude": true}, {"/": "*"}]"#))
        XCTAssertEqual(carved.count, 1)
        XCTAssertTrue(carved.first?.hint?.hasPrefix("the 2 exclusions before it keep their URLs on the web") ?? false, "\(carved)")
    }

    /// One exclusion before a catch-all is named in the singular ("the exclusion before it keep
    /// their URLs" was printed for 6 real files).
    func test_catchAll_afterOneExclusionNamesItInTheSingular() throws {
        let found = findings("catch-all", in: try F.components(#"[{"/": "/login", "exclude": true}, {"/": "*"}]"#))
        XCTAssertEqual(
            found.first?.hint,
            "the exclusion before it keeps its URLs on the web: check it names every page that must stay there, such as sign-in, account and payment pages")
    }

    func testAppsOfDifferentEntriesClaimingOneURLOverlapWithWitness() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/a/*"}]},"#
                + #"{"appIDs": ["\#(F.clip)"], "components": [{"/": "/a/b/*"}]}]}}"#)
        let found = findings("overlapping-apps", in: document)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.severity, .warning)
        let witness = try XCTUnwrap(found.first?.witness)
        XCTAssertEqual(try F.oracle(document, witness, app: F.app).kind, .match)
        XCTAssertEqual(try F.oracle(document, witness, app: F.clip).kind, .match)
    }

    /// Two apps that only a URL ending in a space would open (a line's URL is trimmed, SPEC 14)
    /// do not overlap on any URL `match` can be given.
    func testAppsOverlappingOnlyOnAnUnreadableURLAreNotReported() throws {
        let document = try F.document(
            ##"{"applinks": {"details": [{"appIDs": ["\##(F.app)"], "components": [{"#": "x "}]},"##
                + ##"{"appIDs": ["\##(F.clip)"], "components": [{"#": "x "}]}]}}"##)
        XCTAssertEqual(findings("overlapping-apps", in: document), [])
    }

    func testAppsNamedByOneEntryShareURLsAsANote() throws {
        let document = try F.document(#"{"applinks": {"details": [{"appIDs": ["\#(F.app)", "\#(F.clip)"], "components": [{"/": "/a/*"}]}]}}"#)
        XCTAssertEqual(findings("overlapping-apps", in: document), [])
        let shared = findings("apps-share-urls", in: document)
        XCTAssertEqual(shared.map(\.severity), [.note])
        XCTAssertEqual(try F.oracle(document, try XCTUnwrap(shared.first?.witness), app: F.clip).kind, .match)
    }

    /// Which entries open a shared URL is read from the rules that decide it, not from where
    /// each app is first named: a first entry of exclusions naming both apps once hid the
    /// overlap of two later entries as a note.
    func testAppsOpenedByRulesOfDifferentEntriesOverlapWhateverEntryNamesThemFirst() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.app)", "\#(F.clip)"], "components": [{"/": "/admin/*", "exclude": true}]},"#
                + #"{"appIDs": ["\#(F.app)"], "components": [{"/": "*"}]}, {"appIDs": ["\#(F.clip)"], "components": [{"/": "*"}]}]}}"#)
        XCTAssertEqual(findings("apps-share-urls", in: document), [])
        let found = findings("overlapping-apps", in: document)
        XCTAssertEqual(found.map(\.severity), [.warning])
        let witness = try XCTUnwrap(found.first?.witness)
        XCTAssertEqual(try F.oracle(document, witness, app: F.app), AppDecision(app: F.app, kind: .match, entry: 1, rule: 0))
        XCTAssertEqual(try F.oracle(document, witness, app: F.clip), AppDecision(app: F.clip, kind: .match, entry: 2, rule: 0))
    }

    /// And the other way: two apps whose shared URLs one entry opens share them (a note), though
    /// an earlier entry names one of them.
    func testAppsOpenedByOneEntryShareURLsThoughAnotherEntryNamesOneFirst() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/x"}]},"#
                + #"{"appIDs": ["\#(F.app)", "\#(F.clip)"], "components": [{"/": "/y"}]}]}}"#)
        XCTAssertEqual(findings("overlapping-apps", in: document), [])
        XCTAssertEqual(findings("apps-share-urls", in: document).map(\.severity), [.note])
    }

    func testAppsThatOnlyAnUnrealOutcomeWouldShareDoNotOverlapAndBothGetURLs() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/a", "?": "q"}]},"#
                + #"{"appIDs": ["\#(F.clip)"], "components": [{"/": "/a", "?": {"x": "1"}}]}]}}"#)
        XCTAssertEqual(findings("overlapping-apps", in: document), [])
        for item in try Coverage(document: document, domain: F.domain).items {
            let url = try XCTUnwrap(item.url, item.reason ?? "")
            XCTAssertEqual(try F.oracle(document, url, app: item.app).kind, .match, url)
        }
    }

    func testAppsWithDisjointPathsDoNotOverlap() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/a/*"}]},"#
                + #"{"appIDs": ["\#(F.clip)"], "components": [{"/": "/b/*"}]}]}}"#)
        XCTAssertEqual(findings("overlapping-apps", in: document), [])
    }

    func testSamePatternWithOtherFlagsIsNotADuplicate() throws {
        let document = try F.components(#"[{"/": "/a", "exclude": true}, {"/": "/a"}, {"/": "/b"}, {"/": "/b", "?": {"x": "1"}}]"#)
        XCTAssertEqual(findings("duplicate-rule", in: document), [])
    }

    func testEveryFindingUsesItsCatalogSeverityAndTheDocsListEveryCode() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/a/*"}, {"/": "/a/b"}, {"/": "/a/b"}, {"/": "/x#"}, {"/": "/p", "exclude": true}]},"#
                + #"{"appIDs": ["\#(F.clip)"], "components": [{"/": "*"}]}]}}"#)
        let found = F.lint(document)
        XCTAssertEqual(Set(found.map(\.code)), ["unreachable-rule", "duplicate-rule", "never-matches", "useless-exclude", "catch-all", "overlapping-apps"])
        for finding in found {
            XCTAssertEqual(finding.severity, LintCatalog.anyEntry(for: finding.code)?.severity, finding.code)
            XCTAssertNotNil(finding.hint, finding.code)
        }
        // The code tables live in docs/analysis.md ("Lint codes"), which the README links.
        let readme = try String(contentsOf: CaseSuite.packageRoot.appendingPathComponent("docs/analysis.md"), encoding: .utf8)
        for entry in LintCatalog.semanticCodes {
            XCTAssertTrue(readme.contains("| `\(entry.code)` | \(entry.severity.rawValue) |"), "docs/analysis.md lacks a row for \(entry.code)")
        }
    }

    /// Rules over `nfa-states` are refused by the matcher too (`match` exits 3): an error, as
    /// for `variable-positions`, not a skipped analysis.
    func testRulesOverTheNFAStateLimitAreAnErrorAsTheMatcherRefusesThem() throws {
        var configuration = Configuration()
        configuration.automata.maxNFAStates = 8
        let document = try F.components(#"[{"/": "/a-long-literal/*"}]"#)
        let found = SemanticLint.findings(document: document, domain: F.domain, configuration: configuration)
        XCTAssertEqual(found.map(\.code), ["over-limit"])
        XCTAssertEqual(found.first?.severity, .error)
        XCTAssertEqual(found.first?.hint, "simplify the rules, or raise it with --limit nfa-states=<n>")
        XCTAssertEqual(SemanticLint.findings(document: document, domain: F.domain, configuration: Configuration()).filter { $0.code == "over-limit" }, [])
    }

    func testRepeatedRuleIsADuplicateNotAlsoUnreachable() throws {
        let document = try F.components(#"[{"/": "/a", "caseSensitive": true}, {"/": "/a"}]"#)
        XCTAssertEqual(findings("duplicate-rule", in: document).map(\.path.description), ["applinks.details[0].components[1]"])
        XCTAssertEqual(findings("unreachable-rule", in: document), [])
    }

    func testCaseInsensitiveRulesAreComparedFolded() throws {
        let document = try F.components(#"[{"/": "/A/*", "caseSensitive": false}, {"/": "/a/b", "caseSensitive": false}]"#)
        XCTAssertEqual(findings("unreachable-rule", in: document).count, 1)
    }

    func testCaseSensitiveAndInsensitiveRulesTogetherAreComparedExactly() throws {
        let covered = try F.components(#"[{"/": "/a/*", "caseSensitive": false}, {"/": "/A/b"}]"#)
        XCTAssertEqual(findings("unreachable-rule", in: covered).map(\.path.description), ["applinks.details[0].components[1]"])
        // The other way round, "/A/b" opens only through the second rule: reachable.
        let open = try F.components(#"[{"/": "/a/*"}, {"/": "/a/b", "caseSensitive": false}]"#)
        XCTAssertEqual(F.lint(open).filter { $0.code == "unreachable-rule" || $0.code == "analysis-incomplete" }, [])
        let url = try XCTUnwrap(try Coverage(document: open, domain: F.domain).items[1].url)
        XCTAssertEqual(try F.oracle(open, url).rule, 1, url)
    }

    func testKelvinSignFoldsToKForCaseInsensitiveRules() throws {
        // U+212A folds to "k" (SPEC 11), so the first rule decides "/\u{212A}" too.
        let document = try F.components(#"[{"/": "/k", "caseSensitive": false}, {"/": "/\#u{212A}"}]"#)
        XCTAssertEqual(findings("unreachable-rule", in: document).count, 1)
        XCTAssertEqual(try F.oracle(document, "https://example.com/\u{212A}").rule, 0)
    }

    /// `/%61/b` decodes to `/a/b` without its raw path starting with `/a/`: the decoded rule
    /// decides there. A walk per mode class writes the raw and the decoded text apart, so it
    /// proves what it finds absent, and finds nothing to claim here.
    func test_severalTextModes_areWalkedPerModeClass_andClaimNothingUnproven() throws {
        let document = try F.components(#"[{"/": "/a/*"}, {"/": "/a/b", "percentEncoded": false}]"#)
        let all = F.lint(document)
        XCTAssertEqual(all.filter { $0.code == "unreachable-rule" || $0.code == "analysis-incomplete" }.map(\.message), [])
        XCTAssertEqual(try F.oracle(document, "https://example.com/%61/b").rule, 1)
    }

    /// A case-folded rule with an accented literal puts the rules in modes one text cannot
    /// serve; a rule covered by an earlier rule of its own mode is still proven unreachable,
    /// and the covering rule named is the one a URL shows, not the accented one.
    func test_severalTextModes_proveARuleCoveredWithinItsMode() throws {
        let document = try F.components(
            #"[{"/": "/cr\#u{E8}me/*", "caseSensitive": false, "percentEncoded": false}, {"/": "/a/*", "percentEncoded": false}, {"/": "/a/b", "percentEncoded": false}]"#)
        let all = F.lint(document)
        XCTAssertEqual(all.filter { $0.code == "analysis-incomplete" }.map(\.message), [])
        let found = all.filter { $0.code == "unreachable-rule" }
        XCTAssertEqual(found.map(\.path.description), ["applinks.details[0].components[2]"])
        let first = try XCTUnwrap(found.first)
        XCTAssertTrue(first.message.hasSuffix("earlier rules of its entry: applinks.details[0].components[1]"), first.message)
        let witness = try XCTUnwrap(first.witness)
        XCTAssertEqual(try F.oracle(document, witness).rule, 1, witness)
    }

    /// Covered across modes (every URL whose decoded path is `/a/b` also matches the folded
    /// `/a/*`), which a walk writing each mode's text apart cannot prove: no claim, and the
    /// note names the rule as unproven rather than saying nothing was checked.
    func test_severalTextModes_nameTheClaimTheyCouldNotProve() throws {
        let document = try F.components(
            #"[{"/": "/a/*", "caseSensitive": false, "percentEncoded": false}, {"/": "/a/b", "percentEncoded": false}, {"/": "/cr\#u{E8}me", "caseSensitive": false, "percentEncoded": false}]"#)
        let all = F.lint(document)
        XCTAssertEqual(all.filter { $0.code == "unreachable-rule" }, [])
        let notes = all.filter { $0.code == "analysis-incomplete" }.map(\.message)
        XCTAssertEqual(notes.count, 1)
        XCTAssertTrue(notes.first?.contains("applinks.details[0].components[1] may never decide (unreachable-rule)") == true, "\(notes)")
    }

    /// Apple's international example (case-folded decoded rules with accented dish names beside
    /// a case-sensitive decoded one) gets every check, and has nothing wrong.
    func test_applesInternationalExample_isCheckedWhole() throws {
        let document = try F.document(
            #"{"applinks": {"substitutionVariables": {"food": ["cr\#u{E8}me-br\#u{FB}l\#u{E9}e", "samosa"], "size": ["small", "large"]}, "details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/$(lang)_CA/$(food)/", "exclude": true, "caseSensitive": false, "percentEncoded": false}, {"/": "/$(lang)_$(region)/$(food)/", "caseSensitive": false, "percentEncoded": false}, {"/": "/order/$(food)/$(size)", "percentEncoded": false}]}]}}"#)
        XCTAssertEqual(F.lint(document).map(\.code), [])
    }
}
