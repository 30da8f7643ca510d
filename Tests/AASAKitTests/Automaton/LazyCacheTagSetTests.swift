@testable import AASAKit
import XCTest
import _AASATestSupport

/// A lazy DFA cache interns each accepting tag set once and finds it again (`tagSetIndex`), with
/// many distinct sets.
final class LazyCacheTagSetTests: XCTestCase {
    func test_tagSets_areInternedOnce_andFoundAgain() throws {
        // `/x7` is accepted by rule 7 and by the `/x7*` of rule 47 (and `/x1*` by `/x10`…):
        // forty texts, many distinct accepting sets.
        let rules = (0..<40).map { #"{"/": "/x\#($0)"}"# } + (0..<40).map { #"{"/": "/x\#($0)*"}"# }
        let text = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": ["# + rules.joined(separator: ",") + "]}]}}"
        let compiled = try CompiledDocument(
            document: AASADocument(bytes: Array(text.utf8)), domain: "example.com", configuration: EngineConfigurations.lazyOnly)
        let dfa = try XCTUnwrap(compiled.path.compactMap { $0 }.first)
        XCTAssertNil(dfa.prebuilt)
        let texts = (0..<40).map { "/x\($0)" } + (0..<40).map { "/x\($0)/more" }
        let cache = dfa.makeCache()
        for text in texts {
            // A fresh cache holds a handful of sets: its answer is the one to match.
            XCTAssertEqual(dfa.search(text, cache: cache), dfa.search(text, cache: dfa.makeCache()), text)
        }
        let sets = cache.tagSets.map(\.sorted)
        XCTAssertGreaterThan(sets.count, 16, "many distinct accepting sets")
        XCTAssertEqual(Set(sets).count, sets.count, "no tag set is interned twice")
        let states = cache.statesBuilt
        for text in texts.reversed() {
            XCTAssertEqual(dfa.search(text, cache: cache), dfa.search(text, cache: dfa.makeCache()), text)
        }
        XCTAssertEqual(cache.statesBuilt, states, "a second pass builds no state")
        XCTAssertEqual(cache.tagSets.count, sets.count, "a second pass interns no tag set")
    }
}

/// A thread's account of its lazy caches (`LazyCacheMemory`) counts the states URLs built, and
/// nothing once the caches are emptied: an emptied cache's dead state, left in the account,
/// kept a fleet's total over its budget and emptied every cache at every URL.
final class LazyCacheMemoryTests: XCTestCase {
    func test_account_countsBuiltStates_andNothingOnceReleased() throws {
        let text = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/p/*", "?": "k*=v*x"}, {"/": "/x*y*z"}]}]}}"#
        let compiled = try CompiledDocument(
            document: AASADocument(bytes: Array(text.utf8)), domain: "example.com", configuration: EngineConfigurations.lazyOnly)
        let account = LazyCacheMemory()
        let matcher = DFAMatcher(compiled, account: account)
        XCTAssertEqual(account.bytes, 0, "empty caches are not counted")
        let urls = (0..<50).map { "https://example.com/p/\($0)?k\($0)=v\($0)abcx" } + ["https://example.com/xaaybbz"]
        let decided = try urls.map { try matcher.decide($0, app: nil) }
        let counted = account.bytes
        XCTAssertGreaterThan(counted, 0)
        let held = matcher.cacheStatistics.memory
        matcher.releaseCaches()
        XCTAssertEqual(account.bytes, 0)
        // An emptied cache holds what a fresh one does: the account counted the rest.
        XCTAssertEqual(counted, held - matcher.cacheStatistics.memory)
        XCTAssertEqual(try urls.map { try matcher.decide($0, app: nil) }, decided, "an emptied cache decides as before")
        XCTAssertGreaterThan(account.bytes, 0)
    }

    /// A query item name's cache is made when a URL first names it, so a URL chooses how many
    /// there are (thousands in one 64 KB URL): each is charged when made, empty or not, and a
    /// release drops them. Uncharged, 20 documents of 5 000 names held 328 MiB of empty caches
    /// past a 256 MiB budget.
    func test_queryItemCaches_areChargedWhenMade_andDroppedByARelease() throws {
        let items = (0..<300).map { #""k\#($0)": "v*""# }.joined(separator: ", ")
        let text = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/p", "?": {\#(items)}}]}]}}"#
        let compiled = try CompiledDocument(document: AASADocument(bytes: Array(text.utf8)), domain: "example.com")
        let account = LazyCacheMemory()
        let matcher = DFAMatcher(compiled, account: account)
        let all = "https://example.com/p?" + (0..<300).map { "k\($0)=v" }.joined(separator: "&")
        let decided = try matcher.decide(all, app: nil)
        XCTAssertEqual(decided.decisions.first?.kind, .match)
        XCTAssertEqual(matcher.queryItemCacheCount, 300)
        let footprint = try XCTUnwrap(compiled.queryGroups.flatMap { $0 }.first?.value.dfa.makeCache().emptyFootprint)
        XCTAssertGreaterThan(footprint, LazyDFA.Cache.objectBytes)
        XCTAssertGreaterThanOrEqual(account.bytes, 300 * footprint, "each name's cache is charged when made")
        matcher.releaseCaches()
        XCTAssertEqual(matcher.queryItemCacheCount, 0, "a release drops the item caches")
        XCTAssertEqual(account.bytes, 0, "and gives back all they were charged")
        XCTAssertEqual(try matcher.decide(all, app: nil), decided, "they are made again as URLs name them")
        XCTAssertEqual(matcher.queryItemCacheCount, 300)
    }
}

/// A cache over a prebuilt table never builds a state: it holds room for the dead state only,
/// where a lazy one starts with room for sixteen (a fleet makes one per automaton of each
/// document it meets).
final class PrebuiltCacheRoomTests: XCTestCase {
    func test_cacheOverAPrebuiltTable_holdsRoomForTheDeadStateOnly_evenAfterRelease() throws {
        let text = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/a/*"}, {"/": "/b/?x", "exclude": true}]}]}}"#
        let document = try AASADocument(bytes: Array(text.utf8))
        let eager = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.compactTables)
        let dfa = try XCTUnwrap(eager.path.compactMap { $0 }.first)
        XCTAssertNotNil(dfa.prebuilt)
        let cache = dfa.makeCache()
        XCTAssertEqual(cache.table.rowCapacity, 1)
        XCTAssertEqual(dfa.search("/a/x", cache: cache), dfa.search("/a/x", cache: dfa.makeCache()))
        cache.release()
        XCTAssertEqual(cache.table.rowCapacity, 1, "a release keeps room for the dead state only")
        let lazy = try CompiledDocument(document: document, domain: "example.com", configuration: EngineConfigurations.lazyOnly)
        let lazyDFA = try XCTUnwrap(lazy.path.compactMap { $0 }.first)
        XCTAssertNil(lazyDFA.prebuilt)
        XCTAssertEqual(lazyDFA.makeCache().table.rowCapacity, 16)
    }
}
