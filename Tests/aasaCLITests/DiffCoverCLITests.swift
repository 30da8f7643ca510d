import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `aasa diff` and `aasa cover` through the binary: exit statuses, the JSON line shapes, and
/// every printed URL re-checked with `aasa match --engine reference`.
final class DiffCoverCLITests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-diffcover-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func document(_ components: String) -> String {
        #"{"applinks": {"details": [{"appIDs": ["T1234567890.a"], "components": \#(components)}]}}"#
    }

    /// The reference engine's decision record for `url`.
    private func reference(_ file: String, _ url: String, domain: String = "example.com") throws -> [AppDecision] {
        let output = try CLIRunner.run(["match", file, "--domain", domain, "--engine", "reference", url])
        return try XCTUnwrap(try CLIRunner.decisions(fromRecord: output.stdout.trimmingCharacters(in: .newlines)))
    }

    private func object(_ line: Substring) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func test_diff_equivalentDocumentsExitZero() throws {
        let old = try write("old.json", document(#"[{"/": "/a/*"}, {"/": "/b/*"}]"#))
        let new = try write("new.json", document(#"[{"/": "/b/*"}, {"/": "/a/*", "exclude": false}]"#))
        let output = try CLIRunner.run(["diff", old, new])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("equivalent"), output.stdout)
    }

    func test_diff_rewrittenCaseRealAndMixedGeneratedDocumentsExitZero() throws {
        var samples: [(name: String, old: String, json: JSONValue)] = []
        for (index, sample) in try RewriteSamples.caseDocuments().enumerated() where index % 12 == 0 {
            samples.append((sample.name, try write("case\(index).json", sample.json.serialized()), sample.json))
        }
        for (index, sample) in (try RewriteSamples.realDocuments() ?? []).enumerated() where index % 25 == 0 {
            samples.append((sample.name, sample.path, sample.json))
        }
        for sample in try RewriteSamples.mixedGeneratedDocuments(count: 6) {
            samples.append(("seed \(sample.seed)", try write("seed\(sample.seed).json", sample.json.serialized()), sample.json))
        }
        XCTAssertGreaterThan(samples.count, 15)
        for (index, sample) in samples.enumerated() {
            guard (try? AASADocument(contentsOfFile: sample.old)) != nil else { continue }
            let new = try write("new\(index).json", DocumentRewriter.rewrite(sample.json))
            let output = try CLIRunner.run(["diff", sample.old, new, "--limit", "document-bytes=1000000"])
            XCTAssertEqual(output.status, 0, "\(sample.name): " + output.stdout + output.stderr)
        }
    }

    func test_diff_jsonLinesNameTheChangedRuleAndEachURLReallyChanged() throws {
        let old = try write("old.json", document(#"[{"/": "/a/*"}, {"/": "/b/*"}]"#))
        let new = try write("new.json", document(#"[{"/": "/a/*"}, {"/": "/b/c/*"}]"#))
        let output = try CLIRunner.run(["diff", old, new, "--format", "json", "--witnesses", "2", "--domain", "shop.example"])
        XCTAssertEqual(output.status, 1, output.stderr)
        let lines = output.stdout.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            let record = try object(line)
            let url = try XCTUnwrap(record["url"] as? String)
            XCTAssertTrue(url.hasPrefix("https://shop.example/"), url)
            let before = try XCTUnwrap(record["old"] as? [String: Any])
            let after = try XCTUnwrap(record["new"] as? [String: Any])
            XCTAssertEqual(before["rule"] as? Int, 1)
            XCTAssertNil(after["rule"])
            XCTAssertEqual(try reference(old, url, domain: "shop.example").first?.kind, .match)
            XCTAssertEqual(try reference(new, url, domain: "shop.example").first?.kind, .noMatch)
        }
    }

    func test_diff_aDecodedRuleBeforeARawOneIsReportedWithAURLTheReferenceConfirms() throws {
        let old = try write("old.json", document(#"[{"/": "/a/*"}]"#))
        let new = try write("new.json", document(#"[{"/": "/a/*", "percentEncoded": false}, {"/": "/a/*"}]"#))
        let output = try CLIRunner.run(["diff", old, new, "--format", "json"])
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        let lines = output.stdout.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            let url = try XCTUnwrap(try object(line)["url"] as? String)
            XCTAssertEqual(try reference(old, url).first?.kind, .noMatch, url)
            XCTAssertEqual(try reference(new, url).first?.kind, .match, url)
        }
    }

    /// A witness whose path must end in a space would lose it to `match`'s trimming (SPEC 14)
    /// and be another URL: it ends with an empty fragment instead, which decides as none.
    func test_diffAndCover_witnessesEndingInASpaceKeepIt() throws {
        let old = try write("old.json", #"{"applinks": {"details": [{"appIDs": ["T1234567890.a"], "paths": ["NOT *"]}]}}"#)
        let new = try write("new.json", #"{"applinks": {"details": [{"appIDs": ["T1234567890.a"], "paths": ["NOt *"]}]}}"#)
        let output = try CLIRunner.run(["diff", old, new, "--format", "json"])
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        let kinds: [String: DecisionKind] = ["match": .match, "exclude": .exclude, "no_match": .noMatch]
        var spacedPaths = 0
        for line in output.stdout.split(separator: "\n") {
            let record = try object(line)
            let url = try XCTUnwrap(record["url"] as? String)
            XCTAssertFalse(url.hasSuffix(" "), url)
            if url.hasSuffix(" #") { spacedPaths += 1 }
            let before = try XCTUnwrap((record["old"] as? [String: Any])?["decision"] as? String)
            let after = try XCTUnwrap((record["new"] as? [String: Any])?["decision"] as? String)
            XCTAssertEqual(try reference(old, url).first?.kind, kinds[before], url)
            XCTAssertEqual(try reference(new, url).first?.kind, kinds[after], url)
        }
        XCTAssertEqual(spacedPaths, 1, "the class that needs /NOt followed by a space: " + output.stdout)
        let spaced = try write("spaced.json", document(#"[{"/": "/a "}]"#))
        let cover = try CLIRunner.run(["cover", spaced, "--format", "json", "--domain", "example.com"])
        XCTAssertEqual(cover.status, 0, cover.stdout + cover.stderr)
        let url = try XCTUnwrap(try object(try XCTUnwrap(cover.stdout.split(separator: "\n").first))["url"] as? String)
        XCTAssertEqual(url, "https://example.com/a #")
        XCTAssertEqual(try reference(spaced, url).first?.kind, .match, url)
        XCTAssertEqual(try CLIRunner.run(["match", spaced, "--domain", "example.com", url]).stdout.contains(#""decision": "match""#), true)
    }

    /// `--app` walks only the entries naming the app, which alone decide it (SPEC 3): a hundred
    /// other apps' query items, each a phase of the walk, spent the whole state budget before it
    /// reached a two-byte path, and a one-rule change exited 4. The change is still numbered
    /// as in the whole document (entry 40, not the first entry naming the app).
    func test_diff_appSpendsNoBudgetOnOtherAppsRulesAndKeepsTheDocumentsNumbering() throws {
        func version(_ path: String) throws -> String {
            var entries = (0..<100).map { #"{"appIDs": ["T1234567890.o\#($0)"], "components": [{"/": "/p\#($0)/*", "?": {"k\#($0)": "v\#($0)*"}}]}"# }
            entries.insert(#"{"appIDs": ["T1234567890.a"], "components": [{"/": "/help", "exclude": true}, {"/": "\#(path)"}]}"#, at: 40)
            return try write("version\(path.dropFirst()).json", #"{"applinks": {"details": [\#(entries.joined(separator: ", "))]}}"#)
        }
        let old = try version("/ab")
        let new = try version("/ac")
        let output = try CLIRunner.run(["diff", old, new, "--app", "T1234567890.a"])
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        XCTAssertEqual(
            output.stdout,
            """
            T1234567890.a: match (entry 40 rule 1) -> no_match
              https://example.com/ab
            T1234567890.a: no_match -> match (entry 40 rule 1)
              https://example.com/ac
            2 classes of URLs decided differently

            """)
        XCTAssertEqual(output.stderr, "")
        let json = try CLIRunner.run(["diff", old, new, "--app", "T1234567890.a", "--format", "json"])
        XCTAssertEqual(json.status, 1, json.stderr)
        let lines = json.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, json.stdout)
        for line in lines {
            let record = try object(line)
            let url = try XCTUnwrap(record["url"] as? String)
            let sides = try [old, new].map { side in try XCTUnwrap(reference(side, url).first { $0.app == "T1234567890.a" }) }
            for (key, decision) in zip(["old", "new"], sides) {
                let claimed = try XCTUnwrap(record[key] as? [String: Any])
                XCTAssertEqual(claimed["decision"] as? String, decision.kind.rawValue, url)
                XCTAssertEqual(claimed["entry"] as? Int, decision.entry, url)
                XCTAssertEqual(claimed["rule"] as? Int, decision.rule, url)
            }
        }
        // Another app of the document: its own rule is the same on both sides, which is all the
        // verdict claims.
        let other = try CLIRunner.run(["diff", old, new, "--app", "T1234567890.o7"])
        XCTAssertEqual(other.status, 0)
        XCTAssertTrue(other.stdout.hasSuffix("equivalent: every URL gets the same decision for T1234567890.o7\n"), other.stdout)
    }

    func test_diff_disjointRulesOfTwoModesSwappedAreNotProvenEquivalent() throws {
        // No URL has decoded path "/a" and raw path "/b", but the walk reads the two modes on
        // texts of their own, so it meets that pairing and cannot show it is impossible.
        let old = try write("old.json", document(#"[{"/": "/a", "percentEncoded": false, "exclude": true}, {"/": "/b"}]"#))
        let new = try write("new.json", document(#"[{"/": "/b"}, {"/": "/a", "percentEncoded": false, "exclude": true}]"#))
        let output = try CLIRunner.run(["diff", old, new])
        XCTAssertEqual(output.status, 4, output.stdout + output.stderr)
        XCTAssertTrue(output.stderr.contains("not proven"), output.stderr)
    }

    /// Classes shown by a search that is no proof (here its state budget ran out) may not be all:
    /// the count says "at least" and standard error says why; a proven list says neither.
    func test_diff_classesFromASearchThatIsNoProofAreCalledAtLeastThat() throws {
        let one = try write("one.json", document(#"[{"/": "/a/*"}, {"/": "/b/*"}, {"/": "/c/*"}]"#))
        let other = try write("other.json", document(#"[{"/": "/a/x"}, {"/": "/b/x"}, {"/": "/c/x"}]"#))
        let proven = try CLIRunner.run(["diff", one, other])
        XCTAssertEqual(proven.status, 1, proven.stderr)
        XCTAssertTrue(proven.stdout.hasSuffix("\n3 classes of URLs decided differently\n"), proven.stdout)
        XCTAssertEqual(proven.stderr, "")
        // 14 states: the walk stops after showing one of the three classes.
        let starved = try CLIRunner.run(["diff", one, other, "--limit", "analysis-states=14"])
        XCTAssertEqual(starved.status, 1, starved.stdout + starved.stderr)
        XCTAssertTrue(starved.stdout.hasSuffix("\nat least 1 class of URLs decided differently\n"), starved.stdout)
        XCTAssertTrue(starved.stderr.contains("may not be all: the exploration hit its state budget"), starved.stderr)
        let json = try CLIRunner.run(["diff", one, other, "--limit", "analysis-states=14", "--format", "json"])
        XCTAssertTrue(json.stderr.contains("may not be all"), json.stderr)
    }

    func test_diffCoverAndLint_takeABracketedIPv6DomainAsMatchDoes() throws {
        let one = try write("v6-one.json", document(#"[{"/": "/a/*"}]"#))
        let other = try write("v6-other.json", document(#"[{"/": "/b/*"}]"#))
        let cover = try CLIRunner.run(["cover", one, "--domain", "[::1]"])
        XCTAssertEqual(cover.status, 0, cover.stderr)
        XCTAssertTrue(cover.stdout.contains("https://[::1]/a"), cover.stdout)
        let diff = try CLIRunner.run(["diff", one, other, "--domain", "[::1]"])
        XCTAssertEqual(diff.status, 1, diff.stderr)
        XCTAssertTrue(diff.stdout.contains("  https://[::1]/a"), diff.stdout)
        XCTAssertNotEqual(try CLIRunner.run(["lint", one, "--domain", "[::1]"]).status, 2)
        // Brackets around anything but an IPv6 literal stay refused.
        XCTAssertEqual(try CLIRunner.run(["cover", one, "--domain", "[a b]"]).status, 2)
    }

    func test_diffAndCover_refuseADomainWithAPortAndAnAppNeitherDocumentNames() throws {
        let file = try write("doc.json", document(#"[{"/": "/a/*"}]"#))
        XCTAssertEqual(try CLIRunner.run(["cover", file, "--domain", "example.com:8080"]).status, 2)
        XCTAssertEqual(try CLIRunner.run(["diff", file, file, "--domain", "a/b"]).status, 2)
        // Every witness URL starts with the domain: one past a DNS name's 253 bytes is refused.
        let long = try CLIRunner.run(["cover", file, "--domain", String(repeating: "d", count: 254)])
        XCTAssertEqual(long.status, 2, long.stderr)
        XCTAssertTrue(long.stderr.contains("--domain is 254 bytes; a host name has at most 253"), long.stderr)
        XCTAssertEqual(try CLIRunner.run(["cover", file, "--domain", String(repeating: "d", count: 253)]).status, 0)
        let typo = try CLIRunner.run(["diff", file, file, "--app", "T1234567890.typo"])
        XCTAssertEqual(typo.status, 2, typo.stdout)
        XCTAssertTrue(typo.stderr.contains("named by neither document"), typo.stderr)
    }

    /// The analyses compile what the matcher compiles, under the same limits: a document
    /// `match` refuses for its variable positions is refused by `lint`, `cover` and `diff` too,
    /// and a raised limit (or analysis budget) reaches them as it reaches `match`.
    func test_analyses_followTheLimitsGivenOnTheCommandLine() throws {
        let variables = #"{"applinks": {"substitutionVariables": {"v": ["a", "b", "c"]}, "details": [{"appIDs": ["T.a"], "components": [{"/": "/x/$(v)"}, {"/": "/y/$(v)"}, {"/": "/z/$(v)"}]}]}}"#
        let narrow = try write("variables.json", variables)
        let other = try write("variables-2.json", variables.replacingOccurrences(of: "/z/", with: "/w/"))
        let limit = ["--limit", "variable-positions=2"]
        let match = try CLIRunner.run(["match", narrow, "--domain", "ex.com", "https://ex.com/x/a"] + limit)
        XCTAssertEqual(match.status, 3, match.stderr)
        let lint = try CLIRunner.run(["lint", narrow, "--format", "json"] + limit)
        XCTAssertEqual(lint.status, 1, lint.stdout + lint.stderr)
        XCTAssertTrue(lint.stdout.contains("over-limit"), lint.stdout)
        XCTAssertEqual(try CLIRunner.run(["cover", narrow] + limit).status, 3)
        XCTAssertEqual(try CLIRunner.run(["diff", narrow, other] + limit).status, 3)
        XCTAssertEqual(try CLIRunner.run(["diff", narrow, other]).status, 1, "under the default limit, a difference")

        // Two rules swapped that never overlap: equivalent, but only a walk proves it.
        let ab = try write("ab.json", #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/a/*"}, {"/": "/b/*"}]}]}}"#)
        let ba = try write("ba.json", #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/b/*"}, {"/": "/a/*"}]}]}}"#)
        XCTAssertEqual(try CLIRunner.run(["diff", ab, ba]).status, 0)
        for budget in ["analysis-states=2", "analysis-work=5"] {
            let starved = try CLIRunner.run(["diff", ab, ba, "--limit", budget])
            XCTAssertEqual(starved.status, 4, "\(budget): not proven within the budget: \(starved.stdout)")
        }
        // cover's searches rule by rule are held to analysis-states too.
        XCTAssertEqual(try CLIRunner.run(["cover", ab]).status, 0)
        // Rules left without a URL by the budget, none proven: 4, as diff's "not proven".
        XCTAssertEqual(try CLIRunner.run(["cover", ab, "--limit", "analysis-states=1"]).status, 4)
        let lintWork = try CLIRunner.run(["lint", ab, "--limit", "analysis-work=5"])
        XCTAssertTrue(lintWork.stdout.contains("work budget (raise it with --limit analysis-work=<n>)"), lintWork.stdout)
        let lintStates = try CLIRunner.run(["lint", ab, "--limit", "analysis-states=2"])
        XCTAssertTrue(lintStates.stdout.contains("state budget (raise it with --limit analysis-states=<n>)"), lintStates.stdout)

        // analysis-pairs counts rules times their entry's apps: ab has 2, so 2 is enough and 1
        // refuses (cover and diff exit 3, lint leaves out its automaton checks), while match,
        // which has no such limit, still decides.
        for command in [["cover", ab], ["diff", ab, ba]] {
            XCTAssertEqual(try CLIRunner.run(command + ["--limit", "analysis-pairs=2"]).status, 0, command.joined(separator: " "))
            let refused = try CLIRunner.run(command + ["--limit", "analysis-pairs=1"])
            XCTAssertEqual(refused.status, 3, refused.stdout + refused.stderr)
            XCTAssertTrue(refused.stderr.contains("needs at least 2 (rule, app) pairs, over the analysis-pairs limit of 1"), refused.stderr)
        }
        let lintPairs = try CLIRunner.run(["lint", ab, "--limit", "analysis-pairs=1", "--format", "json"])
        XCTAssertTrue(lintPairs.stdout.contains("not-analysed"), lintPairs.stdout)
        XCTAssertFalse(lintPairs.stdout.contains("over-limit"), "the matcher accepts the document: \(lintPairs.stdout)")
        XCTAssertEqual(try CLIRunner.run(["match", ab, "--domain", "example.com", "--limit", "analysis-pairs=1", "https://example.com/a/x"]).status, 0)
    }

    func test_limit_jsonDepthAboveItsMaximumIsAUsageError() throws {
        let file = try write("doc.json", document(#"[{"/": "/a/*"}]"#))
        let output = try CLIRunner.run(["match", file, "--domain", "example.com", "--limit", "json-depth=5000", "https://example.com/a"])
        XCTAssertEqual(output.status, 2)
        XCTAssertTrue(output.stderr.contains("4096"), output.stderr)
        XCTAssertEqual(try CLIRunner.run(["match", file, "--domain", "example.com", "--limit", "json-depth=4096", "https://example.com/a"]).status, 0)
    }

    /// Each record says whether its rule matches or excludes, as the text output does.
    func test_cover_jsonGivesEveryRuleAURLItDecidesOrAReason() throws {
        let file = try write(
            "doc.json", document(#"[{"/": "/a/*", "?": {"id": "?*"}}, {"/": "/a/x", "exclude": true}, {"/": "/a/*"}, {"/": "/a/*/b"}]"#))
        let output = try CLIRunner.run(["cover", file, "--format", "json"])
        XCTAssertEqual(output.status, 1, "rule 3 is covered by rule 2: " + output.stdout)
        let records = try output.stdout.split(separator: "\n").map(object)
        XCTAssertEqual(records.map { $0["rule"] as? Int }, [0, 1, 2, 3])
        XCTAssertEqual(records.map { $0["decision"] as? String }, ["match", "exclude", "match", "match"])
        for record in records {
            if let url = record["url"] as? String {
                let decision = try reference(file, url).first
                XCTAssertEqual(decision?.rule, record["rule"] as? Int, url)
                XCTAssertEqual(decision?.kind == .exclude ? "exclude" : "match", record["decision"] as? String, url)
            } else {
                XCTAssertEqual(record["rule"] as? Int, 3)
                XCTAssertTrue((record["reason"] as? String)?.contains("components[2]") ?? false)
                XCTAssertEqual(record["proven"] as? Bool, true, "a proof, which makes the exit status 1")
            }
        }
    }

    func test_cover_matrixPassesAASATestOnBothEngines() throws {
        let file = try write("doc.json", document(##"[{"/": "/help/*", "exclude": true}, {"/": "/p/$(digit)*", "#": "x"}, {"/": "*", "caseSensitive": true}]"##))
        let matrix = try CLIRunner.run(["cover", file, "--format", "matrix"])
        XCTAssertEqual(matrix.status, 0, matrix.stdout + matrix.stderr)
        let path = try write("m.json", matrix.stdout)
        for engine in ["dfa", "reference"] {
            let output = try CLIRunner.run(["test", file, "--matrix", path, "--domain", "example.com", "--engine", engine])
            XCTAssertEqual(output.status, 0, output.stdout)
            XCTAssertTrue(output.stdout.contains("3 passed, 0 failed"), output.stdout)
        }
    }

    /// A document without applinks rules (webcredentials only, or no details) has nothing to
    /// cover: every format says so on stderr rather than printing nothing, and the matrix is
    /// still JSON (empty objects), which `aasa test` refuses for checking nothing.
    func test_cover_documentWithoutRules_saysSo_andWritesAnEmptyMatrix() throws {
        for (name, json) in [("webcredentials.json", #"{"webcredentials": {"apps": ["ABCDE12345.com.x"]}}"#), ("empty.json", #"{"applinks": {"details": []}}"#)] {
            let file = try write(name, json)
            for format in ["text", "json", "matrix"] {
                let run = try CLIRunner.run(["cover", file, "--format", format, "--domain", "example.com"])
                XCTAssertEqual(run.status, 0, run.stderr)
                XCTAssertTrue(run.stderr.contains("has no applinks rule: nothing to cover"), "\(name) \(format): \(run.stderr)")
                if format == "matrix" {
                    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
                    XCTAssertEqual(object["opens_app"] as? [String: [String]], [:])
                    XCTAssertEqual(object["opens_web"] as? [String: [String]], [:])
                    XCTAssertTrue(run.stderr.contains("aasa test refuses"), run.stderr)
                } else {
                    XCTAssertEqual(run.stdout, "", "\(name) \(format)")
                }
            }
        }
        let covered = try CLIRunner.run(["cover", try write("one.json", document(#"[{"/": "/a/*"}]"#)), "--domain", "example.com"])
        XCTAssertFalse(covered.stderr.contains("nothing to cover"), covered.stderr)
    }

    func test_cover_matrixKeepsAppIDsThatDifferOnlyInNormalisationApart() throws {
        // "T.é" precomposed and decomposed are two apps to the matcher; Swift's `==` finds them
        // equal, which merged their rows and made cover's own matrix fail `aasa test`.
        let file = try write("doc.json", #"{"applinks": {"details": [{"appIDs": ["T.\u00e9"], "components": [{"/": "/a"}]}, {"appIDs": ["T.e\u0301"], "components": [{"/": "/b"}]}]}}"#)
        let matrix = try CLIRunner.run(["cover", file, "--format", "matrix"])
        XCTAssertEqual(matrix.status, 0, matrix.stdout + matrix.stderr)
        let output = try CLIRunner.run(["test", file, "--matrix", try write("m.json", matrix.stdout), "--domain", "example.com"])
        XCTAssertEqual(output.status, 0, output.stdout)
        XCTAssertTrue(output.stdout.contains("2 passed, 0 failed"), output.stdout)
    }

    /// Without `--domain`, each URL's own host serves the file, named as SPEC 3 compares hosts:
    /// ASCII letters lowered, nothing else. A Unicode lowering named `example.cok` for a host
    /// written with the Kelvin sign, a domain that then served nothing.
    func test_test_eachURLsOwnHostServesTheFileWhateverItsOtherLetters() throws {
        let file = try write("doc.json", document(#"[{"/": "/a"}]"#))
        let matrix = try write("m.json", #"{"opens_app": ["https://EXAMPLE.CO\u212A/a", "https://Example.com/a"], "opens_web": ["https://example.com/b"]}"#)
        let output = try CLIRunner.run(["test", file, "--matrix", matrix])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("3 passed, 0 failed"), output.stdout)
        XCTAssertFalse(output.stderr.contains("--domain"), "no hint when nothing failed: " + output.stderr)
        // A URL of another host listed as opening the web fails without --domain (its own host
        // serves the file), and the failure says how to test one domain; with it, it passes.
        let other = try write("o.json", #"{"opens_app": ["https://example.com/a"], "opens_web": ["https://www.example.com/a"]}"#)
        let failing = try CLIRunner.run(["test", file, "--matrix", other])
        XCTAssertEqual(failing.status, 1, failing.stdout)
        XCTAssertTrue(failing.stderr.contains("without --domain each URL's own host was taken to serve the file"), failing.stderr)
        XCTAssertEqual(try CLIRunner.run(["test", file, "--matrix", other, "--domain", "example.com"]).status, 0)
    }

    func test_test_refusesAMatrixThatCouldCheckNothingByMistake() throws {
        let file = try write("doc.json", document(#"[{"/": "/a"}]"#))
        let cases: [(String, String)] = [
            (#"{"opens_ap": ["https://example.com/a"]}"#, #"unknown key "opens_ap""#),
            (#"{"opens_app": ["https://example.com/a", 5]}"#, "opens_app[1] is not a string"),
            (#"{"opens_web": {"T1234567890.a": [{"url": "https://example.com/b"}]}}"#, "opens_web.T1234567890.a[0] is not a string"),
            (#"{}"#, "neither opens_app nor opens_web"),
            (#"{"opens_app": ["#, "not JSON: invalid JSON at line 1"),
        ]
        for (matrix, message) in cases {
            let output = try CLIRunner.run(["test", file, "--matrix", try write("m.json", matrix), "--domain", "example.com"])
            XCTAssertEqual(output.status, 2, matrix + ": " + output.stdout + output.stderr)
            XCTAssertTrue(output.stderr.contains(message), matrix + ": " + output.stderr)
        }
    }

    /// A matrix lists at most 1 048 576 URLs, counted before its JSON tree is built: 64 MB of
    /// `""` (22 million URLs) made `test` hold 4 GB and crash.
    func test_test_refusesAMatrixOfMoreThanAMillionURLs() throws {
        let file = try write("doc.json", document(#"[{"/": "/a"}]"#))
        for (count, status) in [(1 << 20, Int32(1)), ((1 << 20) + 1, Int32(2))] {
            let urls = Array(repeating: #""""#, count: count).joined(separator: ",")
            let output = try CLIRunner.run(["test", file, "--matrix", try write("m.json", #"{"opens_app": [\#(urls)]}"#), "--domain", "example.com"])
            XCTAssertEqual(output.status, status, output.stderr)
            if status == 2 { XCTAssertTrue(output.stderr.contains("it lists more than 1048576 URLs"), output.stderr) }
        }
    }

    /// A failure line names at most ten deciding apps, then how many more.
    func test_test_failureLinesNameAtMostTenDecidingApps() throws {
        let apps = (0..<25).map { "\"T1234567890.a\($0)\"" }.joined(separator: ",")
        let file = try write("doc.json", #"{"applinks": {"details": [{"appIDs": [\#(apps)], "components": [{"/": "/a"}]}]}}"#)
        let output = try CLIRunner.run(["test", file, "--matrix", try write("m.json", #"{"opens_web": ["https://example.com/a"]}"#), "--domain", "example.com"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertTrue(output.stdout.contains("T1234567890.a9 match by entry 0 rule 0; and 15 more apps\n"), output.stdout)
        XCTAssertFalse(output.stdout.contains("T1234567890.a10 "), output.stdout)
    }

    func test_test_failureLinesShowAURLsLineBreaksAndControlsEscaped() throws {
        let file = try write("doc.json", document(#"[{"/": "/a"}]"#))
        let matrix = try write("m.json", #"{"opens_app": ["https://example.com/x\n1000 passed, 0 failed", "https://example.com/\u001b]0;title\u0007"]}"#)
        let output = try CLIRunner.run(["test", file, "--matrix", matrix, "--domain", "example.com"])
        XCTAssertEqual(output.status, 1, output.stdout)
        XCTAssertEqual(output.stdout.split(separator: "\n").count, 3, output.stdout)
        XCTAssertTrue(output.stdout.contains(#"https://example.com/x\u{A}1000 passed"#), output.stdout)
        XCTAssertFalse(output.stdout.contains("\u{1B}]0;"), output.stdout)
    }

    func test_coverDiffAndLintText_showControlCharactersOfAppIDsAndWitnessesEscaped() throws {
        let app = #"ABCDE12345.com.x\u001b[2Jevil\u2028ok"#
        let old = try write("old.json", #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [{"/": "/a\u0007b*"}, {"/": "/\u001b]0;t\u0007/*", "exclude": true}]}]}}"#)
        let new = try write("new.json", #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [{"/": "/a\u0007b*"}]}]}}"#)
        let runs = [["cover", old], ["diff", old, new], ["lint", old]]
        for arguments in runs {
            let output = try CLIRunner.run(arguments)
            XCTAssertFalse(output.stdout.unicodeScalars.contains { [0x1B, 0x7, 0x2028].contains($0.value) }, "\(arguments): \(output.stdout)")
            XCTAssertTrue(output.stdout.contains(#"https://example.com/\u{1B}]0;t\u{7}"#), "\(arguments): \(output.stdout)")
        }
        // JSON keeps the exact text.
        let json = try CLIRunner.run(["cover", old, "--format", "json"])
        XCTAssertTrue(json.stdout.contains(#"https://example.com/\u001b]0;t\u0007"#), json.stdout)
    }

    func test_commandsThatCannotWriteTheirOutputExitFive() throws {
        let file = try write("doc.json", document(#"[{"/": "/a"}]"#))
        let matrix = try write("m.json", #"{"opens_app": ["https://example.com/a"]}"#)
        let commands = [
            "cover \(file)", "diff \(file) \(file)", "debug dfa \(file)", "test \(file) --matrix \(matrix) --domain example.com",
            "explain \(file) --domain example.com --app T1234567890.a https://example.com/a",
        ]
        for command in commands {
            let output = try CLIRunner.runShell("'\(CLIRunner.executable.path)' \(command) > /dev/full")
            XCTAssertEqual(output.status, 5, command + ": " + output.stderr)
            XCTAssertTrue(output.stderr.contains("cannot write the output"), command + ": " + output.stderr)
            let name = command.split(separator: " ")[0]
            XCTAssertTrue(try CLIRunner.run([String(name), "--help"]).stdout.contains("5 the output cannot be"), "\(name)'s help lists 5")
        }
        // Help and the version are output too.
        for command in ["help", "--version", "help classify", "cover --help"] {
            let output = try CLIRunner.runShell("'\(CLIRunner.executable.path)' \(command) > /dev/full")
            XCTAssertEqual(output.status, 5, command)
        }
    }

    func test_debug_refusesOptionsItWouldIgnore() throws {
        let file = try write("doc.json", document(#"[{"/": "/a"}]"#))
        for arguments in [["debug", "nfa", file, "--minimize"], ["debug", "plan", file, "--minimize"], ["debug", "dfa", file, "--domain", ""]] {
            let output = try CLIRunner.run(arguments)
            XCTAssertEqual(output.status, 2, arguments.joined(separator: " ") + ": " + output.stderr)
        }
        XCTAssertEqual(try CLIRunner.run(["debug", "dfa", file, "--minimize", "--domain", "x.example"]).status, 0)
    }

    func test_explain_refusesAURLArgumentThatIsNotUTF8() throws {
        let file = try write("doc.json", document(#"[{"/": "*"}]"#))
        let output = try CLIRunner.runShell(
            "'\(CLIRunner.executable.path)' explain \(file) --domain example.com --app T1234567890.a \"$(printf 'https://example.com/\\377')\"")
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        XCTAssertTrue(output.stderr.contains("not valid UTF-8"), output.stderr)
        XCTAssertEqual(output.stdout, "")
    }
}
