@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// A variable's sub-automaton: values read as bytes when they are ASCII, children in flat
/// lists, and the predefined variables built once a process and copied in. None of that may
/// change a state, an edge, a limit error or a decision.
final class VariableAutomatonTests: XCTestCase {
    private static let modes = TextMode.all

    /// The sub-automaton as it was built before: every value parsed as a pattern and
    /// normalised for the mode, each node's children in a dictionary; for literal values only,
    /// that trie built aside and made minimal (`minimizedTrie`, pinned on its own below). The
    /// builder must produce it state for state and edge for edge.
    private func parsedValuesAutomaton(_ values: [String], mode: TextMode, into builder: inout NFABuilder) throws
        -> NFA.StateID
    {
        if values.count >= NFABuilder.minimizedValues, !values.contains(where: { $0.contains("*") || $0.contains("?") }) {
            var aside = NFABuilder(limit: 1 << 30)
            _ = try parsedTrie(values, mode: mode, into: &aside)
            return try builder.append(try aside.minimizedTrie())
        }
        return try parsedTrie(values, mode: mode, into: &builder)
    }

    private func parsedTrie(_ values: [String], mode: TextMode, into builder: inout NFABuilder) throws -> NFA.StateID {
        let root = try builder.add()
        let ret = try builder.add(.ret)
        var children: [NFA.StateID: [UInt8: NFA.StateID]] = [:]
        for value in values {
            var current = root
            var inTrie = true
            func detach(_ builder: inout NFABuilder) throws {
                guard inTrie else { return }
                inTrie = false
                let fresh = try builder.add()
                builder.addEpsilon(from: current, to: fresh)
                current = fresh
            }
            for piece in Pattern(parsing: value, allowVariables: false).normalized(for: mode).pieces {
                switch piece {
                case .literal(let text):
                    for byte in text.utf8 {
                        if inTrie, let child = children[current]?[byte] {
                            current = child
                            continue
                        }
                        let next = try builder.add()
                        builder.addTransition(from: current, byte, byte, to: next)
                        if inTrie { children[current, default: [:]][byte] = next }
                        current = next
                    }
                case .anyOne:
                    try detach(&builder)
                    current = try builder.addAnyScalar(from: current)
                case .anyMany:
                    try detach(&builder)
                    current = try builder.addAnyRun(from: current)
                case .variable:
                    continue
                }
            }
            builder.addEpsilon(from: current, to: ret)
        }
        return root
    }

    private struct Shape: Equatable {
        var kinds: [NFA.Kind]
        var transitions: [[Int]]
        var epsilons: [[Int]]

        init(_ builder: NFABuilder) {
            kinds = builder.kinds
            transitions = builder.transitions.map { [Int($0.from), Int($0.edge.low), Int($0.edge.high), Int($0.edge.next)] }
            epsilons = builder.epsilons.map { [Int($0.from), Int($0.edge)] }
        }
    }

    private func assertSameAutomaton(_ values: [String], mode: TextMode, _ message: String) throws {
        var expected = NFABuilder(limit: 1 << 20)
        _ = try parsedValuesAutomaton(values, mode: mode, into: &expected)
        var built = NFABuilder(limit: 1 << 20)
        _ = try built.addVariable(values, mode: mode)
        XCTAssertEqual(Shape(built), Shape(expected), "\(message) in \(mode): \(values)")
    }

