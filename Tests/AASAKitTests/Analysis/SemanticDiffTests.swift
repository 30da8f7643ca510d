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
        let diff = try SemanticDiff(old: old, new: new, domain: F.domain)
        XCTAssertEqual(diff.verdict, .different)
        let change = try XCTUnwrap(diff.changes.first)
        XCTAssertEqual(change.old.kind, .match)
        XCTAssertEqual(change.new.kind, .noMatch)
        XCTAssertFalse(change.urls.isEmpty)
        for url in change.urls {
            XCTAssertEqual(try F.oracle(old, url), change.old, url)
            XCTAssertEqual(try F.oracle(new, url), change.new, url)
        }
    }

    func testAppFilterKeepsOnlyThatApp() throws {
        let old = try F.document(#"{"applinks": {"details": [{"appIDs": ["\#(F.app)", "\#(F.clip)"], "components": [{"/": "/a"}]}]}}"#)
        let new = try F.document(#"{"applinks": {"details": [{"appIDs": ["\#(F.app)"], "components": [{"/": "/a"}]}]}}"#)
        XCTAssertEqual(try SemanticDiff(old: old, new: new, domain: F.domain, app: F.app).verdict, .equivalent)
        XCTAssertEqual(try SemanticDiff(old: old, new: new, domain: F.domain, app: F.clip).changes.map(\.app), [F.clip])
    }
}
