import AASAKit
import Foundation
import XCTest

/// `Coverage` gives each rule a URL it really decides (the reference matcher agrees), on
/// hand-written documents and on every real document of the shared corpus.
final class CoverageTests: XCTestCase {
    typealias F = AnalysisFixture

    func testEveryReachableRuleGetsAURLItDecides() throws {
        let document = try F.components(
            ##"[{"/": "/a/*", "#": "top"}, {"/": "/b/$(lang)_$(region)/*"}, {"/": "/c/*", "?": {"q": "x*", "n": "?"}}, {"/": "/d?*", "exclude": true}, {"/": "/d*"}]"##)
        let coverage = try Coverage(document: document, domain: F.domain)
        XCTAssertTrue(coverage.isProof)
        XCTAssertEqual(coverage.items.count, 5)
        for item in coverage.items {
            let url = try XCTUnwrap(item.url, "rule \(item.rule): \(item.reason ?? "")")
            XCTAssertEqual(try F.oracle(document, url), AppDecision(app: item.app, kind: item.decision, entry: item.entry, rule: item.rule), url)
        }
    }

    /// `match` reads a URL from a line, trimmed (SPEC 14), and refuses one over `url-bytes`: a
    /// rule that only a URL ending in a space would match gets no URL, and no URL is longer
    /// than the limit.
    func testNoURLIsGivenThatALineCannotCarry() throws {
        let spaced = try F.components(##"[{"#": "x "}]"##)
        XCTAssertEqual(try Coverage(document: spaced, domain: F.domain).items.map(\.url), [nil])
        let long = try F.components(#"[{"/": "/abcdefghij"}]"#)
        var short = Configuration()
        short.input.maxURLBytes = 20
        XCTAssertEqual(try Coverage(document: long, domain: F.domain, configuration: short).items.map(\.url), [nil])
        XCTAssertEqual(try Coverage(document: long, domain: F.domain).items.map(\.url), ["https://example.com/abcdefghij"])
    }

    func testDecodedRulesGetURLsWhoseDecodedTextMatches() throws {
        let document = try F.components(##"[{"/": "/a b/#/*", "?": {"k&y": "v=1"}, "percentEncoded": false}, {"/": "/%/é", "percentEncoded": false}]"##)
        let coverage = try Coverage(document: document, domain: F.domain)
        XCTAssertTrue(coverage.isProof)
        for item in coverage.items {
            let url = try XCTUnwrap(item.url, "rule \(item.rule): \(item.reason ?? "")")
            XCTAssertEqual(try F.oracle(document, url).rule, item.rule, url)
        }
    }

    func testUnreachableRuleGetsAReasonInsteadOfAURL() throws {
        let coverage = try Coverage(document: try F.components(#"[{"/": "*"}, {"/": "/a"}]"#), domain: F.domain)
        XCTAssertNil(coverage.items[1].url)
        XCTAssertTrue(coverage.items[1].reason?.contains("components[0]") ?? false)
    }

    /// A rule that decides one of its apps but never the other names, for the other, the rule
    /// that decides it first: the list was empty when the rule decided some app (an audit's
    /// finding: "decided earlier by" and nothing after it).
    func testARuleShadowedForOneOfItsAppsNamesTheRuleDecidingThatApp() throws {
        let document = try F.document(
            #"{"applinks": {"details": [{"appIDs": ["\#(F.clip)"], "components": [{"/": "*"}]},"#
                + #"{"appIDs": ["\#(F.app)", "\#(F.clip)"], "components": [{"/": "*"}]}]}}"#)
        let items = try Coverage(document: document, domain: F.domain).items
        let shadowed = try XCTUnwrap(items.first { $0.entry == 1 && $0.app == F.clip })
        XCTAssertNil(shadowed.url)
        XCTAssertEqual(shadowed.reason, "every URL it matches is decided earlier by applinks.details[0].components[0]")
        XCTAssertNotNil(items.first { $0.entry == 1 && $0.app == F.app }?.url, "the rule decides the other app")
    }

    func testAnItemRuleBehindATextQueryExclusionGetsAURLWithAnExtraItem() throws {
        // No walk writes the query as text and as items at once: the matcher judges each URL
        // the walks wrote, and the same URL with an empty item, which the dictionary ignores
        // and the exclusion's text pattern does not.
        let document = try F.components(#"[{"/": "/a", "?": "id=x", "exclude": true}, {"/": "/a", "?": {"id": "x"}}]"#)
        let coverage = try Coverage(document: document, domain: F.domain)
        let url = try XCTUnwrap(coverage.items[1].url, coverage.items[1].reason ?? "")
        XCTAssertEqual(url, "https://\(F.domain)/a?id=x&")
        // Both rules have a URL, and the walk per mode class (query text and items apart)
        // finished: nothing is left unproven.
        XCTAssertTrue(coverage.isProof)
        XCTAssertEqual(try F.oracle(document, url), AppDecision(app: F.app, kind: .match, entry: 0, rule: 1), url)
    }

    func testACaseInsensitiveItemRuleInAMixedDocumentGetsAURLTheMatcherConfirms() throws {
        // Its outcome's URL ("/a") is excluded by the text rule, and the rule alone writes only
        // lower case, which the text rule catches too: the walk reading every mode on the
        // URL's own text writes capitals.
        let document = try F.components(
            #"[{"/": "/a*", "?": "*x*", "exclude": true}, {"/": "/a", "?": {"id": "x*"}, "caseSensitive": false}]"#)
        let coverage = try Coverage(document: document, domain: F.domain)
        let url = try XCTUnwrap(coverage.items[1].url, coverage.items[1].reason ?? "")
        XCTAssertEqual(try F.oracle(document, url), AppDecision(app: F.app, kind: .match, entry: 0, rule: 1), url)
    }

    /// Rules in modes one text cannot serve (an accented case-folded literal): a rule covered
    /// by an earlier rule of its own mode is proven to have no URL, naming that rule; a rule
    /// covered only across modes stays "not exhaustive".
    func test_severalTextModes_proveARuleWithoutURLCoveredWithinItsMode() throws {
        let covered = try F.components(
            #"[{"/": "/cr\#u{E8}me/*", "caseSensitive": false, "percentEncoded": false}, {"/": "/a/*", "percentEncoded": false}, {"/": "/a/b", "percentEncoded": false}]"#)
        let coverage = try Coverage(document: covered, domain: F.domain)
        XCTAssertTrue(coverage.isProof)
        XCTAssertNil(coverage.items[2].url)
        XCTAssertEqual(coverage.items[2].reason, "every URL it matches is decided earlier by applinks.details[0].components[1]")
        for item in coverage.items.prefix(2) {
            let url = try XCTUnwrap(item.url)
            XCTAssertEqual(try F.oracle(covered, url).rule, item.rule, url)
        }
        let across = try F.components(
            #"[{"/": "/a/*", "caseSensitive": false, "percentEncoded": false}, {"/": "/a/b", "percentEncoded": false}, {"/": "/cr\#u{E8}me", "caseSensitive": false, "percentEncoded": false}]"#)
        let unproven = try Coverage(document: across, domain: F.domain)
        XCTAssertFalse(unproven.isProof)
        XCTAssertTrue(unproven.items[1].reason?.hasPrefix("no URL found; the search is not exhaustive") == true, "\(unproven.items[1])")
    }

    /// Every URL cover prints for the 250 real documents is decided by that rule, per the oracle.
    func testCoverURLsOfTheRealCorpusAreConfirmedByTheReferenceMatcher() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../shared/corpus/aasa/real").standardizedFileURL
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            throw XCTSkip("../shared/corpus is absent")
        }
        var checked = 0
        var documents = 0
        for name in names.sorted() where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                let document = try? AASADocument(bytes: Array(data))
            else { continue }
            documents += 1
            let coverage = try Coverage(document: document, domain: F.domain)
            let oracle = ReferenceMatcher(document: document, domain: F.domain)
            for item in coverage.items {
                guard let url = item.url else { continue }
                let decision = try oracle.decide(url, app: item.app).decisions.first
                XCTAssertEqual(decision, AppDecision(app: item.app, kind: item.decision, entry: item.entry, rule: item.rule), "\(name): \(url)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(documents, 200)
        XCTAssertGreaterThan(checked, 500)
    }
}
