import AASAKit
import XCTest

/// `DFAMatcher.decide(bytes:)` reads a URL that starts with `https://` + its domain without
/// splitting it; these URLs sit on every edge of that shortcut (port, user info, longer host,
/// letter case, nothing after the host, query or fragment right after it) and must be decided
/// exactly as the reference matcher decides them.
final class MatcherPrefixTests: XCTestCase {
    let document = """
        {"applinks": {"details": [{"appIDs": ["T.a", "T.b"], "components": [
          {"/": "/", "exclude": true, "#": "x"},
          {"/": "/a/*"},
          {"/": "*", "?": {"q": "1"}},
          {"/": "/"}
        ]}]}}
        """

    func test_prefixShortcut_decidesLikeTheReference() throws {
        let parsed = try AASADocument(bytes: Array(document.utf8))
        let urls = [
            "https://example.com", "https://example.com/", "https://example.com/a/b", "https://example.com?q=1",
            "https://example.com#x", "https://example.com/#x", "https://example.com:443/a/b",
            "https://example.com@other.com/a/b", "https://example.comx/a/b", "https://example.co/a/b",
            "https://Example.com/a/b", "HTTPS://example.com/a/b", "http://example.com/a/b", "https://example.com.",
            "https://example.com./a/b", "https://example.com/a/b?q=1#x", "https://example.com?q=2/a/b",
        ]
        for domain in ["example.com", "EXAMPLE.com", "example.com:443"] {
            let matcher = DFAMatcher(try CompiledDocument(document: parsed, domain: domain))
            let reference = ReferenceMatcher(document: parsed, domain: domain)
            for url in urls {
                for app in [nil, "T.a", "T.b", "T.c"] {
                    let expected = try reference.decide(url, app: app)
                    let actual = try matcher.decide(url, app: app)
                    XCTAssertEqual(actual, expected, "\(domain) \(url) app \(app ?? "all")")
                }
            }
        }
    }
}
