import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Documents written to hurt (STYLE habit 10): broken JSON, wrong types everywhere, huge files,
/// deep nesting, pathological patterns, many rules, huge variables. Each must give an answer or
/// a typed error, never a crash or a hang. Times are measured only as a hang guard with a
/// generous bound; they are not speed claims.
final class HostileDocumentTests: XCTestCase {
    /// Hang guard: far above anything a working engine needs, even in a debug build.
    private let hangGuard: TimeInterval = 20

    // MARK: Helpers

    private func timed<T>(
        _ what: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
    ) rethrows -> T {
        let start = Date()
        let result = try body()
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertLessThan(elapsed, hangGuard, "\(what) took \(elapsed) s", file: file, line: line)
        return result
    }

    private func load(_ text: String, maxDocumentBytes: Int? = nil) throws(DocumentError) -> AASADocument {
        try load(Array(text.utf8), maxDocumentBytes: maxDocumentBytes)
    }

    /// A raised `maxDocumentBytes` lifts the pattern limits too: these tests are about what the
    /// engine does behind every document limit, so nothing but the size may stop them.
    private func load(_ bytes: [UInt8], maxDocumentBytes: Int? = nil) throws(DocumentError) -> AASADocument {
        var configuration = Configuration()
        if let maxDocumentBytes {
            configuration.document.maxBytes = maxDocumentBytes
            configuration.document.maxPatterns = .max
            configuration.document.maxPatternBytes = maxDocumentBytes
        }
        return try AASADocument(bytes: bytes, configuration: configuration)
    }

    private func loadError(_ bytes: [UInt8], maxDocumentBytes: Int? = nil) -> DocumentError? {
        do {
            _ = try load(bytes, maxDocumentBytes: maxDocumentBytes)
            return nil
        } catch {
            return error
        }
    }

