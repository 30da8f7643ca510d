import AASAKit
import XCTest
import _AASATestSupport

/// `Linter`: source order, the one-finding outcome of an unusable file, the fix hints that depend
/// on where a problem is, and the real corpus.
final class LinterTests: XCTestCase {
    /// The document-level findings (the automaton analysis is tested with its own layer).
    private func lint(_ text: String, configuration: Configuration = .default) -> [LintFinding] {
        Linter.lint(bytes: Array(text.utf8), domain: "example.com", configuration: configuration)
            .filter { LintCatalog.entry(for: $0.code) != nil }
    }

    // MARK: Order

    func test_order_followsTheSourceNotTheDecoder() {
        // The decoder visits substitutionVariables before details; the file has them the other way
        // round, and within the rule "exclude" comes before "/".
        let text = """
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [
                {"exclude": 1, "/": "/$(nope)", "Comment": "x"}]}],
              "substitutionVariables": {"unused": ["a"]}},
             "webcredentials": {"apps": ["bad"]}}
            """
        XCTAssertEqual(
            lint(text).map { "\($0.path) \($0.code)" },
            [
                "applinks.details[0].components[0].exclude wrong-type",
                #"applinks.details[0].components[0]["/"] undefined-variable"#,
                "applinks.details[0].components[0].Comment unknown-key",
                "applinks.substitutionVariables.unused unused-variable",
                "webcredentials.apps[0] invalid-app-id",
            ])
    }

    func test_order_samePathSortsByCode() {
        let text = #"{"applinks": {"substitutionVariables": {"upper": []}, "details": []}}"#
        XCTAssertEqual(
            lint(text).map(\.code), ["empty-variable", "shadows-predefined-variable", "unused-variable"])
    }

    // MARK: Unusable files

    func test_unusableFile_givesExactlyOneFindingAtTheRoot() {
        let tooSmall = { () -> Configuration in
            var configuration = Configuration()
            configuration.document.maxBytes = 4
            return configuration
        }()
        for (text, configuration, code) in [
            ("{\"a\": 1,}", Configuration.default, "invalid-json"), ("\"text\"", .default, "root-not-object"),
            ("{\"applinks\": {}}", tooSmall, "too-large"),
        ] {
            let findings = lint(text, configuration: configuration)
            XCTAssertEqual(findings.map(\.code), [code])
            XCTAssertEqual(findings.first?.path, .root)
            XCTAssertEqual(findings.first?.severity, .error)
        }
    }

    func test_invalidJSON_messageNamesLineAndColumn() {
        let findings = lint("{\n  \"applinks\": {\"details\": [],}\n}")
        XCTAssertEqual(findings.first?.message, "invalid JSON at line 2, column 29: trailing comma before '}'")
    }

    /// A site generator that publishes the file with its front matter serves YAML before the
    /// JSON; the parser's own message ("expected a digit after '-'") does not say so.
    func test_invalidJSON_frontMatterGetsItsOwnHint() {
        let document = #"{"applinks": {"details": []}}"#
        for text in ["---\nlayout: null\n---\n" + document, "\u{FEFF}---\r\npermalink: /x\r\n---\r\n" + document, "--- \n---\n" + document] {
            let findings = lint(text)
            XCTAssertEqual(findings.map(\.code), ["invalid-json"], text)
            XCTAssertTrue(findings.first?.hint?.hasPrefix("the file starts with front matter (---)") ?? false, "\(findings)")
        }
        for text in ["-1", "---1", "{\"a\": --- }"] {
            XCTAssertFalse(lint(text).first?.hint?.contains("front matter") ?? true, text)
        }
    }

    // MARK: Lines

    /// A finding about an object member points at its key: an unknown or repeated key is what
    /// the reader must find, and its value may start lines further on.
    func test_lines_keyFindingsPointAtTheKeyNotAtItsValue() {
        let text = """
            {
              "applinks": {
                "details": [
                  {
                    "appIDs": ["ABCDE12345.com.x"],
                    "bogus":
                      1,
                    "paths"
                      :
                      ["/a"],
                    "paths":
                      ["/b"]
                  }
                ]
              }
            }
            """
        XCTAssertEqual(
            lint(text).map { "\($0.code) \($0.path) \($0.line ?? 0)" },
            ["unknown-key applinks.details[0].bogus 6", "duplicate-key applinks.details[0].paths 11"])
    }

