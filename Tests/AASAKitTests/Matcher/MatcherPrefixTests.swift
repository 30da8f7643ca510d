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

    /// A domain holding a byte that changes how the authority is read (`#`, `/`, `:`, `?`, `@`,
    /// `[`, `\`, a space, a control or non-ASCII byte) gets no shortcut: its URLs are split and
    /// decided, or refused, exactly as the reference does.
    func test_prefixShortcut_isOffForDomainsWithAuthorityBytes() throws {
        let parsed = try AASADocument(bytes: Array(document.utf8))
        let domains = [
            "ex#ample.com", "ex/ample.com", "ex:ample.com", "ex?ample.com", "user@example.com", "[::1]", "ex\\ample.com",
            "ex ample.com", "ex\u{7F}ample.com", "ex\u{1}ample.com", "exämple.com", "example.com",
        ]
        func outcome(_ decide: () throws -> URLDecision) -> String {
            do { return "\(try decide())" } catch { return "error \(error)" }
        }
        for domain in domains {
            let matcher = DFAMatcher(try CompiledDocument(document: parsed, domain: domain))
            let reference = ReferenceMatcher(document: parsed, domain: domain)
            for url in ["https://\(domain)", "https://\(domain)/a/b", "https://\(domain)?q=1", "https://\(domain)#x"] {
                XCTAssertEqual(
                    outcome { try matcher.decide(url, app: nil) }, outcome { try reference.decide(url, app: nil) }, "\(domain) \(url)")
            }
        }
    }
}
