import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `classify` as one stage of a pipeline or a Spark `pipe` (issue #21): exit statuses a job can
/// act on, one output row per input line, input hygiene, quiet and machine-readable side
/// channels, and the conventions of a command-line tool.
extension ClassifyTests {
    var museumURL: String { "https://museum.example/exhibitions/x" }

    func file(_ name: String, _ text: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func rows(_ output: CLIRunner.Output) -> [Substring] {
        output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    // MARK: 1. Exit statuses

    func test_exitStatus_errorRecordsAreDataUnlessStrict() throws {
        let input = Data("\(museumURL)\nnot a url\n".utf8)
        let plain = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: input)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.lineCount, 2)
        XCTAssertFalse(plain.stderr.contains("records are errors"), plain.stderr)
        let strict = try CLIRunner.run(["classify", "--rules", corpus.path, "--strict"], stdin: input)
        XCTAssertEqual(strict.status, 1, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("aasa classify: 1 record is an error (--strict)"), strict.stderr)
        XCTAssertTrue(strict.stdoutData == plain.stdoutData, "--strict changes the status, not the records")
    }

    func test_exitStatus_matchOnStandardInputFollowsTheSamePolicy() throws {
        let document = corpus.appendingPathComponent("museum.example/apple-app-site-association").path
        let input = Data("\(museumURL)\nnot a url\n".utf8)
        let plain = try CLIRunner.run(["match", document, "--domain", "museum.example"], stdin: input)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.lineCount, 2)
        let strict = try CLIRunner.run(["match", document, "--domain", "museum.example", "--strict"], stdin: input)
        XCTAssertEqual(strict.status, 1, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("aasa match: 1 record is an error (--strict)"), strict.stderr)
        let directory = try CLIRunner.runShell("\(CLIRunner.executable.path) match \(document) --domain museum.example < \(folder.path)")
        XCTAssertEqual(directory.status, 5, "standard input that cannot be read: \(directory.stderr)")
        XCTAssertTrue(directory.stderr.contains("aasa match: cannot read the input: Is a directory"), directory.stderr)
    }

    func test_exitStatus_unreadableInputIsFiveWithAPlainMessage() throws {
        let missing = folder.appendingPathComponent("missing.txt").path
        let absent = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", missing])
        XCTAssertEqual(absent.status, 5, absent.stderr)
        XCTAssertEqual(absent.stderr, "aasa classify: cannot read the input \(missing): No such file or directory\n")
        let directory = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", folder.path])
        XCTAssertEqual(directory.status, 5, directory.stderr)
        XCTAssertEqual(directory.stderr, "aasa classify: cannot read the input \(folder.path): Is a directory\n")
        let directoryOnStandardInput = try CLIRunner.runShell("\(CLIRunner.executable.path) classify --rules \(corpus.path) < \(folder.path)")
        XCTAssertEqual(directoryOnStandardInput.status, 5, directoryOnStandardInput.stderr)
        XCTAssertEqual(directoryOnStandardInput.stderr, "aasa classify: cannot read the input: Is a directory\n")
    }

    // MARK: 2. One output row per input line

    func test_blankLinesRecord_makesOutputRowNInputLineN() throws {
        let blankLong = String(repeating: " ", count: 70_000)
        let lines = [museumURL, "", "  \t", "not a url", "\r", blankLong, "https://other.example/y", " "]
        let input = try file("blanks.txt", lines.joined(separator: "\n"))
        for jobs in ["1", "2"] {
            let ndjson = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.path, "--blank-lines", "record", "--jobs", jobs])
            XCTAssertEqual(ndjson.status, 0, ndjson.stderr)
            let records = rows(ndjson)
            XCTAssertEqual(records.count, lines.count, ndjson.stdout)
            for (line, record) in zip(lines, records) {
                let blank = line.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
                XCTAssertEqual(record == #"{"url": "", "domain": null, "error": "empty line"}"#, blank, "\(line.prefix(20).debugDescription): \(record)")
            }
            for format in ["tsv", "csv"] {
                let table = try CLIRunner.run(
                    ["classify", "--rules", corpus.path, "--input", input.path, "--blank-lines", "record", "--jobs", jobs, "--format", format, "--no-header"])
                let separator = format == "tsv" ? "\t" : ","
                XCTAssertEqual(rows(table).count, lines.count, table.stdout)
                XCTAssertEqual(rows(table)[1], Substring([ "", "", "", "", "empty line"].joined(separator: separator)))
            }
        }
        let skipped = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.path])
        XCTAssertEqual(skipped.lineCount, 3, "by default blank lines give no record: \(skipped.stdout)")

        // Longer than a whole input batch: the reader assembles it, and it stays one blank line.
        let huge = try file("huge-blank.txt", "\(museumURL)\n" + String(repeating: " ", count: 1_200_000) + "\n\(museumURL)\n")
        for jobs in ["1", "2"] {
            let recorded = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", huge.path, "--blank-lines", "record", "--jobs", jobs])
            XCTAssertEqual(rows(recorded).count, 3, recorded.stdout)
            XCTAssertEqual(rows(recorded).dropFirst().first, #"{"url": "", "domain": null, "error": "empty line"}"#)
            let dropped = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", huge.path, "--jobs", jobs])
            XCTAssertEqual(rows(dropped).count, 2, dropped.stdout)
        }
    }

    func test_blankLinesRecord_appliesToNDJSONInput() throws {
        let input = try file("in.ndjson", "{\"url\": \"\(museumURL)\"}\n\n{\"url\": \"\"}\n")
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.path, "--input-format", "ndjson", "--blank-lines", "record"])
        let records = rows(run)
        XCTAssertEqual(records.count, 3, run.stdout)
        XCTAssertTrue(records[1].hasSuffix(#""error": "empty line", "fields": {}}"#), String(records[1]))
        XCTAssertTrue(records[2].contains(#""error": "empty URL""#), String(records[2]))
    }

    /// `--limit json-depth` holds an NDJSON line as it holds a document: its message said to
    /// raise it, and raising it changed nothing.
    func test_ndjsonInput_jsonDepthLimitAppliesToEachLine() throws {
        let nested = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let input = try file("deep.ndjson", "{\"url\": \"\(museumURL)\", \"x\": \(nested)}\n{\"url\": \"\(museumURL)\", \"x\": [[[1]]]}\n")
        let base = ["classify", "--rules", corpus.path, "--input", input.path, "--input-format", "ndjson"]
        let standard = rows(try CLIRunner.run(base))
        XCTAssertEqual(standard.count, 2)
        XCTAssertTrue(standard[0].contains("deeper than the limit of 512 levels"), String(standard[0]))
        XCTAssertFalse(standard[1].contains("error"), String(standard[1]))
        let raised = rows(try CLIRunner.run(base + ["--limit", "json-depth=1000"]))
        XCTAssertFalse(raised[0].contains("\"error\""), String(raised[0]))
        let lowered = rows(try CLIRunner.run(base + ["--limit", "json-depth=3"]))
        XCTAssertTrue(lowered[1].contains("deeper than the limit of 3 levels"), String(lowered[1]))
    }

    /// A CSV header naming the URL's column twice: the second is `url.1` in the record, as
    /// `--url-column url.1` names it and as pandas reads it, where it stayed `url`.
    func test_csvInput_aRepeatOfTheURLColumnsNameIsRenamed() throws {
        let csv = try file("two-urls.csv", "url,url\n\(museumURL),https://other.example/\n")
        let ndjson = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv"])
        XCTAssertTrue(ndjson.stdout.contains(#""fields": {"url.1":"https://other.example/"}"#), ndjson.stdout)
        let table = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv", "--format", "csv"])
        XCTAssertTrue(table.stdout.hasPrefix("url,domain,apps,rules,error,url.1\n"), table.stdout)
    }

    func test_blankLines_rejectsAnUnknownMode() throws {
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--blank-lines", "keep"], stdin: Data())
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("--blank-lines must be skip or record"), run.stderr)
    }

    // MARK: 3. Input hygiene

    func test_byteOrderMark_isDroppedBeforeTheCSVHeader() throws {
        let csv = folder.appendingPathComponent("excel.csv")
        try Data([0xEF, 0xBB, 0xBF] + Array("url,id\n\(museumURL),7\n,8\n".utf8)).write(to: csv)
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv", "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(
            run.stdout,
            "url,domain,apps,rules,error,id\n\(museumURL),museum.example,MUSE4EX123.org.example.museum,0:1,,7\n,,,,empty URL,8\n")
    }

    /// Blank lines before a CSV header are skipped as blank lines are anywhere (SPEC 14): the
    /// first of them was read as an empty header, and `--url-column url` was "not in the header".
    /// With `--blank-lines record` a row before the header would have no columns: refused.
    func test_csvInput_blankLinesBeforeTheHeaderAreSkipped() throws {
        let text = "\n  \t\r\n\r\nurl,id\n\(museumURL),7\n\n,8\n"
        let csv = try file("blank-first.csv", text)
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv", "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(
            run.stdout,
            "url,domain,apps,rules,error,id\n\(museumURL),museum.example,MUSE4EX123.org.example.museum,0:1,,7\n,,,,empty URL,8\n")
        let piped = try CLIRunner.run(["classify", "--rules", corpus.path, "--input-format", "csv", "--format", "csv"], stdin: Data(text.utf8))
        XCTAssertEqual(piped.stdout, run.stdout)
        let onlyBlank = try CLIRunner.run(["classify", "--rules", corpus.path, "--input-format", "csv", "--format", "csv"], stdin: Data("\n \n".utf8))
        XCTAssertEqual(onlyBlank.status, 0, onlyBlank.stderr)
        XCTAssertEqual(onlyBlank.stdout, "url,domain,apps,rules,error\n", "no header row in the input, as for an empty one")
        let recorded = try CLIRunner.run(
            ["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv", "--blank-lines", "record"])
        XCTAssertEqual(recorded.status, 2, recorded.stderr)
        XCTAssertTrue(recorded.stderr.contains("the CSV header row is blank"), recorded.stderr)
        XCTAssertEqual(recorded.stdout, "")
    }

    func test_compressedInput_isRefusedWithTheCommandThatDecompressesIt() throws {
        let gzip = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4B, 0x4C, 0x04, 0x00])
        let piped = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: gzip)
        XCTAssertEqual(piped.status, 5, piped.stderr)
        XCTAssertEqual(piped.stdout, "")
        XCTAssertTrue(piped.stderr.contains("the input is gzip-compressed; decompress it first: zcat FILE | aasa classify"), piped.stderr)
        let file = folder.appendingPathComponent("urls.txt.gz")
        try gzip.write(to: file)
        let named = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", file.path, "--format", "tsv"])
        XCTAssertEqual(named.status, 5, named.stderr)
        XCTAssertEqual(named.stdout, "", "refused before the header")
        XCTAssertTrue(named.stderr.contains("zcat \(file.path) | aasa classify"), named.stderr)
        // One byte of the signature is not the signature.
        let lone = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: Data([0x1F, 0x0A]))
        XCTAssertEqual(lone.status, 0, lone.stderr)
        XCTAssertEqual(lone.lineCount, 1)
    }

    /// bzip2 is known by its ten-byte start (`BZh`, a level, a block's or the end's magic), so
    /// a line that merely starts `BZh` is a URL line like any other.
    func test_compressedInput_bzip2IsRefusedButTextStartingBZhIsNot() throws {
        // `printf 'https://museum.example/admin/x\n' | bzip2 -1`, and an empty `bzip2` stream.
        let block = Data([
            0x42, 0x5A, 0x68, 0x31, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x19, 0x3D, 0xEA, 0xC2, 0x00, 0x00, 0x06, 0xD9, 0x80, 0x00, 0x10,
            0x00, 0x01, 0x80, 0x10, 0x26, 0x67, 0x4E, 0x40, 0x20, 0x00, 0x31, 0x43, 0x4D, 0x30, 0x00, 0x51, 0xA3, 0x09, 0xEA, 0x32, 0x7A,
            0x87, 0x8B, 0x0D, 0xDA, 0x46, 0xDC, 0xE8, 0x01, 0x46, 0x60, 0x79, 0x8B, 0xBA, 0x1F, 0x2B, 0xA7, 0xC5, 0xDC, 0x91, 0x4E, 0x14,
            0x24, 0x06, 0x4F, 0x7A, 0xB0, 0x80,
        ])
        let empty = Data([0x42, 0x5A, 0x68, 0x39, 0x17, 0x72, 0x45, 0x38, 0x50, 0x90, 0x00, 0x00, 0x00, 0x00])
        for stream in [block, empty] {
            let run = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: stream)
            XCTAssertEqual(run.status, 5, run.stderr)
            XCTAssertEqual(run.stdout, "")
            XCTAssertTrue(run.stderr.contains("the input is bzip2-compressed; decompress it first: bzcat FILE | aasa classify"), run.stderr)
        }
        let text = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: Data("BZh91AY\nBZh\n".utf8))
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.lineCount, 2, text.stdout)
    }

    func test_matchOnStandardInput_readsLinesAsClassifyDoes() throws {
        let document = corpus.appendingPathComponent("museum.example/apple-app-site-association").path
        let match = ["match", document, "--domain", "museum.example"]
        let lines = [museumURL, "", "  \t", "not a url", "\r", String(repeating: " ", count: 70_000), museumURL]
        let input = Data([0xEF, 0xBB, 0xBF] + Array(lines.joined(separator: "\n").utf8))
        let recorded = try CLIRunner.run(match + ["--blank-lines", "record"], stdin: input)
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        let records = rows(recorded)
        XCTAssertEqual(records.count, lines.count, recorded.stdout)
        for (line, record) in zip(lines, records) {
            let blank = line.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            XCTAssertEqual(record == #"{"url": "", "error": "empty line"}"#, blank, "\(line.prefix(20).debugDescription): \(record)")
        }
        XCTAssertTrue(records[0].hasPrefix("{\"url\": \"\(museumURL)\", \"apps\": [\"MUSE4EX123"), "byte order mark dropped: \(records[0])")
        XCTAssertEqual(records[0], records[6])
        let strict = try CLIRunner.run(match + ["--blank-lines", "record", "--strict"], stdin: Data("\(museumURL)\n\n".utf8))
        XCTAssertEqual(strict.status, 1, "an empty-line record is an error record: \(strict.stderr)")
        let skipped = try CLIRunner.run(match, stdin: input)
        XCTAssertEqual(skipped.status, 0, skipped.stderr)
        XCTAssertEqual(rows(skipped), [records[0], records[3], records[6]], "blank lines give no record by default")
        let unknown = try CLIRunner.run(match + ["--blank-lines", "keep"], stdin: Data())
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("--blank-lines must be skip or record"), unknown.stderr)

        let gzip = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4B, 0x4C, 0x04, 0x00])
        let compressed = try CLIRunner.run(match, stdin: gzip)
        XCTAssertEqual(compressed.status, 5, compressed.stderr)
        XCTAssertEqual(compressed.stdout, "")
        XCTAssertTrue(compressed.stderr.contains("the input is gzip-compressed; decompress it first: zcat FILE | aasa match"), compressed.stderr)
        let lone = try CLIRunner.run(match, stdin: Data([0x1F, 0x0A]))
        XCTAssertEqual(lone.status, 0, "one byte of the signature is not the signature: \(lone.stderr)")
        XCTAssertEqual(lone.lineCount, 1)
    }

    func test_jsonLineOnLineInput_pointsToTheNDJSONInputFormat() throws {
        let run = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: Data("{\"url\": \"\(museumURL)\"}\n".utf8))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains(#""error": "not a URL: the line is a JSON object (read JSON lines with --input-format ndjson)""#), run.stdout)
    }

    // MARK: 4. Side channels

    func test_quietAndSummaryModes_controlStandardError() throws {
        let input = Data("\(museumURL)\nnot a url\n".utf8)
        let quiet = try CLIRunner.run(["classify", "--rules", corpus.path, "--quiet"], stdin: input)
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stderr, "")
        let none = try CLIRunner.run(["classify", "--rules", corpus.path, "--summary", "none"], stdin: input)
        XCTAssertEqual(none.stderr, "")
        let json = try CLIRunner.run(["classify", "--rules", corpus.path, "--quiet", "--summary", "json"], stdin: input)
        let lines = json.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, json.stderr)
        guard case .object(let summary) = try JSONParser.parse(String(lines.first ?? "")) else { return XCTFail(json.stderr) }
        XCTAssertEqual(summary["records"], .number("2"))
        XCTAssertEqual(summary["errors"], .number("1"))
        XCTAssertEqual(summary["complete"], .bool(true))
        let text = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: input)
        XCTAssertTrue(text.stderr.hasPrefix("classified 2 records in "), text.stderr)
    }

    func test_stats_areWrittenWhenTheReaderStopsEarly() throws {
        let input = try writeLargeInput(lines: 200_000)
        let stats = folder.appendingPathComponent("stats.json")
        let script =
            "\(CLIRunner.executable.path) classify --rules \(corpus.path) --input \(input.url.path) --stats \(stats.path) | head -n 3; echo \"status ${PIPESTATUS[0]}\""
        let run = try CLIRunner.runShell(script)
        XCTAssertEqual(run.stdout.split(separator: "\n").last, "status 0")
        XCTAssertEqual(run.stderr, "", "| head still ends the run quietly")
        guard case .object(let summary) = try JSONParser.parse([UInt8](try Data(contentsOf: stats))) else { return XCTFail("stats are not JSON") }
        XCTAssertEqual(summary["complete"], .bool(false))
        guard case .number(let records)? = summary["records"], let count = Int(records) else { return XCTFail("no record count") }
        XCTAssertGreaterThanOrEqual(count, 3)
        XCTAssertLessThan(count, input.records)

        // The reader is gone before the header row: no record was classified, the stats say so.
        let closedAtOnce =
            "(sleep 0.5; echo \(museumURL)) | \(CLIRunner.executable.path) classify --rules \(corpus.path) --format tsv --stats \(stats.path) | (exec 0<&-; true); echo \"status ${PIPESTATUS[1]}\""
        let early = try CLIRunner.runShell(closedAtOnce)
        XCTAssertEqual(early.stdout, "status 0\n", early.stderr)
        XCTAssertEqual(early.stderr, "")
        guard case .object(let empty) = try JSONParser.parse([UInt8](try Data(contentsOf: stats))) else { return XCTFail("stats are not JSON") }
        XCTAssertEqual(empty["complete"], .bool(false))
        XCTAssertEqual(empty["records"], .number("0"))
    }

    func test_outputPaths_areCheckedBeforeTheRunAndReportedPlainly() throws {
        let output = folder.appendingPathComponent("out.ndjson")
        let badStats = folder.appendingPathComponent("no/such/dir/stats.json").path
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "-o", output.path, "--stats", badStats], stdin: Data("\(museumURL)\n".utf8))
        XCTAssertEqual(run.status, 5)
        XCTAssertEqual(run.stderr, "aasa classify: cannot write \(badStats): No such file or directory\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "a refused run leaves no empty output behind")
        let intoDirectory = try CLIRunner.run(["classify", "--rules", corpus.path, "-o", folder.path], stdin: Data("\(museumURL)\n".utf8))
        XCTAssertEqual(intoDirectory.status, 5)
        XCTAssertEqual(intoDirectory.stderr, "aasa classify: cannot write \(folder.path): Is a directory\n")

        let stats = folder.appendingPathComponent("stats.json")
        let missingRules = try CLIRunner.run(["classify", "--rules", folder.appendingPathComponent("nope").path, "--stats", stats.path])
        XCTAssertEqual(missingRules.status, 3)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stats.path), "no empty stats file after a refused run")

        let written = try CLIRunner.run(["classify", "--rules", corpus.path, "-o", output.path, "--stats", stats.path], stdin: Data("\(museumURL)\n".utf8))
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(written.stdout, "")
        XCTAssertTrue(try String(contentsOf: output, encoding: .utf8).hasPrefix("{\"url\": \"\(museumURL)\", \"domain\": \"museum.example\""))
        XCTAssertTrue(try String(contentsOf: stats, encoding: .utf8).contains(#""records":1,"#))
    }

    func test_compileOutput_unwritableIsReportedPlainlyWithStatusFive() throws {
        let target = folder.appendingPathComponent("no/such/dir/rules.aasac").path
        let run = try CLIRunner.run(["compile", corpus.path, "-o", target])
        XCTAssertEqual(run.status, 5)
        XCTAssertEqual(run.stderr, "aasa compile: cannot write \(target): No such file or directory\n")
        let artifact = folder.appendingPathComponent("rules.aasac")
        XCTAssertEqual(try CLIRunner.run(["compile", corpus.path, "-o", artifact.path]).status, 0)
        // The temporary file (unnamed, or `.aasa-XXXXXX` where the file system has no unnamed
        // files) is renamed into place: the folder holds the artifact and nothing else.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(left, ["rules.aasac"], "the temporary file is renamed into place")
    }

    /// The progress line is redrawn while no record arrives (here for more than a second), as
    /// seen on a terminal: `script` gives the child a pseudo-terminal for stderr.
    func test_progressLine_isRedrawnWhileInputIsSlow() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script(1) is not installed") }
        let command = "(sleep 1.5; echo \(museumURL)) | \(CLIRunner.executable.path) classify --rules \(corpus.path) > /dev/null"
        let run = try CLIRunner.runShell("/usr/bin/script -qec '\(command)' /dev/null")
        XCTAssertEqual(run.status, 0, run.stderr)
        let waiting = run.stdout.components(separatedBy: "\r0 records, ").count - 1
        XCTAssertGreaterThanOrEqual(waiting, 3, "the line must be redrawn before the first record: \(run.stdout.debugDescription)")
        XCTAssertTrue(run.stdout.contains("classified 1 record in "), run.stdout)
        let quiet = try CLIRunner.runShell("/usr/bin/script -qec '\(command) --quiet' /dev/null")
        XCTAssertFalse(quiet.stdout.contains("records, "), quiet.stdout.debugDescription)
    }

    // MARK: 5. Conventions

    func test_version_isPrintedAndShownInTheHelp() throws {
        let version = try CLIRunner.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("aasa "), version.stdout)
        XCTAssertEqual(version.stdout.filter { $0 == "\n" }.count, 1)
        let help = try CLIRunner.run(["--help"])
        XCTAssertTrue(help.stdout.contains(version.stdout), help.stdout)
        XCTAssertTrue(help.stdout.contains("EXIT STATUS"), help.stdout)
    }

    func test_helpCommand_printsThatCommandsHelp() throws {
        for command in ["classify", "match", "compile"] {
            let viaHelp = try CLIRunner.run(["help", command])
            let viaFlag = try CLIRunner.run([command, "--help"])
            XCTAssertEqual(viaHelp.status, 0)
            XCTAssertEqual(viaHelp.stdout, viaFlag.stdout)
            XCTAssertTrue(viaHelp.stdout.contains("USAGE: aasa \(command)"), viaHelp.stdout)
        }
        let unknown = try CLIRunner.run(["help", "classfy"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.hasPrefix("aasa help: unknown command 'classfy'"), unknown.stderr)
    }

    func test_rulesGivenAnArtifact_pointsToCompiled() throws {
        let artifact = folder.appendingPathComponent("rules.aasac")
        XCTAssertEqual(try CLIRunner.run(["compile", corpus.path, "-o", artifact.path]).status, 0)
        let run = try CLIRunner.run(["classify", "--rules", artifact.path], stdin: Data())
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("\(artifact.path) is a compiled artifact, not AASA documents: use --compiled \(artifact.path)"), run.stderr)
        XCTAssertFalse(run.stderr.contains("needs --domain"), run.stderr)
        let document = corpus.appendingPathComponent("museum.example/apple-app-site-association").path
        let reverse = try CLIRunner.run(["classify", "--compiled", document], stdin: Data())
        XCTAssertEqual(reverse.status, 3)
        XCTAssertTrue(reverse.stderr.contains("(AASA documents go to --rules)"), reverse.stderr)
    }

    func test_domainThatLooksLikeAURL_isRefusedWithTheHost() throws {
        let document = corpus.appendingPathComponent("museum.example/apple-app-site-association").path
        let matrix = try file("matrix.json", #"{"opens_app": [], "opens_web": []}"#).path
        for command in [
            ["classify", "--rules", document], ["match", document], ["compile", document, "-o", folder.appendingPathComponent("x").path],
            ["test", document, "--matrix", matrix], ["explain", document, "--app", "A", museumURL],
        ] {
            let run = try CLIRunner.run(command + ["--domain", "https://cutt.ly/abc"], stdin: Data())
            XCTAssertEqual(run.status, 2, "\(command[0]): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--domain takes a host name such as example.com, not a URL or a path: try --domain cutt.ly"), run.stderr)
        }
        let accepted = try CLIRunner.run(["classify", "--rules", document, "--domain", "museum.example"], stdin: Data("\(museumURL)\n".utf8))
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertTrue(accepted.stdout.contains(#""apps": ["MUSE4EX123.org.example.museum"]"#), accepted.stdout)
    }

    func test_noHeader_leavesOnlyTheRows() throws {
        // NDJSON has no header to leave out: asking is a mistake, as --url-field without NDJSON input.
        let ndjson = try CLIRunner.run(["classify", "--rules", corpus.path, "--no-header"], stdin: Data("\(museumURL)\n".utf8))
        XCTAssertEqual(ndjson.status, 2, ndjson.stderr)
        XCTAssertTrue(ndjson.stderr.contains("--no-header needs --format tsv or csv"), ndjson.stderr)
        for format in ["tsv", "csv"] {
            let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--format", format, "--no-header"], stdin: Data("\(museumURL)\n".utf8))
            XCTAssertEqual(run.lineCount, 1, run.stdout)
            XCTAssertTrue(run.stdout.hasPrefix(museumURL), run.stdout)
            let empty = try CLIRunner.run(["classify", "--rules", corpus.path, "--format", format, "--no-header"], stdin: Data())
            XCTAssertEqual(empty.stdout, "", "an empty partition gives an empty output")
            let emptyCSV = try CLIRunner.run(
                ["classify", "--rules", corpus.path, "--format", format, "--no-header", "--input-format", "csv"], stdin: Data())
            XCTAssertEqual(emptyCSV.status, 0, "an empty CSV partition has no header row and needs none: \(emptyCSV.stderr)")
            XCTAssertEqual(emptyCSV.stdout, "")
        }
    }
}
