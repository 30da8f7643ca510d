import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Text for a person quotes strings from whoever wrote a document, a matrix or a file name: an
/// escape sequence there is shown (`\u{1B}`), never obeyed, and a line break cannot print a line
/// that looks like the tool's. JSON carries the strings as they are (its own escaping suffices).
final class OutputEscapingCLITests: XCTestCase {
    private let app = "ABCDE12345.com.example.app"

    /// Whether `text` holds anything a terminal obeys: a C0 control but LF, DEL, or a C1 control.
    private func obeyed(_ text: String) -> [String] {
        text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
            .map { String(format: "U+%04X", $0.value) }
    }

    private func write(_ folder: URL, _ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// `text` as a JSON string literal, as the tool writes one.
    private func jsonString(_ text: String) -> String { JSONWriter.escape(text) }

    func test_classifySummary_showsAppIDsAndDomainsEscapedOneLineEach() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        let apps = [app + "\u{1B}[31mRED\u{1B}]0;title\u{07}", app + "\n  fake.example: 9 records"]
        let document = #"{"applinks":{"details":[{"appIDs":\#(jsonArray(apps)),"components":[{"/":"/*"}]}]}}"#
        _ = try write(folder, "rules/ex.com.json", document)
        _ = try write(folder, "rules/e\u{1B}[32m.com.json", "{broken")
        let run = try CLIRunner.run(
            ["classify", "--rules", folder.appendingPathComponent("rules").path, "--summary", "text"],
            stdin: Data("https://ex.com/a\nhttps://e\u{1B}[32m.com/x\n".utf8))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(obeyed(run.stderr), [], run.stderr)
        XCTAssertFalse(run.stderr.contains("\n  fake.example"), run.stderr)
        XCTAssertTrue(run.stderr.contains(#"\u{1B}[31mRED\u{1B}]0;title\u{7} 1"#), run.stderr)
        XCTAssertTrue(run.stderr.contains(#"  e\u{1B}[32m.com: 1 record,"#), run.stderr)
    }

    /// The component column names a query item from the document: cut and escaped as the
    /// compared and pattern cells are; and those cells escape C1 controls too, not only C0.
    func test_explain_escapesQueryItemNamesAndC1Controls() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        let forged = "x\n\nentry 0, rule 0: matches\u{1B}]0;pwned\u{07}"
        let long = String(repeating: "n", count: 300)
        let document = #"{"applinks":{"details":[{"appIDs":["\#(app)"],"components":[{"/":"/q\#u{9B}2J*","?":{\#(jsonString(forged)):"*","\#(long)":"*"}}]}]}}"#
        let path = try write(folder, "doc.json", document)
        let run = try CLIRunner.run(["explain", path, "--domain", "ex.com", "--app", app, "https://ex.com/q\u{9B}2Jz"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(obeyed(run.stdout), [], run.stdout)
        XCTAssertEqual(run.stdout.split(separator: "\n").filter { $0.hasPrefix("entry ") }.count, 1, "one section, not a forged second: \(run.stdout)")
        XCTAssertTrue(run.stdout.contains(#"?x\u{A}\u{A}entry 0, rule 0: matches\u{1B}]0;pwned\u{7}"#), run.stdout)
        XCTAssertTrue(run.stdout.contains(#"\u{9B}2J"#), run.stdout)
        XCTAssertFalse(run.stdout.contains(long), "a 300-character name is cut: \(run.stdout)")
        XCTAssertTrue(run.stdout.contains("… (301 bytes)"), run.stdout)
        // A quoted cell is a JSON string: what JSON leaves raw is escaped the JSON way, so one
        // string never shows controls in two notations (`\u001b` beside `\u{7F}`).
        let mixed = try CLIRunner.run(["explain", path, "--domain", "ex.com", "--app", app, "https://ex.com/q\u{9B}2Jz\u{1B}\u{7F}\u{202E}"])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertEqual(obeyed(mixed.stdout), [], mixed.stdout)
        XCTAssertTrue(mixed.stdout.contains(#""/q\u009b2Jz\u001b\u007f\u202e""#), mixed.stdout)
        XCTAssertTrue(mixed.stdout.contains(#""/q\u009b2J*""#), mixed.stdout)
        XCTAssertTrue(mixed.stdout.contains(#"URL       https://ex.com/q\u{9B}2Jz\u{1B}\u{7F}\u{202E}"#), mixed.stdout)
    }

    /// A matrix URL quoted in a finding about the entitlements file itself stays on its line
    /// (a line of its own could be a CI log's `::error` command); JSON carries entries and
    /// messages as they are, not as a terminal is shown them.
    func test_entitlements_fileFindingsStayOnOneLine_andJSONCarriesTheRealStrings() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        _ = try write(folder, "rules/ex.com.json", #"{"applinks":{"details":[{"appIDs":["\#(app)"],"components":[{"/":"/a/*"}]}]}}"#)
        let matrix = try write(folder, "matrix.json", #"{"opens_app": [\#(jsonString("nope\u{1B}]0;owned\u{07}\n::error file=x::forged"))]}"#)
        let entry = "applinks:missing\u{1B}[31m.com"
        let contents: [String: Any] = ["application-identifier": app, "com.apple.developer.associated-domains": ["applinks:ex.com", entry]]
        let plist = folder.appendingPathComponent("app.entitlements")
        try PropertyListSerialization.data(fromPropertyList: contents, format: .xml, options: 0).write(to: plist)
        let rules = folder.appendingPathComponent("rules").path

        let text = try CLIRunner.run(["entitlements", plist.path, "--rules", rules, "--matrix", matrix])
        XCTAssertEqual(text.status, 1, text.stdout)
        XCTAssertEqual(obeyed(text.stdout), [], text.stdout)
        XCTAssertFalse(text.stdout.split(separator: "\n").contains { $0.hasPrefix("::error") }, text.stdout)
        XCTAssertTrue(text.stdout.contains(#"nope\u{1B}]0;owned\u{7}\u{A}::error file=x::forged"#), text.stdout)

        let json = try CLIRunner.run(["entitlements", plist.path, "--rules", rules, "--format", "json"])
        let messages = try json.stdout.split(separator: "\n").flatMap { line -> [String] in
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (record["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        }
        let invalid = try XCTUnwrap(messages.first { $0.contains("is not a domain name") }, json.stdout)
        XCTAssertEqual(invalid, "'\(entry)': 'missing\u{1B}[31m.com' is not a domain name", "the real string, escaped once, by JSON")
    }

    /// GitHub's escaping (`%`, CR, LF; `:` and `,` in properties) and, before it, every other
    /// control character shown as text: the Actions log obeys escape sequences.
    func test_lintGitHub_showsControlCharactersFromTheDocumentAsText() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        let apps = [app + ".nul\u{0}z", app + ".esc\u{1B}[31m", app + ".c1\u{85}\u{9B}"]
        let path = try write(
            folder, "doc.json",
            #"{"applinks":{"details":[{"appIDs":\#(jsonArray(apps)),"components":[{"/":"*","comment":\#(jsonString("hi\u{1B}]0;t\u{07}\n::warning::forged %0A"))}]}]}}"#)
        let run = try CLIRunner.run(["lint", path, "--format", "github"])
        XCTAssertEqual(obeyed(run.stdout), [], run.stdout)
        XCTAssertTrue(run.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("::") }, run.stdout)
        XCTAssertTrue(run.stdout.contains(#"nul\u{0}z"#) && run.stdout.contains(#"\u{85}\u{9B}"#), run.stdout)
        XCTAssertTrue(run.stdout.contains("%0A::warning::forged %250A"), run.stdout)
    }

    /// A key written twice would leave one of its lists unchecked; it is refused, as a
    /// misspelt key is. Under the keyed form an app named twice keeps both lists.
    func test_matrix_topLevelKeyGivenTwiceIsRefused() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        let document = try write(folder, "doc.json", #"{"applinks":{"details":[{"appIDs":["\#(app)"],"components":[{"/":"/a/*"}]}]}}"#)
        let twice = try write(folder, "twice.json", #"{"opens_app":["https://ex.com/zz"],"opens_app":["https://ex.com/a/1"]}"#)
        let run = try CLIRunner.run(["test", document, "--matrix", twice])
        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
        XCTAssertTrue(run.stderr.contains("opens_app is given twice"), run.stderr)
        let keyed = try write(folder, "keyed.json", #"{"opens_app":{"\#(app)":["https://ex.com/zz"],"\#(app)":["https://ex.com/a/1"]}}"#)
        let both = try CLIRunner.run(["test", document, "--matrix", keyed])
        XCTAssertEqual(both.status, 1, both.stdout)
        XCTAssertTrue(both.stdout.contains("1 passed, 1 failed"), both.stdout)
    }

    /// A C1 control where JSON expects something else is named (U+009B), not printed.
    func test_jsonSyntaxError_namesAC1ControlRatherThanPrintingIt() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        let path = try write(folder, "doc.json", "\n\n{\"a\" \u{9B}}")
        let run = try CLIRunner.run(["match", path, "--domain", "ex.com", "https://ex.com/"])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertTrue(run.stderr.contains("found U+009B"), run.stderr)
        XCTAssertEqual(obeyed(run.stderr), [], run.stderr)
    }

    /// "cannot read NAME" on stderr shows the name escaped on one line: a file name may hold an
    /// escape sequence (one cleared the screen) or a line break (one printed a forged line).
    func test_cannotRead_namesAHostileFileEscapedOnOneLine() throws {
        let folder = try makeTemporaryFolder("aasa-escaping")
        let rules = try write(folder, "rules/ex.com.json", #"{"applinks":{"details":[]}}"#)
        let plist = folder.appendingPathComponent("app.entitlements")
        let contents: [String: Any] = ["application-identifier": app, "com.apple.developer.associated-domains": ["applinks:ex.com"]]
        try PropertyListSerialization.data(fromPropertyList: contents, format: .xml, options: 0).write(to: plist)
        let rulesFolder = URL(fileURLWithPath: rules).deletingLastPathComponent().path
        let missing = folder.appendingPathComponent("nonexist\u{1B}[2Jx\nfake: error").path
        let shown = #"nonexist\u{1B}[2Jx\u{A}fake: error"#
        let runs: [[String]] = [
            ["lint", missing], ["match", missing, "--domain", "ex.com", "https://ex.com/"],
            ["explain", missing, "--domain", "ex.com", "--app", app, "https://ex.com/"], ["classify", "--rules", missing],
            ["classify", "--rules", rulesFolder, "--input", missing], ["entitlements", missing, "--rules", rulesFolder],
            ["entitlements", plist.path, "--rules", rulesFolder, "--matrix", missing], ["check", "ex.com", "--matrix", missing],
            ["test", rules, "--domain", "ex.com", "--matrix", missing],
        ]
        for arguments in runs {
            let run = try CLIRunner.run(arguments)
            XCTAssertNotEqual(run.status, 0, "\(arguments): \(run.stderr)")
            XCTAssertEqual(obeyed(run.stderr), [], "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("\nfake: error"), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("cannot read") && run.stderr.contains(shown), "\(arguments): \(run.stderr)")
        }
    }

    private func jsonArray(_ strings: [String]) -> String {
        "[" + strings.map(jsonString).joined(separator: ",") + "]"
    }
}
