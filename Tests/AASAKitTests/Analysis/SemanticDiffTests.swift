import AASAKit
import XCTest

/// `SemanticDiff` names exactly what changed, and only that; every example URL is re-checked
/// against both documents by the reference matcher.
final class SemanticDiffTests: XCTestCase {
    typealias F = AnalysisFixture

    private let base = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/help", "exclude": true}, {"/": "/shop/*", "?": {"ref": "?*"}}, {"/": "/b/*"}]}]}}"#

    func testReorderedKeysAndHoistedDefaultsAreEquivalent() throws {
        let old = try F.document(base)
        let new = try F.document(
            #"{"applinks": {"defaults": {"caseSensitive": true}, "details": [{"components": [{"exclude": true, "/": "/help"}, {"?": {"ref": "?*"}, "/": "/shop/*"}, {"/": "/b/*"}], "appIDs": ["ABCDE12345.com.example.app"]}]}}"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .equivalent)
        XCTAssertEqual(diff.changes, [])
    }

    /// Changes are listed in app order, app IDs compared scalar by scalar: "é" precomposed and
    /// decomposed are two apps, and the first one's change comes first even where the second's
    /// URL is shorter.
    func testChangesOfAppIDsThatDifferOnlyInNormalisationKeepTheirAppOrder() throws {
        func document(_ first: String, _ second: String) throws -> AASADocument {
            try F.document(
                #"{"applinks": {"details": [{"appIDs": ["T.caf\u00e9"], "components": [{"/": "\#(first)"}]}, {"appIDs": ["T.cafe\u0301"], "components": [{"/": "\#(second)"}]}]}}"#)
        }
        let diff = try SemanticDiff(old: try document("/long-path-one", "/a"), new: try document("/long-path-two", "/b"), domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        XCTAssertEqual(diff.changes.map { Array($0.app.unicodeScalars) }.first, Array("T.caf\u{E9}".unicodeScalars))
        XCTAssertEqual(diff.changes.map { Array($0.app.unicodeScalars) }.last, Array("T.cafe\u{301}".unicodeScalars))
    }

    func testSwappingDisjointRulesIsEquivalent() throws {
        let old = try F.components(#"[{"/": "/a/*"}, {"/": "/b/*"}]"#)
        let new = try F.components(#"[{"/": "/b/*"}, {"/": "/a/*"}]"#)
        XCTAssertEqual(try SemanticDiff(old: old, new: new, domain: F.domain).verdict, .equivalent)
    }

    func testOneChangedRuleIsNamedExactlyWithCheckedWitnesses() throws {
        let old = try F.document(base)
        let new = try F.document(base.replacingOccurrences(of: #""/b/*""#, with: #""/c/*""#))
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain, witnesses: 2)
        XCTAssertEqual(diff.verdict, .different)
        XCTAssertEqual(Set(diff.changes.map { "\($0.old.kind.rawValue):\($0.old.rule ?? -1)->\($0.new.kind.rawValue):\($0.new.rule ?? -1)" }),
                       ["match:2->no_match:-1", "no_match:-1->match:2"])
        for change in diff.changes {
            XCTAssertFalse(change.urls.isEmpty)
            XCTAssertLessThanOrEqual(change.urls.count, 2)
            for url in change.urls {
                XCTAssertEqual(try F.oracle(old, url), change.old, url)
                XCTAssertEqual(try F.oracle(new, url), change.new, url)
            }
        }
    }

    /// A URL whose fragment ends in a space is no line's URL (`match` trims it, SPEC 14): the
    /// old rule that only such a URL matches shows no example, the new rule's example stays.
    func testExamplesAreURLsALineCanCarry() throws {
        let old = try F.components(##"[{"#": "x "}]"##)
        let new = try F.components(##"[{"#": "y"}]"##)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.changes.flatMap(\.urls), ["https://example.com/#y"])
    }

    func testAddedQueryConstraintShowsTheURLsThatNoLongerOpen() throws {
        let old = try F.components(#"[{"/": "/p/*"}]"#)
        let new = try F.components(#"[{"/": "/p/*", "?": {"id": "?*"}}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.changes.count, 1)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertEqual(try F.oracle(old, url).kind, .match)
        XCTAssertEqual(try F.oracle(new, url).kind, .noMatch)
    }

    func testDocumentsInSeveralTextModesAreNotCalledEquivalent() throws {
        let old = try F.components(#"[{"/": "/a/*"}]"#)
        let new = try F.components(#"[{"/": "/a/*", "caseSensitive": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertEqual(try F.oracle(old, url).kind, .noMatch)
        XCTAssertEqual(try F.oracle(new, url).kind, .match)
    }

    func testDecodedAgainstRawIsReportedWithEscapedURLsTheReferenceConfirms() throws {
        // "/%61" and "/a%2Fb" differ: the walk writes the URL's own text and decodes it for the
        // decoding automaton.
        let old = try F.components(#"[{"/": "/a/*"}]"#)
        let new = try F.components(#"[{"/": "/a/*", "percentEncoded": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        XCTAssertTrue(diff.changes.flatMap(\.urls).contains { $0.contains("%") }, "\(diff.changes)")
        for change in diff.changes {
            for url in change.urls {
                XCTAssertEqual(try F.oracle(old, url).kind, change.old.kind, url)
                XCTAssertEqual(try F.oracle(new, url).kind, change.new.kind, url)
            }
        }
    }

    func testCaseFlipOnANonASCIILiteralAmongDecodedRulesIsReportedWithAWitness() throws {
        let old = try F.components(#"[{"/": "/Écoles/*"}, {"/": "/x y", "percentEncoded": false}]"#)
        let new = try F.components(#"[{"/": "/Écoles/*", "caseSensitive": false}, {"/": "/x y", "percentEncoded": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertEqual(try F.oracle(old, url).kind, .noMatch, url)
        XCTAssertEqual(try F.oracle(new, url).kind, .match, url)
    }

    func testCaseFlipOnALiteralWithOnlyANonASCIILetterIsShownWithItsCapital() throws {
        // Only "/É" (or its escape, decoded) tells the two apart: the witness walk must write a
        // non-ASCII capital and fold it for the case-insensitive automaton.
        let old = try F.components(#"[{"/": "/é", "caseSensitive": false}, {"/": "/x y", "percentEncoded": false}]"#)
        let new = try F.components(#"[{"/": "/é"}, {"/": "/x y", "percentEncoded": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertTrue(url.hasSuffix("/É"), url)
        XCTAssertEqual(try F.oracle(old, url).kind, .match, url)
        XCTAssertEqual(try F.oracle(new, url).kind, .noMatch, url)
    }

    func testEquivalentRulesInSeveralModesNotIdenticalAreProven() throws {
        // Different text, same rules per mode class: the walk per mode class proves it.
        let old = try F.components(#"[{"/": "/a/*", "caseSensitive": false}, {"/": "/b c", "percentEncoded": false}, {"/": "/d", "?": "x=1"}, {"/": "/e", "?": {"id": "?*"}}]"#)
        let new = try F.components(#"[{"/": "/A/**", "caseSensitive": false}, {"/": "//b c/", "percentEncoded": false}, {"/": "/d", "?": "x=1"}, {"/": "/e", "?": {"id": "?*"}}, {"/": "/a/x"}]"#)
        XCTAssertEqual(try SemanticDiff(old: old, new: new, domain: F.domain).verdict, .equivalent)
    }

    func testOutcomesNoURLHasAreNeverReportedAsChanges() throws {
        // Text and item query rules together: the search treats the dictionary as holding, so
        // it meets outcomes no URL has; swapping two rules no URL satisfies together changes nothing.
        let old = try F.components(#"[{"/": "/a", "?": "q", "exclude": true}, {"/": "/a", "?": {"x": "1"}}]"#)
        let new = try F.components(#"[{"/": "/a", "?": {"x": "1"}}, {"/": "/a", "?": "q", "exclude": true}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.changes, [])
        XCTAssertNotEqual(diff.verdict, .different)
    }

    func testAPercentEncodedToggleIsShownByAnEscapedSlashTheDecodedPathKeeps() throws {
        // Only an escaped "/" inside the text tells them apart ("/a%2Fb" decodes to "/a/b",
        // which "/a/*/*" matches as "/a/*"); one at the end is trimmed after decoding, so the
        // walk must not stop there.
        let old = try F.components(#"[{"/": "/a/*/*"}]"#)
        let new = try F.components(#"[{"/": "/a/*/*", "percentEncoded": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertTrue(url.contains("%2F"), url)
        XCTAssertEqual(try F.oracle(old, url).kind, .noMatch, url)
        XCTAssertEqual(try F.oracle(new, url).kind, .match, url)
    }

