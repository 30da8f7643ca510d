import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// The per-URL work budget (`url-work`) and the compile-time `variable-positions` limit: what
/// they refuse, that the refusal is the same whatever the cache holds, and that nothing real
/// comes near either.
final class WorkBudgetTests: XCTestCase {
    func compile(_ text: String, _ configure: (inout Configuration) -> Void = { _ in }) throws -> CompiledDocument {
        var configuration = Configuration()
        configure(&configuration)
        let document = try AASADocument(bytes: Array(text.utf8), configuration: configuration)
        return try CompiledDocument(document: document, domain: "x.example", configuration: configuration)
    }

    /// Below the weight of a heavy transition, whether a URL runs over would depend on the engine
    /// (light transitions are never charged): the library raises such a budget, as the CLI
    /// refuses it.
    func test_urlWorkBelowAHeavyTransition_isRaisedToIt() {
        var configuration = Configuration()
        configuration.automata.maxURLWork = 10
        XCTAssertEqual(configuration.automata.maxURLWork, LazyDFA.heavyWeight)
        configuration.automata.maxURLWork = 300
        XCTAssertEqual(configuration.automata.maxURLWork, 300)
        XCTAssertEqual(Configuration.Automata(maxURLWork: 0).maxURLWork, LazyDFA.heavyWeight)
        XCTAssertEqual(Configuration.Limit.urlWork.minimum, LazyDFA.heavyWeight)
        configuration[.urlWork] = 1
        XCTAssertEqual(configuration[.urlWork], LazyDFA.heavyWeight)
    }

    func test_variableBlowUp_isRefusedAtCompileWithTheRuleThatPassedTheLimit() throws {
        XCTAssertThrowsError(try compile(WorkBudgetShapes.variableBlowUp(values: 5_000, sites: 2_048))) { error in
            guard case AutomatonError.overLimit(.variablePositions, let found, let maximum, let location)? = error as? AutomatonError else {
                return XCTFail("expected variable-positions, got \(error)")
            }
            XCTAssertEqual(maximum, 8_000_000)
            XCTAssertGreaterThan(found, maximum)
            XCTAssertEqual(location?.description.hasPrefix("applinks.details[0].paths["), true, "\(String(describing: location))")
            XCTAssertTrue("\(error)".contains("--limit variable-positions=<n>"), "\(error)")
        }
    }

    func test_variableBlowUp_underARaisedLimit_givesWorkLimitErrorsNotDecisions() throws {
        let compiled = try compile(WorkBudgetShapes.variableBlowUp(values: 5_000, sites: 2_048)) { $0.automata.maxVariablePositions = 1 << 30 }
        let matcher = DFAMatcher(compiled)
        XCTAssertThrowsError(try matcher.decide("https://x.example/aaaaaaaaaaaaaaaaaaaa", app: nil)) { error in
            XCTAssertEqual(error as? URLSplitError, .workLimitExceeded(limit: 500_000))
        }
        // A URL whose path leaves no call site live is decided as usual, by the same matcher.
        XCTAssertEqual(try matcher.decide("https://x.example/b", app: nil).decisions.first?.kind, .noMatch)
    }

