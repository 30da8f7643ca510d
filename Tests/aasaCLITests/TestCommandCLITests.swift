import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `aasa test` through the binary: what a failure line says when no rule decides, which
/// matrices are refused as checking nothing, and what a matrix of many hosts or hostile URLs
/// costs (`RobustnessBounds`).
final class TestCommandCLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeTemporaryFolder("aasa-test-command")
    }

    var museum: String { CaseSuite.packageRoot.appendingPathComponent("corpus/museum.example/apple-app-site-association").path }

    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// A URL listed for an app that the document does not name checks no rule: under opens_app
    /// it failed with "no rule matched", and under opens_web it passed whatever the rules say,
    /// so a misspelt app ID let its whole list pass. Both fail, saying why.
    func test_urlsOfAnAppTheDocumentDoesNotName_failUnderBothKeys_sayingSo() throws {
        let matrix = try write(
            "m.json",
            #"{"opens_app": {"NOPE000000.not.there": ["https://museum.example/exhibitions"]}, "opens_web": {"NOPE000000.not.there": ["https://museum.example/admin/x"]}}"#)
        for engine in ["dfa", "reference"] {
            let output = try CLIRunner.run(["test", museum, "--matrix", matrix, "--domain", "museum.example", "--engine", engine])
            XCTAssertEqual(output.status, 1, engine + ": " + output.stdout + output.stderr)
            XCTAssertEqual(
                output.stdout,
                """
                FAIL https://museum.example/exhibitions for NOPE000000.not.there should open the app: no entry of applinks.details names NOPE000000.not.there
                FAIL https://museum.example/admin/x for NOPE000000.not.there should stay on the web: no entry of applinks.details names NOPE000000.not.there
                0 passed, 2 failed

                """, engine)
        }
    }

    /// With `--domain`, a URL on another host opens no app whatever the rules say: the line
    /// says so rather than "no rule matched". One on another host under opens_web passes.
    func test_aURLOnAnotherHostThanTheDomain_failsSayingTheHostDiffers() throws {
        let matrix = try write(
            "m.json", #"{"opens_app": ["https://www.museum.example/exhibitions", "https://MUSEUM.example/exhibitions"], "opens_web": ["https://www.museum.example/exhibitions"]}"#)
        for engine in ["dfa", "reference"] {
            let output = try CLIRunner.run(["test", museum, "--matrix", matrix, "--domain", "museum.example", "--engine", engine])
            XCTAssertEqual(output.status, 1, engine + ": " + output.stdout + output.stderr)
            XCTAssertEqual(
                output.stdout,
                """
                FAIL https://www.museum.example/exhibitions should open the app: its host www.museum.example is not the domain museum.example, so no rule applies
                2 passed, 1 failed

                """, engine)
        }
    }

    /// `--help` says a matrix that could check nothing by mistake is refused; one whose lists
    /// are all empty passed as "0 passed, 0 failed".
    func test_aMatrixListingNoURL_isRefused() throws {
        for matrix in [#"{"opens_app": []}"#, #"{"opens_app": {}}"#, #"{"opens_app": {"T.a": []}, "opens_web": []}"#] {
            let output = try CLIRunner.run(["test", museum, "--matrix", try write("m.json", matrix), "--domain", "museum.example"])
            XCTAssertEqual(output.status, 2, matrix + ": " + output.stdout + output.stderr)
            XCTAssertTrue(output.stderr.contains("it lists no URL, so it would check nothing"), matrix + ": " + output.stderr)
            XCTAssertEqual(output.stdout, "", matrix)
        }
    }

    /// A URL over the work limit is not a URL that cannot be split: the line says which limit
    /// stopped it and how to raise it, and shows the 64 KB URL by its first 200 characters.
    func test_aURLOverTheWorkLimit_isReportedAsSuch_byItsFirstCharacters() throws {
        let document = try write(
            "hostile.json",
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.x"],"components":[{"/":"/\#(String(repeating: "*a", count: 30_000))b"}]}]}}"#)
        let url = "https://h.example/" + String(repeating: "a", count: 64_000)
        let matrix = try write("m.json", #"{"opens_app": ["\#(url)"]}"#)
        for engine in ["dfa", "reference"] {
            let output = try CLIRunner.run(["test", document, "--matrix", matrix, "--engine", engine])
            XCTAssertEqual(output.status, 1, engine + ": " + String(output.stdout.prefix(400)) + output.stderr)
            XCTAssertEqual(
                output.stdout,
                "FAIL \(url.prefix(200))… (64018 bytes): cannot be decided: work limit exceeded (url-work=500000) (raise it with --limit url-work=<n>)\n0 passed, 1 failed\n",
                engine)
        }
    }

    /// Without `--domain` each URL is decided on its own host; an engine was made and kept per
    /// distinct host, 2.9 GB for 80 000 hosts (the reference engine 2 GB for 5 000), so these
    /// took about 700 MB and 1 GB. One engine decides them all, and the output is what an engine
    /// per host gave.
    func test_aMatrixOfTensOfThousandsOfHosts_isDecidedByOneEngine() throws {
        for (engine, hosts) in [("dfa", 20_000), ("reference", 2_500)] {
            var urls = (0..<hosts).map { #""https://h\#($0).example/exhibitions/\#($0)""# }
            urls += [#""https://h1.example/admin/x""#, #""https://H2.EXAMPLE/tickets/a?event=1""#]
            let matrix = try write("hosts.json", #"{"opens_app": [\#(urls.joined(separator: ","))]}"#)
            let run = try ChildProcess.run(["test", museum, "--matrix", matrix, "--engine", engine], folder: folder)
            XCTAssertEqual(run.status, 1, run.summary)
            XCTAssertEqual(
                String(decoding: run.stdout, as: UTF8.self),
                "FAIL https://h1.example/admin/x should open the app: MUSE4EX123.org.example.museum exclude by entry 0 rule 0\n\(hosts + 1) passed, 1 failed\n",
                engine)
            RobustnessBounds(seconds: 30, residentMiB: 150).check(run, "\(engine): a matrix of \(hosts) hosts")
        }
    }

    /// The reference engine charged nothing for a rule of empty patterns, nor for normalising
    /// the URL again for each rule, and kept each rule's copy: 14 000 rules `{"#": ""}` against
    /// a 64 KB fragment took over 20 s and 464 MB in `explain` (95 s and 797 MB for a fragment of
    /// combining marks, in `match --engine reference` too). The first is now refused, the second
    /// (20 000 scalars once in NFC) decided, each within the bounds.
    func test_thousandsOfEmptyRulesAgainstALongFragment_areRefusedOrDecidedByTheReferenceAtOnce() throws {
        let rules = Array(repeating: ##"{"#":""}"##, count: 14_000).joined(separator: ",")
        let document = try write(
            "many.json",
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.x"],"defaults":{"percentEncoded":false,"caseSensitive":false},"components":[\#(rules)]}]}}"#)
        for (fragment, refused) in [(String(repeating: "A", count: 64_000), true), (String(repeating: "e\u{301}\u{316}", count: 10_000), false)] {
            let url = "https://h.example/#" + fragment
            let explain = try ChildProcess.run(["explain", document, "--domain", "h.example", "--app", "ABCDE12345.com.x", url], folder: folder)
            XCTAssertEqual(explain.status, refused ? 1 : 0, explain.summary)
            if refused {
                XCTAssertTrue(explain.stderr.contains("work limit exceeded (url-work=500000)"), explain.summary)
            } else {
                XCTAssertTrue(String(decoding: explain.stdout, as: UTF8.self).contains("\nentry 0, rule 13999: no match\n"), explain.summary)
            }
            RobustnessBounds(seconds: 10, residentMiB: 150).check(explain, "explain of 14 000 empty rules")
            let match = try ChildProcess.run(["match", document, "--domain", "h.example", "--engine", "reference", url], folder: folder)
            let record = String(decoding: match.stdout, as: UTF8.self)
            XCTAssertTrue(record.contains(refused ? #""error": "work limit exceeded (url-work=500000)""# : #""decision": "no_match""#), match.summary)
            RobustnessBounds(seconds: 10, residentMiB: 150).check(match, "match --engine reference of 14 000 empty rules")
        }
    }

    /// One rule calling a variable of 15 500 values 16 000 times (126 KB): `explain` of the path
    /// `/` took 22 s, `test --engine reference` of two URLs 42 s, most of it summing the values
    /// at every call site before any URL; each step of a row was charged one cell. Refused at
    /// once.
    func test_aVariableOfThousandsOfValuesCalledThousandsOfTimes_isRefusedByTheReferenceAtOnce() throws {
        let values = Array(repeating: #""a""#, count: 15_500).joined(separator: ",")
        let document = try write(
            "vars.json",
            #"{"applinks":{"substitutionVariables":{"v":[\#(values)]},"details":[{"appIDs":["ABCDE12345.com.x"],"components":[{"/":"/\#(String(repeating: "$(v)", count: 16_000))"}]}]}}"#)
        let explain = try ChildProcess.run(["explain", document, "--domain", "h.example", "--app", "ABCDE12345.com.x", "https://h.example/"], folder: folder)
        XCTAssertEqual(explain.status, 1, explain.summary)
        XCTAssertTrue(explain.stderr.contains("work limit exceeded (url-work=500000)"), explain.summary)
        RobustnessBounds(seconds: 10, residentMiB: 150).check(explain, "explain of 16 000 calls of a 15 500-value variable")
        let matrix = try write("m.json", #"{"opens_app": ["https://h.example/", "https://h.example/x"]}"#)
        let test = try ChildProcess.run(["test", document, "--matrix", matrix, "--engine", "reference"], folder: folder)
        XCTAssertEqual(test.status, 1, test.summary)
        XCTAssertTrue(String(decoding: test.stdout, as: UTF8.self).hasSuffix("cannot be decided: work limit exceeded (url-work=500000) (raise it with --limit url-work=<n>)\n0 passed, 2 failed\n"), test.summary)
        RobustnessBounds(seconds: 10, residentMiB: 150).check(test, "test --engine reference of 16 000 calls of a 15 500-value variable")
    }
}
