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

    /// Standard output appending to the input read the run's own records back without end (an
    /// audit: 4 GB in 10 s), and a pipe named by another name was not known for what it is:
    /// `--stats /dev/stdin` (or `-o`) held a writer of the run's own input, which never ended,
    /// and `--stats /dev/stdout` put the summary among the records. All are refused at once.
    func test_classify_refusesStandardOutputOnTheInputAndPipesByAnotherName() throws {
        let document = try writeDocument()
        let input = try writeInput()
        let aasa = "'\(CLIRunner.executable.path)' classify --rules '\(document.path)' --domain ex.com --quiet"
        // The file size limit (10 MB) bounds what a run that loops could write.
        let run = try CLIRunner.runShell(
            """
            ulimit -f 10000
            timeout 10 \(aasa) < '\(input.path)' >> '\(input.path)'; echo "appending from stdin: $?"
            timeout 10 \(aasa) --input '\(input.path)' >> '\(input.path)'; echo "appending from --input: $?"
            echo https://ex.com/a | timeout 10 \(aasa) --stats /dev/stdin; echo "stats on the input pipe: $?"
            echo https://ex.com/a | timeout 10 \(aasa) -o /dev/stdin; echo "output on the input pipe: $?"
            echo https://ex.com/a | timeout 10 \(aasa) --stats /dev/stdout | cat; echo "stats on the records pipe: ${PIPESTATUS[1]}"
            echo https://ex.com/a | timeout 10 \(aasa) --stats /dev/stderr 2>/dev/null | wc -l; echo "stats on stderr: ${PIPESTATUS[1]}"
            """)
        XCTAssertEqual(
            run.stdout,
            """
            appending from stdin: 2
            appending from --input: 2
            stats on the input pipe: 2
            output on the input pipe: 2
            stats on the records pipe: 2
            1
            stats on stderr: 0

            """, run.stderr)
        XCTAssertTrue(run.stderr.contains("standard output is the input; refusing to write into it"), run.stderr)
        XCTAssertEqual(try String(contentsOf: input, encoding: .utf8), "https://ex.com/a\n", "the input is left as it was")
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
        // The same clash through standard output redirected to the file.
        let redirected = try CLIRunner.runShell(
            "'\(CLIRunner.executable.path)' classify --rules '\(rules.path)' --input '\(input.path)' --stats '\(same.path)' > '\(same.path)'")
        XCTAssertEqual(redirected.status, 2, redirected.stderr)
        XCTAssertTrue(redirected.stderr.contains("is standard output; refusing to write over it"), redirected.stderr)
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

    /// A one-letter file name is as good a name as any: `-o a` once trapped in Foundation's
    /// path splitting before anything was written.
    func test_outputsWithOneLetterNames_areWrittenInTheCurrentFolder() throws {
        let document = try writeDocument()
        let input = try writeInput()
        let aasa = CLIRunner.executable.path
        let run = try CLIRunner.runShell(
            "cd '\(folder.path)' && '\(aasa)' classify --rules '\(document.path)' --domain ex.com --quiet --input '\(input.path)' -o a --stats s"
                + " && '\(aasa)' compile '\(document.path)' --domain ex.com -o c")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(try String(contentsOf: folder.appendingPathComponent("a"), encoding: .utf8).contains(#""decision": "match""#))
        XCTAssertTrue(try String(contentsOf: folder.appendingPathComponent("s"), encoding: .utf8).contains(#""records":1"#))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("c").path))
        // A name ending in '/' names a folder: refused before any work, for every output.
        for extra in [["-o", "x/"], ["--stats", "x/"]] {
            let refused = try CLIRunner.runShell(
                "cd '\(folder.path)' && '\(aasa)' classify --rules '\(document.path)' --domain ex.com --quiet --input '\(input.path)' \(extra.joined(separator: " "))")
            XCTAssertEqual(refused.status, 5, "\(extra): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("cannot write x/: Is a directory"), refused.stderr)
        }
        let compiled = try CLIRunner.runShell("cd '\(folder.path)' && '\(aasa)' compile '\(document.path)' --domain ex.com -o x/")
        XCTAssertEqual(compiled.status, 5, compiled.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("x").path))
    }

    /// `compile` replaces its output whole by renaming a new file over it. Over its own input that
    /// would destroy the documents; inside a rules directory it would be read as a document; over
    /// a device it would replace the device. A symbolic link is followed to the file it names;
    /// one that leads to a pipe is refused as a pipe.
    func test_compile_refusesToReplaceItsInputOrAnythingButAFile() throws {
        let document = try writeDocument()
        let original = try Data(contentsOf: document)
        let own = try CLIRunner.run(["compile", document.path, "--domain", "ex.com", "-o", document.path])
        XCTAssertEqual(own.status, 2, own.stderr)
        XCTAssertTrue(own.stderr.contains("refusing to write over it"), own.stderr)
        XCTAssertEqual(try Data(contentsOf: document), original)
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try original.write(to: rules.appendingPathComponent("ex.com.json"))
        let inside = try CLIRunner.run(["compile", rules.path, "-o", rules.appendingPathComponent("all.aasac").path])
        XCTAssertEqual(inside.status, 2, inside.stderr)
        XCTAssertTrue(inside.stderr.contains("inside the input directory"), inside.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rules.path), ["ex.com.json"])

        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // `/dev/stdout` here is a link through /proc to the runner's pipe, a link with no file
        // name at its end.
        for device in ["/dev/null", fifo, "/dev/stdout"] {
            let run = try CLIRunner.run(["compile", document.path, "--domain", "ex.com", "-o", device])
            XCTAssertEqual(run.status, 5, run.stderr)
            XCTAssertTrue(run.stderr.contains("not a regular file"), run.stderr)
        }
        var info = stat()
        XCTAssertEqual(lstat(fifo, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "the FIFO is still a FIFO")
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")

        let target = folder.appendingPathComponent("target.aasac")
        try Data("old".utf8).write(to: target)
        let link = folder.appendingPathComponent("link.aasac")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let linked = try CLIRunner.run(["compile", document.path, "--domain", "ex.com", "-o", link.path])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path, "the link stays a link")
        XCTAssertNotEqual(try Data(contentsOf: target), Data("old".utf8), "the file it names holds the artifact")
        let classify = try CLIRunner.run(["classify", "--compiled", link.path, "--quiet"], stdin: Data("https://ex.com/a\n".utf8))
        XCTAssertEqual(classify.status, 0, classify.stderr)
        XCTAssertTrue(classify.stdout.contains(#""decision": "match""#), classify.stdout)
    }

    /// An output that reaches a rules document by another name (a symbolic link to it, a hard
    /// link to it) would truncate it: refused like the document's own path.
    func test_outputsReachingARulesDocumentByAnotherName_areRefused() throws {
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        let document = rules.appendingPathComponent("ex.com.json")
        try Data(contentsOf: try writeDocument()).write(to: document)
        let original = try Data(contentsOf: document)
        let symbolic = folder.appendingPathComponent("out-link.ndjson")
        try FileManager.default.createSymbolicLink(at: symbolic, withDestinationURL: document)
        let hard = folder.appendingPathComponent("out-hard.ndjson")
        XCTAssertEqual(link(document.path, hard.path), 0)
        let input = try writeInput()
        for output in [symbolic, hard] {
            let classify = try CLIRunner.run(["classify", "--rules", rules.path, "--input", input.path, "-o", output.path])
            XCTAssertEqual(classify.status, 2, "\(output.lastPathComponent): \(classify.stderr)")
            let compile = try CLIRunner.run(["compile", rules.path, "-o", output.path])
            XCTAssertEqual(compile.status, 2, "\(output.lastPathComponent): \(compile.stderr)")
        }
        XCTAssertEqual(try Data(contentsOf: document), original)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rules.path), ["ex.com.json"])
    }

    /// A run refused before it starts leaves the outputs as they were: an existing file keeps
    /// its contents, and a symbolic link to nothing is refused, not replaced by a file.
    func test_aRefusedRun_leavesExistingOutputsAsTheyWere() throws {
        let input = try writeInput()
        let records = folder.appendingPathComponent("records.ndjson")
        let stats = folder.appendingPathComponent("stats.json")
        try Data("yesterday's records\n".utf8).write(to: records)
        try Data("yesterday's stats\n".utf8).write(to: stats)
        let missing = folder.appendingPathComponent("no-such-rules").path
        let refused = try CLIRunner.run(["classify", "--rules", missing, "--input", input.path, "-o", records.path, "--stats", stats.path])
        XCTAssertEqual(refused.status, 3, refused.stderr)
        XCTAssertEqual(try String(contentsOf: records, encoding: .utf8), "yesterday's records\n")
        XCTAssertEqual(try String(contentsOf: stats, encoding: .utf8), "yesterday's stats\n")
        let dangling = folder.appendingPathComponent("dangling.ndjson")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: folder.appendingPathComponent("nowhere/x").path)
        let linked = try CLIRunner.run(["classify", "--rules", try writeDocument().path, "--domain", "ex.com", "--input", input.path, "-o", dangling.path])
        XCTAssertEqual(linked.status, 5, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("a symbolic link to nothing"), linked.stderr)
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: dangling.path), "the link is still there")
        // A run that starts replaces the old contents whole.
        let run = try CLIRunner.run(["classify", "--rules", try writeDocument().path, "--domain", "ex.com", "--input", input.path, "-o", records.path, "--stats", stats.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(try String(contentsOf: records, encoding: .utf8).hasPrefix(#"{"url": "https://ex.com/a""#))
        XCTAssertTrue(try String(contentsOf: stats, encoding: .utf8).hasPrefix(#"{"records":1"#))
    }

    /// The artifact's temporary file has a fresh name of its own, so a name as long as the
    /// system allows still compiles, and nothing is left beside it.
    func test_compile_writesTheLongestNamesAndLeavesNoTemporaryFile() throws {
        let document = try writeDocument()
        let long = folder.appendingPathComponent(String(repeating: "a", count: 245) + ".aasac")
        let run = try CLIRunner.run(["compile", document.path, "--domain", "ex.com", "-o", long.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }, [])
        var info = stat()
        XCTAssertEqual(stat(long.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o644, "readable by the workers that map it")
    }
}
