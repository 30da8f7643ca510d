import Foundation
import XCTest
import _AASATestSupport

/// `aasa match` through the binary: URLs given as arguments follow the rules of lines read from
/// standard input (SPEC 14).
final class MatchCLITests: XCTestCase {
    func test_match_argumentsAreJudgedAsTheLinesOfStandardInputAre() throws {
        let folder = try makeTemporaryFolder("aasa-match")
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/*"}]}]}}"#.utf8).write(to: document)
        let aasa = "'\(CLIRunner.executable.path)' match '\(document.path)' --domain ex.com"
        // Bytes that are not UTF-8: an error record, as on standard input, not a decision on
        // the replacement characters.
        let argument = try CLIRunner.runShell(#"\#(aasa) "$(printf 'https://ex.com/\377a')""#)
        let line = try CLIRunner.runShell(#"printf 'https://ex.com/\377a\n' | \#(aasa)"#)
        XCTAssertEqual(argument.status, 0, argument.stderr)
        XCTAssertTrue(argument.stdout.contains(#""error": "the line is not valid UTF-8""#), argument.stdout)
        XCTAssertEqual(argument.stdout, line.stdout)
        let strict = try CLIRunner.runShell(#"\#(aasa) --strict "$(printf 'https://ex.com/\377a')""#)
        XCTAssertEqual(strict.status, 1, strict.stderr)
        // A URL holding U+FFFD itself is still decided.
        let replacement = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "https://ex.com/\u{FFFD}a"])
        XCTAssertTrue(replacement.stdout.contains(#""decision": "match""#), replacement.stdout)
        // Blank arguments: no record, or with --blank-lines record the "empty line" record.
        let skipped = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "", " ", "https://ex.com/a"])
        XCTAssertEqual(skipped.stdout.split(separator: "\n").count, 1, skipped.stdout)
        let recorded = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "--blank-lines", "record", "", " ", "https://ex.com/a"])
        let records = recorded.stdout.split(separator: "\n")
        XCTAssertEqual(records.count, 3, recorded.stdout)
        XCTAssertEqual(records.prefix(2).filter { $0.contains(#""error": "empty line""#) }.count, 2, recorded.stdout)
        // `line-bytes` holds an argument as it holds a line (only `url-bytes` did).
        let long = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "--limit", "line-bytes=16", "https://ex.com/abcdef"])
        let fromInput = try CLIRunner.runShell(#"printf 'https://ex.com/abcdef\n' | \#(aasa) --limit line-bytes=16"#)
        XCTAssertTrue(long.stdout.contains(#""error": "line of 21 bytes is over the limit of 16 bytes"#), long.stdout)
        XCTAssertEqual(long.stdout, fromInput.stdout)
    }

    /// A `--domain` with a final dot or a `*.` label is taken as text (SPEC 3), so the host
    /// meant gets no_match: said once on stderr, where every record was silent about why.
    func test_domainWithAFinalDotOrAWildcardLabel_isWarnedAbout() throws {
        let folder = try makeTemporaryFolder("aasa-match")
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/*"}]}]}}"#.utf8).write(to: document)
        for (domain, warning) in [("ex.com.", "ends in '.'"), ("*.ex.com", "not as a wildcard")] {
            let run = try CLIRunner.run(["match", document.path, "--domain", domain, "https://ex.com/a"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains(#""decision": "no_match""#), run.stdout)
            XCTAssertTrue(run.stderr.contains(warning), run.stderr)
            XCTAssertEqual(run.stderr.components(separatedBy: "warning:").count - 1, 1, "said once: \(run.stderr)")
        }
        let plain = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "https://ex.com/a"])
        XCTAssertEqual(plain.stderr, "")
    }

    /// `--help` wins over a mistake elsewhere on the line (it exited 2), and a failure to read
    /// before any record is not said to leave the output "incomplete".
    func test_helpWinsOverABadOption_andAnUnreadInputLeavesNothingIncomplete() throws {
        let help = try CLIRunner.run(["match", "--help", "--bogus"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("USAGE: aasa match"), help.stdout)
        XCTAssertEqual(try CLIRunner.run(["match", "--bogus"]).status, 2)
        XCTAssertEqual(try CLIRunner.run(["match", "--", "--help"]).status, 2, "after --, --help is a positional")
        // An unknown engine is said alike by every command that takes one.
        for command in [["match", "doc.json", "--domain", "ex.com"], ["classify"]] {
            let engine = try CLIRunner.run(command + ["--engine", "foo"], stdin: Data())
            XCTAssertEqual(engine.status, 2, engine.stderr)
            XCTAssertTrue(engine.stderr.contains("unknown engine 'foo' (choose dfa, reference)"), "\(command): \(engine.stderr)")
        }
        let folder = try makeTemporaryFolder("aasa-match")
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/*"}]}]}}"#.utf8).write(to: document)
        let directory = try CLIRunner.runShell("'\(CLIRunner.executable.path)' match '\(document.path)' --domain ex.com < '\(folder.path)'")
        XCTAssertEqual(directory.status, 5, directory.stderr)
        XCTAssertTrue(directory.stderr.contains("cannot read the input"), directory.stderr)
        XCTAssertFalse(directory.stderr.contains("incomplete"), directory.stderr)
    }

    /// A document named `/dev/stdin` while the URLs come from standard input too is a usage
    /// error: a redirected file was read twice (its JSON lines classified as URLs, exit 0) and a
    /// pipe was read whole as the document (no record, exit 0). `classify --rules` the same.
    func test_documentAndURLsBothFromStandardInput_isAUsageError() throws {
        let folder = try makeTemporaryFolder("aasa-match")
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/*"}]}]}}"#.utf8).write(to: document)
        let binary = "'\(CLIRunner.executable.path)'"
        for command in [
            "\(binary) match /dev/stdin --domain ex.com < '\(document.path)'",
            "cat '\(document.path)' | \(binary) match /dev/stdin --domain ex.com",
            "\(binary) classify --rules /dev/stdin --domain ex.com < '\(document.path)'",
            "cat '\(document.path)' | \(binary) classify --rules /dev/stdin --domain ex.com",
        ] {
            let run = try CLIRunner.runShell(command)
            XCTAssertEqual(run.status, 2, "\(command): \(run.stdout) \(run.stderr)")
            XCTAssertEqual(run.stdout, "", command)
            XCTAssertTrue(run.stderr.contains("standard input") || run.stderr.contains("is the input"), run.stderr)
        }
        // The document on standard input with the URLs as arguments is fine.
        let arguments = try CLIRunner.runShell("\(binary) match /dev/stdin --domain ex.com https://ex.com/a < '\(document.path)'")
        XCTAssertEqual(arguments.status, 0, arguments.stderr)
        XCTAssertTrue(arguments.stdout.contains(#""decision": "match""#), arguments.stdout)
    }

    /// `--app` naming an app the document does not name gets no_match records, as SPEC makes
    /// them, and one warning on stderr (a misspelt app ID was silent); a named one gets none.
    func test_match_appTheDocumentDoesNotNameIsSaidOnceOnStderr() throws {
        let folder = try makeTemporaryFolder("aasa-match")
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/*"}]}]}}"#.utf8).write(to: document)
        let other = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "--app", "T.b", "https://ex.com/x", "https://ex.com/y"])
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertEqual(other.stdout.components(separatedBy: #""decision": "no_match""#).count - 1, 2, other.stdout)
        XCTAssertEqual(other.stderr.components(separatedBy: "no entry of applinks.details names T.b").count - 1, 1, other.stderr)
        let named = try CLIRunner.run(["match", document.path, "--domain", "ex.com", "--app", "T.a", "https://ex.com/x"])
        XCTAssertEqual(named.stderr, "", named.stderr)
        XCTAssertTrue(named.stdout.contains(#""decision": "match""#), named.stdout)
    }
}
