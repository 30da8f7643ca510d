import Foundation
import XCTest
import _AASATestSupport

/// `aasa explain` through the binary.
final class ExplainCLITests: XCTestCase {
    /// SPEC 4: `http` and `https` links open apps alike. `explain` decides an `http` URL as its
    /// `https` form and says the scheme is not `https` without claiming it cannot open an app.
    func test_httpURL_isDecidedAsItsHTTPSFormAndTheNoteSaysBothOpenApps() throws {
        let document = CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path
        func explain(_ url: String) throws -> CLIRunner.Output {
            try CLIRunner.run(["explain", document, "--domain", "museum.example", "--app", "MUSE4EX123.org.example.museum", url])
        }
        let http = try explain("http://museum.example/exhibitions/x")
        let https = try explain("https://museum.example/exhibitions/x")
        XCTAssertEqual(http.status, 0, http.stderr)
        XCTAssertEqual(https.status, 0, https.stderr)
        func decision(_ text: String) -> Substring? { text.split(separator: "\n").first { $0.hasPrefix("decision") } }
        XCTAssertEqual(decision(http.stdout), "decision  match (entry 0, rule 1)", http.stdout)
        XCTAssertEqual(decision(http.stdout), decision(https.stdout))
        XCTAssertTrue(http.stdout.contains(#"the scheme is "http", not https"#), http.stdout)
        XCTAssertTrue(http.stdout.contains("http and https links open apps"), http.stdout)
        XCTAssertFalse(http.stdout.contains("only for https"), http.stdout)
        XCTAssertFalse(https.stdout.contains("not https"), https.stdout)
    }

    /// The URL argument is read as `match` reads it, blanks around it dropped, so that both
    /// decide the same text: `explain` once kept a trailing space and explained another URL
    /// (here the exclusion of `x ` instead of the match of `x`).
    func test_urlArgument_isTrimmedAsMatchTrimsIt_soBothDecideTheSameURL() throws {
        let folder = try makeTemporaryFolder("aasa-explain")
        let file = folder.appendingPathComponent("doc.json")
        try Data(##"{"applinks": {"details": [{"appID": "ABCDE12345.com.ex.one", "components": [{"#": "x ", "exclude": true}, {"#": "x"}]}]}}"##.utf8)
            .write(to: file)
        for url in ["https://example.com/#x ", "https://example.com/#x\t", " https://example.com/#x"] {
            let explained = try CLIRunner.run(["explain", file.path, "--domain", "example.com", "--app", "ABCDE12345.com.ex.one", url])
            XCTAssertEqual(explained.status, 0, explained.stderr)
            XCTAssertTrue(explained.stdout.contains("decision  match (entry 0, rule 1)"), explained.stdout)
            let matched = try CLIRunner.run(["match", file.path, "--domain", "example.com", url])
            XCTAssertTrue(matched.stdout.contains(#""decision": "match", "entry": 0, "rule": 1"#), matched.stdout)
        }
    }
}