    /// SPEC 2 fails a document only for its JSON, its root and its size, so no document within
    /// 128 KiB may be refused for calling a built-in variable: `$(lang)` from as many distinct
    /// places as fit (`*ab*$(lang)`, every place live on a long path at once), and from a
    /// thousand distinct literal prefixes (`/N/$(lang)`), both decided by the engine, with the
    /// reference's answers.
    func test_builtInVariables_calledFromEveryPlaceA128KiBDocumentHolds_areNotRefused() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let pairs = letters.flatMap { a in letters.map { b in "\(a)\(b)" } }
        let triples = letters.flatMap { a in pairs.map { "\(a)\($0)" } }
        var rules: [String] = []
        var bytes = 80
        for middle in pairs + triples {
            let rule = #"{"/":"*\#(middle)*$(lang)"}"#
            guard bytes + rule.count + 1 <= Configuration().document.maxBytes else { break }
            rules.append(rule)
            bytes += rule.count + 1
        }
        XCTAssertGreaterThan(rules.count, 5_000)
        let crowded = #"{"applinks":{"details":[{"appID":"T.a","components":[\#(rules.joined(separator: ","))]}]}}"#
        XCTAssertLessThanOrEqual(crowded.utf8.count, Configuration().document.maxBytes)
        let prefixes = #"{"applinks":{"details":[{"appID":"T.a","components":[\#((0..<1_250).map { #"{"/":"/\#($0)/$(lang)"}"# }.joined(separator: ","))]}]}}"#
        for (text, url, rule) in [(crowded, "https://x.example/zab/fr", 1), (prefixes, "https://x.example/1249/de", 1_249)] {
            let compiled = try compile(text)
            let decided = try DFAMatcher(compiled).decide(url, app: nil).decisions.first
            XCTAssertEqual(decided?.kind, .match, url)
            XCTAssertEqual(decided?.rule, rule, url)
            let reference = try ReferenceMatcher(document: try AASADocument(bytes: Array(text.utf8)), domain: "x.example").decide(url, app: nil)
            XCTAssertEqual(reference.decisions.first?.kind, .match, url)
            XCTAssertEqual(try DFAMatcher(compiled).decide("https://x.example/zz/xx", app: nil).decisions.first?.kind, .noMatch)
        }
    }

    /// `limitWork` changes the budget of a matcher in use (the meter is changed in place, not
    /// replaced): every cache of it charges the new limit from the next URL, lowered or raised.
    func test_limitWork_onAWarmMatcher_appliesToItsNextURL_raisedAndLowered() throws {
        // Too many states to be built at compile time: the lazy caches charge the meter.
        let text = #"{"applinks":{"details":[{"appID":"T.a","paths":["\#(String(repeating: "*a", count: 600))*b"]}]}}"#
        let urls = (1...40).map { "https://x.example/" + String(repeating: "a", count: 100 * $0) + "b" }
        let matcher = DFAMatcher(try compile(text) { $0.automata.maxURLWork = 200_000 })
        func verdict(_ url: String) -> String {
            do { return "\(try matcher.decide(url, app: nil).decisions.map(\.kind))" } catch { return "\(error)" }
        }
        let refused = "work limit exceeded (url-work=200000)"
        let url = try XCTUnwrap(urls.first { verdict($0) == refused }, "the shape must reach the budget")
        matcher.limitWork(to: 1 << 40)
        XCTAssertEqual(verdict(url), "[AASAKit.DecisionKind.noMatch]", "decided under the raised budget")
        matcher.limitWork(to: 200_000)
        XCTAssertEqual(verdict(url), refused)
    }

    /// The verdict depends on the URL's path through the DFA only: a warm cache, a cold one and
    /// a cache cleared at every state give the same answers.
    func test_workVerdict_isTheSameWhateverTheCacheHolds() throws {
        let text = #"{"applinks":{"details":[{"appID":"T.a","paths":["\#(String(repeating: "*a", count: 600))*b"]}]}}"#
        let urls = (0..<40).map { "https://x.example/" + String(repeating: "a", count: 100 * $0) + ($0 % 3 == 0 ? "b" : "") }
        /// The verdicts in `urls`' order, decided by one matcher in that order or (`reversed`)
        /// from the last URL to the first.
        func verdicts(reversed: Bool = false, _ configure: @escaping (inout Configuration) -> Void) throws -> [String] {
            let matcher = DFAMatcher(try compile(text) { configure(&$0); $0.automata.maxURLWork = 200_000 })
            let decided = (reversed ? Array(urls.reversed()) : urls).map { url in
                do { return "\(try matcher.decide(url, app: nil).decisions.map(\.kind))" } catch { return "\(error)" }
            }
            return reversed ? Array(decided.reversed()) : decided
        }
        let warm = try verdicts { _ in }
        XCTAssertTrue(warm.contains("work limit exceeded (url-work=200000)"), "the shape must reach the budget")
        XCTAssertTrue(warm.contains { !$0.hasPrefix("work") }, "and short paths must be decided")
        XCTAssertEqual(try verdicts { $0.automata.cacheCapacity = LazyDFA.minimumCacheCapacity(classes: 256) }, warm)
        XCTAssertEqual(try verdicts { $0.automata.maxClearsPerSearch = 0; $0.automata.cacheCapacity = 1 << 16 }, warm)
        XCTAssertEqual(try verdicts(reversed: true) { _ in }, warm, "decided from the last URL to the first")
    }

    func test_longPathAgainstManyStars_stopsAtTheBudget() throws {
        let text = #"{"applinks":{"details":[{"appID":"T.a","paths":["\#(String(repeating: "*a", count: 30_000))"]}]}}"#
        let matcher = DFAMatcher(try compile(text))
        let started = Date()
        XCTAssertThrowsError(try matcher.decide("https://x.example/" + String(repeating: "a", count: 64_000), app: nil)) { error in
            XCTAssertEqual(error as? URLSplitError, .workLimitExceeded(limit: 500_000))
        }
        // A robustness bound, not a speed claim: before the budget this took over a minute.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    /// The oracle has its own budget (glob table cells, `ReferenceMatcher.cellsPerWorkUnit` per
    /// unit of `url-work`), checked before it computes any: 45 rules calling a variable of
    /// 3 000 `*j*` values took minutes for one 60 000-byte URL, in `explain` too.
    func test_referenceMatcher_refusesAURLOverItsBudgetBeforeWorking() throws {
        let values = (0..<3_000).map { "\"*\($0)*\"" }.joined(separator: ",")
        let rules = (0..<45).map { #"{"/": "/\#($0)/$(v)"}"# }.joined(separator: ",")
        let text = #"{"applinks":{"substitutionVariables":{"v":[\#(values)]},"details":[{"appID":"T.a","components":[\#(rules)]}]}}"#
        let document = try AASADocument(bytes: Array(text.utf8))
        let oracle = ReferenceMatcher(document: document, domain: "x.example")
        let long = "https://x.example/1/" + String(repeating: "a", count: 60_000)
        let started = Date()
        XCTAssertThrowsError(try oracle.decide(long, app: nil)) { XCTAssertEqual($0 as? URLSplitError, .workLimitExceeded(limit: 500_000)) }
        XCTAssertThrowsError(try oracle.explain(long, app: "T.a")) { XCTAssertEqual($0 as? URLSplitError, .workLimitExceeded(limit: 500_000)) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "refused before any glob work")
        // A short URL is decided, and a lowered limit refuses it too.
        XCTAssertEqual(try oracle.decide("https://x.example/7/a12b", app: nil).matchedApps, ["T.a"])
        let strict = ReferenceMatcher(document: document, domain: "x.example", workLimit: 100)
        XCTAssertThrowsError(try strict.decide("https://x.example/7/a12b", app: nil)) {
            XCTAssertEqual($0 as? URLSplitError, .workLimitExceeded(limit: 100))
        }
        // Another host is never worked on: no budget applies.
        XCTAssertEqual(try strict.decide("https://other.example/1/" + String(repeating: "a", count: 60_000), app: nil).matchedApps, [])
    }

    /// "No real URL comes near the budget": every case of the suite, and the real documents
    /// with paths of real URLs, decide under a budget a hundred times smaller than the default.
    func test_realDocumentsAndCases_needAHundredthOfTheDefaultBudget() throws {
        var configuration = Configuration()
        configuration.automata.maxURLWork = Configuration.default.automata.maxURLWork / 100
        configuration.automata.eagerMaxStates = 0
        var decided = 0
        for testCase in try CaseSuite.load() {
            // The hostile cases that declare a raised budget (`url_work`) are what it is for.
            guard testCase.expectedError == nil, testCase.maxURLWork == nil, let document = try? testCase.loadDocument() else { continue }
            var limits = testCase.configuration
            limits.automata.maxURLWork = configuration.automata.maxURLWork
            guard let compiled = try? CompiledDocument(document: document, domain: testCase.domain, configuration: limits) else { continue }
            do {
                _ = try DFAMatcher(compiled).decide(testCase.url, app: nil)
                decided += 1
            } catch .workLimitExceeded {
                XCTFail("\(testCase.name) needs more than \(configuration.automata.maxURLWork) positions of work")
            } catch {}
        }
        XCTAssertGreaterThan(decided, 300)

        let shared = CaseSuite.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        let real = shared.appendingPathComponent("aasa/real")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: real.path) else {
            throw XCTSkip("../shared/corpus is absent")
        }
        let urlText = (try? String(contentsOf: shared.appendingPathComponent("urls/malicious_phish_subset40k.txt"), encoding: .utf8)) ?? ""
        let paths = urlText.split(separator: "\n").prefix(3_000).compactMap { line -> String? in
            guard let slash = line.dropFirst(8).firstIndex(of: "/") else { return nil }
            return String(line[slash...])
        }
        XCTAssertGreaterThan(paths.count, 1_000)
        var documents = 0
        for name in names.sorted() {
            guard let bytes = FileManager.default.contents(atPath: real.appendingPathComponent(name).path),
                let document = try? AASADocument(bytes: Array(bytes), configuration: configuration),
                let compiled = try? CompiledDocument(document: document, domain: "x.example", configuration: configuration)
            else { continue }
            documents += 1
            let matcher = DFAMatcher(compiled)
            for path in paths {
                do {
                    _ = try matcher.decide("https://x.example" + path, app: nil)
                } catch .workLimitExceeded {
                    XCTFail("\(name) needs more than \(configuration.automata.maxURLWork) positions for \(path)")
                } catch {}
            }
        }
        XCTAssertGreaterThan(documents, 200)
    }
}
