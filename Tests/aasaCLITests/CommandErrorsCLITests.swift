import Foundation
import XCTest
import _AASATestSupport

/// The errors every command shares: a file that is not there, and a command that does not exist.
/// A person running several commands, or a script reading their stderr, meets one wording.
final class CommandErrorsCLITests: XCTestCase {
    func test_missingFile_everyCommandNamesItselfTheFileAndTheSystemsReason() throws {
        let folder = try makeTemporaryFolder("command-errors")
        let missing = folder.appendingPathComponent("missing.json").path
        let document = folder.appendingPathComponent("present.json")
        try Data(#"{"applinks": {"details": [{"appIDs": ["A.b"], "components": [{"/": "/x"}]}]}}"#.utf8).write(to: document)
        let matrix = folder.appendingPathComponent("matrix.json")
        try Data(#"{"opens_app": {"A.b": ["https://example.com/x"]}}"#.utf8).write(to: matrix)
        let artifact = folder.appendingPathComponent("out.aasac").path
        let runs: [(command: String, arguments: [String], status: Int32)] = [
            ("match", ["match", missing, "--domain", "example.com", "https://example.com/x"], 3),
            ("explain", ["explain", missing, "--domain", "example.com", "--app", "A.b", "https://example.com/x"], 3),
            ("test", ["test", missing, "--matrix", matrix.path, "--domain", "example.com"], 3),
            ("diff", ["diff", missing, document.path], 3),
            ("cover", ["cover", missing], 3),
            ("debug", ["debug", "plan", missing], 3),
            ("lint", ["lint", missing], 3),
            ("classify", ["classify", "--rules", missing, "--domain", "example.com"], 3),
            ("compile", ["compile", missing, "--domain", "example.com", "-o", artifact], 3),
            ("entitlements", ["entitlements", missing, "--rules", folder.path], 3),
        ]
        for run in runs {
            let output = try CLIRunner.run(run.arguments, stdin: Data())
            XCTAssertEqual(output.status, run.status, "\(run.arguments): \(output.stderr)")
            let line = try XCTUnwrap(output.stderr.split(separator: "\n").first.map(String.init), "\(run.arguments)")
            XCTAssertTrue(line.hasPrefix("aasa \(run.command): cannot read "), line)
            XCTAssertTrue(line.hasSuffix("\(missing): No such file or directory"), line)
        }
    }

    func test_documentOverACompileLimit_theCommandNamesItself() throws {
        let folder = try makeTemporaryFolder("command-errors")
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks": {"details": [{"appIDs": ["A.b"], "components": [{"/": "/abcdef/*"}]}]}}"#.utf8).write(to: document)
        let matrix = folder.appendingPathComponent("matrix.json")
        try Data(#"{"opens_app": {"A.b": ["https://example.com/abcdef/x"]}}"#.utf8).write(to: matrix)
        for (command, arguments) in [
            ("match", ["match", document.path, "--domain", "example.com", "https://example.com/abcdef/x"]),
            ("test", ["test", document.path, "--matrix", matrix.path, "--domain", "example.com"]),
        ] {
            let output = try CLIRunner.run(arguments + ["--limit", "nfa-states=3"], stdin: Data())
            XCTAssertEqual(output.status, 3, output.stderr)
            XCTAssertTrue(output.stderr.hasPrefix("aasa \(command): cannot compile the document: "), output.stderr)
        }
    }

    func test_unknownCommand_oneLineTheNearestCommandAndWhereTheListIs() throws {
        let typo = try CLIRunner.run(["classfy", "--rules", "x"])
        XCTAssertEqual(typo.status, 2)
        XCTAssertEqual(typo.stdout, "")
        XCTAssertEqual(typo.stderr, "aasa: unknown command 'classfy'\nDid you mean 'classify'?\nSee 'aasa --help' for the commands.\n")

        let swapped = try CLIRunner.run(["help", "Calssify"])
        XCTAssertEqual(swapped.status, 2)
        XCTAssertEqual(swapped.stderr, "aasa help: unknown command 'Calssify'\nDid you mean 'classify'?\nSee 'aasa --help' for the commands.\n")

        let unlike = try CLIRunner.run(["frobnicate"])
        XCTAssertEqual(unlike.status, 2)
        XCTAssertEqual(unlike.stderr, "aasa: unknown command 'frobnicate'\nSee 'aasa --help' for the commands.\n")

        let long = try CLIRunner.run([String(repeating: "x", count: 100_000)])
        XCTAssertEqual(long.status, 2)
        XCTAssertLessThan(long.stderr.utf8.count, 300, "the name is shown cut, not whole")
    }
}