    func testAnEscapedSlashAtTheEndIsTrimmedForTheDecodingDocumentOnly() throws {
        // "/%2F" is the root once decoded and trimmed, and "/%2F" as written: the only URL that
        // tells them apart, though neither automaton reads a "/".
        let old = try F.components(#"[{"/": "/"}]"#)
        let new = try F.components(#"[{"/": "/", "percentEncoded": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertEqual(url, "https://\(F.domain)/%2F")
        XCTAssertEqual(try F.oracle(old, url).kind, .noMatch, url)
        XCTAssertEqual(try F.oracle(new, url).kind, .match, url)
    }

    func testARawPatternSpellingAnEscapeIsReachedBesideDecodingRules() throws {
        // With a decoding rule about, the walk writes "%" only as escapes: it must write the
        // escape the raw pattern spells ("%20"), not only one per class the decoding rule reads.
        let old = try F.components(#"[{"/": "/é", "caseSensitive": false, "percentEncoded": false}, {"/": "/a%20b"}]"#)
        let new = try F.components(#"[{"/": "/é", "caseSensitive": false, "percentEncoded": false}, {"/": "/a%20b", "caseSensitive": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let url = try XCTUnwrap(diff.changes.first?.urls.first)
        XCTAssertTrue(url.contains("%20"), url)
        XCTAssertEqual(try F.oracle(old, url).kind, .noMatch, url)
        XCTAssertEqual(try F.oracle(new, url).kind, .match, url)
    }

    func testADecodedItemChangeBesideATextQueryIsShownWithThePlainURL() throws {
        // An absent item reads as empty: "/b" opens the app in the new document only. The walk
        // per mode class pairs the raw rule's path with the decoded one's; the URL spelled
        // with the decoded class's text is the real one.
        let old = try F.components(#"[{"?": "a=b"}, {"/": "/b", "?": {"x": "-"}, "percentEncoded": false}]"#)
        let new = try F.components(#"[{"?": "a=b"}, {"/": "/b", "?": {"x": "*"}, "percentEncoded": false}]"#)
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        XCTAssertEqual(diff.changes.count, 1)
        let change = try XCTUnwrap(diff.changes.first)
        XCTAssertTrue(change.urls.contains("https://\(F.domain)/b"), "\(change.urls)")
        for url in change.urls {
            XCTAssertEqual(try F.oracle(old, url).kind, .noMatch, url)
            XCTAssertEqual(try F.oracle(new, url).kind, .match, url)
        }
    }

    func testACaseFlipOnAnItemRuleBehindATextQueryRuleIsShown() throws {
        // Rules of both query shapes: no one walk writes the query as text and as items, and the
        // text rule for every path would hide the item rule from a walk that cannot take it
        // down; the walk over raw items keeps every rule, and the matcher judges its URLs.
        let old = try F.components(#"[{"/": "/*", "?": "k=*"}, {"/": "/a", "?": {"id": "x"}, "caseSensitive": false}]"#)
        let new = try F.components(#"[{"/": "/*", "?": "k=*"}, {"/": "/a", "?": {"id": "x"}}]"#)
        try assertFirstChange(old: old, new: new, from: .match, to: .noMatch)
    }

    /// The diff of `old` and `new` is different, and its first change goes `from` → `to` with
    /// URLs the oracle decides so on each document.
    private func assertFirstChange(
        old: AASADocument, new: AASADocument, from: DecisionKind, to: DecisionKind, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different, file: file, line: line)
        let change = try XCTUnwrap(diff.changes.first, file: file, line: line)
        XCTAssertEqual(change.old.kind, from, file: file, line: line)
        XCTAssertEqual(change.new.kind, to, file: file, line: line)
        XCTAssertFalse(change.urls.isEmpty, file: file, line: line)
        for url in change.urls {
            XCTAssertEqual(try F.oracle(old, url), change.old, url, file: file, line: line)
            XCTAssertEqual(try F.oracle(new, url), change.new, url, file: file, line: line)
        }
    }

    /// Making a rule with a query item case-insensitive opens `?KEY=a` as well as `?key=a`
    /// (SPEC 7, 11); the walks spell the name only as the file does, so the diff found no URL
    /// and exited "not proven" (an audit's finding, on a real document with `caseSensitive:
    /// false` added to its defaults).
    func testACaseFlipThatOnlyAnItemNameShowsIsShownWithTheNameInTheOtherCase() throws {
        let old = try F.components(#"[{"/": "/", "?": {"key": "?*"}}]"#)
        let new = try F.components(#"[{"/": "/", "?": {"key": "?*"}, "caseSensitive": false}]"#)
        try assertFirstChange(old: old, new: new, from: .noMatch, to: .match)
    }

    func testAppFilterKeepsOnlyThatApp() throws {
        let old = try F.document(#"{"applinks": {"details": [{"appIDs": ["\#(F.app)", "\#(F.clip)"], "components": [{"/": "/a"}]}]}}"#)
        let new = try F.document(#"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/a"}]}]}}"#)
        XCTAssertEqual(try SemanticDiff(old: old, new: new, domain: F.domain, app: F.app).verdict, .equivalent)
        XCTAssertEqual(try SemanticDiff(old: old, new: new, domain: F.domain, app: F.clip).changes.map(\.app), [F.clip])
    }

    /// A diff of one app compiles only the entries naming it; what it reports is what the diff
    /// of the whole document reports for that app: the same classes, with the document's own
    /// entry and rule numbers. Here the app is named by two entries, one shared with another
    /// app, an exclusion in the shared entry changes, and other apps' rules change too (the
    /// example URLs may differ: the walks differ).
    func testOneAppsDiffReportsTheClassesAndRuleNumbersOfTheWholeDocumentsDiff() throws {
        let other = "ABCDE12345.com.example.other"
        func document(help: String, shop: String, other otherPath: String) throws -> AASADocument {
            try F.document(
                ##"{"applinks": {"details": [{"appIDs": ["\##(other)"], "components": [{"/": "\##(otherPath)"}, {"/": "/shop/*", "#": "x"}]}, "##
                    + ##"{"appIDs": ["\##(F.app)", "\##(F.clip)"], "components": [{"/": "\##(help)", "exclude": true}, {"/": "/help/*"}]}, "##
                    + ##"{"appIDs": ["\##(F.clip)"], "components": [{"/": "/clip/*", "caseSensitive": false}]}, "##
                    + ##"{"appIDs": ["\##(F.app)"], "components": [{"/": "/a", "?": {"id": "?*"}}, {"/": "\##(shop)"}, {"/": "/help/faq"}]}]}}"##)
        }
        let old = try document(help: "/help/private/*", shop: "/shop/*", other: "/o/*")
        let new = try document(help: "/help/p*", shop: "/shop/item/*", other: "/o/x")
        let whole = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(whole.verdict, .different)
        XCTAssertNil(whole.incompleteness)
        func classes(_ changes: [SemanticDiff.Change]) -> Set<[AppDecision]> { Set(changes.map { [$0.old, $0.new] }) }
        for app in [F.app, F.clip, other] {
            let alone = try SemanticDiff(old: old, new: new, domain: F.domain, app: app)
            XCTAssertNil(alone.incompleteness, app)
            XCTAssertEqual(alone.verdict, .different, app)
            XCTAssertEqual(classes(alone.changes), classes(whole.changes.filter { $0.app == app }), app)
            for change in alone.changes {
                XCTAssertFalse(change.urls.isEmpty, app)
                for url in change.urls {
                    XCTAssertEqual(try F.oracle(old, url, app: app), change.old, url)
                    XCTAssertEqual(try F.oracle(new, url, app: app), change.new, url)
                }
            }
        }
        // The app's changes come from both its entries, numbered as in the document: the
        // shared entry's exclusion (entry 1 rule 0) and its own entry's rule 1 (entry 3).
        let app = try SemanticDiff(old: old, new: new, domain: F.domain, app: F.app)
        let rules = Set(app.changes.flatMap { [$0.old, $0.new] }.compactMap { decision in decision.entry.map { [$0, decision.rule ?? -1] } })
        XCTAssertTrue(rules.isSuperset(of: [[1, 0], [1, 1], [3, 1]]), "\(rules)")
    }
}
