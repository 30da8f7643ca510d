import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `aasa lint` end to end: each format's shape, the exit statuses of `--help`, and the corpus.
final class LintCLITests: XCTestCase {
    /// This test's scratch folder, made on first use and removed when the test ends (XCTest makes
    /// a fresh instance per test, so tests never share it).
    private var scratch: URL?

    func folder() throws -> URL {
        if let scratch { return scratch }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-lint-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        scratch = url
        return url
    }

    /// Writes `text` to `name` in the test folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let url = try folder().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Two errors (bad app ID, quoted flag), a warning (near-miss key) and a note (unused
    /// variable); none of them changes which URLs the rule matches, so the automaton analysis has
    /// nothing to add.
    static let flawed = """
        {"applinks": {"substitutionVariables": {"spare": ["x"]},
          "details": [{"appIDs": ["TEAMID.com.example.app"], "components": [{"/": "/a", "exclude": "no", "casesensitive": false}]}]}}
        """
    static let warningsOnly = #"{"applinks": {"apps": ["ABCDE12345.com.example.app"], "details": []}}"#
    static let clean = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a/*"}]}]}}"#

    /// The document-level findings `Linter` makes for `text`, the ground truth for every format.
    func expectedFindings(_ text: String) -> [LintFinding] {
        Linter.lint(bytes: Array(text.utf8), domain: "example.com", configuration: .default)
    }

    // MARK: Formats

    func test_text_oneLinePerFindingThenASummary() throws {
        let file = try write("flawed.json", Self.flawed)
        let output = try CLIRunner.run(["lint", file])
        let lines = output.stdout.split(separator: "\n").map(String.init)
        let findings = expectedFindings(Self.flawed)
        XCTAssertEqual(findings.count, 4)
        XCTAssertEqual(
            Array(lines.dropLast()),
            findings.flatMap { finding in
                let hint = finding.hint.map { " (\($0))" } ?? ""
                let line = "\(file): \(finding.severity.rawValue) [\(finding.code)] \(finding.path): \(finding.message)\(hint)"
                return [line] + (finding.witness.map { ["  witness: \($0)"] } ?? [])
            })
        XCTAssertEqual(lines.last, "1 file: 2 errors, 1 warning, 1 note")
    }

    func test_json_eachLineParsesWithTheDocumentedKeysInOrder() throws {
        let file = try write("flawed.json", Self.flawed)
        let output = try CLIRunner.run(["lint", file, "--format", "json"])
        let lines = output.stdout.split(separator: "\n").map(String.init)
        let findings = expectedFindings(Self.flawed)
        XCTAssertEqual(lines.count, findings.count)
        for (line, finding) in zip(lines, findings) {
            guard case .object(let record) = try JSONParser.parse(line) else { return XCTFail("not an object: \(line)") }
            let optional = [finding.hint.map { _ in "hint" }, finding.witness.map { _ in "witness" }].compactMap { $0 }
            let line = finding.line.map { _ in ["line"] } ?? []
            XCTAssertEqual(record.members.map(\.key), ["file", "code", "severity", "path"] + line + ["message"] + optional)
            XCTAssertEqual(record["line"], finding.line.map { .number(String($0)) })
            XCTAssertEqual(record["file"], .string(file))
            XCTAssertEqual(record["code"], .string(finding.code))
            XCTAssertEqual(record["severity"], .string(finding.severity.rawValue))
            XCTAssertEqual(record["path"], .string(finding.path.description))
            XCTAssertEqual(record["message"], .string(finding.message))
            XCTAssertEqual(record["hint"], finding.hint.map(JSONValue.string))
        }
    }

    func test_sarif_isOneLogWithRulesResultsAndLocations() throws {
        let file = try write("flawed.json", Self.flawed)
        let output = try CLIRunner.run(["lint", file, "--format", "sarif"])
        XCTAssertEqual(output.status, 1)
        guard case .object(let log) = try JSONParser.parse(output.stdout) else { return XCTFail("not an object") }
        XCTAssertEqual(log["version"], .string("2.1.0"))
        XCTAssertNotNil(log["$schema"])
        guard case .array(let runs)? = log["runs"], runs.count == 1, case .object(let run) = runs[0],
            case .object(let tool)? = run["tool"], case .object(let driver)? = tool["driver"],
            case .array(let rules)? = driver["rules"], case .array(let results)? = run["results"]
        else { return XCTFail("missing runs[0].tool.driver.rules or results:\n\(output.stdout)") }
        XCTAssertEqual(driver["name"], .string("aasa"))
        let findings = expectedFindings(Self.flawed)
        let ruleIDs = rules.compactMap { rule -> String? in
            guard case .object(let object) = rule, case .string(let id)? = object["id"] else { return nil }
            return id
        }
        XCTAssertEqual(ruleIDs, Set(findings.map(\.code)).sorted())
        XCTAssertEqual(results.count, findings.count)
        for (result, finding) in zip(results, findings) {
            guard case .object(let object) = result else { return XCTFail("result is not an object") }
            XCTAssertEqual(object["ruleId"], .string(finding.code))
            XCTAssertEqual(object["level"], .string(finding.severity.rawValue))
            XCTAssertEqual(object["ruleIndex"], .number(String(ruleIDs.firstIndex(of: finding.code) ?? -1)))
            guard case .object(let message)? = object["message"], case .string(let text)? = message["text"] else {
                return XCTFail("result without message.text")
            }
            XCTAssertTrue(text.hasPrefix(finding.message), text)
            let region = #"{"startLine":\#(finding.line ?? 1)}"#
            let location = #"{"physicalLocation":{"artifactLocation":{"uri":"file://\#(file)"},"region":\#(region)},"logicalLocations":[{"fullyQualifiedName":\#(JSONWriter.escape(finding.path.description))}]}"#
            XCTAssertEqual(object["locations"]?.serialized(), "[\(location)]")
        }
    }

    /// SARIF and GitHub point at the line where the finding's piece of the document starts
    /// (GitHub code scanning requires a start line); invalid JSON, at the line it broke on.
    func test_sarifAndGithub_pointAtTheLineOfEachFinding() throws {
        let file = try write("lines.json", """
            {
              "applinks": {
                "details": [
                  {
                    "appIDs": ["TEAMID.com.example"],
                    "components": [
                      {"/": "*"},
                      {"/": "/a/*"}
                    ]
                  }
                ]
              }
            }
            """)
        let github = try CLIRunner.run(["lint", file, "--format", "github"])
        let lines = github.stdout.split(separator: "\n").map { $0.components(separatedBy: "title=")[0] }
        XCTAssertEqual(lines, ["::error file=\(file),line=5,", "::warning file=\(file),line=7,", "::warning file=\(file),line=8,"], github.stdout)
        let sarif = try CLIRunner.run(["lint", file, "--format", "sarif"])
        XCTAssertEqual(sarif.stdout.components(separatedBy: #""region":{"startLine":"#).dropFirst().map { $0.prefix(1) }, ["5", "7", "8"])
        let array = try write("array.json", "\n\n[1]\n")
        let rootLine = try CLIRunner.run(["lint", array, "--format", "github"])
        XCTAssertTrue(rootLine.stdout.hasPrefix("::error file=\(array),line=3,title=root-not-object::"), rootLine.stdout)
        let broken = try write("broken.json", "{\n  \"a\": [1,\n  2,]\n}")
        let invalid = try CLIRunner.run(["lint", broken, "--format", "github"])
        XCTAssertTrue(invalid.stdout.hasPrefix("::error file=\(broken),line=3,title=invalid-json::"), invalid.stdout)
    }

    /// An absolute name is a `file:` URI, which GitHub maps into the repository through its
    /// checkout path; `//tmp/x.json` written as it is was a network-path reference to a host
    /// `tmp`. A relative name stays relative (GitHub reads it from the repository's root),
    /// percent-encoded so that a space, `#` or `:` cannot end it or make it a scheme.
    func test_sarif_absoluteNameIsAFileURIWithOneLeadingSlashAndARelativeOneStaysRelative() throws {
        let file = try write("flawed.json", Self.flawed)
        XCTAssertTrue(file.hasPrefix("/"), file)
        for given in [file, "/" + file, "///" + file] {
            let output = try CLIRunner.run(["lint", given, "--format", "sarif"])
            XCTAssertEqual(output.status, 1, output.stderr)
            let uris = Set(output.stdout.components(separatedBy: #""uri":""#).dropFirst().map { $0.prefix { $0 != "\"" } })
            XCTAssertEqual(uris, ["file://\(file)"], given)
        }
        _ = try write("a b#:.json", Self.flawed)
        let relative = try CLIRunner.runShell(
            "cd '\(try folder().path)' && exec '\(CLIRunner.executable.path)' lint --format sarif 'a b#:.json'")
        XCTAssertEqual(relative.status, 1, relative.stderr)
        XCTAssertTrue(relative.stdout.contains(#""uri":"a%20b%23%3A.json""#), relative.stdout)
    }

    func test_sarif_unreadableFileIsAToolNotificationAndTheRunFailed() throws {
        let output = try CLIRunner.run(["lint", try folder().appendingPathComponent("missing.json").path, "--format", "sarif"])
        XCTAssertEqual(output.status, 3)
        XCTAssertTrue(output.stdout.contains(#""executionSuccessful":false"#), output.stdout)
        XCTAssertTrue(output.stdout.contains(#"missing.json: No such file or directory"#), output.stdout)
    }

    func test_github_workflowCommandsPerSeverity() throws {
        let file = try write("flawed.json", Self.flawed)
        let output = try CLIRunner.run(["lint", file, "--format", "github"])
        let findings = expectedFindings(Self.flawed)
        let commands = findings.map { finding -> String in
            let level = ["error": "error", "warning": "warning", "note": "notice"][finding.severity.rawValue] ?? "?"
            let hint = finding.hint.map { " (\($0))" } ?? ""
            let witness = finding.witness.map { "%0Awitness: \($0)" } ?? ""
            let line = finding.line.map { ",line=\($0)" } ?? ""
            return "::\(level) file=\(file)\(line),title=\(finding.code)::\(finding.path): \(finding.message)\(hint)\(witness)"
        }
        XCTAssertEqual(output.stdout, commands.map { $0 + "\n" }.joined())
    }

    func test_github_escapesPropertiesAndMessagePerGitHubRules() throws {
        // A file name with the property delimiters, and an app ID with a percent sign in the message.
        let file = try write("a,b:c%.json", #"{"webcredentials": {"apps": ["100%.x"]}}"#)
        let output = try CLIRunner.run(["lint", file, "--format", "github"])
        let escapedFile = file.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: ":", with: "%3A")
            .replacingOccurrences(of: ",", with: "%2C")
        XCTAssertTrue(output.stdout.hasPrefix("::error file=\(escapedFile),line=1,title=invalid-app-id::webcredentials.apps[0]: "), output.stdout)
        XCTAssertTrue(output.stdout.contains(#"app ID "100%25.x""#), output.stdout)
        XCTAssertEqual(output.stdout.filter { $0 == "\n" }.count, 1)
    }

    /// `file=` names the real file: GitHub's runner turns `%0D` and `%0A` back into CR and LF
    /// (`cr\u{D}x.json` named a file that does not exist). Other controls, which the runner does
    /// not decode, are percent-escaped too rather than written raw, so the line stays safe to show.
    func test_github_fileNameWithACarriageReturnOrControlIsPercentEscaped() throws {
        let folder = try folder().path
        let names = ["cr\rx.json": "cr%0Dx.json", "lf\nx.json": "lf%0Ax.json", "esc\u{1B}[2Jx.json": "esc%1B[2Jx.json",
            "c1\u{9B}x.json": "c1%C2%9Bx.json"]
        for (name, escaped) in names {
            let file = try write(name, Self.flawed)
            let output = try CLIRunner.run(["lint", file, "--format", "github"])
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            XCTAssertEqual(lines.count, expectedFindings(Self.flawed).count, output.stdout)
            for line in lines {
                XCTAssertTrue(line.contains("file=\(folder)/\(escaped),line="), "\(name.debugDescription): \(line)")
            }
        }
    }

    // MARK: Exit statuses

    func test_exit_zeroWhenCleanOrOnlyWarningsAndNotes() throws {
        let clean = try CLIRunner.run(["lint", try write("clean.json", Self.clean)])
        XCTAssertEqual(clean.status, 0, clean.stdout + clean.stderr)
        XCTAssertEqual(clean.stdout, "1 file: 0 errors, 0 warnings, 0 notes\n")
        let warned = try CLIRunner.run(["lint", try write("warned.json", Self.warningsOnly)])
        XCTAssertEqual(warned.status, 0, warned.stdout)
        XCTAssertTrue(warned.stdout.contains("[apps-not-empty]"), warned.stdout)
    }

    func test_exit_oneForAnErrorFindingIncludingInvalidJSONAndTooLarge() throws {
        XCTAssertEqual(try CLIRunner.run(["lint", try write("flawed.json", Self.flawed)]).status, 1)
        let invalid = try CLIRunner.run(["lint", try write("invalid.json", "{\"applinks\": {},}")])
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.stdout.contains("error [invalid-json] $: invalid JSON at line 1, column 16: trailing comma"), invalid.stdout)
        let large = try CLIRunner.run(["lint", try write("clean.json", Self.clean), "--limit", "document-bytes=10"])
        XCTAssertEqual(large.status, 1)
        XCTAssertTrue(large.stdout.contains("error [too-large] $: the document is"), large.stdout)
    }

    func test_exit_twoForUsageErrors() throws {
        let file = try write("clean.json", Self.clean)
        let usageErrors = [
            ["lint"], ["lint", file, "--format", "xml"], ["lint", file, "--bogus"], ["lint", file, "--limit", "document-bytes=x"],
            ["lint", file, "--domain", ""], ["lint", file, "--domain", "https://example.com"],
        ]
        for arguments in usageErrors {
            let output = try CLIRunner.run(arguments)
            XCTAssertEqual(output.status, 2, "\(arguments)")
            XCTAssertTrue(output.stderr.contains("Usage: aasa lint"), output.stderr)
        }
    }

    func test_exit_threeForAnUnreadableFileWhileTheOthersAreStillLinted() throws {
        let flawed = try write("flawed.json", Self.flawed)
        let output = try CLIRunner.run(["lint", try folder().appendingPathComponent("missing.json").path, flawed, try folder().path])
        XCTAssertEqual(output.status, 3)
        XCTAssertTrue(output.stderr.contains("missing.json: No such file or directory"), output.stderr)
        XCTAssertTrue(output.stderr.contains("\(try folder().path): it is a directory"), output.stderr)
        XCTAssertTrue(output.stdout.contains("\(flawed): error [wrong-type]"), output.stdout)
        XCTAssertTrue(output.stdout.hasSuffix("3 files: 2 errors, 1 warning, 1 note; 2 could not be read\n"), output.stdout)
    }

    func test_help_documentsFormatsAndExitStatus() throws {
        let output = try CLIRunner.run(["lint", "--help"])
        XCTAssertEqual(output.status, 0)
        for needle in ["USAGE: aasa lint", "--format <format>", "--domain <domain>", "sarif", "github", "EXIT STATUS: 0"] {
            XCTAssertTrue(output.stdout.contains(needle), needle)
        }
        XCTAssertTrue(try CLIRunner.run(["--help"]).stdout.contains("  lint "))
    }

    // MARK: Corpus

    func test_corpus_everyDocumentLintsAndEveryJSONLineParses() throws {
        let corpus = CaseSuite.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/aasa")
        guard FileManager.default.fileExists(atPath: corpus.path) else { throw XCTSkip("../shared/corpus/aasa is not present") }
        var files: [String] = []
        for folder in ["real", "real-invalid"] {
            let directory = corpus.appendingPathComponent(folder)
            files += try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                .filter { $0.hasSuffix(".json") }.map { directory.appendingPathComponent($0).path }
        }
        XCTAssertGreaterThanOrEqual(files.count, 250)
        let output = try CLIRunner.run(["lint", "--format", "json"] + files)
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(output.stderr, "")
        var linted = Set<String>()
        for line in output.stdout.split(separator: "\n") {
            guard case .object(let record) = try JSONParser.parse(String(line)), case .string(let file)? = record["file"] else {
                return XCTFail("not a lint record: \(line)")
            }
            linted.insert(file)
        }
        XCTAssertTrue(linted.isSubset(of: files))
        let broken = files.filter { $0.contains("/real-invalid/") }
        XCTAssertEqual(Set(broken).subtracting(linted).sorted(), [], "broken corpus files without a finding")
    }
}
