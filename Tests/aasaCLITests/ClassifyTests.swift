import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `aasa classify` end to end: nothing lost, order kept, formats and engines agreeing, exit
/// statuses as documented.
final class ClassifyTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeTemporaryFolder("aasa-classify")
    }

    var corpus: URL { CaseSuite.packageRoot.appendingPathComponent("corpus") }

    /// The corpus URLs, repeated, with 1% broken lines and some blank ones mixed in.
    func writeLargeInput(lines: Int) throws -> (url: URL, records: Int, broken: Int) {
        var urls: [String] = []
        for scenario in try FileManager.default.contentsOfDirectory(atPath: corpus.path) where !scenario.hasSuffix(".md") {
            let text = try String(contentsOf: corpus.appendingPathComponent(scenario).appendingPathComponent("urls.txt"), encoding: .utf8)
            urls += text.split(separator: "\n").map(String.init).filter { $0.contains("://") && !$0.contains(":///") }
        }
        urls += ["https://other.example/x", "http://www.example.org/path?q=1#f"]
        // Keep only URLs that classify without error, so that every error record below comes
        // from a deliberately broken line.
        let probe = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: Data(urls.joined(separator: "\n").utf8))
        let verdicts = probe.stdout.split(separator: "\n")
        XCTAssertEqual(verdicts.count, urls.count)
        urls = zip(urls, verdicts).filter { !$0.1.contains(#""error": "#) }.map(\.0)
        let file = folder.appendingPathComponent("input.txt")
        let written = try LineInputGenerator.write(urls: urls, lines: lines, seed: 42, to: file)
        return (file, written.records, written.broken)
    }

    func test_classify_millionLinesWithBrokenOnesLoseNothingAndKeepOrder() throws {
        let input = try writeLargeInput(lines: 1_000_000)
        let one = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path, "--jobs", "1", "--strict"])
        let two = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path, "--jobs", "2"])
        XCTAssertEqual(one.status, 1, "with --strict, error records make the status 1: \(one.stderr.prefix(500))")
        XCTAssertEqual(two.status, 0, "error records are data: \(two.stderr.prefix(500))")
        XCTAssertEqual(one.lineCount, input.records, "exactly one record per non-blank input line")
        XCTAssertTrue(one.stdoutData == two.stdoutData, "--jobs 2 must give byte-identical output, in input order")
        XCTAssertEqual(one.occurrences(of: #""error": "#), input.broken)
        XCTAssertTrue(one.stderr.contains("\(input.broken) records are errors (--strict)"), one.stderr)
        XCTAssertTrue(two.stderr.contains(": \(input.broken) errors, "), two.stderr)
    }

    /// The rows of a TSV or CSV output: fields split at `delimiter`, rows at a newline; a field
    /// holding the delimiter, a quote or a line break is quoted (`"…"`, a quote doubled).
    func rows(_ text: String, delimiter: Unicode.Scalar) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar != "\"" {
                    field.append(scalar)
                } else if index < scalars.count, scalars[index] == "\"" {
                    field.append(scalar)
                    index += 1
                } else {
                    quoted = false
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == delimiter || scalar == "\n" {
                row.append(String(field))
                field = String.UnicodeScalarView()
                if scalar == "\n" {
                    rows.append(row)
                    row = []
                }
            } else {
                field.append(scalar)
            }
        }
        if !row.isEmpty || !field.isEmpty { rows.append(row + [String(field)]) }
        return rows
    }

    /// The columns the NDJSON record `json` gives in TSV and CSV: url, domain, apps joined by
    /// `|` (an ID's own `|` and `%` escaped), `entry:rule` of each matched app, error.
    func columns(ofRecord json: Substring) throws -> [String] {
        guard case .object(let record) = try JSONParser.parse(String(json)) else {
            XCTFail("not a JSON object: \(json)")
            return []
        }
        func text(_ key: String) -> String {
            if case .string(let value)? = record[key] { return value }
            return ""
        }
        var apps: [String] = []
        if case .array(let items)? = record["apps"] {
            for case .string(let app) in items {
                apps.append(app.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "|", with: "%7C"))
            }
        }
        var rules: [String] = []
        if case .array(let decisions)? = record["decisions"] {
            for case .object(let decision) in decisions where decision["decision"] == .string("match") {
                guard case .number(let entry)? = decision["entry"], case .number(let rule)? = decision["rule"] else {
                    XCTFail("a match without its rule: \(json)")
                    continue
                }
                rules.append("\(entry):\(rule)")
            }
        }
        return [text("url"), text("domain"), apps.joined(separator: "|"), rules.joined(separator: "|"), text("error")]
    }

    func test_classify_formatsAgreeRecordByRecord() throws {
        let input = try writeLargeInput(lines: 3_000)
        let ndjson = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path])
        let tsv = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path, "--format", "tsv"])
        let csv = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path, "--format", "csv"])
        let jsonLines = ndjson.stdout.split(separator: "\n")
        let tsvRows = rows(tsv.stdout, delimiter: "\t")
        let csvRows = rows(csv.stdout, delimiter: ",")
        XCTAssertEqual(tsvRows.first, ["url", "domain", "apps", "rules", "error"])
        XCTAssertEqual(csvRows.first, ["url", "domain", "apps", "rules", "error"])
        XCTAssertEqual(tsvRows.count - 1, jsonLines.count)
        XCTAssertEqual(csvRows.count - 1, jsonLines.count)
        var matched = 0
        for (json, (tsvRow, csvRow)) in zip(jsonLines, zip(tsvRows.dropFirst(), csvRows.dropFirst())) {
            let expected = try columns(ofRecord: json)
            XCTAssertEqual(tsvRow, expected, "TSV of \(json)")
            XCTAssertEqual(csvRow, expected, "CSV of \(json)")
            if !expected[2].isEmpty { matched += 1 }
        }
        XCTAssertGreaterThan(matched, 0, "some records open an app")
        XCTAssertTrue(jsonLines.contains { $0.contains(#""error": "#) }, "and some are errors")
    }

    /// The apps column joins app IDs with `|`: an ID holding one (invalid, but a document may
    /// say it) must not read as two apps, so its `|` and `%` are escaped there.
    func test_tsvAndCsvAppsColumn_splitsBackIntoTheDocumentsAppIDs() throws {
        let rules = folder.appendingPathComponent("rules-pipe")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        let document = #"{"applinks":{"details":[{"appIDs":["EVIL1.x|VICTIM99.com.bank","T.a%7Cb","T.plain"],"components":[{"/":"*"}]}]}}"#
        try Data(document.utf8).write(to: rules.appendingPathComponent("m.example.json"))
        let input = folder.appendingPathComponent("pipe.txt")
        try Data("https://m.example/x\n".utf8).write(to: input)
        for format in ["tsv", "csv"] {
            let output = try CLIRunner.run(["classify", "--rules", rules.path, "--input", input.path, "--format", format, "--no-header"])
            let apps = output.stdout.split(separator: format == "tsv" ? "\t" : ",", omittingEmptySubsequences: false)[2]
            XCTAssertEqual(apps, "EVIL1.x%7CVICTIM99.com.bank|T.a%257Cb|T.plain", output.stdout)
            XCTAssertEqual(apps.split(separator: "|").map { $0.removingPercentEncoding }, ["EVIL1.x|VICTIM99.com.bank", "T.a%7Cb", "T.plain"])
        }
        let ndjson = try CLIRunner.run(["classify", "--rules", rules.path, "--input", input.path])
        XCTAssertTrue(ndjson.stdout.contains(#""apps": ["EVIL1.x|VICTIM99.com.bank", "T.a%7Cb", "T.plain"]"#), ndjson.stdout)
    }

    func test_classify_referenceAndDFAGiveIdenticalOutput_onTheCorpus() throws {
        let input = try writeLargeInput(lines: 20_000)
        let dfa = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path, "--engine", "dfa"])
        let reference = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path, "--engine", "reference"])
        XCTAssertFalse(dfa.stdout.isEmpty)
        XCTAssertTrue(dfa.stdoutData == reference.stdoutData)
    }

    /// `../shared/corpus/domains` and `../shared/corpus/urls/`; skips the test when absent.
    func sharedCorpus() throws -> (domains: URL, urls: URL) {
        let shared = CaseSuite.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        let domains = shared.appendingPathComponent("domains")
        let urls = shared.appendingPathComponent("urls")
        guard FileManager.default.fileExists(atPath: domains.path), FileManager.default.fileExists(atPath: urls.path) else {
            throw XCTSkip("../shared/corpus is not present")
        }
        return (domains, urls)
    }

    func test_classify_referenceAndDFAGiveIdenticalOutput_onTheSharedCorpora() throws {
        let (domains, lists) = try sharedCorpus()
        let urls = lists.appendingPathComponent("combined_http_dedup.txt")
        let dfa = try CLIRunner.run(["classify", "--rules", domains.path, "--input", urls.path, "--jobs", "2"])
        let reference = try CLIRunner.run(["classify", "--rules", domains.path, "--input", urls.path, "--engine", "reference", "--jobs", "2"])
        XCTAssertEqual(dfa.lineCount, 425_425)
        XCTAssertTrue(dfa.stdoutData == reference.stdoutData, "the engines disagree on the shared corpus")
    }

    /// The artifact of the real documents holds prebuilt DFA tables; searching them must give
    /// the very bytes the lazy DFAs compiled from JSON give, on every URL list of the corpus.
    func test_classify_compiledArtifactAndRulesGiveIdenticalOutput_onTheSharedCorpora() throws {
        let (domains, urls) = try sharedCorpus()
        let artifact = folder.appendingPathComponent("shared.aasac")
        let compile = try CLIRunner.run(["compile", domains.path, "-o", artifact.path])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        XCTAssertFalse(compile.stderr.contains("(automata: 0 prebuilt"), compile.stderr)
        let lists = try FileManager.default.contentsOfDirectory(atPath: urls.path).filter { $0.hasSuffix(".txt") }.sorted()
        XCTAssertFalse(lists.isEmpty)
        for list in lists {
            let input = urls.appendingPathComponent(list).path
            let fromRules = try CLIRunner.run(["classify", "--rules", domains.path, "--input", input, "--jobs", "2"])
            let fromArtifact = try CLIRunner.run(["classify", "--compiled", artifact.path, "--input", input, "--jobs", "2"])
            XCTAssertGreaterThan(fromRules.lineCount, 0, list)
            XCTAssertTrue(fromRules.stdoutData == fromArtifact.stdoutData, "--compiled and --rules differ on \(list)")
        }
    }

    func test_classify_ndjsonAndCSVInputPassFieldsThrough() throws {
        let ndjson = folder.appendingPathComponent("in.ndjson")
        try Data(#"{"id": 7, "link": "https://museum.example/exhibitions/x"}\#n{"id": 8}\#nnot json\#n["a"]\#n{"link": "https://museum.example/\ud800"}\#n"#.utf8).write(to: ndjson)
        let out = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", ndjson.path, "--input-format", "ndjson", "--url-field", "link"])
        let lines = out.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines[0].hasPrefix(#"{"url": "https://museum.example/exhibitions/x", "domain": "museum.example""#), String(lines[0]))
        XCTAssertTrue(lines[0].hasSuffix(#", "fields": {"id":7}}"#), String(lines[0]))
        XCTAssertTrue(lines[1].contains(#""error": "the record has no string field \"link\"""#), String(lines[1]))
        XCTAssertTrue(lines[2].contains(#""error": "the line is not valid JSON: column 1: "#), String(lines[2]))
        XCTAssertTrue(lines[3].contains(#""error": "the line is not a JSON object""#), String(lines[3]))
        XCTAssertTrue(lines[4].contains(#""error": "the line is not valid JSON: column 34: unpaired high surrogate"#), String(lines[4]))
        // Every record of an NDJSON input has its fields, an unreadable line's empty (an audit
        // found them missing there, and an empty column against `{}` in a table).
        XCTAssertEqual(lines.filter { $0.hasSuffix(#", "fields": {}}"#) }.count, 3, out.stdout)
        let table = try CLIRunner.run(
            ["classify", "--rules", corpus.path, "--input", ndjson.path, "--input-format", "ndjson", "--url-field", "link", "--format", "tsv"])
        XCTAssertEqual(table.stdout.split(separator: "\n").dropFirst(2).filter { $0.hasSuffix("\t{}") }.count, 3, table.stdout)

        let csv = folder.appendingPathComponent("in.csv")
        try Data("name,address\n\"Monet, C.\",https://museum.example/exhibitions/monet\n".utf8).write(to: csv)
        let rows = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv", "--url-column", "address", "--format", "csv"])
        XCTAssertEqual(
            rows.stdout,
            "url,domain,apps,rules,error,name\nhttps://museum.example/exhibitions/monet,museum.example,MUSE4EX123.org.example.museum,0:1,,\"Monet, C.\"\n")

        // A short row's missing fields are empty in NDJSON fields too, a row too short for the
        // URL keeps the fields it has, and a repeated column is found by the name it is written
        // under (`a.1`).
        let ragged = folder.appendingPathComponent("ragged-in.csv")
        try Data("id,url,note\n1,https://museum.example/\n3\n".utf8).write(to: ragged)
        let short = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", ragged.path, "--input-format", "csv"])
        let records = short.stdout.split(separator: "\n")
        XCTAssertTrue(records[0].hasSuffix(#""fields": {"id":"1","note":""}}"#), short.stdout)
        XCTAssertTrue(records[1].contains("the row has no column 2") && records[1].hasSuffix(#""fields": {"id":"3","note":""}}"#), short.stdout)
        let repeated = folder.appendingPathComponent("repeated.csv")
        try Data("a,a\nx,https://museum.example/\n".utf8).write(to: repeated)
        let second = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", repeated.path, "--input-format", "csv", "--url-column", "a.1"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.hasPrefix(#"{"url": "https://museum.example/", "domain": "museum.example""#), second.stdout)
    }

    /// A CSV record is one line: a quoted field broken across lines leaves a quote open at the
    /// end of each piece's line, and each piece gets an error record rather than a silently cut
    /// field or a bogus URL.
    func test_classify_csvRowWithAQuoteLeftOpenIsAnErrorRecord() throws {
        let csv = folder.appendingPathComponent("in.csv")
        try Data("id,url,note\n1,https://museum.example/a,ok\n2,https://museum.example/b,\"multi\nline\"\n3,\"unterminated\n".utf8).write(to: csv)
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv"])
        let records = run.stdout.split(separator: "\n")
        XCTAssertEqual(records.count, 4, run.stdout)
        XCTAssertTrue(records[0].contains(#""domain": "museum.example""#), run.stdout)
        for record in records.dropFirst() {
            XCTAssertTrue(record.contains(#""error": "the row has an unterminated quote"#), String(record))
        }
        let header = folder.appendingPathComponent("header.csv")
        try Data("id,\"url\n1,https://museum.example/a\n".utf8).write(to: header)
        let refused = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", header.path, "--input-format", "csv"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
    }

    /// A quote opens a quoted field only at the field's start, as Python's `csv` and pandas read
    /// it: inside an unquoted field it is part of the URL. An audit found `…/"x"` classified as
    /// `…/x`, a URL not in the input, which the museum's rule matched. A line of an odd number
    /// of quotes is still refused: it may be a piece of a field broken across lines.
    func test_classify_csvQuoteInsideAnUnquotedFieldIsPartOfTheURL() throws {
        let csv = folder.appendingPathComponent("quotes.csv")
        let text = #"""
            id,url,note
            1,https://museum.example/exhibitions/"x",a
            2,https://museum.example/a"b"c,b
            3,"https://museum.example/exhibitions/q,1","c, ""d"""
            4,https://museum.example/a"b,odd
            5, "https://museum.example/exhibitions/q,2", e

            """#
        try Data(text.utf8).write(to: csv)
        let run = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = run.stdout.split(separator: "\n")
        XCTAssertEqual(records.count, 5, run.stdout)
        XCTAssertTrue(records[0].hasPrefix(#"{"url": "https://museum.example/exhibitions/\"x\"", "domain": "museum.example", "apps""#), run.stdout)
        XCTAssertTrue(records[0].hasSuffix(#""fields": {"id":"1","note":"a"}}"#), run.stdout)
        XCTAssertTrue(records[1].hasPrefix(#"{"url": "https://museum.example/a\"b\"c", "domain": "museum.example", "apps""#), run.stdout)
        // A field that starts with a quote is still read as RFC 4180 quotes it.
        XCTAssertTrue(records[2].hasPrefix(#"{"url": "https://museum.example/exhibitions/q,1", "domain": "museum.example", "apps""#), run.stdout)
        XCTAssertTrue(records[2].hasSuffix(#""fields": {"id":"3","note":"c, \"d\""}}"#), run.stdout)
        XCTAssertTrue(records[3].contains(#""error": "the row has an unterminated quote"#), run.stdout)
        // Blanks before the opening quote do not make it a character of the field.
        XCTAssertTrue(records[4].hasPrefix(#"{"url": "https://museum.example/exhibitions/q,2", "domain": "museum.example", "apps""#), run.stdout)
    }

    /// A TSV or CSV output is a table whatever rows come in: a short row's missing fields are
    /// empty, a long row is an error record cut to the header's columns, an unreadable line
    /// keeps the columns too; and no two columns (or JSON keys) share a name.
    func test_classify_tableOutputKeepsTheHeadersColumnsOnEveryRow() throws {
        let csv = folder.appendingPathComponent("ragged.csv")
        try Data("url,id,id,domain\nhttps://museum.example/a,1,2,d\nhttps://museum.example/b,3\nhttps://museum.example/c,4,5,6,7\n\"open\n".utf8).write(to: csv)
        let table = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv", "--format", "csv"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let rows = table.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(rows.first, "url,domain,apps,rules,error,id,id.1,domain.1")
        XCTAssertEqual(rows.count, 5, table.stdout)
        func fieldCount(_ row: Substring) -> Int {
            var count = 1
            var quoted = false
            for character in row {
                if character == "\"" { quoted.toggle() } else if character == ",", !quoted { count += 1 }
            }
            return count
        }
        XCTAssertEqual(rows.map(fieldCount), [8, 8, 8, 8, 8], table.stdout)
        XCTAssertTrue(rows[2].hasSuffix(",3,,"), String(rows[2]))
        XCTAssertTrue(rows[3].contains("the row has 5 fields, the header 4") && rows[3].hasSuffix(",4,5,6"), String(rows[3]))
        let json = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", csv.path, "--input-format", "csv"])
        XCTAssertTrue(json.stdout.contains(#""fields": {"id":"1","id.1":"2","domain":"d"}"#), json.stdout)
        // NDJSON in, TSV out: a line that is not JSON still has its (empty) fields column.
        let tsv = try CLIRunner.run(
            ["classify", "--rules", corpus.path, "--input-format", "ndjson", "--url-field", "u", "--format", "tsv"],
            stdin: Data("{\"u\": \"https://museum.example/a\", \"n\": 1}\nnot json\n".utf8))
        let tsvRows = tsv.stdout.split(separator: "\n")
        XCTAssertEqual(tsvRows.map { $0.filter { $0 == "\t" }.count }, [5, 5, 5], tsv.stdout)
        // A header row over line-bytes is refused briefly, not echoed.
        let wide = folder.appendingPathComponent("wide.csv")
        try Data(("url," + String(repeating: "c", count: 100_000) + "\nhttps://museum.example/a,1\n").utf8).write(to: wide)
        let refusedHeader = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", wide.path, "--input-format", "csv"])
        XCTAssertEqual(refusedHeader.status, 2)
        XCTAssertTrue(refusedHeader.stderr.contains("the CSV header row is over the line-bytes limit"), String(refusedHeader.stderr.prefix(500)))
        XCTAssertLessThan(refusedHeader.stderr.utf8.count, 1_000)
        // A key the NDJSON line writes twice is passed through once, with its last value.
        let twice = try CLIRunner.run(
            ["classify", "--rules", corpus.path, "--input-format", "ndjson", "--url-field", "u"],
            stdin: Data((#"{"n": 1, "u": "https://museum.example/a", "n": 2}"# + "\n").utf8))
        XCTAssertTrue(twice.stdout.hasSuffix(#""fields": {"n":2}}"# + "\n"), twice.stdout)
        // Lines judged before their fields are read (blank, not UTF-8, over line-bytes) too.
        var odd = Data("url,id\nhttps://museum.example/a,1\n\n".utf8)
        odd.append(contentsOf: [0x68, 0xFF, 0x2C, 0x32, 0x0A])
        odd.append(Data((String(repeating: "x", count: 70_000) + ",3\n").utf8))
        let oddFile = folder.appendingPathComponent("odd.csv")
        try odd.write(to: oddFile)
        let oddRun = try CLIRunner.run([
            "classify", "--rules", corpus.path, "--input", oddFile.path, "--input-format", "csv", "--format", "csv", "--blank-lines", "record",
        ])
        let oddRows = oddRun.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(oddRows.count, 5, oddRun.stdout)
        XCTAssertEqual(oddRows.map(fieldCount), [6, 6, 6, 6, 6], oddRun.stdout.prefix(2000).description)
    }

    func test_classify_exitStatuses() throws {
        let missing = try CLIRunner.run(["classify", "--rules", folder.appendingPathComponent("nope").path])
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.stderr.contains("nope"), missing.stderr)
        let usage = try CLIRunner.run(["classify", "--rules", corpus.path, "--format", "xml"])
        XCTAssertEqual(usage.status, 2)
        let clean = try CLIRunner.run(["classify", "--rules", corpus.path], stdin: Data("https://museum.example/exhibitions/x\n\n".utf8))
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertEqual(clean.stdout.split(separator: "\n").count, 1)
    }

    func test_classify_brokenDocumentInDirectoryGivesErrorRecordsForItsURLs() throws {
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules.appendingPathComponent("good.example"), withIntermediateDirectories: true)
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"*"}]}]}}"#.utf8)
            .write(to: rules.appendingPathComponent("good.example/apple-app-site-association"))
        try Data(#"{"applinks": "#.utf8).write(to: rules.appendingPathComponent("bad.example.json"))
        try Data("{}".utf8).write(to: rules.appendingPathComponent(".hidden.example.json"))
        let out = try CLIRunner.run(
            ["classify", "--rules", rules.path], stdin: Data("https://good.example/a\nhttps://bad.example/a\nhttps://hidden.example/\n".utf8))
        XCTAssertEqual(out.status, 0, "the broken document's URLs get error records, which are data")
        XCTAssertTrue(out.stderr.contains("cannot use the document of bad.example"), out.stderr)
        let lines = out.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[0].contains(#""apps": ["T.a"]"#))
        XCTAssertTrue(lines[1].hasPrefix(#"{"url": "https://bad.example/a", "domain": "bad.example", "error": "#), String(lines[1]))
        XCTAssertTrue(lines[2].contains(#""domain": null"#), "hidden files are skipped")
    }

    func test_classify_closedOutputEndsQuietly() throws {
        let input = try writeLargeInput(lines: 200_000)
        let script = "\(CLIRunner.executable.path) classify --rules \(corpus.path) --input \(input.url.path) --jobs 2 | head -n 3; echo \"status ${PIPESTATUS[0]}\""
        let run = try CLIRunner.runShell(script)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, run.stdout)
        XCTAssertEqual(lines.last, "status 0")
        XCTAssertEqual(run.stderr, "")
    }
}

extension ClassifyTests {
    func test_classify_compiledArtifactGivesByteIdenticalOutput() throws {
        let input = try writeLargeInput(lines: 50_000)
        let artifact = folder.appendingPathComponent("rules.aasac")
        let compile = try CLIRunner.run(["compile", corpus.path, "-o", artifact.path])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        let fromRules = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path])
        let fromArtifact = try CLIRunner.run(["classify", "--compiled", artifact.path, "--input", input.url.path])
        XCTAssertTrue(fromRules.stdoutData == fromArtifact.stdoutData)
        XCTAssertEqual(fromArtifact.lineCount, input.records)

        var truncated = try Data(contentsOf: artifact)
        truncated.removeLast(10)
        let broken = folder.appendingPathComponent("broken.aasac")
        try truncated.write(to: broken)
        let refused = try CLIRunner.run(["classify", "--compiled", broken.path], stdin: Data())
        XCTAssertEqual(refused.status, 3)
        XCTAssertTrue(refused.stderr.contains("truncated"), refused.stderr)
    }
}

extension ClassifyTests {
    /// `eager-dfa-states` bounds the tables an artifact stores as it bounds the ones a process
    /// builds (docs/limits.md: 0 turns them off): `compile` once stored every table under 0.
    func test_compile_storesNoTableUnderEagerDFAStatesZero() throws {
        let artifact = folder.appendingPathComponent("lazy.aasac")
        let compile = try CLIRunner.run(["compile", corpus.path, "-o", artifact.path, "--limit", "eager-dfa-states=0"])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        XCTAssertTrue(compile.stderr.contains("(automata: 0 prebuilt DFA tables, 10 lazy;"), compile.stderr)
        let input = try writeLargeInput(lines: 5_000)
        let fromRules = try CLIRunner.run(["classify", "--rules", corpus.path, "--input", input.url.path])
        let fromArtifact = try CLIRunner.run(["classify", "--compiled", artifact.path, "--input", input.url.path])
        XCTAssertEqual(fromArtifact.status, 0, fromArtifact.stderr)
        XCTAssertTrue(fromRules.stdoutData == fromArtifact.stdoutData, "a lazy artifact decides as the rules do")
    }
}

extension ClassifyTests {
    /// `--limit` applies to loading an artifact as to compiling the documents: a domain
    /// compiled under the defaults is refused under a lowered `nfa-states` when it is decoded
    /// (on first use), with the way out, and its URLs get error records, as with `--rules`.
    func test_classify_compiledArtifactIsLoadedUnderTheGivenLimits() throws {
        let artifact = folder.appendingPathComponent("limits.aasac")
        let compile = try CLIRunner.run(["compile", corpus.path, "-o", artifact.path])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        let input = Data("https://old.example/\n".utf8)
        let loaded = try CLIRunner.run(["classify", "--compiled", artifact.path], stdin: input)
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        XCTAssertFalse(loaded.stdout.contains(#""error""#), loaded.stdout)
        let refused = try CLIRunner.run(["classify", "--compiled", artifact.path, "--limit", "nfa-states=2"], stdin: input)
        XCTAssertEqual(refused.status, 0, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("cannot use the document of old.example"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("over the nfa-states limit of 2 (raise it with --limit nfa-states=<n>)"), refused.stderr)
        XCTAssertTrue(refused.stdout.contains(#""error": "the document could not be loaded: its entry in the artifact cannot be used: "#), refused.stdout)
        let strict = try CLIRunner.run(["classify", "--compiled", artifact.path, "--limit", "nfa-states=2", "--strict"], stdin: input)
        XCTAssertEqual(strict.status, 1, strict.stderr)
    }

    /// A lowered `variable-positions` refuses a domain whose automata are stored with their
    /// tables, which never run an NFA, as `--rules` refuses its document: the two give the same
    /// decisions under the same limits (an audit found `--compiled` deciding what `--rules`
    /// refused).
    func test_classify_compiledTableBackedDomainIsHeldToALoweredVariablePositionsLimit() throws {
        let artifact = folder.appendingPathComponent("positions.aasac")
        let compile = try CLIRunner.run(["compile", corpus.path, "-o", artifact.path])
        XCTAssertEqual(compile.status, 0, compile.stderr)
        XCTAssertTrue(compile.stderr.contains("prebuilt DFA table"), compile.stderr)
        let input = Data("https://museum.example/exhibitions/fr/a\n".utf8)
        let loaded = try CLIRunner.run(["classify", "--compiled", artifact.path], stdin: input)
        XCTAssertFalse(loaded.stdout.contains(#""error""#), loaded.stdout)
        let limit = ["--limit", "variable-positions=10"]
        let fromArtifact = try CLIRunner.run(["classify", "--compiled", artifact.path] + limit, stdin: input)
        let fromRules = try CLIRunner.run(["classify", "--rules", corpus.path] + limit, stdin: input)
        XCTAssertTrue(fromRules.stdout.contains(#""error""#), fromRules.stdout)
        XCTAssertTrue(fromArtifact.stdout.contains(#""error""#), fromArtifact.stdout)
        XCTAssertTrue(fromArtifact.stderr.contains("over the variable-positions limit of 10"), fromArtifact.stderr)
    }
}