    /// Both engines for one document and domain.
    private func engines(_ document: AASADocument, domain: String = "example.com") throws -> (
        reference: ReferenceMatcher, dfa: DFAMatcher
    ) {
        // The work budget is raised out of the way: these tests pin that the automata agree with
        // the reference however hard a document is (`WorkBudgetTests` pins the budget itself).
        var configuration = Configuration()
        configuration.automata.maxURLWork = Configuration.Limit.ceiling
        return (
            ReferenceMatcher(document: document, domain: domain),
            DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: configuration))
        )
    }

    /// Decides `url` on both engines, asserts they agree, and returns the reference's answer.
    @discardableResult
    private func agree(
        _ engines: (reference: ReferenceMatcher, dfa: DFAMatcher), _ url: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> URLDecision {
        let label = url.count > 80 ? "\(url.prefix(60))… (\(url.utf8.count) bytes)" : url
        let reference = try timed("reference on \(label)", file: file, line: line) {
            try engines.reference.decide(url, app: nil)
        }
        let dfa = try timed("dfa on \(label)", file: file, line: line) { try engines.dfa.decide(url, app: nil) }
        XCTAssertEqual(dfa, reference, "engines disagree on \(label)", file: file, line: line)
        return reference
    }

    // MARK: Invalid JSON

    func test_invalidJSON_variousBrokenDocumentsFailCleanly() {
        let cases: [[UInt8]] = [
            Array("{".utf8),
            Array(#"{"applinks":{"details":[{"appID":"T.a","paths":["/a",]}]}}"#.utf8),
            Array(#"{"applinks":{"details":[{"appID":"T.a","paths":["/a"]}]}"#.utf8),
            Array("{\u{201C}applinks\u{201D}:{}}".utf8),
            Array("---\ntitle: x\n---\n{}".utf8),
            Array(#"{"a":"\ud800"}"#.utf8),
            Array(#"{"a":"\x"}"#.utf8),
            Array(#"{"a":01}"#.utf8),
            Array(#"{"a":-}"#.utf8),
            Array("{\"a\":\"".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 100_000),
            [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00],
            [0xEF, 0xBB, 0xBF],
            [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x7B, 0x7D],
            [0x00],
        ]
        for bytes in cases {
            let error = timed("parse of \(bytes.prefix(20))") { loadError(bytes) }
            guard case .invalidJSON? = error else {
                XCTFail("\(String(decoding: bytes.prefix(40), as: UTF8.self).debugDescription): expected invalidJSON, got \(String(describing: error))")
                continue
            }
        }
    }

    // MARK: Wrong types everywhere

    func test_wrongTypes_atTheTopLevelGiveDiagnosticsAndNoApps() throws {
        let document = try load(#"{"applinks":1,"webcredentials":"x","appclips":[],"activitycontinuation":null}"#)
        XCTAssertEqual(
            Set(document.diagnostics.map(\.path.description)),
            ["applinks", "webcredentials", "appclips", "activitycontinuation"])
        XCTAssertTrue(document.diagnostics.allSatisfy { $0.code == "wrong-type" })
        XCTAssertNil(document.applinks)
        let both = try engines(document)
        for url in ["https://example.com/", "https://example.com/a?b#c"] {
            XCTAssertEqual(try agree(both, url).decisions, [])
        }
    }

    /// Every value in the document has the wrong type for its key: no app is named, no rule
    /// exists, every skip is diagnosed at its path, and nothing matches.
    func test_wrongTypes_everywhereGiveDiagnosticsAndMatchNothing() throws {
        let text = #"""
            {"applinks":{
               "apps":"T.x",
               "defaults":["/*"],
               "substitutionVariables":{"v":"x","w":[1],"x(":["a"]},
               "details":[
                 1, "T.a", null, true, [],
                 {"appID":5,"appIDs":"T.b","components":{"/":"*"},"paths":7,"defaults":[]},
                 {"appID":["T.c"],"appIDs":[1,null,{}],"components":[1,"x",null,[]],"defaults":"x"},
                 {"appID":null,"appIDs":{},"components":"*","paths":[1,{},[],null]}
               ]},
             "webcredentials":{"apps":"T.w"},
             "appclips":{"apps":[1]},
             "activitycontinuation":[]}
            """#
        let document = try load(text)
        let expectedPaths: Set<String> = [
            "applinks.apps", "applinks.defaults",
            "applinks.substitutionVariables.v", "applinks.substitutionVariables.w[0]",
            #"applinks.substitutionVariables["x("]"#,
            "applinks.details[0]", "applinks.details[1]", "applinks.details[2]", "applinks.details[3]",
            "applinks.details[4]",
            "applinks.details[5].appID", "applinks.details[5].appIDs", "applinks.details[5].components",
            "applinks.details[5].paths", "applinks.details[5].defaults",
            "applinks.details[6].appID", "applinks.details[6].appIDs[0]", "applinks.details[6].appIDs[1]",
            "applinks.details[6].appIDs[2]", "applinks.details[6].components[0]",
            "applinks.details[6].components[1]", "applinks.details[6].components[2]",
            "applinks.details[6].components[3]", "applinks.details[6].defaults",
            "applinks.details[7].appID", "applinks.details[7].appIDs", "applinks.details[7].components",
            "applinks.details[7].paths[0]", "applinks.details[7].paths[1]", "applinks.details[7].paths[2]",
            "applinks.details[7].paths[3]",
            "webcredentials.apps", "appclips.apps[0]", "activitycontinuation",
        ]
        let found = document.diagnostics.map(\.path.description)
        XCTAssertEqual(Set(found), expectedPaths)
        XCTAssertEqual(found.count, expectedPaths.count, "one diagnostic per skipped piece: \(found)")
        XCTAssertTrue(document.diagnostics.allSatisfy { $0.severity == .error }, "\(document.diagnostics)")
        XCTAssertEqual(document.appIDs, [])
        XCTAssertEqual(document.entries.flatMap(\.rules).count, 0)
        let both = try engines(document)
        for url in ["https://example.com/", "https://example.com/a/b?c=d#e", "https://EXAMPLE.com"] {
            XCTAssertEqual(try agree(both, url).matchedApps, [])
            XCTAssertEqual(try both.dfa.decide(url, app: "T.b").decisions, [AppDecision(app: "T.b", kind: .noMatch)])
            XCTAssertEqual(try both.reference.decide(url, app: "T.b").decisions, [AppDecision(app: "T.b", kind: .noMatch)])
        }
    }

    /// An app whose every rule was skipped has no rule left: `no_match` everywhere.
    func test_wrongTypes_appWithOnlySkippedRulesMatchesNothing() throws {
        let document = try load(
            #"{"applinks":{"details":[{"appID":"T.a","components":[1,"/x",null,[{}]]},{"appID":"T.a","paths":[1,{}]}]}}"#)
        XCTAssertEqual(document.diagnostics.count, 6)
        let both = try engines(document)
        for url in ["https://example.com/", "https://example.com/x", "https://example.com/a?b#c"] {
            XCTAssertEqual(try agree(both, url).decisions, [AppDecision(app: "T.a", kind: .noMatch)])
        }
    }

    /// The flip side of SPEC 2: a rule object whose every key is wrong-typed is `{}` and
    /// matches every URL, on both engines.
    func test_wrongTypes_ruleWithOnlyWrongTypedKeysIsEmptyAndMatchesAll() throws {
        let document = try load(
            #"""
            {"applinks":{"details":[{"appID":"T.a","components":[
              {"/":1,"?":true,"#":[],"exclude":"true","caseSensitive":1,"percentEncoded":null}]}]}}
            """#)
        XCTAssertEqual(document.diagnostics.count, 6)
        let both = try engines(document)
        for url in ["https://example.com/", "https://example.com/x/y?z=1#f"] {
            XCTAssertEqual(try agree(both, url).decisions, [AppDecision(app: "T.a", kind: .match, entry: 0, rule: 0)])
        }
    }

    // MARK: Size

    func test_size_tenMegabytesAreRefusedAtTheDefaultLimit() {
        var bytes = [UInt8](repeating: UInt8(ascii: " "), count: 10 << 20)
        bytes[0] = UInt8(ascii: "{")
        bytes[bytes.count - 1] = UInt8(ascii: "}")
        let error = timed("refusing 10 MB") { loadError(bytes) }
        XCTAssertEqual(error, .tooLarge(size: 10 << 20, limit: 131_072))
    }

    func test_size_tenMegabytesOfRulesParseWithARaisedLimit() throws {
        var text = #"{"applinks":{"details":[{"appID":"T.a","components":["#
        var count = 0
        while text.utf8.count < 10 << 20 {
            if count > 0 { text += "," }
            text += ##"{"/":"/path/\##(count)/*","?":{"k":"v\##(count)*"},"#":"f\##(count)","comment":"rule number \##(count)"}"##
            count += 1
        }
        text += "]}]}}"
        let bytes = Array(text.utf8)
        XCTAssertGreaterThanOrEqual(bytes.count, 10 << 20)
        XCTAssertEqual(loadError(bytes), .tooLarge(size: bytes.count, limit: 131_072))
        let document = try timed("parsing 10 MB") { try load(bytes, maxDocumentBytes: 16 << 20) }
        XCTAssertEqual(document.diagnostics, [])
        let rules = document.entries.first?.rules ?? []
        XCTAssertEqual(rules.count, count)
        XCTAssertEqual(rules.last?.index, count - 1)
        XCTAssertEqual(rules.last?.keys.path, "/path/\(count - 1)/*")
        XCTAssertEqual(rules.last?.keys.query, .items([QueryItemPredicate(name: "k", pattern: "v\(count - 1)*")]))
        XCTAssertEqual(rules.last?.comment, "rule number \(count - 1)")
        XCTAssertEqual(rules.last?.keys.fragment, "f\(count - 1)")
    }

    // MARK: Nesting

    func test_nesting_tenThousandArraysFailFast() {
        let bytes = Array(#"{"applinks":{"details":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 10_000)
            + [UInt8](repeating: UInt8(ascii: "]"), count: 10_000) + Array("}}".utf8)
        let error = timed("10 000 nested arrays") { loadError(bytes) }
        guard case .invalidJSON(let parse)? = error else {
            return XCTFail("expected invalidJSON, got \(String(describing: error))")
        }
        XCTAssertEqual(parse.kind, .tooDeep(limit: 512))
    }

    func test_nesting_tenThousandUnclosedArraysFailFast() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 10_000)
        guard case .invalidJSON(let parse)? = timed("10 000 unclosed arrays", { loadError(bytes) }) else {
            return XCTFail("expected invalidJSON")
        }
        XCTAssertEqual(parse.kind, .tooDeep(limit: 512))
    }

    func test_nesting_tenThousandObjectsFailFast() {
        let bytes = Array(String(repeating: #"{"a":"#, count: 10_000).utf8) + Array("1".utf8)
            + [UInt8](repeating: UInt8(ascii: "}"), count: 10_000)
        guard case .invalidJSON(let parse)? = timed("10 000 nested objects", { loadError(bytes) }) else {
            return XCTFail("expected invalidJSON")
        }
        XCTAssertEqual(parse.kind, .tooDeep(limit: 512))
    }

    func test_nesting_exactlyTheLimitStillLoads() throws {
        // The root object is depth 1; 511 arrays inside it reach depth 512.
        let bytes = Array(#"{"x":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 511)
            + [UInt8](repeating: UInt8(ascii: "]"), count: 511) + Array("}".utf8)
        let document = try load(bytes)
        XCTAssertEqual(document.diagnostics.map(\.code), ["unknown-key"])
    }

    // MARK: Pathological patterns

    private func singleRuleDocument(path pattern: String) throws -> AASADocument {
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"\#(pattern)"}]}]}}"#
        return try load(text, maxDocumentBytes: 1 << 20)
    }

    func test_patterns_hundredThousandStarsAgainstALongPath() throws {
        let document = try singleRuleDocument(path: String(repeating: "*", count: 100_000))
        let both = try timed("compiling 100 000 stars") { try engines(document) }
        let longPath = "https://example.com/" + String(repeating: "x/", count: 4_999) + "y"
        XCTAssertEqual(longPath.utf8.count - "https://example.com".utf8.count, 10_000)
        XCTAssertEqual(try agree(both, longPath).matchedApps, ["T.a"])
        XCTAssertEqual(try agree(both, "https://example.com").matchedApps, ["T.a"])
        XCTAssertEqual(try agree(both, "https://example.com/?q#f").matchedApps, ["T.a"])
    }

    /// A `literal * literal` rule with a 400 000-byte prefix of its own, under the default
    /// split minimum: deciding whether it stays whole looks at its prefix once (checking every
    /// prefix of it against the patterns with a pending `*` by copying each was quadratic).
    func test_patterns_splitCandidateWithAHugePrefixCompilesAndDecides() throws {
        let head = String(repeating: "a", count: 400_000)
        let components = [#"{"/": "/\#(head)*x"}"#, #"{"/": "/b*c*d"}"#, #"{"/": "/aa*y"}"#].joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[\#(components)]}]}}"#
        let document = try load(text, maxDocumentBytes: 1 << 20)
        let both = try timed("compiling a split candidate with a 400 000-byte prefix") { try engines(document) }
        let long = try timed("deciding a 400 kB URL") { try both.dfa.decide("https://example.com/" + head + "zx", app: nil) }
        XCTAssertEqual(long.matchedApps, ["T.a"])
        XCTAssertEqual(try agree(both, "https://example.com/aa1y").matchedApps, ["T.a"])
        XCTAssertEqual(try agree(both, "https://example.com/aa1z").matchedApps, [])
    }

    /// 32 split rules (`literal * literal`), one with a 400 000-byte suffix: a chain of 400 000
    /// single-child nodes in the reversed-suffix trie, folded into one run; a run analysis
    /// started again inside the chain would be quadratic (8 × 10^10 steps).
    func test_patterns_splitRuleWithAHugeSuffixCompilesAndDecides() throws {
        let tail = String(repeating: "x", count: 400_000)
        // Prefixes shared by several rules: split (a prefix of its own would stay whole).
        let short = (0..<31).map { #"{"/": "/p\#($0 % 2)/*\#($0)-end"}"# }
        let components = (short + [#"{"/": "/p1/*-\#(tail)"}"#]).joined(separator: ",")
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[\#(components)]}]}}"#
        let document = try load(text, maxDocumentBytes: 1 << 20)
        let both = try timed("compiling a split rule with a 400 000-byte suffix") { try engines(document) }
        XCTAssertEqual(both.dfa.compiled.splitPatternCount, 32)
        // The compiled engine alone on the 400 kB URLs (the reference's backtracking takes
        // minutes there, which is not what this test is about).
        let long = try timed("deciding a 400 kB URL") { try both.dfa.decide("https://example.com/p1/a-" + tail, app: nil) }
        XCTAssertEqual(long.matchedApps, ["T.a"])
        let shorter = try timed("deciding a 400 kB URL") { try both.dfa.decide("https://example.com/p1/a-" + tail.dropLast(), app: nil) }
        XCTAssertEqual(shorter.matchedApps, [])
        XCTAssertEqual(try agree(both, "https://example.com/p1/a7-end").matchedApps, ["T.a"])
        XCTAssertEqual(try agree(both, "https://example.com/p1/-" + tail.prefix(20)).matchedApps, [])
    }

    func test_patterns_starAThousandsOfTimesThenB() throws {
        let pattern = String(repeating: "*a", count: 5_000) + "b"
        let document = try singleRuleDocument(path: pattern)
        let both = try timed("compiling *a x 5000 + b") { try engines(document) }
        let base = "https://example.com/"
        // 10 000-character paths: enough `a`s but no `b`; the `b` present; the `b` too early.
        let noB = base + String(repeating: "a", count: 9_999)
        let withB = base + String(repeating: "a", count: 9_998) + "b"
        let earlyB = base + String(repeating: "a", count: 4_998) + "b" + String(repeating: "a", count: 5_000)
        let fewA = base + String(repeating: "a", count: 4_999) + "b"
        let cases: [(url: String, apps: [String])] = [(noB, []), (withB, ["T.a"]), (earlyB, []), (fewA, [])]
        for (url, apps) in cases {
            let failuresBefore = testRun?.totalFailureCount ?? 0
            XCTAssertEqual(try agree(both, url).matchedApps, apps)
            // Once an engine trips the hang guard, the remaining URLs would only repeat the
            // finding at the same cost.
            if (testRun?.totalFailureCount ?? 0) > failuresBefore { break }
        }
    }

    // MARK: Many rules

    func test_manyRules_tenThousandRulesDecideTheRightOne() throws {
        var components: [String] = []
        var paths: [String] = []
        for index in 0..<10_000 {
            components.append(#"{"/":"/r/\#(index)/*"}"#)
            paths.append(#""NOT /r/\#(index)/x""#)
        }
        let text = #"""
            {"applinks":{"details":[
              {"appID":"T.a","components":[\#(components.joined(separator: ","))]},
              {"appID":"T.b","paths":[\#(paths.joined(separator: ","))]}]}}
            """#
        let document = try timed("parsing 20 000 rules") { try load(text, maxDocumentBytes: 1 << 20) }
        XCTAssertEqual(document.entries.map(\.rules.count), [10_000, 10_000])
        let both = try timed("compiling 20 000 rules") { try engines(document) }
        XCTAssertEqual(
            try agree(both, "https://example.com/r/9999/x").decisions,
            [
                AppDecision(app: "T.a", kind: .match, entry: 0, rule: 9_999),
                AppDecision(app: "T.b", kind: .exclude, entry: 1, rule: 9_999),
            ])
        XCTAssertEqual(
            try agree(both, "https://example.com/r/0").decisions,
            [AppDecision(app: "T.a", kind: .match, entry: 0, rule: 0), AppDecision(app: "T.b", kind: .noMatch)])
        XCTAssertEqual(
            try agree(both, "https://example.com/r/5000/x").decisions,
            [
                AppDecision(app: "T.a", kind: .match, entry: 0, rule: 5_000),
                AppDecision(app: "T.b", kind: .exclude, entry: 1, rule: 5_000),
            ])
        XCTAssertEqual(try agree(both, "https://example.com/r/10000/x").matchedApps, [])
        XCTAssertEqual(try agree(both, "https://example.com/nope").matchedApps, [])
    }

    // MARK: Huge variables

    func test_variables_thousandVariablesOfThousandValuesStayWithinTheCacheBudget() throws {
        var generator = RandomSource(seed: 20_240_601)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func word() -> String { String((0..<6).map { _ in letters[Int(generator.next() % 26)] }) }
        var values: [[String]] = []
        for _ in 0..<1_000 { values.append((0..<1_000).map { _ in word() }) }

        var text = #"{"applinks":{"substitutionVariables":{"#
        for (index, list) in values.enumerated() {
            if index > 0 { text += "," }
            text += "\"v\(index)\":[" + list.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
        text += #"""
            },"details":[{"appID":"T.a","components":[
              {"/":"/a/$(v0)/*"},
              {"/":"/b/$(v1)$(v2)"},
              {"/":"/c/*","?":{"id":"$(v998)"}},
              {"/":"/d","#":"$(v999)"},
              {"/":"/e/$(v500)/$(v501)/$(v502)/end"},
              {"/":"/f/$(v7)","caseSensitive":false}
            ]}]}}
            """#
        let bytes = Array(text.utf8)
        XCTAssertGreaterThan(bytes.count, 8 << 20)
        let document = try timed("parsing 1 000 000 variable values") { try load(bytes, maxDocumentBytes: 16 << 20) }
        XCTAssertEqual(document.diagnostics, [])
        XCTAssertEqual(document.applinks?.substitutionVariables.count, 1_000)
        XCTAssertEqual(document.applinks?.substitutionVariables["v999"], values[999])

        let both = try timed("compiling") { try engines(document) }
        func pick(_ variable: Int) -> String { values[variable][Int(generator.next() % 1_000)] }
        let host = "https://example.com"
        let cases: [(url: String, rule: Int?)] = [
            ("\(host)/a/\(pick(0))/rest/of/path", 0),
            ("\(host)/a/\(pick(0))", 0),
            ("\(host)/a/123456/x", nil),
            ("\(host)/a/\(pick(0).prefix(5))/x", nil),
            ("\(host)/b/\(pick(1))\(pick(2))", 1),
            ("\(host)/b/\(pick(2))\(pick(1))x", nil),
            ("\(host)/c/x?id=\(pick(998))", 2),
            ("\(host)/c/x?id=\(pick(998))&id=zzz999", nil),
            ("\(host)/d#\(pick(999))", 3),
            ("\(host)/d#\(pick(999))\(pick(999))", nil),
            ("\(host)/e/\(pick(500))/\(pick(501))/\(pick(502))/end", 4),
            ("\(host)/e/\(pick(500))/\(pick(502))/\(pick(501))/end", nil),
            ("\(host)/f/\(pick(7).uppercased())", 5),
            ("\(host)/f/\(pick(7))", 5),
        ]
        for (url, rule) in cases {
            let decision = try agree(both, url)
            if let rule {
                XCTAssertEqual(decision.decisions, [AppDecision(app: "T.a", kind: .match, entry: 0, rule: rule)], url)
            } else {
                XCTAssertEqual(decision.matchedApps, [], url)
            }
        }
        let statistics = both.dfa.cacheStatistics
        XCTAssertGreaterThan(statistics.statesBuilt, 0)
        XCTAssertEqual(statistics.clears, 0, "the default cache budget was exceeded: \(statistics)")
        XCTAssertEqual(statistics.fallbacks, 0, "a search fell back to NFA simulation: \(statistics)")
        XCTAssertLessThanOrEqual(statistics.memory, 12 * Configuration.default.automata.cacheCapacity)
    }
}
