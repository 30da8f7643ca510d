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
