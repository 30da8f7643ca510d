import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `classify` under faults (#7 item 4): whatever stops a run, what was written is exactly a
/// prefix of the complete output, so no record is silently dropped or duplicated.
extension ClassifyTests {
    /// The complete output of a run that nothing disturbed, to compare disturbed runs against.
    func completeOutput(_ input: URL, jobs: String) throws -> Data {
        let run = try ChildProcess.run(["classify", "--rules", corpus.path, "--input", input.path, "--jobs", jobs], folder: folder)
        XCTAssertNotNil(run.status, run.summary)
        return run.stdout
    }

    /// Asserts that `written` is `complete` cut short: whole records in order, at most one cut
    /// record at the end, and nothing else.
    func assertPrefix(_ written: Data, of complete: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(written.count, complete.count, what, file: file, line: line)
        let same = written.count <= complete.count && written == complete.prefix(written.count)
        XCTAssertTrue(same, "\(what): the \(written.count) bytes written are not a prefix of the complete output", file: file, line: line)
    }

    func test_classify_killedMidRunLeavesAPrefixOfTheCompleteOutput() throws {
        let input = try writeLargeInput(lines: 200_000)
        let bytes = try Data(contentsOf: input.url)
        signal(SIGPIPE, SIG_IGN)  // the feeder below writes into a pipe whose reader gets killed
        for jobs in ["1", "2"] {
            let complete = try completeOutput(input.url, jobs: jobs)
            var ends: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&ends), 0)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            let child = try ChildProcess.start(
                ["classify", "--rules", corpus.path, "--jobs", jobs], stdinDescriptor: ends[0], folder: folder)
            close(ends[0])
            // Feed the first half, then hold the rest back: the child is surely mid-run when
            // killed, however fast it is, and may be in the middle of a write.
            let half = bytes.prefix(bytes.count / 2)
            let writeEnd = ends[1]
            let feeder = DispatchGroup()
            DispatchQueue.global().async(group: feeder) {
                half.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    var offset = 0
                    while offset < raw.count {
                        let written = Foundation.write(writeEnd, base + offset, min(1 << 16, raw.count - offset))
                        if written <= 0 { return }  // EPIPE once the child is dead
                        offset += written
                    }
                }
            }
            let deadline = Date().addingTimeInterval(60)
            while child.stdoutBytesSoFar < 1 << 20, Date() < deadline { usleep(1_000) }
            child.kill(SIGKILL)
            let killed = child.wait()
            feeder.wait()
            close(writeEnd)
            XCTAssertEqual(killed.signal, SIGKILL, killed.summary)
            XCTAssertGreaterThanOrEqual(killed.stdout.count, 1 << 20, "the child wrote too little before the kill: \(killed.summary)")
            XCTAssertLessThan(killed.stdout.count, complete.count, "the kill must land mid-run")
            assertPrefix(killed.stdout, of: complete, "killed with --jobs \(jobs)")
        }
    }

    /// A run killed by a signal (as `timeout` stops one, or SIGKILL, which no handler sees)
    /// writes no stats: a new `--stats` file does not appear empty, an old one keeps its last
    /// whole summary, and no temporary file is left beside it (an audit found an empty
    /// `.aasa-XXXXXX` left by every SIGKILL).
    func test_classify_killedBySignalLeavesNoEmptyOrPartialStats() throws {
        let stats = folder.appendingPathComponent("signal-stats")
        try FileManager.default.createDirectory(at: stats, withIntermediateDirectories: true)
        let fresh = stats.appendingPathComponent("fresh.json")
        let old = stats.appendingPathComponent("old.json")
        try Data(#"{"records":7}"#.utf8).write(to: old)
        // SIGKILL leaves nothing only where the file system has unnamed files (`O_TMPFILE`).
        let unnamed = Foundation.open(stats.path, 0o20000000 | O_DIRECTORY | O_WRONLY, 0o600)
        if unnamed >= 0 { close(unnamed) }
        let cases: [(URL, String?, Int32)] =
            [(fresh, nil, SIGTERM), (old, #"{"records":7}"#, SIGTERM)] + (unnamed >= 0 ? [(fresh, nil, SIGKILL), (old, #"{"records":7}"#, SIGKILL)] : [])
        for (target, expected, stop) in cases {
            var ends: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&ends), 0)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            let child = try ChildProcess.start(
                ["classify", "--rules", corpus.path, "--stats", target.path], stdinDescriptor: ends[0], folder: folder)
            close(ends[0])
            // One line read and written proves the run began (the stats file was prepared).
            let line = Data("https://museum.example/exhibitions/x\n".utf8)
            XCTAssertEqual(line.withUnsafeBytes { Foundation.write(ends[1], $0.baseAddress, $0.count) }, line.count)
            let deadline = Date().addingTimeInterval(30)
            while child.stdoutBytesSoFar == 0, Date() < deadline { usleep(1_000) }
            child.kill(stop)
            let stopped = child.wait()
            close(ends[1])
            XCTAssertEqual(stopped.signal, stop, stopped.summary)
            XCTAssertGreaterThan(stopped.stdout.count, 0, stopped.summary)
            XCTAssertEqual(FileManager.default.contents(atPath: target.path).map { String(decoding: $0, as: UTF8.self) }, expected, target.lastPathComponent)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stats.path).sorted(), ["old.json"], "nothing left beside the stats")
        }
    }

    /// A device cannot be replaced, so the stats go into it in place; a symbolic link to a file
    /// is followed, the file replaced whole and the link left a link.
    func test_classify_statsGoIntoADeviceInPlaceAndThroughALinkToTheFile() throws {
        let line = Data("https://museum.example/exhibitions/x\n".utf8)
        let device = try CLIRunner.run(["classify", "--rules", corpus.path, "--quiet", "--stats", "/dev/stderr"], stdin: line)
        XCTAssertEqual(device.status, 0, device.stderr)
        XCTAssertTrue(device.stderr.hasPrefix(#"{"records":1,"#), device.stderr)
        let target = folder.appendingPathComponent("stats-target.json")
        try Data("old".utf8).write(to: target)
        let link = folder.appendingPathComponent("stats-link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let linked = try CLIRunner.run(["classify", "--rules", corpus.path, "--quiet", "--stats", link.path], stdin: line)
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path, "the link stays a link")
        XCTAssertTrue(try String(contentsOf: target, encoding: .utf8).hasPrefix(#"{"records":1,"#))
    }

    func test_classify_closedPipeKeepsTheFirstRecordsExactly() throws {
        let input = try writeLargeInput(lines: 200_000)
        for jobs in ["1", "2"] {
            let complete = try completeOutput(input.url, jobs: jobs)
            let script = "set -o pipefail; \(CLIRunner.executable.path) classify --rules \(corpus.path) --input \(input.url.path) --jobs \(jobs) | head -c 300000"
            let run = try CLIRunner.runShell(script)
            XCTAssertEqual(run.status, 0, "a closed pipe ends the run quietly: \(run.stderr)")
            XCTAssertEqual(run.stderr, "")
            XCTAssertEqual(run.stdoutData.count, 300_000)
            assertPrefix(run.stdoutData, of: complete, "| head with --jobs \(jobs)")
        }
    }

    /// A standard error closed by the caller (`2>&-`) is not a number for the next file opened:
    /// the summary of `classify -o FILE` went into FILE after its records, and `compile -o`'s
    /// warnings into the artifact, which then failed to load. A closed standard output or input
    /// is still a write or read error (status 5).
    func test_classify_closedStandardErrorKeepsMessagesOutOfTheFilesWritten() throws {
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        let document = try Data(contentsOf: corpus.appendingPathComponent("museum.example/apple-app-site-association"))
        // Two files claiming one domain: a warning on stderr from both commands.
        try document.write(to: rules.appendingPathComponent("Museum.example.json"))
        try document.write(to: rules.appendingPathComponent("museum.example.json"))
        let aasa = CLIRunner.executable.path
        let records = folder.appendingPathComponent("records.ndjson")
        let artifact = folder.appendingPathComponent("rules.aasac")
        let run = try CLIRunner.runShell(
            """
            printf 'https://museum.example/exhibitions/x\\n' | '\(aasa)' classify --rules '\(rules.path)' -o '\(records.path)' 2>&- || exit 10
            '\(aasa)' compile '\(rules.path)' -o '\(artifact.path)' 2>&- || exit 11
            printf 'https://museum.example/exhibitions/x\\n' | '\(aasa)' classify --compiled '\(artifact.path)' --quiet || exit 12
            printf 'https://museum.example/exhibitions/x\\n' | '\(aasa)' classify --rules '\(rules.path)' >&- 2>/dev/null; echo "stdout closed: $?"
            '\(aasa)' classify --rules '\(rules.path)' <&- 2>/dev/null; echo "stdin closed: $?"
            """)
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try String(contentsOf: records, encoding: .utf8)
        XCTAssertEqual(written.split(separator: "\n").count, 1, written)
        XCTAssertTrue(written.hasPrefix(#"{"url": "https://museum.example/exhibitions/x", "domain": "museum.example""#), written)
        XCTAssertTrue(run.stdout.hasPrefix(#"{"url": "https://museum.example/exhibitions/x", "domain": "museum.example""#), run.stdout)
        XCTAssertTrue(run.stdout.hasSuffix("stdout closed: 5\nstdin closed: 5\n"), run.stdout)
    }

    /// The last line needs no LF. Its terminator would be LF or CRLF (SPEC 14), so a CR with no
    /// LF after it is content: part of the URL, or a line of its own that is not blank.
    func test_classify_lastLineWithoutNewlineIsClassified() throws {
        let text = "https://museum.example/exhibitions/x\nhttps://museum.example/exhibitions/last"
        let cases = [
            (text, #"https://museum.example/exhibitions/last""#),
            (text + "\r\n", #"https://museum.example/exhibitions/last""#),
            (text + "\r", #"https://museum.example/exhibitions/last\r""#),
            ("https://museum.example/exhibitions/last", #"https://museum.example/exhibitions/last""#),
        ]
        for (input, url) in cases {
            for jobs in ["1", "2"] {
                let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--jobs", jobs], stdin: Data(input.utf8))
                XCTAssertEqual(run.status, 0, run.stderr)
                let records = run.stdout.split(separator: "\n")
                XCTAssertEqual(records.count, input.split(separator: "\n").count, run.stdout)
                XCTAssertTrue(
                    records.last?.hasPrefix(#"{"url": "\#(url), "domain": "museum.example", "apps": ["MUSE4EX123.org.example.museum"]"#) ?? false,
                    "\(input.debugDescription) with --jobs \(jobs): \(run.stdout)")
            }
        }
        // A lone CR after the last LF is a line, and not a blank one.
        for arguments in [["classify", "--rules", corpus.path], ["match", corpus.appendingPathComponent("museum.example/apple-app-site-association").path, "--domain", "museum.example"]] {
            let run = try CLIRunner.run(arguments, stdin: Data("https://museum.example/exhibitions/x\n\r".utf8))
            XCTAssertEqual(run.status, 0, run.stderr)
            let records = run.stdout.split(separator: "\n")
            XCTAssertEqual(records.count, 2, run.stdout)
            XCTAssertTrue(records.last?.hasPrefix(#"{"url": "\r", "#) ?? false, run.stdout)
            XCTAssertTrue(records.last?.contains("no scheme") ?? false, run.stdout)
        }
    }

    /// Lines over 64 KiB scattered through a large input: each is one error record at its
    /// place, and every other record is as without them.
    func test_classify_veryLongLinesAreErrorRecordsInPlace() throws {
        let input = try writeLargeInput(lines: 30_000)
        // Bytes, not String: the input has deliberately invalid UTF-8 lines.
        let plain = try Data(contentsOf: input.url).split(separator: 0x0A, omittingEmptySubsequences: false)
        let long = Data(("https://museum.example/" + String(repeating: "x", count: 70_000)).utf8)
        var mixed = Data()
        for (index, line) in plain.enumerated() {
            if index % 5_000 == 1 { mixed += long + [0x0A] }
            mixed += line
            if index < plain.count - 1 { mixed.append(0x0A) }
        }
        let mixedURL = folder.appendingPathComponent("mixed.txt")
        try mixed.write(to: mixedURL)
        let baseline = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path])
        let expected = baseline.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for jobs in ["1", "2"] {
            let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", mixedURL.path, "--jobs", jobs])
            var records = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let longAt = Set(records.indices.filter { records[$0].contains("line of 70023 bytes is over the limit of 65536 bytes") })
            XCTAssertEqual(longAt.count, 6, "one error record per long line")
            records = records.enumerated().filter { !longAt.contains($0.offset) }.map(\.element)[...]
            XCTAssertEqual(records.count, expected.count)
            XCTAssertTrue(records.elementsEqual(expected), "--jobs \(jobs): the other records changed")
        }
    }
}