    /// Merging a trie's states with the same futures keeps its language and shrinks it: every
    /// value still leads from the root to `ret`, nothing else does, and `$(lang)`'s 803 trie
    /// states become 175.
    func test_minimizedTrie_keepsTheValuesAndMergesSharedEndings() throws {
        func accepts(_ builder: NFABuilder, _ text: String) -> Bool {
            var state: NFA.StateID = 0
            for byte in text.utf8 {
                guard let next = builder.transitions.first(where: { $0.from == state && $0.edge.low == byte })?.edge.next else { return false }
                state = next
            }
            return builder.epsilons.contains { $0.from == state && $0.edge == 1 }
        }
        let lang = try XCTUnwrap(PredefinedVariables.values(of: "lang"))
        var trie = NFABuilder(limit: 1 << 20)
        _ = try parsedTrie(lang, mode: TextMode.all[0], into: &trie)
        let minimal = try trie.minimizedTrie()
        // Its root and `ret` included.
        XCTAssertEqual(trie.stateCount, 803)
        XCTAssertEqual(minimal.stateCount, 175)
        let values = Set(lang.map { String($0.lowercased()) })
        for value in lang { XCTAssertTrue(accepts(minimal, value), value) }
        let letters = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
        for first in letters {
            for second in letters + [""] {
                for third in ["", "a", "q", "z"] {
                    let text = first + second + third
                    XCTAssertEqual(accepts(minimal, text), values.contains(text), text)
                }
            }
        }
        // Not a trie of literal values: left as it is.
        var wild = NFABuilder(limit: 1 << 20)
        _ = try parsedTrie(["a*", "b"], mode: TextMode.all[0], into: &wild)
        XCTAssertEqual(try wild.minimizedTrie().stateCount, wild.stateCount)
    }

    func test_eachPredefinedVariable_inEachMode_isTheAutomatonOfItsParsedValues() throws {
        for (index, name) in PredefinedVariables.names.enumerated() {
            for mode in Self.modes {
                let values = try XCTUnwrap(PredefinedVariables.values(of: name))
                try assertSameAutomaton(values, mode: mode, name)
                var expected = NFABuilder(limit: 1 << 20)
                _ = try parsedValuesAutomaton(values, mode: mode, into: &expected)
                let shared = try XCTUnwrap(PredefinedVariableAutomata.automaton(index, mode: mode))
                XCTAssertEqual(Shape(shared), Shape(expected), "shared \(name) in \(mode)")
                let again = try XCTUnwrap(PredefinedVariableAutomata.automaton(index, mode: mode))
                XCTAssertEqual(Shape(again), Shape(expected), "shared \(name) in \(mode), asked again")
            }
        }
    }

    /// Values with wildcards (runs of `*` too), `$` and parentheses (literals in a value), upper
    /// case, precomposed and decomposed accents, the Kelvin sign and dotted capital I (which
    /// fold and compose in their own ways), repeated and prefix-sharing values.
    func test_randomCustomValues_inEachMode_areTheAutomatonOfTheirParsedValues() throws {
        let pieces = [
            "a", "b", "ab", "A", "B", "Z", "z", "0", "-", "/", "*", "**", "?", "$", "$(x)", "(", ")", "%41", "é", "e\u{301}",
            "É", "\u{212A}", "K", "İ", "ß", "日本", "",
        ]
        for seed in UInt64(1)...300 {
            var random = RandomSource(seed: seed)
            let values = (0..<random.int(0...12)).map { _ in
                (0..<random.int(0...5)).map { _ in random.pick(pieces) }.joined()
            }
            for mode in Self.modes {
                try assertSameAutomaton(values, mode: mode, "seed \(seed)")
            }
        }
    }

    func test_appendingASharedAutomaton_equalsBuildingItInPlace() throws {
        let values = try XCTUnwrap(PredefinedVariables.values(of: "lang"))
        for mode in Self.modes {
            var inPlace = NFABuilder(limit: 1 << 20)
            var appended = NFABuilder(limit: 1 << 20)
            for builder in [0, 1] {
                // Some states and edges first, so the copy is offset.
                func prefix(_ target: inout NFABuilder) throws {
                    let a = try target.add()
                    let b = try target.addLiteral("/x", from: a)
                    target.addEpsilon(from: a, to: b)
                }
                if builder == 0 { try prefix(&inPlace) } else { try prefix(&appended) }
            }
            let expectedEntry = try parsedValuesAutomaton(values, mode: mode, into: &inPlace)
            let shared = try XCTUnwrap(PredefinedVariableAutomata.automaton(7, mode: mode))
            let entry = try appended.append(shared)
            XCTAssertEqual(entry, expectedEntry)
            XCTAssertEqual(Shape(appended), Shape(inPlace), "lang in \(mode)")
        }
    }

