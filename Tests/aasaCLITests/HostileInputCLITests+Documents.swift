import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Documents written to hurt, through the binary: refused or decided as documented, within the
/// time and memory bounds (the in-process versions are `HostileDocumentTests`; these add the
/// loader and the child's own peak memory).
extension HostileInputCLITests {
    /// A 100 MB file that starts like a document; sparse, so the test writes almost nothing.
    func hundredMegabyteDocument(at url: URL) throws {
        try Data(#"{"applinks":{"details":[{"appID":"T.a","paths":["*"]}]}, "padding": ""#.utf8).write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 100 << 20)
        try handle.close()
    }

    /// 9 000 query items of one rule (121 KB): the analyses stop at their state budget, having
    /// proved what they claim, in about two seconds; adding up the work of every item's
    /// automaton at every state took them eleven. The diff against `/x/*` finds the difference
    /// (a URL without the items) once the walk crosses the items after the rule falls in one
    /// step (one node an item each ran out of states first), and building its witness does not
    /// look each item's name up among the names before it (quadratic: 14 s).
    func test_thousandsOfQueryItems_lintAndDiffStopWithinBounds() throws {
        let items = (0..<9_000).map { #""\#(String($0, radix: 16))":"*x*y""# }.joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"*","?":{\#(items)}}]}]}}"#
        XCTAssertLessThan(text.utf8.count, 128 << 10)
        let document = try write(Array(text.utf8), "items.json")
        let base = try write(
            Array(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/x/*"}]}]}}"#.utf8), "base.json")
        let lint = try ChildProcess.run(["lint", document, "--domain", "x.example"], folder: folder)
        XCTAssertEqual(lint.status, 0, lint.summary)
        XCTAssertTrue(String(decoding: lint.stdout, as: UTF8.self).contains("[analysis-incomplete]"), lint.summary)
        // `cover` explores the same way (about as long); two runs keep the suite short.
        let diff = try ChildProcess.run(["diff", base, document, "--domain", "x.example"], folder: folder)
        XCTAssertEqual(diff.status, 1, "a difference found: \(diff.summary)")
        XCTAssertTrue(String(decoding: diff.stdout, as: UTF8.self).contains("match (entry 0 rule 0) -> no_match\n  https://x.example/x\n"), diff.summary)
        XCTAssertTrue(diff.stderr.contains("may not be all"), diff.summary)
        // About 2 s each in a release build; the test build (assertions on) is several times
        // slower, and took the old sum over 40 s.
        for (run, what) in [(lint, "lint"), (diff, "diff")] {
            RobustnessBounds(seconds: 25, residentMiB: 400).check(run, "\(what) of 9 000 query items")
        }
    }

    /// 1 100 rules of eight query items each (123 KB): no exploration proves the document, so
    /// `cover` searches rule by rule, and those searches share one budget that counts the states
    /// they store. Counting only positions stepped, every rule used up its own state budget and
    /// the searches took six times the budget's time. The budget is given (10 M, a third of the
    /// default), so that it runs out part of the way through the rules whatever the default.
    func test_coverRuleByRuleSearches_shareOneBudgetThatCountsTheirStates() throws {
        let rules = (0..<1_100).map { rule in
            "{\"?\":{" + (0..<8).map { #""k\#($0)":"*\#(rule)*""# }.joined(separator: ",") + "}}"
        }.joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appIDs":["T.a"],"components":[\#(rules)]}]}}"#
        XCTAssertLessThan(text.utf8.count, 128 << 10)
        let document = try write(Array(text.utf8), "items.json")
        let run = try ChildProcess.run(["cover", document, "--domain", "example.com", "--limit", "analysis-work=10M"], folder: folder)
        XCTAssertEqual(run.status, 4, "rules without a URL, none proven: \(run.summary)")
        let output = String(decoding: run.stdout, as: UTF8.self)
        XCTAssertTrue(output.contains("not searched: the document's walk and the searches of earlier rules spent the work budget"), run.summary)
        XCTAssertEqual(output.split(separator: "\n").filter { $0.hasPrefix("entry 0 rule") }.count, 1_100, run.summary)
        RobustnessBounds(seconds: 25, residentMiB: 400).check(run, "cover of 1 100 eight-item rules")
    }

    /// A rule left without a URL because the walk of the document spent the budget is said to
    /// be so: a lone rule was "not searched" for a budget spent "on earlier rules".
    func test_coverOfALoneRuleTheWalkRanOutOn_blamesTheWalk() throws {
        let pattern = "/" + String(repeating: "*a", count: 3_000) + "b"
        let document = try write(Array(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"\#(pattern)"}]}]}}"#.utf8), "stars.json")
        let run = try ChildProcess.run(["cover", document, "--domain", "example.com", "--limit", "analysis-work=1M"], folder: folder)
        XCTAssertEqual(run.status, 4, "not searched is not proven: \(run.summary)")
        let output = String(decoding: run.stdout, as: UTF8.self)
        XCTAssertTrue(output.contains("not searched: the document's walk spent the work budget"), run.summary)
        XCTAssertFalse(output.contains("earlier rules"), run.summary)
    }

    func test_debugDFA_boundsThePositionsItStepsNotOnlyItsStates() throws {
        // 3 000 values of `*N*a` called three times: under 10 000 states, each of thousands of
        // positions (650 MB and 10 s before the work bound).
        let values = (0..<3_000).map { #""*\#($0)*a""# }.joined(separator: ",")
        let text = #"{"applinks":{"substitutionVariables":{"v":[\#(values)]},"details":[{"appIDs":["T.a"],"components":[{"/":"/$(v)/$(v)/$(v)/*"}]}]}}"#
        let document = try write(Array(text.utf8), "variables.json")
        let run = try ChildProcess.run(["debug", "dfa", document], folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        RobustnessBounds(seconds: 20, residentMiB: 300).check(run, "debug dfa of a wide variable")
    }

    func test_hundredMegabyteDocument_isRefusedWithoutReadingIt() throws {
        let document = folder.appendingPathComponent("big.json")
        try hundredMegabyteDocument(at: document)
        let run = try ChildProcess.run(["match", document.path, "--domain", "example.com", "https://example.com/"], folder: folder)
        XCTAssertEqual(run.status, 3, run.summary)
        XCTAssertTrue(run.stderr.contains("is 104857600 bytes, over the limit of 131072 bytes (raise it with --limit document-bytes=<n>)"), run.summary)
        refusal.check(run, "refusing a 100 MB document")
    }

    func test_hundredMegabyteDocument_inARulesDirectoryOnlyFailsItsOwnDomain() throws {
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try hundredMegabyteDocument(at: rules.appendingPathComponent("big.example.json"))
        try Data(#"{"applinks":{"details":[{"appID":"T.a","paths":["*"]}]}}"#.utf8).write(to: rules.appendingPathComponent("good.example.json"))
        let input = try write(Array("https://big.example/a\nhttps://good.example/a\n".utf8), "in.txt")
        let run = try ChildProcess.run(["classify", "--rules", rules.path, "--input", input], folder: folder)
        XCTAssertEqual(run.status, 0, "error records are data: \(run.summary)")
        let records = lines(run)
        XCTAssertEqual(records.count, 2, run.summary)
        XCTAssertTrue(records.first?.contains("over the limit of 131072 bytes") ?? false, records.first ?? "")
        XCTAssertTrue(records.last?.contains(#""apps": ["T.a"]"#) ?? false, records.last ?? "")
        refusal.check(run, "classifying with a 100 MB document in the rules")
    }

    func test_endlessDocument_isRefusedAfterReadingPastTheLimit() throws {
        let run = try ChildProcess.run(["match", "/dev/zero", "--domain", "example.com", "https://example.com/"], folder: folder)
        XCTAssertEqual(run.status, 3, run.summary)
        XCTAssertTrue(run.stderr.contains("over the limit of 131072 bytes"), run.summary)
        XCTAssertTrue(run.stderr.contains("the document is more than 131072 bytes"), "its size is unknown, not limit + 1: \(run.summary)")
        refusal.check(run, "refusing /dev/zero as a document")
    }

    func test_raisedDocumentLimit_letsTheSameDocumentThrough() throws {
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/a"},{"/":"/b"},{"/":"/c"}]}]}}"#
        let document = try write(Array(text.utf8), "three.json")
        let refused = try ChildProcess.run(["match", document, "--domain", "x.example", "--limit", "patterns=2", "https://x.example/c"], folder: folder)
        XCTAssertEqual(refused.status, 3, refused.summary)
        XCTAssertTrue(refused.stderr.contains("more than 2 patterns at applinks.details[0].components[2][\"/\"] (raise it with --limit patterns=<n>)"), refused.summary)
        let raised = try ChildProcess.run(["match", document, "--domain", "x.example", "--limit", "patterns=3", "https://x.example/c"], folder: folder)
        XCTAssertEqual(raised.status, 0, raised.summary)
        XCTAssertTrue(lines(raised).first?.contains(#""apps": ["T.a"]"#) ?? false, raised.summary)
    }

    /// A script can give its defaults first and let a later `--limit` of the same name override
    /// them; limits of different names all apply.
    func test_repeatedLimit_theLastOfEachNameApplies() throws {
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/a"},{"/":"/b"},{"/":"/c"}]}]}}"#
        let document = try write(Array(text.utf8), "three-again.json")
        func match(_ limits: [String], _ url: String = "https://x.example/c") throws -> ChildProcess.Finished {
            try ChildProcess.run(["match", document, "--domain", "x.example"] + limits.flatMap { ["--limit", $0] } + [url], folder: folder)
        }
        XCTAssertEqual(try match(["patterns=2", "patterns=3"]).status, 0)
        XCTAssertEqual(try match(["patterns=3", "patterns=2"]).status, 3)
        let both = try match(["patterns=3", "url-bytes=20"], "https://x.example/c/and-more-than-twenty")
        XCTAssertEqual(both.status, 0, both.summary)
        XCTAssertTrue(lines(both).first?.contains("is over the limit of 20 bytes") ?? false, both.summary)
    }

    func test_help_listsEveryLimitWithItsDefault() throws {
        for command in ["match", "classify", "compile", "explain", "test", "debug", "lint", "diff", "cover"] {
            let help = try CLIRunner.run([command, "--help"])
            XCTAssertTrue(help.stdout.contains("--limit <name=n>"), command)
            let lines = help.stdout.split(separator: "\n")
            for limit in Configuration.Limit.allCases {
                // The limit's own line gives its own default.
                let line = lines.first { $0.hasPrefix("  \(limit.rawValue) ") }
                XCTAssertNotNil(line, "\(command) --help lacks \(limit.rawValue)")
                XCTAssertEqual(line?.hasSuffix(" (default \(Configuration.default[limit]))"), true, "\(command): \(line ?? "")")
            }
        }
    }

    func test_badLimit_isAUsageErrorNotACrash() throws {
        let wrong = try CLIRunner.run(["match", "x.json", "--domain", "x", "--limit", "patterns"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("--limit needs NAME=VALUE"), wrong.stderr)
        let huge = try CLIRunner.run(["classify", "--rules", corpus, "--limit", "line-bytes=9223372036854775807"], stdin: Data("https://x/\n".utf8))
        XCTAssertEqual(huge.status, 2, "a limit too large to compute with is a usage error, not a crash: \(huge.stderr.prefix(300))")
    }

    func test_truncatedArtifact_isRefusedAtEveryCut() throws {
        let artifact = folder.appendingPathComponent("rules.aasac")
        let compile = try CLIRunner.run(["compile", corpus, "-o", artifact.path])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        let bytes = try Data(contentsOf: artifact)
        let cut = folder.appendingPathComponent("cut.aasac")
        for length in [0, 7, 40, bytes.count / 2, bytes.count - 1] {
            try bytes.prefix(length).write(to: cut)
            let run = try ChildProcess.run(["classify", "--compiled", cut.path], folder: folder)
            XCTAssertEqual(run.status, 3, "cut at \(length): \(run.summary)")
            XCTAssertTrue(run.stderr.hasPrefix("aasa classify: cannot load \(cut.path): "), "cut at \(length): \(run.summary)")
            refusal.check(run, "an artifact cut at \(length) of \(bytes.count) bytes")
            if length == 0 { XCTAssertTrue(run.stderr.contains("truncated"), "empty is not 'wrong magic': \(run.summary)") }
        }
    }

    /// An artifact is mapped, so only a regular file will do: a FIFO nobody writes is refused at
    /// once (it used to block the open for ever), and one piped in is named as a pipe rather
    /// than reported as damaged.
    func test_artifactThatIsNotAFile_isRefusedAtOnceAndNamed() throws {
        let artifact = folder.appendingPathComponent("rules.aasac")
        XCTAssertEqual(try CLIRunner.run(["compile", corpus, "-o", artifact.path]).status, 0)
        let fifo = folder.appendingPathComponent("artifact.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let waiting = try ChildProcess.run(["classify", "--compiled", fifo], folder: folder)
        XCTAssertEqual(waiting.status, 3, waiting.summary)
        XCTAssertTrue(waiting.stderr.contains("it is a FIFO, not a regular file (an artifact is mapped, not streamed)"), waiting.summary)
        refusal.check(waiting, "a FIFO given as the artifact")
        let piped = try CLIRunner.runShell("cat '\(artifact.path)' | '\(CLIRunner.executable.path)' classify --compiled /dev/stdin")
        XCTAssertEqual(piped.status, 3, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("not a regular file (an artifact is mapped, not streamed)"), piped.stderr)
    }

    func test_deepNesting_isRefusedQuicklyAtAnySize() throws {
        let depth = 131_000
        let document = try write([UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth), "deep.json")
        for limit in ["128K", "1M"] {
            let run = try ChildProcess.run(["match", document, "--domain", "x.example", "--limit", "document-bytes=\(limit)", "https://x.example/"], folder: folder)
            XCTAssertEqual(run.status, 3, run.summary)
            XCTAssertTrue(run.stderr.contains(limit == "1M" ? "nesting is deeper than the limit of 512 levels (raise it with --limit json-depth=<n>)" : "over the limit of 131072 bytes"), run.summary)
            refusal.check(run, "\(depth) nested arrays under document-bytes=\(limit)")
        }
    }

    /// `*a*a*a…*b`: exponential for a naive backtracker, a subset explosion for a naive DFA.
    func test_blowUpPattern_decidesOnBothEnginesWithinBounds() throws {
        let pattern = String(repeating: "*a", count: 200) + "*b"
        let document = try write(Array(#"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/\#(pattern)"}]}]}}"#.utf8), "blowup.json")
        let miss = "https://x.example/" + String(repeating: "a", count: 20_000)
        let hit = miss + "b"
        let input = try write(Array("\(miss)\n\(hit)\n".utf8), "urls.txt")
        // Under a raised work budget both engines decide, and agree; under the default the
        // automata give each URL the work-limit error record, in far less time.
        for engine in ["dfa", "reference"] {
            let run = try ChildProcess.run(
                ["match", document, "--domain", "x.example", "--engine", engine, "--limit", "url-work=1G"], stdin: input, folder: folder)
            XCTAssertEqual(run.status, 0, run.summary)
            let records = lines(run)
            XCTAssertEqual(records.count, 2, run.summary)
            XCTAssertTrue(records.first?.contains(#""apps": []"#) ?? false, "\(engine): \(records.first?.suffix(200) ?? "")")
            XCTAssertTrue(records.last?.contains(#""apps": ["T.a"]"#) ?? false, "\(engine): \(records.last?.suffix(200) ?? "")")
            stream.check(run, "*a x 200 + *b on the \(engine) engine")
        }
        let budgeted = try ChildProcess.run(["match", document, "--domain", "x.example"], stdin: input, folder: folder)
        XCTAssertEqual(lines(budgeted), [miss, hit].map { #"{"url": "\#($0)", "error": "work limit exceeded (url-work=500000)"}"# }, budgeted.summary)
        RobustnessBounds(seconds: 5, residentMiB: 160).check(budgeted, "*a x 200 + *b under the default work budget")
    }

    /// 4 096 variables (the default limit) of 16 values each, all used by one rule.
    func test_thousandsOfVariables_compileAndDecideWithinBounds() throws {
        let names = (0..<4_096).map { "v\($0)" }
        let variables = names.map { name in "\"\(name)\":[" + (0..<16).map { "\"\(name)x\($0)\"" }.joined(separator: ",") + "]" }
        let path = "/" + names.suffix(64).map { "$(\($0))" }.joined(separator: "/")
        let text = #"{"applinks":{"substitutionVariables":{"# + variables.joined(separator: ",") + #"},"details":[{"appID":"T.a","components":[{"/":"\#(path)"}]}]}}"#
        let document = try write(Array(text.utf8), "variables.json")
        let hit = "https://x.example/" + names.suffix(64).map { "\($0)x15" }.joined(separator: "/")
        let miss = "https://x.example/" + names.suffix(64).map { "\($0)x16" }.joined(separator: "/")
        let input = try write(Array("\(hit)\n\(miss)\n".utf8), "urls.txt")
        let run = try ChildProcess.run(["match", document, "--domain", "x.example", "--limit", "document-bytes=2M"], stdin: input, folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        XCTAssertEqual(lines(run).map { $0.contains(#""apps": ["T.a"]"#) }, [true, false], run.summary)
        stream.check(run, "4 096 variables")
        let tooMany = try ChildProcess.run(
            ["match", document, "--domain", "x.example", "--limit", "document-bytes=2M", "--limit", "variables=4095"], stdin: input, folder: folder)
        XCTAssertEqual(tooMany.status, 3, tooMany.summary)
        XCTAssertTrue(tooMany.stderr.contains("more than 4095 substitution variables at applinks.substitutionVariables (raise it with --limit variables=<n>)"), tooMany.summary)
    }
}
