import AASAKit
import XCTest

/// `ServingHost.urlHost`: one engine answers for every host that might serve its document, as an
/// engine made for each URL's own host would.
final class ServingHostTests: XCTestCase {
    let text = #"""
        {"applinks":{"details":[{"appIDs":["T.a","T.b"],"components":[{"/":"/no/*","exclude":true},{"/":"/p/*","?":{"q":"?*"}},{"#":"f"}]}]}}
        """#

    func engines(_ domain: String) throws -> [(String, any DecisionEngine)] {
        let document = try AASADocument(bytes: Array(text.utf8))
        return [
            ("dfa", DFAMatcher(try CompiledDocument(document: document, domain: domain))),
            ("reference", ReferenceMatcher(document: document, domain: domain)),
        ]
    }

    func test_urlHost_decidesAsAnEngineMadeForTheURLsOwnHost() throws {
        let urls = [
            "https://b.example/p/1?q=2", "https://B.example/no/x", "http://b.example/x#f", "https://b.example/p/1",
            "https://b.example:8443/p/2?q=x", "https://user@b.example/#f",
        ]
        for ((name, shared), (_, own)) in zip(try engines("a.example"), try engines("b.example")) {
            for url in urls {
                for app in [nil, "T.a", "T.z"] {
                    XCTAssertEqual(try shared.decide(url, app: app, host: .urlHost), try own.decide(url, app: app), "\(name) \(url) \(app ?? "-")")
                    XCTAssertEqual(try shared.opensApp(url, app: app, host: .urlHost), try own.opensApp(url, app: app), "\(name) \(url)")
                }
                XCTAssertEqual(try shared.decide(url, app: nil).matchedApps, [], "\(name): on its domain, another host opens nothing")
            }
            XCTAssertThrowsError(try shared.decide("https://b.example\\@a.example/p/1?q=2", app: nil, host: .urlHost), name)
        }
    }
}