    /// A copied variable is the automaton building it in place gives, and fails exactly where
    /// building it state by state did: at every limit below what the automaton needs, the first
    /// state past the limit is the one refused.
    func test_aSharedVariable_isBuiltAndFailsAtEveryStateLimitAsInPlace() throws {
        let patterns = ["/$(digit)/a", "/$(lang)-$(region)/*", "/b/$(lang)", "/$(own)"].enumerated().map {
            (pattern: Pattern(parsing: $0.element), tag: Int32($0.offset))
        }
        let resolve: NFACompiler.VariableResolver = { $0 == "own" ? ["x", "y*"] : PredefinedVariables.values(of: $0) }
        let predefined: NFACompiler.PredefinedResolver = { PredefinedVariables.index(of: $0) }
        for mode in Self.modes {
            let inPlace = try NFACompiler.compile(patterns, mode: mode, maxStates: 1 << 20, variables: resolve)
            let shared = try NFACompiler.compile(
                patterns, mode: mode, maxStates: 1 << 20, variables: resolve, predefined: predefined)
            XCTAssertEqual(shared.kinds, inPlace.kinds, "\(mode)")
            XCTAssertEqual(shared.transitions, inPlace.transitions, "\(mode)")
            XCTAssertEqual(shared.transitionStart, inPlace.transitionStart, "\(mode)")
            XCTAssertEqual(shared.epsilons, inPlace.epsilons, "\(mode)")
            XCTAssertEqual(shared.epsilonStart, inPlace.epsilonStart, "\(mode)")
            XCTAssertEqual(shared.variableStarts, inPlace.variableStarts, "\(mode)")
            let needed = shared.stateCount
            XCTAssertGreaterThan(needed, 200)
            for limit in 0..<needed {
                XCTAssertThrowsError(
                    try NFACompiler.compile(
                        patterns, mode: mode, maxStates: limit, variables: resolve, predefined: predefined)
                ) { error in
                    XCTAssertEqual(error as? AutomatonError, .tooManyNFAStates(needed: limit + 1, limit: limit), "\(limit)")
                }
            }
            let exact = try NFACompiler.compile(
                patterns, mode: mode, maxStates: needed, variables: resolve, predefined: predefined)
            XCTAssertEqual(exact.stateCount, needed)
        }
    }

    /// What lets `addVariable` skip NFC for Latin-1 values: every Latin-1 scalar, alone and
    /// followed by any other, is its own NFC.
    func test_latin1Text_isItsOwnNFC() {
        let scalars = (UInt32(0)..<0x100).compactMap(Unicode.Scalar.init)
        for first in scalars {
            let alone = String(first)
            XCTAssertTrue(alone.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(alone.unicodeScalars))
            for second in scalars {
                var pair = String(first)
                pair.unicodeScalars.append(second)
                let nfc = pair.precomposedStringWithCanonicalMapping
                if !nfc.unicodeScalars.elementsEqual(pair.unicodeScalars) {
                    XCTFail("U+\(String(first.value, radix: 16)) U+\(String(second.value, radix: 16))")
                }
            }
        }
    }

