import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Every document-level lint code, pinned by one document that must raise it at a given path and
/// one close variant that must be clean: the positive proves the check fires, the negative that
/// it fires for the right reason.
final class DocumentLintTests: XCTestCase {
    struct CodeCase {
        var code: String
        /// Where the finding must be, as `JSONPath.description`.
        var path: String
        var positive: String
        var negative: String
    }

    /// A document with one entry for a valid app; `components` is spliced in.
    static func entry(_ components: String, extra: String = "") -> String {
        #"{"applinks": {\#(extra)"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": \#(components)}]}}"#
    }

    /// A document defining `variables` and using them in one path pattern.
    static func variables(_ variables: String, pattern: String) -> String {
        entry(#"[{"/": "\#(pattern)"}]"#, extra: #""substitutionVariables": \#(variables), "#)
    }

    static let cases: [CodeCase] = [
        CodeCase(code: "invalid-json", path: "$", positive: #"{"applinks": {"details": [],}}"#, negative: #"{"applinks": {"details": []}}"#),
        CodeCase(code: "root-not-object", path: "$", positive: "[]", negative: "{}"),
        // The limit is inclusive (SPEC 2): 131 072 bytes pass, one more fails.
        CodeCase(
            code: "too-large", path: "$", positive: "{}" + String(repeating: " ", count: 131_071),
            negative: "{}" + String(repeating: " ", count: 131_070)),
        // The only document limit besides the size that a 128 KiB file can reach by default.
        CodeCase(
            code: "over-limit", path: #"applinks.details[0].components[0]["/"]"#,
            positive: entry(#"[{"/": "/\#(String(repeating: "a", count: 65_536))"}]"#),
            negative: entry(#"[{"/": "/\#(String(repeating: "a", count: 65_535))"}]"#)),
        CodeCase(
            code: "wrong-type", path: "applinks.details[0].components[0].exclude",
            positive: entry(#"[{"/": "/a", "exclude": "true"}]"#), negative: entry(#"[{"/": "/a", "exclude": true}]"#)),
        CodeCase(
            code: "unknown-key", path: "applinks.details[0].components[0].casesensitive",
            positive: entry(#"[{"/": "/a", "casesensitive": false}]"#), negative: entry(#"[{"/": "/a", "caseSensitive": false}]"#)),
        CodeCase(
            code: "duplicate-key", path: #"applinks.details[0].components[0]["/"]"#,
            positive: entry(#"[{"/": "/a", "/": "/b"}]"#), negative: entry(##"[{"/": "/a", "#": "b"}]"##)),
        CodeCase(
            code: "invalid-app-id", path: "applinks.details[0].appID",
            positive: #"{"applinks": {"details": [{"appID": "TEAMID.com.example.app", "paths": ["/a"]}]}}"#,
            negative: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/a"]}]}}"#),
        CodeCase(
            code: "entry-without-apps", path: "applinks.details[0]",
            positive: #"{"applinks": {"details": [{"appId": "ABCDE12345.com.example.app", "paths": ["/a"]}]}}"#,
            negative: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/a"]}]}}"#),
        CodeCase(
            code: "entry-without-rules", path: "applinks.details[0]",
            positive: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app"}]}}"#,
            negative: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "components": [{"/": "/a"}]}]}}"#),
        CodeCase(
            code: "apps-not-empty", path: "applinks.apps",
            positive: entry(#"[{"/": "/a"}]"#, extra: #""apps": ["ABCDE12345.com.example.app"], "#),
            negative: entry(#"[{"/": "/a"}]"#, extra: #""apps": [], "#)),
        CodeCase(
            code: "components-and-paths", path: "applinks.details[0].paths",
            positive: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "components": [{"/": "/a"}], "paths": ["/a"]}]}}"#,
            negative: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "components": [{"/": "/a"}]}]}}"#),
        CodeCase(
            code: "query-predicate-not-string", path: #"applinks.details[0].components[0]["?"].id"#,
            positive: entry(#"[{"/": "/a", "?": {"id": 1}}]"#), negative: entry(#"[{"/": "/a", "?": {"id": "1"}}]"#)),
        CodeCase(
            code: "invalid-variable-name", path: #"applinks.substitutionVariables["a(b)"]"#,
            positive: variables(#"{"ab": ["x"], "a(b)": ["y"]}"#, pattern: "/$(ab)"),
            negative: variables(#"{"ab": ["x"]}"#, pattern: "/$(ab)")),
        CodeCase(
            code: "undefined-variable", path: #"applinks.details[0].components[0]["/"]"#,
            positive: variables(#"{"food": ["a"]}"#, pattern: "/$(food)/$(drink)"),
            negative: variables(#"{"food": ["a"]}"#, pattern: "/$(food)/$(lang)")),
        CodeCase(
            code: "malformed-variable-reference", path: #"applinks.details[0].components[0]["/"]"#,
            positive: variables(#"{"food": ["a"]}"#, pattern: "/$(food)/$(food"),
            negative: variables(#"{"food": ["a"]}"#, pattern: "/$(food)/price$")),
        CodeCase(
            code: "self-referencing-variable", path: "applinks.substitutionVariables.food[1]",
            positive: variables(#"{"food": ["a", "$(food)b"]}"#, pattern: "/$(food)"),
            negative: variables(#"{"food": ["a", "$food"]}"#, pattern: "/$(food)")),
        CodeCase(
            code: "variable-in-variable-value", path: "applinks.substitutionVariables.food[0]",
            positive: variables(#"{"food": ["$(drink)"], "drink": ["tea"]}"#, pattern: "/$(food)/$(drink)"),
            negative: variables(#"{"food": ["cake"], "drink": ["tea"]}"#, pattern: "/$(food)/$(drink)")),
        CodeCase(
            code: "empty-variable", path: "applinks.substitutionVariables.food",
            positive: variables(#"{"food": []}"#, pattern: "/$(food)"),
            negative: variables(#"{"food": [""]}"#, pattern: "/$(food)")),
        CodeCase(
            code: "shadows-predefined-variable", path: "applinks.substitutionVariables.lang",
            positive: variables(#"{"lang": ["en"]}"#, pattern: "/$(lang)"),
            negative: variables(#"{"language": ["en"]}"#, pattern: "/$(language)")),
        CodeCase(
            code: "unused-variable", path: "applinks.substitutionVariables.drink",
            positive: variables(#"{"food": ["a"], "drink": ["b"]}"#, pattern: "/$(food)"),
            negative: variables(#"{"food": ["a"], "drink": ["b"]}"#, pattern: "/$(food)/$(drink)")),
        CodeCase(
            code: "defaults-ignored", path: "applinks.details[0].defaults",
            positive: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "defaults": {"exclude": true, "caseSensitive": false}, "paths": ["/a/*"]}]}}"#,
            negative: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "defaults": {"caseSensitive": false}, "paths": ["/a/*"]}]}}"#),
        CodeCase(
            code: "suspicious-pattern", path: #"applinks.details[0].components[0]["/"]"#,
            positive: entry(#"[{"/": "/search?q=*"}]"#), negative: entry(#"[{"/": "/search", "?": {"q": "?*"}}]"#)),
        CodeCase(
            code: "percent-encoding-mismatch", path: #"applinks.details[0].components[0]["/"]"#,
            positive: entry(#"[{"/": "/caf%C3%A9/*", "percentEncoded": false}]"#), negative: entry(#"[{"/": "/caf%C3%A9/*"}]"#)),
        CodeCase(
            code: "placeholder-team-id", path: "applinks.details[0].appIDs[1]",
            positive: #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app", "XXXXXXXXXX.com.example.app"], "paths": ["/a"]}]}}"#,
            negative: #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app", "XXXXXXXXX1.com.example.app"], "paths": ["/a"]}]}}"#),
        // SPEC 7: a missing item counts as present and empty, so "*" admits URLs without it.
        CodeCase(
            code: "query-item-matches-absent", path: #"applinks.details[0].components[0]["?"].token"#,
            positive: entry(#"[{"/": "/join", "?": {"token": "**"}}]"#), negative: entry(#"[{"/": "/join", "?": {"token": "?*"}}]"#)),
    ]

    /// `unused-variable` mentions an ignored `paths` array only where one stands beside
    /// `components` (it said so of every document).
    func test_unusedVariable_mentionsIgnoredPathsOnlyWhereThereAreSome() {
        let app = #""appID": "ABCDE12345.com.example.app""#
        let plain = #"{"applinks": {"substitutionVariables": {"v": ["a"]}, "details": [{\#(app), "components": [{"/": "/x"}]}]}}"#
        let both = #"{"applinks": {"substitutionVariables": {"v": ["a"]}, "details": [{\#(app), "components": [{"/": "/x"}], "paths": ["/$(v)"]}]}}"#
        func message(_ document: String) -> String? { Self.documentFindings(document).first { $0.code == "unused-variable" }?.message }
        XCTAssertEqual(message(plain), "$(v) is defined but no pattern the engine reads uses it")
        XCTAssertEqual(message(both), "$(v) is defined but no pattern the engine reads uses it (a paths array beside components is not read)")
    }

    /// Each shape `suspicious-pattern` knows, at its JSON path, beside a close shape it leaves
    /// alone (every one verified with `aasa match`: the pattern matches, but not what it says).
    func test_suspiciousPattern_namesEachShapeAndLeavesItsNeighboursAlone() {
        let flagged: [(String, String)] = [
            (Self.entry(#"[{"/": "https://example.com/foo/*"}]"#), #"applinks.details[0].components[0]["/"]"#),
            (Self.entry(#"[{"/": "//example.com/foo/*"}]"#), #"applinks.details[0].components[0]["/"]"#),
            (Self.entry(#"[{"/": "example.com/bar"}]"#), #"applinks.details[0].components[0]["/"]"#),
            (Self.entry(#"[{"/": "/x/*?y=1"}]"#), #"applinks.details[0].components[0]["/"]"#),
            (Self.entry(#"[{"/": "NOT /login"}]"#), #"applinks.details[0].components[0]["/"]"#),
            (Self.entry(#"[{"/": "/q", "?": "?a=1"}]"#), #"applinks.details[0].components[0]["?"]"#),
            (Self.entry(##"[{"/": "/q", "#": "#top"}]"##), ##"applinks.details[0].components[0]["#"]"##),
            (Self.entry(#"[{"/": "/q", "?": {"a=1": ""}}]"#), #"applinks.details[0].components[0]["?"]["a=1"]"#),
            (Self.entry(#"[{"/": "/q", "?": {"a*": "?*"}}]"#), #"applinks.details[0].components[0]["?"]["a*"]"#),
            (#"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT/login", "*"]}]}}"#, "applinks.details[0].paths[0]"),
            (#"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["not /signup", "*"]}]}}"#, "applinks.details[0].paths[0]"),
            (#"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/search?q=*"]}]}}"#, "applinks.details[0].paths[0]"),
        ]
        for (document, path) in flagged {
            let findings = Self.documentFindings(document).filter { $0.code == "suspicious-pattern" }
            XCTAssertEqual(findings.map(\.path.description), [path], document)
        }
        let clean = [
            Self.entry(#"[{"/": "/a?c/*"}, {"/": "/v1.2/x"}, {"/": "*.html"}, {"/": "/notes/*"}, {"/": "/NOTE"}]"#),
            // Leading slashes collapse to one (SPEC 6): `//abc` is `/abc`, no URL; an audit found
            // it called a whole URL, with a fix that changed what the rule matches.
            Self.entry(#"[{"/": "//abc"}, {"/": "//.$(lang)/%C3%A9"}]"#),
            Self.entry(##"[{"/": "/q", "?": "a=1", "#": "top"}, {"/": "/r", "?": {"a": "=1"}}]"##),
            #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT /login", "/note/*", "*"]}]}}"#,
        ]
        for document in clean {
            XCTAssertEqual(Self.documentFindings(document).filter { $0.code == "suspicious-pattern" }.map(\.message), [], document)
        }
    }

    /// Every place a pattern is read from gets judged under the flag of the rules that read it:
    /// the rule's own keys, an entry's or the domain's defaults, legacy paths, query item names
    /// and values, and custom variable values through the rules that call them. Each flagged
    /// pattern was checked with `aasa match`: it matches only the URL written the other way.
    func test_percentEncodingMismatch_judgesEachPatternUnderTheFlagOfTheRulesThatReadIt() {
        let app = #""appID": "ABCDE12345.com.example.app""#
        let flagged: [(String, [String])] = [
            // Escapes read decoded: the rule's flag, the entry's default flag, the domain's.
            (Self.entry(#"[{"/": "/a%20b", "percentEncoded": false}]"#), [#"applinks.details[0].components[0]["/"]"#]),
            (##"{"applinks": {"details": [{\##(app), "defaults": {"percentEncoded": false}, "components": [{"/": "/x", "#": "a%2Fb"}]}]}}"##,
             [##"applinks.details[0].components[0]["#"]"##]),
            (#"{"applinks": {"defaults": {"percentEncoded": false}, "details": [{\#(app), "paths": ["/caf%C3%A9"]}]}}"#, ["applinks.details[0].paths[0]"]),
            // A default pattern, judged through the rule that takes it.
            (#"{"applinks": {"details": [{\#(app), "defaults": {"/": "/%7Euser/*"}, "components": [{"percentEncoded": false}]}]}}"#,
             [#"applinks.details[0].defaults["/"]"#]),
            // Query item names and values, decoded.
            (Self.entry(#"[{"/": "/q", "?": {"a%20b": "x%26y"}, "percentEncoded": false}]"#),
             [#"applinks.details[0].components[0]["?"]["a%20b"]"#, #"applinks.details[0].components[0]["?"]["a%20b"]"#]),
            // Raw text read as written: non-ASCII, a space, in a variable value.
            (Self.entry(#"[{"/": "/café/*"}]"#), [#"applinks.details[0].components[0]["/"]"#]),
            (Self.entry(#"[{"/": "/q", "?": "a b"}]"#), [#"applinks.details[0].components[0]["?"]"#]),
            (Self.variables(#"{"dish": ["crème", "tea"]}"#, pattern: "/$(dish)"), ["applinks.substitutionVariables.dish[0]"]),
            (Self.entry(#"[{"/": "/$(dish)", "percentEncoded": false}]"#, extra: #""substitutionVariables": {"dish": ["cr%C3%A8me"]}, "#),
             ["applinks.substitutionVariables.dish[0]"]),
        ]
        for (document, paths) in flagged {
            let findings = Self.documentFindings(document).filter { $0.code == "percent-encoding-mismatch" }
            XCTAssertEqual(findings.map(\.path.description).sorted(), paths.sorted(), document)
        }
        let clean = [
            // Each flag with the text it reads; a `%` without two hex digits; a rule whose own
            // flag overrides the default; a variable value no rule calls decoded.
            Self.entry(#"[{"/": "/caf%C3%A9/*"}, {"/": "/café", "percentEncoded": false}, {"/": "/100%", "?": "a=%zz"}]"#),
            #"{"applinks": {"defaults": {"percentEncoded": false}, "details": [{\#(app), "components": [{"/": "/a%20b", "percentEncoded": true}]}]}}"#,
            Self.variables(#"{"dish": ["cr%C3%A8me"]}"#, pattern: "/$(dish)"),
        ]
        for document in clean {
            XCTAssertEqual(Self.documentFindings(document).filter { $0.code == "percent-encoding-mismatch" }.map(\.message), [], document)
        }
    }

    /// A query item written as null, an array or an object gets the fix for what was written,
    /// not the "quote the number" hint.
    func test_queryPredicateNotString_hintFollowsTheTypeWritten() {
        let hints = ["1", "true", "null", #"["a", "b"]"#, #"{"b": "1"}"#].map { value in
            Self.documentFindings(Self.entry(#"[{"/": "/a", "?": {"id": \#(value)}}]"#))
                .first { $0.code == "query-predicate-not-string" }?.hint ?? ""
        }
        XCTAssertTrue(hints[0].hasPrefix(#"quote the value"#), hints[0])
        XCTAssertEqual(hints[1], hints[0])
        XCTAssertTrue(hints[2].contains(#""*" to accept any value"#), hints[2])
        XCTAssertTrue(hints[3].contains("substitution variable"), hints[3])
        XCTAssertTrue(hints[4].hasPrefix("write one pattern string"), hints[4])
    }

    /// The domain's defaults are ignored the same way when every entry is legacy paths, and
    /// count as soon as one entry has components.
    func test_defaultsIgnored_atTheDomainOnlyWhenNoEntryHasComponents() {
        let legacy = #"{"appID": "ABCDE12345.com.example.app", "paths": ["/a/*"]}"#
        let modern = #"{"appID": "ABCDE12345.com.example.b", "components": [{"/": "/b"}]}"#
        let ignored = ##"{"applinks": {"defaults": {"#": "x", "percentEncoded": false}, "details": [\##(legacy)]}}"##
        let used = ##"{"applinks": {"defaults": {"#": "x"}, "details": [\##(legacy), \##(modern)]}}"##
        XCTAssertEqual(Self.documentFindings(ignored).filter { $0.code == "defaults-ignored" }.map(\.path.description), ["applinks.defaults"])
        XCTAssertEqual(Self.documentFindings(ignored).first { $0.code == "defaults-ignored" }?.message.hasSuffix(##""#" change nothing"##), true)
        XCTAssertEqual(Self.documentFindings(used).filter { $0.code == "defaults-ignored" }, [])
    }

    /// An empty `components` (or `paths`) array is read, and holds no rule: the entry matches
    /// nothing, and a `paths` array beside it is not read instead.
    func test_entryWithoutRules_alsoForAnEmptyArray() {
        for (document, path) in [
            (Self.entry("[]"), "applinks.details[0].components"),
            (#"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "components": [], "paths": ["/y"]}]}}"#, "applinks.details[0].components"),
            (#"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": []}]}}"#, "applinks.details[0].paths"),
        ] {
            let findings = Self.documentFindings(document).filter { $0.code == "entry-without-rules" }
            XCTAssertEqual(findings.map(\.path.description), [path], document)
        }
    }

    /// The document-level findings of `text` (automaton findings are the analysis layer's to test).
    static func documentFindings(_ text: String) -> [LintFinding] {
        Linter.lint(bytes: Array(text.utf8), domain: "example.com", configuration: .default)
            .filter { LintCatalog.entry(for: $0.code) != nil }
    }

    func test_everyCode_firesOnItsPositiveDocumentAtItsPath() {
        for testCase in Self.cases {
            let findings = Self.documentFindings(testCase.positive).filter { $0.code == testCase.code }
            XCTAssertEqual(findings.map(\.path.description), [testCase.path], "\(testCase.code): \(findings)")
        }
    }

    func test_everyCode_negativeDocumentIsClean() {
        for testCase in Self.cases {
            let findings = Self.documentFindings(testCase.negative)
            XCTAssertEqual(findings.map(\.code), [], "\(testCase.code): \(findings.map(\.message))")
        }
    }

    /// A dictionary is judged where it is written, once however many rules it serves through
    /// defaults; legacy paths have no query, and a voided dictionary matches nothing to note.
    func test_queryItemMatchesAbsent_isReportedWhereTheDictionaryIsWritten() {
        let text = #"""
            {"applinks": {"defaults": {"?": {"ref": "*"}}, "details": [
              {"appIDs": ["ABCDE12345.com.example.app"], "defaults": {"?": {"id": "*", "lang": "??"}},
               "components": [{"/": "/a"}, {"/": "/b"}, {"/": "/c", "?": {"q": "*", "n": 1}}]},
              {"appIDs": ["ABCDE12345.com.example.other"], "components": [{"/": "/d"}]}]}}
            """#
        let paths = Self.documentFindings(text).filter { $0.code == "query-item-matches-absent" }.map(\.path.description)
        XCTAssertEqual(Set(paths), [#"applinks.defaults["?"].ref"#, #"applinks.details[0].defaults["?"].id"#], "\(paths)")
        XCTAssertEqual(paths.count, 2)
    }

    func test_catalog_everyCodeHasACase() {
        XCTAssertEqual(
            Set(LintCatalog.documentCodes.map(\.code)).subtracting(Self.cases.map(\.code)).sorted(), [],
            "codes without a positive and a negative document")
    }

    func test_catalog_findingsUseTheCatalogSeverityAndCarryAHint() {
        for testCase in Self.cases {
            for finding in Self.documentFindings(testCase.positive) {
                XCTAssertEqual(finding.severity, LintCatalog.entry(for: finding.code)?.severity, "\(finding.code)")
                XCTAssertNotNil(finding.hint, "\(finding.code) has no fix hint")
                XCTAssertNil(finding.witness, "\(finding.code): document findings are not about URLs")
            }
        }
    }

    func test_docs_codesTableListsEveryCodeWithItsSeverity() throws {
        // The code tables live in docs/analysis.md ("Lint codes"), which the README links.
        let readme = try String(contentsOf: CaseSuite.packageRoot.appendingPathComponent("docs/analysis.md"), encoding: .utf8)
        for entry in LintCatalog.documentCodes {
            XCTAssertTrue(readme.contains("| `\(entry.code)` | \(entry.severity.rawValue) |"), "docs/analysis.md lacks a row for \(entry.code)")
        }
    }

    func test_catalog_codesAreUniqueAndKebabCase() {
        let codes = LintCatalog.documentCodes.map(\.code)
        XCTAssertEqual(Set(codes).count, codes.count)
        for code in codes {
            XCTAssertTrue(code.allSatisfy { ("a"..."z").contains($0) || $0 == "-" }, code)
        }
    }
}