    /// An over-limit finding names the pattern that passed the limit; it points at that
    /// pattern's line as other findings do (it had none, and SARIF then said line 1).
    func test_lines_overLimitPointsAtTheLineOfThePatternThatPassedTheLimit() {
        let text = """
            {
              "applinks": {
                "details": [
                  {
                    "appIDs": ["ABCDE12345.com.x"],
                    "components": [
                      {"/": "/a/*"},
                      {"/": "/a/b"}
                    ]
                  }
                ]
              }
            }
            """
        var patterns = Configuration()
        patterns.document.maxPatterns = 1
        var patternBytes = Configuration()
        patternBytes.document.maxPatternBytes = 3
        for (configuration, path, line) in [
            (patterns, #"applinks.details[0].components[1]["/"]"#, 8), (patternBytes, #"applinks.details[0].components[0]["/"]"#, 7),
        ] {
            let findings = lint(text, configuration: configuration)
            XCTAssertEqual(findings.map { "\($0.code) \($0.path) \($0.line ?? 0)" }, ["over-limit \(path) \(line)"])
        }
    }

    // MARK: Hints

    func test_unknownKeyHint_suggestsTheNearMissOrListsTheKeysAllowedThere() {
        let findings = lint(#"{"applinks": {"detials": [], "defaults": {"casesensitive": true, "zzz": 1}}}"#)
        XCTAssertEqual(
            findings.map { "\($0.path) \($0.hint ?? "-")" },
            [
                #"applinks.detials rename it to "details""#,
                #"applinks.defaults.casesensitive rename it to "caseSensitive""#,
                ##"applinks.defaults.zzz remove it, or use one of the keys allowed here: "/", "?", "#", "exclude", "caseSensitive", "percentEncoded""##,
            ])
    }

    func test_wrongTypeHint_namesTheTypeTheKeyTakes() {
        let findings = lint(#"{"applinks": {"details": [{"appIDs": "ABCDE12345.com.example.app", "paths": ["/a"]}]}}"#)
        XCTAssertEqual(findings.map(\.code), ["entry-without-apps", "wrong-type"])
        XCTAssertEqual(findings.last?.hint, "write an array of strings")
    }

    func test_undefinedVariableHint_suggestsTheNearestName() {
        let findings = lint(
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(Region)"}]}]}}"#)
        XCTAssertEqual(findings.map(\.code), ["undefined-variable"])
        XCTAssertEqual(findings.first?.hint, "did you mean $(region)? Names are case-sensitive")
    }

    // MARK: App IDs

    func test_appID_shapesAcceptedAndRejected() {
        func codes(_ appID: String) -> [String] {
            lint(#"{"applinks": {"details": [{"appID": \#(JSONWriter.escape(appID)), "paths": ["/a"]}]}}"#).map(\.code)
        }
        for valid in ["ABCDE12345.com.example.app", "9JA89QQLNQ.com.apple.wwdc", "abcde12345.x", "ABCDE12345.a-b.C9"] {
            XCTAssertEqual(codes(valid), [], valid)
        }
        for invalid in [
            "TEAMID.com.example.app", "com.example.app", "ABCDE12345", "ABCDE12345.", "ABCDE1234.com.x", "ABCDE123456.com.x",
            "ABCDE_1234.com.x", "ABCDE12345.com.example_app", "ABCDE12345.com.example.app ", "ABCDE12345.*", "",
        ] {
            XCTAssertEqual(codes(invalid), ["invalid-app-id"], invalid)
        }
    }

    func test_appID_bundleIDAloneIsNamedAsSuch() {
        let finding = lint(#"{"applinks": {"details": [{"appID": "com.example.app", "paths": ["/a"]}]}}"#).first
        XCTAssertEqual(
            finding?.message, #"app ID "com.example.app" can never name an app: it looks like a bundle ID without the team ID in front"#)
    }

    func test_appID_checkedInEveryPlaceAnAppIsNamedButTheIgnoredLegacyApps() {
        let text = """
            {"applinks": {"apps": ["bad0"], "details": {"bad1": {"paths": ["/a"], "appIDs": ["bad2"]}}},
             "webcredentials": {"apps": ["bad3"]}, "appclips": {"apps": ["bad4"]},
             "activitycontinuation": {"apps": ["bad5"]}}
            """
        XCTAssertEqual(
            lint(text).filter { $0.code == "invalid-app-id" }.map(\.path.description),
            ["applinks.details.bad1", "applinks.details.bad1.appIDs[0]", "webcredentials.apps[0]", "appclips.apps[0]",
             "activitycontinuation.apps[0]"])
    }

    // MARK: Variables

    func test_variables_patternsHiddenByComponentsDoNotCountAsUses() {
        let text = """
            {"applinks": {"substitutionVariables": {"v": ["a"]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"],
              "components": [{"/": "/a"}], "paths": ["/$(v)", "/$(undefined)"]}]}}
            """
        XCTAssertEqual(lint(text).map(\.code), ["unused-variable", "components-and-paths"])
    }

    func test_variables_usesInDefaultsQueryItemsAndFragmentsCount() {
        let text = """
            {"applinks": {"substitutionVariables": {"a": ["1"], "b": ["2"], "c": ["3"]},
              "defaults": {"/": "/$(a)/*"},
              "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"?": {"q": "$(b)"}, "#": "$(c)"}]}]}}
            """
        XCTAssertEqual(lint(text).map(\.code), [])
    }

    // MARK: Hostile input

    func test_hostile_thousandsOfFindingsInOneObjectAreAllReportedInOrder() {
        let keys = (0..<3000).map { #""k\#($0)": 1"# }.joined(separator: ", ")
        let variables = (0..<2000).map { #""v\#($0)": []"# }.joined(separator: ", ")
        let findings = lint(#"{\#(keys), "applinks": {"substitutionVariables": {\#(variables)}}}"#)
        XCTAssertEqual(findings.count, 3000 + 2 * 2000)
        XCTAssertEqual(findings.first?.path.description, "k0")
        XCTAssertEqual(findings.last?.path.description, "applinks.substitutionVariables.v1999")
    }

    func test_hostile_keysEqualOnlyUnderNormalisationKeepTheirOwnPositions() {
        // Two legacy entries whose keys are "café" precomposed and decomposed: JSON paths compare
        // them as equal, so the position cache must not mix the two objects up.
        let unknown = (0..<20).map { #""u\#($0)": 1"# }
        let first = unknown.joined(separator: ", ")
        let second = unknown.reversed().joined(separator: ", ")
        let text = #"{"applinks": {"details": {"caf\u00e9": {\#(first)}, "cafe\u0301": {\#(second)}}}}"#
        let findings = lint(text)
        let names = (0..<20).map { "u\($0)" }
        let unknownKeys = findings.filter { $0.code == "unknown-key" }.compactMap { finding -> String? in
            if case .key(let key)? = finding.path.components.last { return key }
            return nil
        }
        XCTAssertEqual(unknownKeys, names + names.reversed())
        XCTAssertEqual(findings.filter { $0.code == "invalid-app-id" }.count, 2)
    }

    // MARK: Corpus

    /// `<package root>/../shared/corpus/aasa`, absent on machines without the shared folder.
    private var corpus: URL {
        CaseSuite.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/aasa")
    }

    func test_corpus_everyDocumentLintsWithoutCrashing_everyBrokenOneHasAFinding_everyRealOneIsAnalysedWhole() throws {
        guard FileManager.default.fileExists(atPath: corpus.path) else { throw XCTSkip("../shared/corpus/aasa is not present") }
        var linted = 0
        for folder in ["real", "real-invalid"] {
            let directory = corpus.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".json") {
                let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
                let findings = Linter.lint(bytes: bytes, domain: "example.com", configuration: .default)
                if folder == "real-invalid" { XCTAssertFalse(findings.isEmpty, "\(name) is broken but lints clean") }
                // The default analysis budgets suffice for every real document (the heaviest,
                // artsy's, needs about 27 M of `analysis-work`'s 30 M).
                if folder == "real" {
                    XCTAssertFalse(findings.contains { $0.code == "analysis-incomplete" }, "\(name): not analysed exhaustively by default")
                }
                XCTAssertEqual(Linter.lint(bytes: bytes, domain: "example.com", configuration: .default), findings, "\(name): unstable")
                linted += 1
            }
        }
        XCTAssertGreaterThanOrEqual(linted, 250)
    }
}
