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

    /// `--app` may be left out when the document names one app, as most real documents do; with
    /// several, the usage error lists them, so that the next command can be typed from it.
    func test_app_defaultsToTheDocumentsOnlyApp_andOtherwiseTheErrorNamesThem() throws {
        let folder = try makeTemporaryFolder("aasa-explain-app")
        let one = folder.appendingPathComponent("one.json")
        try Data(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.ex.one"], "components": [{"/": "/a/*"}]}]}}"#.utf8).write(to: one)
        let implicit = try CLIRunner.run(["explain", one.path, "--domain", "example.com", "https://example.com/a/b"])
        let explicit = try CLIRunner.run(["explain", one.path, "--domain", "example.com", "--app", "ABCDE12345.com.ex.one", "https://example.com/a/b"])
        XCTAssertEqual(implicit.status, 0, implicit.stderr)
        XCTAssertEqual(implicit.stdout, explicit.stdout)
        XCTAssertTrue(implicit.stdout.contains("app       ABCDE12345.com.ex.one\ndecision  match (entry 0, rule 0)"), implicit.stdout)

        let museum = CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path
        let several = try CLIRunner.run(["explain", museum, "--domain", "museum.example", "https://museum.example/x"])
        XCTAssertEqual(several.status, 2)
        XCTAssertTrue(
            several.stderr.hasPrefix(
                "aasa explain: missing --app: the document names 2 apps (MUSE4EX123.org.example.museum, MUSE4EX123.org.example.museum.guide)\n"),
            several.stderr)

        let none = folder.appendingPathComponent("none.json")
        try Data(#"{"applinks": {"details": []}}"#.utf8).write(to: none)
        let noApp = try CLIRunner.run(["explain", none.path, "--domain", "example.com", "https://example.com/"])
        XCTAssertEqual(noApp.status, 2)
        XCTAssertTrue(noApp.stderr.hasPrefix("aasa explain: missing --app (the document names no app)\n"), noApp.stderr)
    }
}
