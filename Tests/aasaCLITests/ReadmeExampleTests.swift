import Foundation
import XCTest
import _AASATestSupport

/// The README's examples run as written: each `$ ` line of its code blocks (with its `\`
/// continuations) is run by bash from a fresh folder holding only a link to the bundled corpus,
/// with the built `aasa` first on `PATH`, and each line the README shows under it is printed.
/// A user copies these lines first; one naming a file the repository lacks (the `diff` example
/// once did) fails here.
final class ReadmeExampleTests: XCTestCase {
    struct Example {
        var command: String
        var shown: [String]
    }

    /// The examples of `readme`, in order: commands with a placeholder (`FILE`) left out.
    static func examples(in readme: String) -> [Example] {
        var examples: [Example] = []
        var inBlock = false
        var current: Example?
        var continuing = false
        for line in readme.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                if let example = current { examples.append(example) }
                current = nil
                continuing = false
                inBlock.toggle()
                continue
            }
            guard inBlock else { continue }
            if continuing, current != nil {
                current?.command += " " + line.trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("$ ") {
                if let example = current { examples.append(example) }
                current = Example(command: String(line.dropFirst(2)), shown: [])
            } else if current != nil {
                current?.shown.append(line)
            }
            continuing = current?.command.hasSuffix("\\") ?? false
            if continuing { current?.command.removeLast() }
        }
        return examples.filter { !$0.command.contains("FILE") }
    }

    /// Whether `shown` (a line the README prints under a command) is in `output`: an elided line
    /// (`…`) matches anything, a summary's timing (`in 0.03 s (9493 records/s, …`) is compared
    /// up to its time, and trailing blanks are not compared.
    static func printed(_ shown: String, in output: [String]) -> Bool {
        let trimmed = shown.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "…" { return true }
        if let timing = shown.range(of: " in ", options: .backwards), shown.contains("records/s") {
            let prefix = String(shown[..<timing.lowerBound])
            return output.contains { $0.hasPrefix(prefix) }
        }
        // A TSV record's empty last field ends it with a tab, which Markdown does not show.
        func trailingTrimmed(_ line: String) -> Substring {
            line[..<(line.lastIndex { !$0.isWhitespace }.map { line.index(after: $0) } ?? line.startIndex)]
        }
        return output.contains { trailingTrimmed($0) == trailingTrimmed(shown) }
    }

    func test_everyReadmeExample_runsAsWritten_andPrintsWhatTheReadmeShows() throws {
        let root = CaseSuite.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = Self.examples(in: readme)
        XCTAssertGreaterThanOrEqual(examples.count, 9, "the README's examples were found")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("corpus"), withDestinationURL: root.appendingPathComponent("corpus"))
        let binaries = CLIRunner.executable.deletingLastPathComponent().path
        for example in examples {
            let words = example.command.split(separator: " ").map(String.init)
            // Only the engine's own commands: a command reaching the network (`fetch`, `check`)
            // has no example here, and must not get one that this test would run.
            XCTAssertFalse(words.contains("fetch") || words.contains("check"), example.command)
            let output = try CLIRunner.runShell(
                "cd '\(folder.path)' && PATH='\(binaries)':\"$PATH\" && set -o pipefail && \(example.command)")
            // 0, or 1 for `diff` finding the difference it shows: never a usage error (2), an
            // unreadable file (3) or unreadable input (5).
            XCTAssertTrue([0, 1].contains(output.status), "\(example.command): status \(output.status)\n\(output.stderr)")
            let lines = (output.stdout + output.stderr).components(separatedBy: "\n")
            for shown in example.shown {
                XCTAssertTrue(Self.printed(shown, in: lines), "\(example.command)\nshows: \(shown)\nprinted:\n\(lines.prefix(40).joined(separator: "\n"))")
            }
        }
    }

    func test_examples_areReadWithTheirContinuations_andPlaceholdersLeftOut() {
        let readme = """
            text
            ```
            $ aasa match doc.json \\
                'https://a.example/x'
            {"url": "https://a.example/x"}
            $ aasa cover FILE --format matrix
            ```
            """
        let examples = Self.examples(in: readme)
        XCTAssertEqual(examples.count, 1)
        XCTAssertEqual(examples.first?.command, "aasa match doc.json  'https://a.example/x'")
        XCTAssertEqual(examples.first?.shown, [#"{"url": "https://a.example/x"}"#])
        XCTAssertTrue(Self.printed("classified 3 records in 0.03 s (9 records/s, 2 jobs): 1 error", in: ["classified 3 records in 1.2 s (2 records/s)"]))
        XCTAssertFalse(Self.printed("classified 3 records in 0.03 s (9 records/s)", in: ["classified 4 records in 0.03 s (9 records/s)"]))
    }
}