    func test_predefinedValuesAreRecognisedOnlyWhenExactlyTheSame() throws {
        let lang = try XCTUnwrap(PredefinedVariables.values(of: "lang"))
        XCTAssertEqual(PredefinedVariables.index(of: "lang", values: lang), 7)
        XCTAssertEqual(PredefinedVariables.index(of: "lang", values: lang.map { String(decoding: Array($0.utf8), as: UTF8.self) }), 7, "a copy")
        XCTAssertNil(PredefinedVariables.index(of: "region", values: lang), "another variable's values")
        XCTAssertNil(PredefinedVariables.index(of: "lang", values: Array(lang.dropLast())))
        XCTAssertNil(PredefinedVariables.index(of: "custom", values: lang))
        var upper = try XCTUnwrap(PredefinedVariables.values(of: "upper"))
        let k = try XCTUnwrap(upper.firstIndex(of: "K"))
        upper[k] = "\u{212A}"  // canonically equivalent to `K`, other bytes
        XCTAssertEqual(upper[k], "K", "Swift's == says the same")
        XCTAssertNil(PredefinedVariables.index(of: "upper", values: upper))
    }

    // MARK: - Decisions

    private func document(variables: String, components: [String]) throws -> AASADocument {
        let json = #"""
            {"applinks": {"substitutionVariables": {\#(variables)}, "details": [{"appIDs": ["ABCDE12345.com.example.app"],
            "components": [\#(components.joined(separator: ", "))]}]}}
            """#
        return try AASADocument(bytes: Array(json.utf8))
    }

    /// The rules of `components` in each of the four modes (one rule per mode each).
    private func inEveryMode(_ paths: [String]) -> [String] {
        paths.flatMap { path in
            [(true, true), (false, true), (true, false), (false, false)].map { caseSensitive, percentEncoded in
                #"{"/": "\#(path)", "caseSensitive": \#(caseSensitive), "percentEncoded": \#(percentEncoded)}"#
            }
        }
    }

    /// URL paths around the values of the variables used: each value as it is, upper-cased,
    /// percent-encoded, cut short, lengthened, and some random text.
    private func paths(_ values: [String], seed: UInt64) -> [String] {
        var random = RandomSource(seed: seed)
        var paths: [String] = []
        for _ in 0..<400 {
            var value = values.isEmpty ? "x" : random.pick(values)
            switch random.int(0...6) {
            case 0: value = value.uppercased()
            case 1: value = value.utf8.map { String(format: "%%%02X", $0) }.joined()
            case 2: value = String(value.dropLast())
            case 3: value += random.pick(["a", "Z", "-", "é"])
            case 4: value = random.pick(["", "K", "\u{212A}", "e\u{301}", "é", "İ", "xyz", "EN", "en-US", "fr-CA"])
            default: break
            }
            let separator = random.pick(["-", "/", "", "_"])
            let second = values.isEmpty ? "y" : random.pick(values)
            paths.append("/" + random.pick(["", "p/", "b/"]) + value + separator + second + random.pick(["", "/a", "/z"]))
        }
        return paths
    }

    private func assertAgreesWithReference(
        _ document: AASADocument, _ paths: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String] {
        let compiled = try CompiledDocument(document: document, domain: "example.com")
        let matcher = DFAMatcher(compiled)
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        var decisions: [String] = []
        var matched = 0
        var missed = 0
        for path in paths {
            let url = "https://example.com" + path
            let decision: String
            do {
                let decided = try matcher.decide(url, app: nil)
                if decided.matchedApps.isEmpty { missed += 1 } else { matched += 1 }
                decision = "\(decided)"
            } catch {
                decision = "error: \(error)"
            }
            let expected: String
            do { expected = "\(try reference.decide(url, app: nil))" } catch { expected = "error: \(error)" }
            XCTAssertEqual(decision, expected, url, file: file, line: line)
            decisions.append(decision)
        }
        // Both answers must be exercised, or agreeing would prove little.
        XCTAssertGreaterThan(matched, paths.count / 20, "matched", file: file, line: line)
        XCTAssertGreaterThan(missed, paths.count / 20, "missed", file: file, line: line)
        return decisions
    }

    func test_eachPredefinedVariable_inEveryMode_decidesAsTheReference() throws {
        for (index, name) in PredefinedVariables.names.enumerated() {
            let values = try XCTUnwrap(PredefinedVariables.values(of: name))
            let document = try document(
                variables: "", components: inEveryMode(["/$(\(name))-$(\(name))", "/p/$(\(name))/*", "/b/?$(\(name))"]))
            _ = try assertAgreesWithReference(document, paths(values, seed: UInt64(index + 1)))
        }
    }

    /// Custom variables next to predefined ones, one overriding `lang` and one overriding
    /// `upper` with the Kelvin sign in place of `K`: neither may be taken for the predefined one.
    func test_customAndPredefinedVariablesTogether_decideAsTheReference() throws {
        let upper = (PredefinedVariables.values(of: "upper") ?? []).map { $0 == "K" ? "\u{212A}" : $0 }
        let upperJSON = upper.map { "\"\($0)\"" }.joined(separator: ", ")
        let variables = #"""
            "lang": ["en", "EN", "fr-*", "p?t", "é", "e\u0301"], "shop": ["Store", "shop$(x)", "a*b*", "日本"],
            "upper": [\#(upperJSON)]
            """#
        let document = try document(
            variables: variables,
            components: inEveryMode(["/$(lang)/$(region)", "/p/$(shop)-$(alnum)", "/b/$(upper)$(digit)", "/$(xdigit)*"]))
        let values = ["en", "EN", "fr-x", "pat", "é", "e\u{301}", "Store", "shop$(x)", "aqb", "日本", "K", "\u{212A}", "US", "GB"]
        _ = try assertAgreesWithReference(document, paths(values, seed: 99))
    }

    /// The second document to use a variable gets the copy the first one built: the same
    /// automata and decisions as the first, in both case modes.
    func test_theSameVariableCompiledTwice_givesTheSameAutomataAndDecisions() throws {
        let languages = PredefinedVariables.values(of: "lang") ?? []
        let regions = PredefinedVariables.values(of: "region") ?? []
        for caseSensitive in [true, false] {
            var random = RandomSource(seed: caseSensitive ? 7 : 8)
            let paths = (0..<400).map { _ in
                let language = random.pick(languages + ["xx", "EN", "De"])
                let region = random.pick(regions + ["uk", "us", "UK", "zz"])
                let letter = random.pick(["a", "Z", "é", "1", "ab"])
                return random.pick(["/\(language)_\(region)/p", "/\(language)-\(region)", "/x/\(letter)"])
            }
            let components = [
                #"{"/": "/$(lang)_$(region)/*", "caseSensitive": \#(caseSensitive)}"#,
                #"{"/": "/x/$(alpha)", "caseSensitive": \#(caseSensitive)}"#,
            ]
            let first = try document(variables: #""own": ["a"]"#, components: components)
            let second = try document(variables: #""other": ["b", "c"]"#, components: components)
            let firstDecisions = try assertAgreesWithReference(first, paths)
            let secondDecisions = try assertAgreesWithReference(second, paths)
            XCTAssertEqual(firstDecisions, secondDecisions)
            let firstNFAs = try DocumentNFAs(document: first, maxNFAStates: 1 << 20)
            let secondNFAs = try DocumentNFAs(document: second, maxNFAStates: 1 << 20)
            for mode in Self.modes {
                XCTAssertEqual(firstNFAs.path[mode.index]?.kinds, secondNFAs.path[mode.index]?.kinds, "\(mode)")
                XCTAssertEqual(
                    firstNFAs.path[mode.index]?.transitions, secondNFAs.path[mode.index]?.transitions, "\(mode)")
                XCTAssertEqual(firstNFAs.path[mode.index]?.epsilons, secondNFAs.path[mode.index]?.epsilons, "\(mode)")
            }
            XCTAssertNotNil(firstNFAs.path[caseSensitive ? 0 : 1], "the rules' mode was compiled")
        }
    }
}
