import AASAKit
import XCTest

/// The lenient decoder of SPEC 2: every wrong-typed piece is skipped with a diagnostic that names
/// its JSON path, indices are never renumbered, and only invalid JSON, a non-object root and an
/// over-size document fail the whole file.
final class AASADocumentDecodingTests: XCTestCase {
    // MARK: Helpers

    private func decode(
        _ text: String, configuration: Configuration = .default, file: StaticString = #filePath,
        line: UInt = #line
    ) -> AASADocument? {
        do {
            return try AASADocument(bytes: Array(text.utf8), configuration: configuration)
        } catch {
            XCTFail("the document failed to load: \(error)", file: file, line: line)
            return nil
        }
    }

    private func documentError(
        _ bytes: [UInt8], configuration: Configuration = .default, file: StaticString = #filePath,
        line: UInt = #line
    ) -> DocumentError? {
        do {
            let document = try AASADocument(bytes: bytes, configuration: configuration)
            XCTFail("expected a DocumentError, got a document with \(document.entries.count) entries", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// `applinks.details[index]…`
    private func entryPath(_ index: Int) -> JSONPath { .root / "applinks" / "details" / index }

    /// Asserts that exactly one diagnostic sits at `path`, with `code` (and `severity` when
    /// given); returns it.
    @discardableResult
    private func assertDiagnostic(
        _ document: AASADocument?, at path: JSONPath, code: String, severity: Diagnostic.Severity? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Diagnostic? {
        guard let document else { return nil }
        let here = document.diagnostics.filter { $0.path == path }
        guard here.count == 1, let found = here.first else {
            XCTFail(
                "expected one diagnostic at \(path), found \(here.count); all: \(document.diagnostics.map(\.description))",
                file: file, line: line)
            return nil
        }
        XCTAssertEqual(found.code, code, "code at \(path)", file: file, line: line)
        if let severity { XCTAssertEqual(found.severity, severity, "severity at \(path)", file: file, line: line) }
        return found
    }

    private func assertNoDiagnostics(_ document: AASADocument?, file: StaticString = #filePath, line: UInt = #line) {
        guard let document else { return }
        XCTAssertEqual(document.diagnostics.map(\.description), [], file: file, line: line)
    }

    // MARK: App IDs

    func test_appID_wrongTypeIsSkippedAndAppIDsStillCount() {
        let document = decode(#"{"applinks":{"details":[{"appID":5,"appIDs":["T.a"],"components":[{}]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "appID", code: "wrong-type", severity: .error)
        XCTAssertEqual(document?.diagnostics.count, 1)
        XCTAssertEqual(document?.entries.first?.appIDs, ["T.a"])
    }

    func test_appIDs_stringInsteadOfArrayIsSkipped() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","appIDs":"T.b","components":[{}]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "appIDs", code: "wrong-type", severity: .error)
        XCTAssertEqual(document?.diagnostics.count, 1)
        XCTAssertEqual(document?.entries.first?.appIDs, ["T.a"])
    }

    func test_appIDs_nonStringElementIsSkippedOthersKept() {
        let document = decode(
            #"{"applinks":{"details":[{"appIDs":["T.a",7,"T.b",null,"T.c"],"components":[{}]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "appIDs" / 1, code: "wrong-type")
        assertDiagnostic(document, at: entryPath(0) / "appIDs" / 3, code: "wrong-type")
        XCTAssertEqual(document?.diagnostics.count, 2)
        XCTAssertEqual(document?.entries.first?.appIDs, ["T.a", "T.b", "T.c"])
    }

    func test_appIDs_unionPutsAppIDFirstWithoutRepeats() {
        let document = decode(
            #"{"applinks":{"details":[{"appIDs":["T.b","T.a","T.b"],"appID":"T.a","components":[{}]}]}}"#)
        assertNoDiagnostics(document)
        XCTAssertEqual(document?.entries.first?.appIDs, ["T.a", "T.b"])
    }

    /// Repeats go however many apps the entry names, compared scalar by scalar: "é"
    /// precomposed and decomposed are two apps.
    func test_appIDs_repeatsDroppedExactly_fewAndMany() {
        for count in [3, 5, 9, 40] {
            var apps = (0..<count).map { "T.app\($0 % (count / 2 + 1))" }
            apps += ["T.caf\u{E9}", "T.cafe\u{301}", "T.caf\u{E9}"]
            let list = apps.map { "\"\($0)\"" }.joined(separator: ",")
            let document = decode(#"{"applinks":{"details":[{"appIDs":[\#(list)],"components":[{}]}]}}"#)
            var expected: [String] = []
            for app in apps where !expected.contains(where: { Array($0.unicodeScalars) == Array(app.unicodeScalars) }) {
                expected.append(app)
            }
            XCTAssertEqual(document?.entries.first?.appIDs.map { Array($0.unicodeScalars) }, expected.map { Array($0.unicodeScalars) }, "\(count)")
            XCTAssertEqual(expected.count, count / 2 + 1 + 2)
        }
    }

    func test_appIDs_documentOrderIsFirstAppearanceAcrossEntries() {
        let document = decode(
            #"""
            {"applinks":{"details":[
              {"appIDs":["T.c","T.a"],"components":[{}]},
              {"appID":"T.b","appIDs":["T.a","T.d"],"components":[{}]},
              {"appID":"T.c","components":[{}]}
            ]}}
            """#)
        XCTAssertEqual(document?.appIDs, ["T.c", "T.a", "T.b", "T.d"])
    }

    // MARK: Components and paths

    func test_components_wrongTypeLetsPathsApply() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":{"/":"/x"},"paths":["/legacy"]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "components", code: "wrong-type", severity: .error)
        XCTAssertEqual(document?.diagnostics.count, 1, "no components-and-paths warning when components is ignored")
        let entry = document?.entries.first
        XCTAssertEqual(entry?.ruleSource, .paths)
        XCTAssertEqual(entry?.rules.map(\.keys.path), ["/legacy"])
        XCTAssertEqual(entry?.rules.map(\.isLegacyPath), [true])
    }

    func test_paths_wrongTypeLeavesTheEntryWithoutRules() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","paths":"/x"}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "paths", code: "wrong-type")
        XCTAssertEqual(document?.entries.first?.ruleSource, Entry.RuleSource.none)
        XCTAssertEqual(document?.entries.first?.rules.count, 0)
    }

    func test_componentsAndPaths_warnsAndUsesComponents() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/new"}],"paths":["/old"]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "paths", code: "components-and-paths", severity: .warning)
        XCTAssertEqual(document?.diagnostics.count, 1)
        XCTAssertEqual(document?.entries.first?.ruleSource, .components)
        XCTAssertEqual(document?.entries.first?.rules.map(\.keys.path), ["/new"])
    }

    func test_components_nonObjectRulesAreSkippedAndIndicesKept() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/a"},"/b",[],{"/":"/c"},null,{"/":"/d"}]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "components" / 1, code: "wrong-type")
        assertDiagnostic(document, at: entryPath(0) / "components" / 2, code: "wrong-type")
        assertDiagnostic(document, at: entryPath(0) / "components" / 4, code: "wrong-type")
        XCTAssertEqual(document?.diagnostics.count, 3)
        XCTAssertEqual(document?.entries.first?.rules.map(\.index), [0, 3, 5])
        XCTAssertEqual(document?.entries.first?.rules.map(\.keys.path), ["/a", "/c", "/d"])
    }

    func test_paths_nonStringElementsAreSkippedAndIndicesKept() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","paths":[1,"/a",{"/":"/x"},"NOT /b",false]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "paths" / 0, code: "wrong-type")
        assertDiagnostic(document, at: entryPath(0) / "paths" / 2, code: "wrong-type")
        assertDiagnostic(document, at: entryPath(0) / "paths" / 4, code: "wrong-type")
        XCTAssertEqual(document?.diagnostics.count, 3)
        let rules = document?.entries.first?.rules ?? []
        XCTAssertEqual(rules.map(\.index), [1, 3])
        XCTAssertEqual(rules.map(\.keys.path), ["/a", "/b"])
        XCTAssertEqual(rules.map(\.keys.exclude), [false, true])
    }

    func test_details_nonObjectEntriesAreSkippedAndIndicesKept() {
        let document = decode(
            #"""
            {"applinks":{"details":[
              {"appID":"T.a","components":[{"/":"/zero"}]},
              "T.b",
              42,
              {"appID":"T.b","components":[{"/":"/three"}]}
            ]}}
            """#)
        assertDiagnostic(document, at: entryPath(1), code: "wrong-type")
        assertDiagnostic(document, at: entryPath(2), code: "wrong-type")
        XCTAssertEqual(document?.diagnostics.count, 2)
        XCTAssertEqual(document?.entries.map(\.index), [0, 3])
    }

    func test_details_wrongTypeGivesNoEntries() {
        let document = decode(#"{"applinks":{"details":"T.a"}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "details", code: "wrong-type")
        XCTAssertEqual(document?.entries.count, 0)
    }

    func test_rest_ofTheDocumentStillMatchesAfterSkips() throws {
        let document = try XCTUnwrap(
            decode(
                #"""
                {"applinks":{"details":[
                  7,
                  {"appID":"T.a","components":["junk",{"/":"/buy/*","exclude":"yes"},{"/":"/ok"}]}
                ]}}
                """#))
        let decision = try ReferenceMatcher(document: document, domain: "example.com").decide("https://example.com/buy/1")
        // The wrong-typed `exclude` is absent, so rule 1 matches (not excludes).
        XCTAssertEqual(decision.decisions, [AppDecision(app: "T.a", kind: .match, entry: 1, rule: 1)])
    }

    // MARK: Rule keys

    func test_ruleKeys_wrongTypedPatternsAreAbsent() {
        let document = decode(
            ##"{"applinks":{"details":[{"appID":"T.a","components":[{"/":1,"?":2,"#":["x"]}]}]}}"##)
        let rule = entryPath(0) / "components" / 0
        assertDiagnostic(document, at: rule / "/", code: "wrong-type")
        assertDiagnostic(document, at: rule / "?", code: "wrong-type")
        assertDiagnostic(document, at: rule / "#", code: "wrong-type")
        XCTAssertEqual(document?.diagnostics.count, 3)
        XCTAssertEqual(document?.entries.first?.rules.first?.keys, RuleKeys())
    }

    func test_ruleKeys_queryAsArrayOrBoolIsWrongType() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":[{"?":["a"]},{"?":true},{"?":null}]}]}}"#)
        for index in 0..<3 {
            assertDiagnostic(document, at: entryPath(0) / "components" / index / "?", code: "wrong-type")
        }
        XCTAssertEqual(document?.entries.first?.rules.map(\.keys.query), [nil, nil, nil])
    }

    func test_flags_numberOneAndStringTrueAreWrongTyped() {
        let document = decode(
            #"""
            {"applinks":{"details":[{"appID":"T.a","components":[
              {"exclude":1,"caseSensitive":"true","percentEncoded":0},
              {"exclude":true,"caseSensitive":false,"percentEncoded":false},
              {"exclude":"false","caseSensitive":null,"percentEncoded":[true]}
            ]}]}}
            """#)
        let components = entryPath(0) / "components"
        for key in ["exclude", "caseSensitive", "percentEncoded"] {
            assertDiagnostic(document, at: components / 0 / key, code: "wrong-type", severity: .error)
            assertDiagnostic(document, at: components / 2 / key, code: "wrong-type", severity: .error)
        }
        XCTAssertEqual(document?.diagnostics.count, 6)
        let keys = document?.entries.first?.rules.map(\.keys) ?? []
        XCTAssertEqual(keys.count, 3)
        XCTAssertEqual(keys.first, RuleKeys())
        XCTAssertEqual(keys.dropFirst().first, RuleKeys(exclude: true, caseSensitive: false, percentEncoded: false))
        XCTAssertEqual(keys.last, RuleKeys())
    }

    func test_flags_wrongTypedMessageNamesWhatWasFound() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","components":[{"exclude":1}]}]}}"#)
        let found = assertDiagnostic(document, at: entryPath(0) / "components" / 0 / "exclude", code: "wrong-type")
        XCTAssertTrue(found?.message.contains("a number") ?? false, found?.message ?? "")
    }

    func test_comment_wrongTypeIsDiagnosedButTheRuleStays() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/a","comment":3}]}]}}"#)
        assertDiagnostic(document, at: entryPath(0) / "components" / 0 / "comment", code: "wrong-type")
        XCTAssertEqual(document?.entries.first?.rules.first?.keys.path, "/a")
        XCTAssertNil(document?.entries.first?.rules.first?.comment)
    }

    func test_emptyRule_hasNoKeys() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","components":[{}]}]}}"#)
        assertNoDiagnostics(document)
        XCTAssertEqual(document?.entries.first?.rules.first?.keys, RuleKeys())
    }

    // MARK: Defaults

    func test_defaults_wrongTypeAtBothLevels() {
        let document = decode(
            #"{"applinks":{"defaults":"x","details":[{"appID":"T.a","defaults":[],"components":[{}]}]}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "defaults", code: "wrong-type")
        assertDiagnostic(document, at: entryPath(0) / "defaults", code: "wrong-type")
        XCTAssertEqual(document?.diagnostics.count, 2)
        XCTAssertEqual(document?.applinks?.defaults, RuleKeys())
        XCTAssertEqual(document?.entries.first?.defaults, RuleKeys())
    }

    func test_defaults_wrongTypedKeysInsideAreAbsent() {
        let document = decode(
            #"""
            {"applinks":{"defaults":{"/":5,"?":true,"#":{},"exclude":"true","caseSensitive":1,"percentEncoded":false},
              "details":[]}}
            """#)
        let defaults = JSONPath.root / "applinks" / "defaults"
        for key in ["/", "?", "#", "exclude", "caseSensitive"] {
            assertDiagnostic(document, at: defaults / key, code: "wrong-type")
        }
        XCTAssertEqual(document?.diagnostics.count, 5)
        XCTAssertEqual(document?.applinks?.defaults, RuleKeys(percentEncoded: false))
    }

    func test_defaults_commentIsUnknownThere() {
        let document = decode(#"{"applinks":{"defaults":{"comment":"x"},"details":[]}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "defaults" / "comment", code: "unknown-key")
    }

    // MARK: Query dictionaries

    func test_query_nonStringPredicateVoidsTheDictionary() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":[{"?":{"a":"1","b":2,"c":"3"}}]}]}}"#)
        assertDiagnostic(
            document, at: entryPath(0) / "components" / 0 / "?" / "b", code: "query-predicate-not-string",
            severity: .error)
        XCTAssertEqual(document?.diagnostics.count, 1)
        XCTAssertEqual(document?.entries.first?.rules.first?.keys.query, .voided)
    }

    func test_query_everyNonStringKindVoids() {
        for value in ["true", "null", "1", "[]", "{}", #"["a"]"#] {
            let document = decode(
                #"{"applinks":{"details":[{"appID":"T.a","components":[{"?":{"a":"# + value + #"}}]}]}}"#)
            XCTAssertEqual(document?.entries.first?.rules.first?.keys.query, .voided, value)
            assertDiagnostic(
                document, at: entryPath(0) / "components" / 0 / "?" / "a", code: "query-predicate-not-string")
        }
    }

    func test_query_itemsAreSortedByNameAndLastDuplicateWins() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":[{"?":{"b":"1","a":"2","b":"3"}}]}]}}"#)
        XCTAssertEqual(
            document?.entries.first?.rules.first?.keys.query,
            .items([QueryItemPredicate(name: "a", pattern: "2"), QueryItemPredicate(name: "b", pattern: "3")]))
    }

    func test_query_voidedInDefaultsIsAValueAtThatLevel() {
        let document = decode(#"{"applinks":{"defaults":{"?":{"a":1}},"details":[]}}"#)
        XCTAssertEqual(document?.applinks?.defaults.query, .voided)
        assertDiagnostic(document, at: .root / "applinks" / "defaults" / "?" / "a", code: "query-predicate-not-string")
    }

    // MARK: Unknown keys

    func test_unknownKey_nearMissSuggestsTheKnownSpelling() {
        let document = decode(
            #"{"applinks":{"details":[{"appID":"T.a","components":[{"casesensitive":false}]}]}}"#)
        let found = assertDiagnostic(
            document, at: entryPath(0) / "components" / 0 / "casesensitive", code: "unknown-key", severity: .warning)
        XCTAssertTrue(found?.message.contains(#"did you mean "caseSensitive""#) ?? false, found?.message ?? "")
        // And the misspelt flag has no effect.
        XCTAssertEqual(document?.entries.first?.rules.first?.keys, RuleKeys())
    }

    func test_unknownKey_suggestionsAtEveryLevel() {
        let document = decode(
            #"""
            {"applink":{},"applinks":{"detail":[],"details":[{"appId":"T.a","component":[],
              "components":[{"percentEncode":true,"exlude":true}]}]}}
            """#)
        let cases: [(JSONPath, String)] = [
            (.root / "applink", "applinks"),
            (.root / "applinks" / "detail", "details"),
            (entryPath(0) / "appId", "appID"),
            (entryPath(0) / "component", "components"),
            (entryPath(0) / "components" / 0 / "percentEncode", "percentEncoded"),
            (entryPath(0) / "components" / 0 / "exlude", "exclude"),
        ]
        for (path, suggestion) in cases {
            let found = assertDiagnostic(document, at: path, code: "unknown-key")
            XCTAssertTrue(found?.message.contains("did you mean \"\(suggestion)\"") ?? false, "\(path): \(found?.message ?? "")")
        }
        XCTAssertEqual(document?.diagnostics.count, cases.count)
    }

    func test_unknownKey_farFromAnyKeyHasNoSuggestion() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","components":[{"zzzzzzzzzz":1}]}]}}"#)
        let found = assertDiagnostic(document, at: entryPath(0) / "components" / 0 / "zzzzzzzzzz", code: "unknown-key")
        XCTAssertFalse(found?.message.contains("did you mean") ?? true, found?.message ?? "")
    }

    func test_unknownKey_pathDescriptionQuotesNonIdentifierKeys() {
        let document = decode(#"{"applinks":{"details":[{"appID":"T.a","components":[{"/":1}]}]}}"#)
        XCTAssertEqual(
            document?.diagnostics.map(\.path.description), [#"applinks.details[0].components[0]["/"]"#])
    }

    // MARK: applinks.apps

    func test_apps_nonEmptyWarns() {
        let document = decode(#"{"applinks":{"apps":["T.a"],"details":[]}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "apps", code: "apps-not-empty", severity: .warning)
        XCTAssertEqual(document?.appIDs, [], "legacy apps contents are ignored")
    }

    func test_apps_emptyIsSilent() {
        assertNoDiagnostics(decode(#"{"applinks":{"apps":[],"details":[]}}"#))
    }

    func test_apps_wrongTypeIsDiagnosed() {
        let document = decode(#"{"applinks":{"apps":"T.a","details":[]}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "apps", code: "wrong-type")
    }

    // MARK: Substitution variables

    func test_variables_invalidNamesAreSkipped() {
        let document = decode(
            #"{"applinks":{"substitutionVariables":{"a$b":["x"],"a(b":["x"],"c)":["x"],"ok name":["x","y"]},"details":[]}}"#)
        let variables = JSONPath.root / "applinks" / "substitutionVariables"
        for name in ["a$b", "a(b", "c)"] {
            assertDiagnostic(document, at: variables / name, code: "invalid-variable-name", severity: .error)
        }
        XCTAssertEqual(document?.diagnostics.count, 3)
        XCTAssertEqual(document?.applinks?.substitutionVariables.names, ["ok name"])
        XCTAssertEqual(document?.applinks?.substitutionVariables["ok name"], ["x", "y"])
    }

    func test_variables_wrongTypedValuesAreSkipped() {
        let document = decode(
            #"{"applinks":{"substitutionVariables":{"a":"x","b":["x",1,"y"],"c":{}},"details":[]}}"#)
        let variables = JSONPath.root / "applinks" / "substitutionVariables"
        assertDiagnostic(document, at: variables / "a", code: "wrong-type")
        assertDiagnostic(document, at: variables / "b" / 1, code: "wrong-type")
        assertDiagnostic(document, at: variables / "c", code: "wrong-type")
        XCTAssertEqual(document?.applinks?.substitutionVariables.names, ["b"])
        XCTAssertEqual(document?.applinks?.substitutionVariables["b"], ["x", "y"])
    }

    func test_variables_wrongTypeOfTheWholeObject() {
        let document = decode(#"{"applinks":{"substitutionVariables":[["x"]],"details":[]}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "substitutionVariables", code: "wrong-type")
        XCTAssertEqual(document?.applinks?.substitutionVariables.names, [])
    }

    // MARK: Legacy details dictionary

    func test_legacyDetails_sortedKeyOrderNumbersTheEntries() {
        let document = decode(
            #"""
            {"applinks":{"apps":[],"details":{
              "T.b":{"paths":["/b"]},
              "T.a":{"paths":["/a"]},
              "T.C":{"paths":["/C"]}
            }}}
            """#)
        assertNoDiagnostics(document)
        // Byte order: upper case sorts before lower case.
        XCTAssertEqual(document?.entries.map(\.appIDs), [["T.C"], ["T.a"], ["T.b"]])
        XCTAssertEqual(document?.entries.map(\.index), [0, 1, 2])
        XCTAssertEqual(document?.entries.map { $0.rules.map(\.keys.path) }, [["/C"], ["/a"], ["/b"]])
        XCTAssertEqual(document?.appIDs, ["T.C", "T.a", "T.b"])
    }

    func test_legacyDetails_appOrderIsKeyThenAppIDThenAppIDs() {
        let document = decode(
            #"""
            {"applinks":{"details":{
              "T.z":{"appIDs":["T.y","T.x"],"appID":"T.w","paths":["*"]},
              "T.a":{"appIDs":["T.z"],"paths":["*"]}
            }}}
            """#)
        XCTAssertEqual(document?.entries.map(\.appIDs), [["T.a", "T.z"], ["T.z", "T.w", "T.y", "T.x"]])
        XCTAssertEqual(document?.appIDs, ["T.a", "T.z", "T.w", "T.y", "T.x"])
    }

    func test_legacyDetails_nonObjectValueIsSkippedButKeepsItsPosition() {
        let document = decode(#"{"applinks":{"details":{"T.a":{"paths":["*"]},"T.b":["/x"],"T.c":{"paths":["*"]}}}}"#)
        assertDiagnostic(document, at: .root / "applinks" / "details" / "T.b", code: "wrong-type")
        XCTAssertEqual(document?.entries.map(\.appIDs), [["T.a"], ["T.c"]])
        XCTAssertEqual(document?.entries.map(\.index), [0, 2])
    }

    func test_legacyDetails_matchReportsTheSortedIndex() throws {
        let document = try XCTUnwrap(
            decode(#"{"applinks":{"details":{"T.b":{"paths":["/b"]},"T.a":{"paths":["NOT /b","*"]}}}}"#))
        let decision = try ReferenceMatcher(document: document, domain: "example.com").decide("https://example.com/b")
        XCTAssertEqual(
            decision.decisions,
            [
                AppDecision(app: "T.a", kind: .exclude, entry: 0, rule: 0),
                AppDecision(app: "T.b", kind: .match, entry: 1, rule: 0),
            ])
    }

    // MARK: Services

    func test_otherServices_appListsAreKeptAndNotMatched() {
        let document = decode(
            #"""
            {"webcredentials":{"apps":["T.web"]},"appclips":{"apps":["T.clip","T.clip2"]},
             "activitycontinuation":{"apps":[]},"applinks":{"details":[{"appID":"T.a","components":[{}]}]}}
            """#)
        assertNoDiagnostics(document)
        XCTAssertEqual(
            document?.otherServices,
            ["webcredentials": ["T.web"], "appclips": ["T.clip", "T.clip2"], "activitycontinuation": []])
        XCTAssertEqual(document?.appIDs, ["T.a"])
    }

    func test_otherServices_wrongTypesAreDiagnosed() {
        let document = decode(
            #"{"webcredentials":["T.a"],"appclips":{"apps":"T.b","extra":1},"activitycontinuation":{"apps":[1,"T.c"]}}"#)
        assertDiagnostic(document, at: .root / "webcredentials", code: "wrong-type")
        assertDiagnostic(document, at: .root / "appclips" / "apps", code: "wrong-type")
        assertDiagnostic(document, at: .root / "appclips" / "extra", code: "unknown-key")
        assertDiagnostic(document, at: .root / "activitycontinuation" / "apps" / 0, code: "wrong-type")
        XCTAssertEqual(document?.otherServices["activitycontinuation"], ["T.c"])
        XCTAssertEqual(document?.otherServices["appclips"], [])
        XCTAssertNil(document?.otherServices["webcredentials"])
        XCTAssertNil(document?.applinks)
    }

    func test_applinks_wrongTypeIsAbsent() {
        let document = decode(#"{"applinks":["T.a"]}"#)
        assertDiagnostic(document, at: .root / "applinks", code: "wrong-type")
        XCTAssertNil(document?.applinks)
        XCTAssertEqual(document?.appIDs, [])
    }

    // MARK: Whole-document failures

    /// A valid document of exactly `size` bytes (padded with spaces inside the object).
    private func document(ofSize size: Int) -> [UInt8] {
        let head = Array(#"{"applinks":{"details":[]}"#.utf8)
        let tail = Array("}".utf8)
        precondition(size >= head.count + tail.count, "size too small for the document skeleton")
        return head + [UInt8](repeating: UInt8(ascii: " "), count: size - head.count - tail.count) + tail
    }

    func test_size_defaultLimitIsInclusive() throws {
        let exactly = document(ofSize: 131_072)
        XCTAssertEqual(exactly.count, 131_072)
        XCTAssertNotNil(try AASADocument(bytes: exactly).applinks)
        XCTAssertEqual(documentError(document(ofSize: 131_073)), .tooLarge(size: 131_073, limit: 131_072))
    }

    func test_size_configuredLimitIsInclusive() throws {
        var configuration = Configuration()
        configuration.document.maxBytes = 100
        XCTAssertNotNil(try AASADocument(bytes: document(ofSize: 100), configuration: configuration).applinks)
        let error = documentError(document(ofSize: 101), configuration: configuration)
        XCTAssertEqual(error, .tooLarge(size: 101, limit: 100))
        XCTAssertEqual(error?.code, "too-large")
    }

    func test_bom_isAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"applinks":{"details":[{"appID":"T.a","paths":["*"]}]}}"#.utf8)
        let document = try AASADocument(bytes: bytes)
        XCTAssertEqual(document.appIDs, ["T.a"])
        XCTAssertEqual(document.diagnostics, [])
    }

    func test_root_nonObjectFails() {
        let cases: [(String, String)] = [
            ("[]", "an array"), (#""applinks""#, "a string"), ("1", "a number"), ("true", "a boolean"),
            ("null", "null"),
        ]
        for (text, found) in cases {
            let error = documentError(Array(text.utf8))
            XCTAssertEqual(error, .rootNotObject(found: found), text)
            XCTAssertEqual(error?.code, "root-not-object", text)
        }
    }

    func test_json_invalidFails() {
        let cases = [
            "", "{", #"{"applinks":}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#, "{\"a\":[1,]}", "{'a':1}",
            #"{"a":1} x"#, "{\"a\":\"\u{1}\"}",
        ]
        for text in cases {
            let error = documentError(Array(text.utf8))
            guard case .invalidJSON? = error else {
                XCTFail("\(text.debugDescription): expected invalidJSON, got \(String(describing: error))")
                continue
            }
            XCTAssertEqual(error?.code, "invalid-json")
        }
    }

    func test_json_invalidUTF8Fails() {
        let bytes: [UInt8] = Array(#"{"applinks":{"details":[{"appID":""#.utf8) + [0xFF] + Array(#""}]}}"#.utf8)
        guard case .invalidJSON? = documentError(bytes) else {
            return XCTFail("invalid UTF-8 inside a string must fail the document")
        }
    }

    func test_json_tooDeepFails() {
        var configuration = Configuration()
        configuration.document.maxJSONDepth = 3
        XCTAssertNotNil(decode(#"{"applinks":{"details":[]}}"#, configuration: configuration))
        guard case .invalidJSON(let parse)? = documentError(Array(#"{"applinks":{"details":[[]]}}"#.utf8), configuration: configuration)
        else {
            return XCTFail("nesting over the limit must fail the document")
        }
        XCTAssertEqual(parse.kind, .tooDeep(limit: 3))
    }
}
