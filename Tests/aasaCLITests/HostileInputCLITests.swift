import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Hostile input through the binary, as users meet it: each test pins the outcome (exit status,
/// records, message) and bounds the child's wall time and peak memory (`RobustnessBounds`).
final class HostileInputCLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeTemporaryFolder("aasa-hostile")
    }

    var corpus: String { CaseSuite.packageRoot.appendingPathComponent("corpus").path }

    /// A process that does nearly nothing peaks around 20 MiB; reading 100 MB would pass 100.
    let refusal = RobustnessBounds(seconds: 10, residentMiB: 64)
    /// Streams: 1 MiB batches, two per worker in flight, and line windows of the limit.
    let stream = RobustnessBounds(seconds: 30, residentMiB: 160)

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func lines(_ run: ChildProcess.Finished) -> [String] {
        String(decoding: run.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    // MARK: URLs and lines

    func test_megabyteURL_givesAnErrorRecordAndTheRunGoesOn() throws {
        let long = "https://museum.example/exhibitions/" + String(repeating: "a", count: 1 << 20)
        let input = try write(Array("https://museum.example/exhibitions/x\n\(long)\nhttps://museum.example/exhibitions/y\n".utf8), "in.txt")
        for jobs in ["1", "2"] {
            let run = try ChildProcess.run(["classify", "--rules", corpus, "--input", input, "--jobs", jobs], folder: folder)
            XCTAssertEqual(run.status, 0, "error records are data: \(run.summary)")
            let records = lines(run)
            XCTAssertEqual(records.count, 3, run.summary)
            XCTAssertTrue(records[0].hasPrefix(#"{"url": "https://museum.example/exhibitions/x", "domain": "museum.example", "apps": ["#), records[0])
            XCTAssertTrue(records[1].contains("line of \(long.utf8.count) bytes is over the limit of 65536 bytes (raise it with --limit line-bytes=<n>)"), String(records[1].prefix(400)))
            XCTAssertLessThan(records[1].utf8.count, 1_000, "the error record shows the start of the line, not all of it")
            XCTAssertTrue(records[2].hasPrefix(#"{"url": "https://museum.example/exhibitions/y", "domain": "museum.example", "apps": ["#), records[2])
            stream.check(run, "a 1 MB URL with --jobs \(jobs)")
        }
        // Past the line limit, the URL limit still holds; past both, the URL is classified.
        let lineRaised = try ChildProcess.run(["classify", "--rules", corpus, "--input", input, "--limit", "line-bytes=2M"], folder: folder)
        XCTAssertTrue(lines(lineRaised)[1].contains("URL of \(long.utf8.count) bytes is over the limit of 65536 bytes (raise it with --limit url-bytes=<n>)"), lineRaised.summary)
        let bothRaised = try ChildProcess.run(
            ["classify", "--rules", corpus, "--input", input, "--limit", "line-bytes=2M", "--limit", "url-bytes=2M"], folder: folder)
        XCTAssertEqual(bothRaised.status, 0, bothRaised.summary)
        XCTAssertTrue(lines(bothRaised)[1].contains(#""domain": "museum.example", "apps": ["MUSE4EX123.org.example.museum"]"#), bothRaised.summary)
        stream.check(bothRaised, "classifying a 1 MB URL")
    }

    func test_megabyteURL_throughMatchGivesAnErrorRecord() throws {
        let document = CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path
        let long = "https://museum.example/" + String(repeating: "%", count: 1 << 20)
        let input = try write(Array("\(long)\nhttps://museum.example/exhibitions/x\n".utf8), "in.txt")
        let run = try ChildProcess.run(["match", document, "--domain", "museum.example"], stdin: input, folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        let records = lines(run)
        XCTAssertEqual(records.count, 2, run.summary)
        XCTAssertTrue(records[0].contains("--limit line-bytes=<n>"), String(records[0].prefix(400)))
        XCTAssertTrue(records[1].contains(#""apps": ["MUSE4EX123.org.example.museum"]"#), records[1])
        stream.check(run, "a 1 MB URL through match")
    }

    func test_urlLimit_appliesToExplainAndTestToo() throws {
        let document = CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path
        let url = "https://museum.example/exhibitions/x"
        let explain = try CLIRunner.run(
            ["explain", document, "--domain", "museum.example", "--app", "MUSE4EX123.org.example.museum", "--limit", "url-bytes=20", url])
        XCTAssertEqual(explain.status, 1, explain.stderr)
        XCTAssertTrue(explain.stderr.contains("URL of \(url.utf8.count) bytes is over the limit of 20 bytes (raise it with --limit url-bytes=<n>)"), explain.stderr)
        let matrix = try write(Array(#"{"opens_app": ["\#(url)"], "opens_web": []}"#.utf8), "matrix.json")
        let test = try CLIRunner.run(["test", document, "--domain", "museum.example", "--matrix", matrix, "--limit", "url-bytes=20"])
        XCTAssertEqual(test.status, 1, test.stdout + test.stderr)
        XCTAssertTrue(test.stdout.contains("is over the limit of 20 bytes"), test.stdout)
    }

    /// A record is about a hundred bytes however short its line, and a batch's records wait in
    /// memory for their turn: a megabyte batch of `x` lines was 50 MB of records, times every
    /// batch in flight (1.8 GB at --jobs 32). Batches are cut by lines as well as bytes.
    func test_manyTinyLines_keepMemoryBoundedAtAnyJobs() throws {
        let input = folder.appendingPathComponent("tiny.txt").path
        XCTAssertTrue(FileManager.default.createFile(atPath: input, contents: Data(repeating: 0, count: 0)))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: input))
        let block = Data(String(repeating: "x\n", count: 1 << 20).utf8)
        for _ in 0..<6 { handle.write(block) }
        try handle.close()
        let output = folder.appendingPathComponent("tiny.out").path
        let run = try ChildProcess.run(["classify", "--rules", corpus, "--input", input, "--jobs", "16", "--quiet"], stdout: output, folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        RobustnessBounds(seconds: 120, residentMiB: 200).check(run, "6 M one-letter lines at --jobs 16")
        XCTAssertEqual(try ByteSearch.newlines(inFileAt: output), 6 << 20, "one record a line")
    }

    /// A batch cut at its line cap carries whole lines into the next, and a long line follows
    /// them: each keeps its own record, in order, the long one an error record.
    func test_longLineAfterACutBatch_leavesTheLinesBeforeItTheirRecords() throws {
        var input = Data(String(repeating: "https://museum.example/a\n", count: 20_000).utf8)
        input.append(Data(repeating: UInt8(ascii: "b"), count: 3 << 20))
        input.append(Data("\nhttps://museum.example/z\n".utf8))
        let path = try write(Array(input), "cut-then-long.txt")
        let output = folder.appendingPathComponent("cut-then-long.out").path
        let run = try ChildProcess.run(["classify", "--rules", corpus, "--input", path, "--jobs", "2", "--quiet"], stdout: output, folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        let records = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(records.count, 20_002)
        XCTAssertEqual(records.prefix(20_000).filter { $0.hasPrefix(#"{"url": "https://museum.example/a""#) }.count, 20_000)
        XCTAssertTrue(records[20_000].contains("is over the limit"), String(records[20_000].prefix(300)))
        XCTAssertTrue(records[20_001].hasPrefix(#"{"url": "https://museum.example/z""#))
    }

    /// Each hostile line gives exactly one record, in order, with the outcome SPEC 14 and SPEC 4
    /// give it; nothing here is covered by the line reader's unit tests at the CLI level.
    func test_hostileLines_eachGiveTheirOneRecordInOrder() throws {
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("https://museum.example/exhibitions/bom\n".utf8)
        bytes += Array("https://museum.example/exhibitions/a".utf8) + [0x00] + Array("b\n".utf8)
        bytes += Array("https://museum.example/exhibitions/%zz%e9%\r\n".utf8)
        bytes += Array("https://museum.example/".utf8) + [0xC3, 0x28] + Array("\r\n".utf8)
        bytes += Array("  \r\n".utf8) + [0x00, 0x0A]
        bytes += Array("https://museum.example/exhibitions/%00%ff%C3%A9\r\r\n".utf8)
        bytes += Array("https://museum.example/exhibitions/last".utf8)
        let input = try write(bytes, "hostile.txt")
        let expected: [(prefix: String, contains: String)] = [
            (#"{"url": "https://museum.example/exhibitions/bom", "domain": "museum.example""#, #""decision": "match""#),
            (#"{"url": "https://museum.example/exhibitions/a\u0000b", "domain": "museum.example""#, #""decision": "match""#),
            (#"{"url": "https://museum.example/exhibitions/%zz%e9%", "domain": "museum.example""#, #""decision": "match""#),
            ("{\"url\": \"https://museum.example/\u{FFFD}(\", \"domain\": null", "not valid UTF-8"),
            (#"{"url": "\u0000", "domain": null"#, "no scheme"),
            (#"{"url": "https://museum.example/exhibitions/%00%ff%C3%A9\r", "domain": "museum.example""#, #""decision": "match""#),
            (#"{"url": "https://museum.example/exhibitions/last", "domain": "museum.example""#, #""decision": "match""#),
        ]
        for jobs in ["1", "2"] {
            let run = try ChildProcess.run(["classify", "--rules", corpus, "--input", input, "--jobs", jobs, "--strict"], folder: folder)
            XCTAssertEqual(run.status, 1, run.summary)
            let records = lines(run)
            XCTAssertEqual(records.count, expected.count, run.summary)
            for (record, expectation) in zip(records, expected) {
                XCTAssertTrue(record.hasPrefix(expectation.prefix), "\(record) should start with \(expectation.prefix)")
                XCTAssertTrue(record.contains(expectation.contains), "\(record) should contain \(expectation.contains)")
            }
            XCTAssertTrue(run.stderr.contains("2 records are errors (--strict)"), run.summary)
            stream.check(run, "hostile lines with --jobs \(jobs)")
        }
    }

    func test_emptyInput_givesNoRecordsOrJustTheHeader() throws {
        let empty = try write([], "empty.txt")
        for jobs in ["1", "2"] {
            let ndjson = try ChildProcess.run(["classify", "--rules", corpus, "--input", empty, "--jobs", jobs], folder: folder)
            XCTAssertEqual(ndjson.status, 0, ndjson.summary)
            XCTAssertEqual(ndjson.stdout, Data(), ndjson.summary)
            let tsv = try ChildProcess.run(["classify", "--rules", corpus, "--input", empty, "--jobs", jobs, "--format", "tsv"], folder: folder)
            XCTAssertEqual(tsv.status, 0, tsv.summary)
            XCTAssertEqual(String(decoding: tsv.stdout, as: UTF8.self), "url\tdomain\tapps\trules\terror\n", "--jobs \(jobs)")
        }
        let match = try ChildProcess.run(
            ["match", CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path, "--domain", "museum.example"],
            stdin: empty, folder: folder)
        XCTAssertEqual(match.status, 0, match.summary)
        XCTAssertEqual(match.stdout, Data())
    }

    // MARK: Output

    func test_writeErrorOnOutput_isReportedWithTheInputOutputStatus() throws {
        let urls = Array(repeating: "https://museum.example/exhibitions/x", count: 200_000).joined(separator: "\n")
        let input = try write(Array(urls.utf8), "in.txt")
        for jobs in ["1", "2"] {
            let run = try ChildProcess.run(["classify", "--rules", corpus, "--input", input, "--jobs", jobs], stdout: "/dev/full", folder: folder)
            XCTAssertEqual(run.status, 5, run.summary)
            XCTAssertTrue(run.stderr.hasPrefix("aasa classify: cannot write the output: No space left on device"), run.summary)
            XCTAssertFalse(run.stderr.contains("records are errors"), "a write error is not a record error: \(run.summary)")
            stream.check(run, "classify into /dev/full with --jobs \(jobs)")
        }
        let document = CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path
        let match = try ChildProcess.run(["match", document, "--domain", "museum.example"], stdin: input, stdout: "/dev/full", folder: folder)
        XCTAssertEqual(match.status, 5, match.summary)
        XCTAssertTrue(match.stderr.hasPrefix("aasa match: cannot write the output: No space left on device"), match.summary)
        stream.check(match, "match into /dev/full")
    }
}
