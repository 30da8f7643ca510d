@testable import AASAKit
import XCTest
import _AASATestSupport

/// A search whose text keeps making subsets the cache has never seen reads the rest by NFA
/// simulation (`LazyDFA.simulateAfterStates`), with the answers of the reference; one whose
/// states repeat stays in the cache.
final class NFASimulationTests: XCTestCase {
    /// Per engine, with the work budget out of the way (`WorkBudgetTests` pins it).
    private func engines(_ json: String, configuration base: Configuration) throws -> (reference: ReferenceMatcher, dfa: DFAMatcher) {
        var configuration = base
        configuration.automata.maxURLWork = Configuration.Limit.ceiling
        let document = try AASADocument(bytes: Array(json.utf8))
        return (
            ReferenceMatcher(document: document, domain: "example.com"),
            DFAMatcher(try CompiledDocument(document: document, domain: "example.com", configuration: configuration))
        )
    }

    /// `/*a` then twenty `?`: a path of random `a` and `b` is in a subset it has not been in
    /// before at nearly every byte (the last 21 bytes' `a`s make it, one of two million).
    /// Such a search built a state a byte: a 60 KB path cost 53 ms and left 60 000 states in
    /// the cache.
    func test_aTextOfNewSubsetsAtEveryByte_isSimulatedAfterSomeStates_withTheReferencesAnswers() throws {
        let json = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/*a????????????????????", "?": "q=*"}, {"/": "/b*"}]}]}}"#
        let both = try engines(json, configuration: EngineConfigurations.lazyOnly)
        var generator = RandomSource(seed: 49)
        var urls: [String] = []
        for length in [3_000, 5_000, 7_919] {
            for query in ["", "?q=1"] {
                let path = String((0..<length).map { _ in generator.next() & 1 == 0 ? Character("a") : "b" })
                urls.append("https://example.com/" + path + query)
            }
        }
        var matched = 0
        for url in urls {
            let reference = try both.reference.decide(url, app: nil)
            XCTAssertEqual(try both.dfa.decide(url, app: nil), reference, "\(url.prefix(40))… (\(url.utf8.count) bytes)")
            matched += reference.matchedApps.isEmpty ? 0 : 1
        }
        XCTAssertGreaterThan(matched, 0, "some texts match")
        XCTAssertLessThan(matched, urls.count, "and some do not")
        var statistics = both.dfa.cacheStatistics
        XCTAssertEqual(statistics.fallbacks, urls.count, "every search was finished by simulation: \(statistics)")
        XCTAssertLessThanOrEqual(
            statistics.statesBuilt, urls.count * (LazyDFA.simulateAfterStates + 2), "each built one stretch's states: \(statistics)")
        // The same texts again: each walks the states it built, then counts its new ones from
        // there, so the longer ones are simulated again, and none builds more than two stretches.
        for url in urls {
            XCTAssertEqual(try both.dfa.decide(url, app: nil), try both.reference.decide(url, app: nil), "again: \(url.prefix(40))…")
        }
        statistics = both.dfa.cacheStatistics
        XCTAssertGreaterThanOrEqual(statistics.fallbacks, urls.count + 4, "\(statistics)")
        XCTAssertLessThanOrEqual(statistics.statesBuilt, urls.count * 3 * (LazyDFA.simulateAfterStates + 2), "\(statistics)")
        XCTAssertEqual(statistics.clears, 0, "\(statistics)")
    }

    /// A long path under rules whose subsets repeat (stars between literal segments) builds a
    /// few states and walks them: no search is simulated, however long.
    func test_aLongTextOverRepeatingSubsets_staysInTheCache() throws {
        let json = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/*/x/*/y"}, {"/": "/a*b*c", "exclude": true}, {"/": "/*"}]}]}}"#
        let both = try engines(json, configuration: EngineConfigurations.lazyOnly)
        var generator = RandomSource(seed: 7)
        let alphabet = Array("abcxy/")
        for length in [10_000, 60_000] {
            let path = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            let url = "https://example.com/" + path
            XCTAssertEqual(try both.dfa.decide(url, app: nil), try both.reference.decide(url, app: nil), "\(length) bytes")
        }
        let statistics = both.dfa.cacheStatistics
        XCTAssertEqual(statistics.fallbacks, 0, "\(statistics)")
        XCTAssertLessThan(statistics.statesBuilt, 200, "\(statistics)")
    }

    /// The simulation's answer with the smallest cache falling back at its first clear and with
    /// the default one agree on texts that reach simulation either way, and with the reference.
    func test_simulationAfterClears_andAfterNewSubsets_agree() throws {
        let json = #"{"applinks": {"details": [{"appIDs": ["T.a", "T.b"], "components": [{"/": "/*a??????????????"}]}, {"appIDs": ["T.b"], "components": [{"/": "/*b?????????????*", "exclude": true}, {"/": "/*"}]}]}}"#
        let tiny = try engines(json, configuration: EngineConfigurations.simulationFallback)
        let plain = try engines(json, configuration: EngineConfigurations.lazyOnly)
        var generator = RandomSource(seed: 11)
        for length in [100, 2_500, 4_099] {
            let path = String((0..<length).map { _ in generator.next() % 3 == 0 ? Character("b") : "a" })
            let url = "https://example.com/" + path
            let reference = try tiny.reference.decide(url, app: nil)
            XCTAssertEqual(try tiny.dfa.decide(url, app: nil), reference, "tiny cache, \(length) bytes")
            XCTAssertEqual(try plain.dfa.decide(url, app: nil), reference, "default cache, \(length) bytes")
        }
        XCTAssertGreaterThan(tiny.dfa.cacheStatistics.fallbacks, 0)
        XCTAssertGreaterThan(plain.dfa.cacheStatistics.fallbacks, 0)
    }
}

/// The bitset form of the simulation's steps (`BitsetSimulation`) gives the general form's
/// subsets, tags, charges and ends, byte for byte, and is not used where a closure depends on
/// a variable's continuation.
final class BitsetSimulationTests: XCTestCase {
    /// Runs `text` from the start of `nfa` both ways, under a meter of `limit` each; the ends,
    /// the tags accepted and the work charged must be the same.
    private func compare(_ nfa: NFA, text: [UInt8], limit: Int, _ what: String) throws {
        let determinizer = Determinizer(nfa: nfa)
        let bitset = try XCTUnwrap(BitsetSimulation(nfa: nfa), what)
        var results: [(end: NFASimulation.End, tags: [Int32], remaining: Int, exceeded: Bool)] = []
        for form in [nil, bitset] {
            let scratch = StateScratch(stateCount: nfa.stateCount)
            scratch.seeds.removeAll()
            scratch.seeds.append(Determinizer.pack(nfa.start, continuation: -1))
            XCTAssertTrue(determinizer.closeSeeds(scratch: scratch, cap: .max))
            let start = scratch.positions.withView { Array($0) }
            let meter = WorkMeter(limit: limit)
            meter.begin()
            let end = start.withView { positions in
                text.withView { text in
                    NFASimulation(determinizer: determinizer, scratch: scratch, bitset: form).run(from: positions, text: text, meter: meter)
                }
            }
            results.append((end, end == .read ? scratch.tags.withView { Array($0) } : [], meter.remaining, meter.exceeded))
        }
        XCTAssertEqual(results[0].end, results[1].end, what)
        XCTAssertEqual(results[0].tags, results[1].tags, what)
        XCTAssertEqual(results[0].remaining, results[1].remaining, "charged alike: \(what)")
        XCTAssertEqual(results[0].exceeded, results[1].exceeded, what)
    }

    func test_randomTextsInEveryMode_giveTheGeneralFormsEndsTagsAndCharges() throws {
        let sources = [
            "/*a??????????", "/*é?*", "/a*b?c", "*x?????*y", "/?/?/?", "/ab/*", "*a*b*a*b*", "/É*è",
        ]
        var generator = RandomSource(seed: 0xB175)
        let alphabet: [[UInt8]] = [[0x61], [0x62], [0x2F], [0x78], [0x79], [0x41], Array("é".utf8), Array("É".utf8), [0xC3], [0x80]]
        var compared = 0
        for mode in TextMode.all {
            let patterns = sources.enumerated().map { (pattern: Pattern(parsing: $1), tag: Int32($0)) }
            let nfa = try NFACompiler.compile(patterns, mode: mode, maxStates: 1 << 20, variables: { _ in nil })
            for round in 0..<40 {
                var text: [UInt8] = [0x2F]
                for _ in 0..<Int(generator.next() % 300) { text += alphabet[Int(generator.next() % UInt64(alphabet.count))] }
                // A meter that runs out on some texts (each step of these closures visits
                // well under `heavyWeight` states, so a low limit is what ends them).
                for limit in [Configuration.Limit.ceiling, 20] {
                    try compare(nfa, text: text, limit: limit, "\(mode), round \(round), limit \(limit), \(text.count) bytes")
                    compared += 1
                }
            }
        }
        XCTAssertEqual(compared, TextMode.all.count * 80)
    }

    /// Heavy steps (a closure of `heavyWeight` states or more) are charged alike, and a budget
    /// they pass ends both forms at the same byte.
    func test_heavyStepsAreChargedAlike_andABudgetTheyPassEndsBoth() throws {
        // Every `?` position stays live on a path of `a`s: closures of about 600 states.
        let patterns = [(pattern: Pattern(parsing: "*a" + String(repeating: "?", count: 600)), tag: Int32(0))]
        let nfa = try NFACompiler.compile(patterns, mode: TextMode.all[0], maxStates: 1 << 20, variables: { _ in nil })
        let text = [UInt8](repeating: UInt8(ascii: "a"), count: 900)
        for limit in [Configuration.Limit.ceiling, 100_000, 300] {
            try compare(nfa, text: text, limit: limit, "limit \(limit)")
        }
    }

    func test_automataCallingAVariable_keepTheGeneralForm() throws {
        let patterns = [(pattern: Pattern(parsing: "/$(v)/x"), tag: Int32(0))]
        let nfa = try NFACompiler.compile(patterns, mode: TextMode.all[0], maxStates: 1 << 20, variables: { $0 == "v" ? ["a*", "b"] : nil })
        XCTAssertNil(BitsetSimulation(nfa: nfa))
    }
}

/// The determiniser's visited set (`StateScratch`) forgets a closure's states by moving to a
/// new stamp; after 2^32 closures the stamps wrap, and no state may then look visited by age.
final class StateScratchTests: XCTestCase {
    func test_visitedStates_areForgottenAtEachClosure_acrossTheStampsWrap() {
        let scratch = StateScratch(stateCount: 8, stamp: UInt32.max - 1)
        for round in 0..<4 {
            scratch.clearVisited()
            for state in [0, 3, 7] as [UInt64] {
                XCTAssertTrue(scratch.visit(state), "round \(round): state \(state) is new to this closure")
                XCTAssertFalse(scratch.visit(state), "round \(round): state \(state) was just visited")
            }
            XCTAssertTrue(scratch.visit(5), "round \(round)")
            // Positions inside variables (a continuation) are kept apart.
            XCTAssertTrue(scratch.visit(3 | 2 << 32), "round \(round)")
            XCTAssertFalse(scratch.visit(3 | 2 << 32), "round \(round)")
        }
    }
}
