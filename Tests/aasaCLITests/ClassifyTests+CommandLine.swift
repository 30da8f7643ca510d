import Foundation
import XCTest
import _AASATestSupport

/// `classify` refuses a command line that would destroy what it reads or silently ignore what it
/// was told, before it writes anything (usage error, status 2).
extension ClassifyTests {
    private func writeDocument() throws -> URL {
        let document = folder.appendingPathComponent("doc.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/*"}]}]}}"#.utf8).write(to: document)
        return document
    }

    private func writeInput(_ name: String = "in.txt") throws -> URL {
        let input = folder.appendingPathComponent(name)
        try Data("https://ex.com/a\n".utf8).write(to: input)
        return input
    }

    func test_classify_refusesAnOutputThatIsTheInputAndKeepsTheInput() throws {
        let document = try writeDocument()
        let input = try writeInput()
        let link = folder.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: input)
        let cases: [[String]] = [
            ["-o", input.path],
            ["--stats", input.path],
            ["-o", link.path],  // another name for the same file
            ["-o", folder.appendingPathComponent("./in.txt").path],
            ["-o", document.path],  // the rules file
        ]
        for extra in cases {
            let run = try CLIRunner.run(["classify", "--rules", document.path, "--domain", "ex.com", "--input", input.path, "--quiet"] + extra)
            XCTAssertEqual(run.status, 2, "\(extra): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("refusing to write over it"), run.stderr)
            XCTAssertEqual(try String(contentsOf: input, encoding: .utf8), "https://ex.com/a\n", "\(extra) must leave the input as it was")
        }
        XCTAssertTrue(try String(contentsOf: document, encoding: .utf8).contains("applinks"), "the rules file must be left as it was")
        // Standard input redirected from the file is the same file.
        let fromStdin = try CLIRunner.runShell("'\(CLIRunner.executable.path)' classify --rules '\(document.path)' --domain ex.com --quiet -o '\(input.path)' < '\(input.path)'")
        XCTAssertEqual(fromStdin.status, 2, fromStdin.stderr)
        XCTAssertEqual(try String(contentsOf: input, encoding: .utf8), "https://ex.com/a\n")
    }

    func test_classify_refusesStatsOnTheRecordsFileAndOutputsInsideTheRulesDirectory() throws {
        let input = try writeInput()
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try writeDocument(), to: rules.appendingPathComponent("ex.com.json"))
        let same = folder.appendingPathComponent("same.out")
        let both = try CLIRunner.run(["classify", "--rules", rules.path, "--input", input.path, "-o", same.path, "--stats", same.path])
        XCTAssertEqual(both.status, 2, both.stderr)
        XCTAssertTrue(both.stderr.contains("is the output (-o)"), both.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: same.path), "a refused run leaves no file it created")
        for target in ["ex.com.json", "new.json"] {
            let run = try CLIRunner.run(["classify", "--rules", rules.path, "--input", input.path, "-o", rules.appendingPathComponent(target).path])
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertTrue(run.stderr.contains("inside the rules directory"), run.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rules.path), ["ex.com.json"])
        let document = try String(contentsOf: rules.appendingPathComponent("ex.com.json"), encoding: .utf8)
        XCTAssertTrue(document.contains("applinks"))
        // Outputs elsewhere still work, and a stats file beside the records is fine.
        let fine = try CLIRunner.run([
            "classify", "--rules", rules.path, "--input", input.path, "--quiet",
            "-o", folder.appendingPathComponent("out.ndjson").path, "--stats", folder.appendingPathComponent("stats.json").path,
        ])
        XCTAssertEqual(fine.status, 0, fine.stderr)
    }

    func test_classify_refusesOptionsItWouldIgnore() throws {
        let document = try writeDocument()
        let input = try writeInput()
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: document, to: rules.appendingPathComponent("ex.com.json"))
        let cases: [(arguments: [String], says: String)] = [
            (["--rules", rules.path, "--domain", "ex.com"], "a directory's documents are named by their files"),
            (["--rules", document.path, "--domain", ""], "--domain takes a host name"),
            (["--rules", document.path, "--domain", "ex.com:443"], "(no port)"),
            (["--rules", document.path, "--domain", " ex.com"], "--domain takes a host name"),
            (["--rules", document.path, "--domain", "user@ex.com"], "--domain takes a host name"),
            (["--rules", document.path, "--domain", "ex.com", "--url-field", "link"], "--url-field needs --input-format ndjson"),
            (["--rules", document.path, "--domain", "ex.com", "--url-column", "2"], "--url-column needs --input-format csv"),
            (["--rules", document.path, "--domain", "ex.com", "--stats", "-"], "--stats needs a file name"),
        ]
        for (arguments, says) in cases {
            let run = try CLIRunner.run(["classify"] + arguments + ["--input", input.path, "--quiet"])
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(says), "\(arguments): \(run.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))
        let match = try CLIRunner.run(["match", document.path, "--domain", "ex.com:443", "https://ex.com/a"])
        XCTAssertEqual(match.status, 2, match.stderr)
    }
}
