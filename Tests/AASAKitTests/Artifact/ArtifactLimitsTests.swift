@testable import AASAKit
import XCTest
import _AASATestSupport

/// A compiled artifact is loaded under the limits it would have been compiled under, and
/// nothing `NFACompiler` cannot produce loads, even with a valid checksum (issue 18).
final class ArtifactLimitsTests: XCTestCase {
    func decode(_ bytes: [UInt8], configuration: Configuration = .default) throws -> [CompiledArtifact.Domain] {
        let result: Result<[CompiledArtifact.Domain], ArtifactError> = bytes.withUnsafeBytes { raw in
            do throws(ArtifactError) {
                return .success(try CompiledArtifact.decode(raw, configuration: configuration))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    func compiled(_ domains: [CompiledArtifact.Domain]) throws -> CompiledDocument {
        guard case .compiled(let document) = try XCTUnwrap(domains.first).state else { throw ArtifactError.corrupt("not compiled") }
        return document
    }

    /// Artifact bytes for `document` compiled as is, with no prebuilt tables (the NFAs are what
    /// these tests are about).
    func artifact(_ document: CompiledDocument) -> [UInt8] {
        let rules = ClassifierRules(artifact: [CompiledArtifact.Domain(name: document.domain, file: "test", state: .compiled(document))])
        var counts = CompiledArtifact.Counts()
        return CompiledArtifact.encode(rules, budget: .init(maxTableBytes: 0, maxStates: 0), counts: &counts)
    }

    func document(_ json: String, configuration: Configuration = .default) throws -> CompiledDocument {
        try CompiledDocument(
            document: try AASADocument(bytes: Array(json.utf8), configuration: configuration), domain: "x.example",
            configuration: configuration)
    }

    func configuration(_ change: (inout Configuration.Automata) -> Void) -> Configuration {
        var configuration = Configuration.default
        change(&configuration.automata)
        return configuration
    }

    static let variableDocument = #"""
        {"applinks": {"substitutionVariables": {"v": ["red", "green", "blue*"]},
         "details": [{"appID": "T.a", "components": [{"/": "/a/$(v)"}, {"/": "/b/$(v)/c"}, {"/": "/c/*/$(v)"}]}]}}
        """#

    // MARK: - Limits of compilation

    func test_decode_refusesAnAutomatonOverALoweredNFAStatesLimitAsCompilationDoes() throws {
        let source = try document(Self.variableDocument)
        let states = try XCTUnwrap(source.path.compactMap { $0 }.map(\.nfa.stateCount).max())
        let bytes = artifact(source)
        let lowered = configuration { $0.maxNFAStates = states - 1 }
        XCTAssertThrowsError(try decode(bytes, configuration: lowered)) {
            XCTAssertEqual($0 as? ArtifactError, .overLimit(.nfaStates, found: states, maximum: states - 1))
            XCTAssertTrue("\($0)".contains("over the nfa-states limit of \(states - 1) (raise it with --limit nfa-states=<n>)"), "\($0)")
        }
        XCTAssertThrowsError(try document(Self.variableDocument, configuration: lowered), "compilation refuses it too")
        XCTAssertNoThrow(try decode(bytes, configuration: configuration { $0.maxNFAStates = states }))
    }

    /// A variable called from the path, the query text or a query item, and the fragment, in
    /// two modes: six automata, each with its own copy of the variable.
    static let manyAutomataDocument = #"""
        {"applinks": {"substitutionVariables": {"v": ["red", "green", "blue*"]},
         "details": [{"appID": "T.a", "components": [
           {"/": "/a/$(v)", "?": "q=$(v)", "#": "$(v)"},
           {"/": "/b/$(v)", "?": {"k": "$(v)"}, "#": "f$(v)", "caseSensitive": false}]}]}}
        """#

    /// `nfa-states` holds for a document's automata together, as compiled and as loaded: a
    /// limit every automaton is under refuses them when their sum passes it.
    func test_nfaStatesLimit_holdsForTheDocumentsAutomataTogether() throws {
        let source = try document(Self.manyAutomataDocument)
        let total = source.nfaStateCount
        let largest = try XCTUnwrap(source.labelledAutomata.map(\.dfa.nfaStateCount).max())
        XCTAssertEqual(source.labelledAutomata.count, 6)
        XCTAssertLessThan(largest * 2, total, "no automaton holds half the states")
        let lowered = configuration { $0.maxNFAStates = total - 1 }
        XCTAssertThrowsError(try document(Self.manyAutomataDocument, configuration: lowered)) {
            XCTAssertEqual($0 as? AutomatonError, .tooManyNFAStates(needed: total, limit: total - 1))
            XCTAssertTrue("\($0)".contains("needs more than \(total - 1) automaton states"), "\($0)")
        }
        XCTAssertNoThrow(try document(Self.manyAutomataDocument, configuration: configuration { $0.maxNFAStates = total }))
        let bytes = artifact(source)
        XCTAssertThrowsError(try decode(bytes, configuration: lowered)) {
            XCTAssertEqual($0 as? ArtifactError, .overLimit(.nfaStates, found: total, maximum: total - 1))
        }
        XCTAssertNoThrow(try decode(bytes, configuration: configuration { $0.maxNFAStates = total }))
    }

    /// Asserts that the variable document's artifact, loaded under `lowered`, is refused as
    /// over `limit` (set to `value`), named with its way out and not as damage, and that
    /// compiling the document under `lowered` refuses it too.
    func assertLoadRefused(_ limit: Configuration.Limit, at value: Int, under lowered: Configuration, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = artifact(try document(Self.variableDocument))
        XCTAssertThrowsError(try decode(bytes, configuration: lowered), file: file, line: line) {
            guard case .overLimit(limit, let found, value) = $0 as? ArtifactError else { return XCTFail("\($0)", file: file, line: line) }
            XCTAssertGreaterThan(found, value, file: file, line: line)
            XCTAssertFalse("\($0)".contains("corrupt"), "\($0)", file: file, line: line)
            XCTAssertTrue("\($0)".contains("(raise it with --limit \(limit.rawValue)=<n>)"), "\($0)", file: file, line: line)
        }
        XCTAssertThrowsError(try document(Self.variableDocument, configuration: lowered), "compilation refuses it too", file: file, line: line)
        XCTAssertNoThrow(try decode(bytes), file: file, line: line)
    }

    func test_decode_refusesVariablePositionsOverALoweredLimitAsCompilationDoes() throws {
        try assertLoadRefused(.variablePositions, at: 5, under: configuration { $0.maxVariablePositions = 5 })
    }

    /// A table-backed automaton never runs its NFA, and loads without decoding it; a lowered
    /// `variable-positions` still refuses it, by the count its NFA declares, as compiling the
    /// document refuses it: `classify --compiled` gives the records `--rules` gives.
    func test_decode_refusesATableBackedAutomatonOverALoweredVariablePositionsLimit() throws {
        let source = try document(Self.variableDocument)
        let positions = try XCTUnwrap(source.path.compactMap { $0 }.map(\.nfa.variablePositions).max())
        XCTAssertGreaterThan(positions, 5)
        var counts = CompiledArtifact.Counts()
        let rules = ClassifierRules(artifact: [CompiledArtifact.Domain(name: source.domain, file: "test", state: .compiled(source))])
        let bytes = CompiledArtifact.encode(rules, budget: .init(), counts: &counts)
        XCTAssertGreaterThan(counts.prebuilt, 0, "the path automaton is stored with its table")
        let loaded = try compiled(try decode(bytes))
        XCTAssertTrue(loaded.path.compactMap { $0 }.allSatisfy { $0.deferredNFA?.hasDecoded == false })
        let lowered = configuration { $0.maxVariablePositions = positions - 1 }
        XCTAssertThrowsError(try decode(bytes, configuration: lowered)) {
            XCTAssertEqual($0 as? ArtifactError, .overLimit(.variablePositions, found: positions, maximum: positions - 1))
        }
        XCTAssertThrowsError(try document(Self.variableDocument, configuration: lowered), "compilation refuses it too")
        XCTAssertNoThrow(try decode(bytes, configuration: configuration { $0.maxVariablePositions = positions }))
    }

    /// The count an NFA declares is checked against its states when it is decoded: an artifact
    /// declaring fewer positions than its NFA has would slip past a lowered limit.
    func test_decode_refusesAnNFADeclaringOtherVariablePositionsThanItHas() throws {
        let nfa = try XCTUnwrap(try document(Self.variableDocument).path.compactMap { $0 }.first).nfa
        var writer = BinaryWriter()
        nfa.encode(into: &writer)
        let (states, positions, rest) = try writer.bytes.withView { view throws(ArtifactError) in
            var reader = BinaryReader(view)
            return (try reader.natural(), try reader.natural(), view.count - reader.remaining)
        }
        XCTAssertEqual(states, nfa.stateCount)
        XCTAssertEqual(positions, nfa.variablePositions)
        XCTAssertGreaterThan(positions, 0)
        var forged = BinaryWriter()
        forged.varint(states)
        forged.varint(positions - 1)
        let forgedBytes = forged.bytes + writer.bytes[rest...]
        XCTAssertThrowsError(try forgedBytes.withView { view throws(ArtifactError) in
            var reader = BinaryReader(view)
            _ = try NFA.decode(from: &reader, limits: Configuration.default.automata)
        }) {
            XCTAssertEqual($0 as? ArtifactError, .corrupt("an automaton's variable positions are not the count stored"))
        }
    }

    /// A DFA cache budget below what a stored automaton needs is a limit given to `classify`,
    /// named with its way out, not a corrupt artifact (an audit found it called corrupt).
    func test_decode_refusesACacheBudgetBelowTheMinimumAsALimitNotAsDamage() throws {
        try assertLoadRefused(.dfaCacheBytes, at: 100, under: configuration { $0.cacheCapacity = 100 })
    }

    /// A document's query items are compiled in the order it names them, so a refusal names
    /// the same rule, the first whose item passes the limit, on every run: in the dictionary's
    /// hash order (seeded per process) it named one of the eight rules at random.
    func test_compile_refusesQueryItemsInDocumentOrder_soTheRefusalNamesTheFirstRule() throws {
        let components = (0..<8).map { #"{"?": {"k\#($0)": "$(lang)"}}"# }.joined(separator: ", ")
        let json = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [\#(components)]}]}}"#
        XCTAssertNoThrow(try document(json))
        XCTAssertThrowsError(try document(json, configuration: configuration { $0.maxVariablePositions = 10 })) {
            XCTAssertTrue("\($0)".contains("at applinks.details[0].components[0]"), "\($0)")
        }
    }

    /// The shape of the 400 KB artifact that needed 2.66 GB for its first URL: a variable of
    /// 3 000 `*`-values called from many places, here 1 400 (about 21 million variable positions,
    /// over the default of 8 million). Compiled only under a raised limit; loaded under the
    /// default one it is refused before any search.
    func test_decode_refusesTheManyCallsOfALargeVariableBlowUpUnderTheDefaultLimits() throws {
        let values = (0..<3_000).map { "\"*\($0)\"" }.joined(separator: ",")
        let components = (0..<1_400).map { #"{"/": "/p\#($0)/$(v)"}"# }.joined(separator: ",")
        let json = #"{"applinks": {"substitutionVariables": {"v": [\#(values)]}, "details": [{"appID": "T.a", "components": [\#(components)]}]}}"#
        let raised = configuration {
            $0.maxVariablePositions = 1 << 40
            $0.eagerMaxStates = 0
        }
        XCTAssertThrowsError(try document(json), "the default limit refuses to compile it")
        let bytes = artifact(try document(json, configuration: raised))
        XCTAssertNoThrow(try decode(bytes, configuration: raised), "well formed: only the limit refuses it")
        let started = Date()
        XCTAssertThrowsError(try decode(bytes)) {
            guard case .overLimit(.variablePositions, let found, 8_000_000) = $0 as? ArtifactError else { return XCTFail("\($0)") }
            XCTAssertGreaterThan(found, 8_000_000)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func test_decode_acceptsWhatCompilationProducesAndDecidesTheSame() throws {
        let source = try document(Self.variableDocument)
        let decoded = try compiled(try decode(artifact(source)))
        let a = DFAMatcher(source)
        let b = DFAMatcher(decoded)
        var matched = 0
        for path in ["/a/red", "/a/green", "/a/blue", "/a/bluest", "/a/pink", "/b/red/c", "/b/red/d", "/c/x/y/green", "/c/green", "/"] {
            let url = "https://x.example" + path
            let expected = try a.decide(url, app: nil)
            XCTAssertEqual(try b.decide(url, app: nil), expected, url)
            if !expected.matchedApps.isEmpty { matched += 1 }
        }
        XCTAssertEqual(matched, 6)
    }

    /// `eager-dfa-states` bounds the tables a process keeps: under 0 (always lazy) a stored
    /// table is left out, and the answers stay the same.
    func test_decode_leavesOutTablesOverTheEagerDFAStatesLimit() throws {
        let source = try document(Self.variableDocument)
        let rules = ClassifierRules(artifact: [CompiledArtifact.Domain(name: "x.example", file: "test", state: .compiled(source))])
        let bytes = CompiledArtifact.encode(rules)
        let tabled = try compiled(try decode(bytes))
        let lazy = try compiled(try decode(bytes, configuration: configuration { $0.eagerMaxStates = 0 }))
        XCTAssertTrue(tabled.path.compactMap { $0 }.allSatisfy(\.isPrebuilt))
        XCTAssertTrue(lazy.path.compactMap { $0 }.allSatisfy { !$0.isPrebuilt })
        for path in ["/a/red", "/b/blue/c", "/c/q/green", "/d"] {
            let url = "https://x.example" + path
            XCTAssertEqual(try DFAMatcher(lazy).decide(url, app: nil), try DFAMatcher(tabled).decide(url, app: nil), url)
        }
    }

    /// Shared decision rows cost tag sets x apps words: with 20 000 apps and 61 tag sets they
    /// would outweigh the table's cells hundreds of times, so they are left to each matcher,
    /// which decides the same.
    func test_decode_leavesDecisionRowsOfTagSetsTimesManyAppsToTheMatchers() throws {
        func json(apps: Int) -> String {
            let ids = (0..<apps).map { "\"T.a\($0)\"" }.joined(separator: ",")
            let components = (0..<60).map { #"{"/": "/a\#($0)"}"# }.joined(separator: ",")
            return #"{"applinks": {"details": [{"appIDs": [\#(ids)], "components": [\#(components)]}]}}"#
        }
        var large = Configuration.default
        large.document.maxBytes = 1 << 20
        for apps in [1, 20_000] {
            let source = try document(json(apps: apps), configuration: large)
            let rules = ClassifierRules(artifact: [CompiledArtifact.Domain(name: "x.example", file: "test", state: .compiled(source))])
            // Decoded under the `document-bytes` it was compiled under: its app IDs are held to it.
            let decoded = try compiled(try decode(CompiledArtifact.encode(rules), configuration: large))
            XCTAssertTrue(decoded.path.compactMap { $0 }.allSatisfy(\.isPrebuilt))
            XCTAssertEqual(decoded.pathPlan.decisionRows == nil, apps > 1, "\(apps) apps")
            let a = DFAMatcher(source)
            let b = DFAMatcher(decoded)
            for path in ["/a7", "/a59", "/a60", "/b"] {
                let url = "https://x.example" + path
                XCTAssertEqual(try b.decide(url, app: nil), try a.decide(url, app: nil), url)
            }
            XCTAssertEqual(try b.decide("https://x.example/a7", app: nil).matchedApps.count, apps)
        }
    }

    /// A few states over 256 byte classes may build a 1 MiB eager table at load from under a
    /// kilobyte of file: such an automaton is loaded lazy. One of thousands of rules keeps
    /// the configuration it is given.
    func test_decode_loadsLazyAnAutomatonWhoseEagerTableWouldOutweighItsBytes() throws {
        var builder = NFABuilder(limit: 10)
        let start = try builder.add()
        let end = try builder.add(.match(tag: 0))
        for byte in 0...255 { builder.addTransition(from: start, UInt8(byte), UInt8(byte), to: end) }
        let tiny = NFA(builder: builder, start: start, variableStarts: [], variableNames: [])
        var writer = BinaryWriter()
        tiny.encode(into: &writer)
        XCTAssertEqual(tiny.byteClasses().count, 256)
        let given = Configuration.Automata()
        XCTAssertEqual(CompiledDocument.loadingConfiguration(nfa: tiny, encodedBytes: writer.bytes.count, given).eagerMaxStates, 0)
        let decoded = try compiled(try decode(try artifact(pathNFA: tiny)))
        XCTAssertEqual(decoded.path.compactMap { $0 }.map(\.configuration.eagerMaxStates), [0])

        let components = (0..<3_000).map { #"{"/": "/p\#($0 % 50)/item-\#($0)/*"}"# }.joined(separator: ",")
        let large = try document(#"{"applinks": {"details": [{"appID": "T.a", "components": [\#(components)]}]}}"#)
        let path = try XCTUnwrap(large.path.compactMap { $0 }.first?.nfa)
        var largeWriter = BinaryWriter()
        path.encode(into: &largeWriter)
        XCTAssertEqual(CompiledDocument.loadingConfiguration(nfa: path, encodedBytes: largeWriter.bytes.count, given), given)
    }

    // MARK: - Shapes compilation never produces

    enum Defect: CaseIterable {
        case none, nestedCall, matchInVariable, returnOutsideVariables, patternsEnterVariable, sharedVariableStates
    }

    /// The path automaton of `/a$(v)` with `v` = ["x"], built by hand as the compiler builds it,
    /// with `defect` added.
    func pathNFA(_ defect: Defect) throws -> NFA {
        var builder = NFABuilder(limit: 100)
        let start = try builder.add()
        let slash = try builder.add()
        let a = try builder.add()
        builder.addTransition(from: start, UInt8(ascii: "/"), UInt8(ascii: "/"), to: slash)
        builder.addTransition(from: slash, UInt8(ascii: "a"), UInt8(ascii: "a"), to: a)
        let next = try builder.add()
        let call = try builder.add(.call(variable: 0, next: next))
        builder.addEpsilon(from: a, to: call)
        let accept = try builder.add(.match(tag: 0))
        builder.addEpsilon(from: next, to: accept)
        let root = try builder.add()
        let ret = try builder.add(.ret)
        let x = try builder.add()
        builder.addTransition(from: root, UInt8(ascii: "x"), UInt8(ascii: "x"), to: x)
        builder.addEpsilon(from: x, to: ret)
        var variableStarts = [root]
        switch defect {
        case .none: break
        case .nestedCall: builder.addEpsilon(from: root, to: try builder.add(.call(variable: 0, next: ret)))
        case .matchInVariable: builder.addEpsilon(from: x, to: try builder.add(.match(tag: 0)))
        case .returnOutsideVariables: builder.addEpsilon(from: slash, to: try builder.add(.ret))
        case .patternsEnterVariable: builder.addEpsilon(from: slash, to: x)
        case .sharedVariableStates: variableStarts.append(x)
        }
        return NFA(builder: builder, start: start, variableStarts: variableStarts, variableNames: variableStarts.map { _ in "v" })
    }

    /// The artifact of `/a` with its path automaton replaced by `nfa`, checksum and all valid.
    func artifact(pathNFA nfa: NFA) throws -> [UInt8] {
        let source = try document(#"{"applinks": {"details": [{"appID": "T.a", "components": [{"/": "/a"}]}]}}"#)
        let dfa = try LazyDFA(nfa: nfa, configuration: .init(eagerMaxStates: 0))
        XCTAssertEqual(source.path.compactMap { $0 }.count, 1)
        return artifact(
            CompiledDocument(
                domain: source.domain, appIDs: source.appIDs, rules: source.rules, path: source.path.map { $0 == nil ? nil : dfa },
                pathSplits: source.pathSplits, queryText: source.queryText, fragment: source.fragment,
                queryGroups: source.queryGroups, predicateCount: source.predicateCount))
    }

    /// The predicate count sizes each thread's per-URL predicate row: a count the rules do not
    /// bear out (a crafted artifact claimed two billion) is refused at load, and what
    /// compilation writes still loads. The crafted claims stay at 16 million: writing one means
    /// building its document in this process, whose predicate index holds a word per predicate
    /// (two billion took 8 GB and 25 s of the test run); the decoder refuses any claim past the
    /// rules' count before it allocates for one.
    func test_decode_refusesMorePredicatesThanTheRulesName() throws {
        let source = try document(
            #"{"applinks": {"details": [{"appID": "T.a", "components": [{"/": "/a", "?": {"q": "1", "r": "?*"}}]}]}}"#)
        XCTAssertEqual(source.predicateCount, 2)
        let decoded = try compiled(try decode(artifact(source)))
        XCTAssertEqual(try DFAMatcher(decoded).decide("https://x.example/a?r=x&q=1", app: nil).matchedApps, ["T.a"])
        for claimed in [3, 1 << 24] {
            let crafted = CompiledDocument(
                domain: source.domain, appIDs: source.appIDs, rules: source.rules, path: source.path, pathSplits: source.pathSplits,
                queryText: source.queryText, fragment: source.fragment, queryGroups: source.queryGroups, predicateCount: claimed)
            XCTAssertThrowsError(try decode(artifact(crafted)), "\(claimed) predicates") {
                XCTAssertEqual($0 as? ArtifactError, .corrupt("more query predicates than the rules name"))
            }
        }
    }

    func test_decode_acceptsTheHandBuiltCompilerShape() throws {
        let decoded = try compiled(try decode(try artifact(pathNFA: try pathNFA(.none))))
        let matcher = DFAMatcher(decoded)
        XCTAssertEqual(try matcher.decide("https://x.example/ax", app: nil).matchedApps, ["T.a"])
        XCTAssertEqual(try matcher.decide("https://x.example/ay", app: nil).matchedApps, [])
    }

    func test_decode_refusesEveryShapeCompilationNeverProduces() throws {
        let reasons: [Defect: String] = [
            .nestedCall: "calls never nest",
            .matchInVariable: "a variable of an automaton accepts a rule",
            .returnOutsideVariables: "returns from outside any variable",
            .patternsEnterVariable: "shares states with its patterns",
            .sharedVariableStates: "two variables of an automaton share states",
        ]
        for defect in Defect.allCases where defect != .none {
            let bytes = try artifact(pathNFA: try pathNFA(defect))
            XCTAssertThrowsError(try decode(bytes), "\(defect)") {
                guard case .corrupt(let reason) = $0 as? ArtifactError else { return XCTFail("\(defect): \($0)") }
                XCTAssertTrue(reason.contains(reasons[defect] ?? "?"), "\(defect): \(reason)")
            }
        }
    }
}
