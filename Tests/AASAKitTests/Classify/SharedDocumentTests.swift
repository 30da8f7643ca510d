@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Domains serving the same document share one compile (a rules directory: the same file
/// bytes) or one decoded body (an artifact), and each worker thread keeps one matcher for those
/// automata: an interleaved stream then writes, for every domain, the records it would get alone.
final class SharedDocumentTests: XCTestCase {
    static let shop = #"{"applinks": {"details": [{"appIDs": ["T.shop"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
    static let shopOtherApp = #"{"applinks": {"details": [{"appIDs": ["U.other"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
    static let news = #"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["T.news"], "components": [{"/": "/story/?*", "?": {"id": "*"}}]}]}}"#
    static let broken = #"{"applinks": {"details": [}"#

    /// A rules directory: one `NAME.json` per domain.
    func rulesDirectory(_ files: [(domain: String, json: String)]) throws -> String {
        let folder = try makeTemporaryFolder("shared-documents")
        for file in files {
            try Data(file.json.utf8).write(to: folder.appendingPathComponent("\(file.domain).json"))
        }
        return folder.path
    }

    /// Why a domain of these tests' own documents has no compiled document: a failure, never a skip.
    struct NotCompiled: Error, CustomStringConvertible {
        var description: String
    }

    func compiled(_ rules: ClassifierRules, _ domain: String) throws -> CompiledDocument {
        let found = try XCTUnwrap(rules.domains.first { $0.name == domain })
        guard case .compiled(let compiled) = found.loaded.state else {
            throw NotCompiled(description: "\(domain) did not compile: \(found.loaded.failure ?? "\(found.loaded.state)")")
        }
        return compiled
    }

    /// Every URL over `hosts` and `paths`, hosts interleaved.
    func stream(hosts: [String], paths: [String]) -> [String] {
        paths.flatMap { path in hosts.map { "https://\($0)\(path)" } }
    }

    /// The NDJSON record of each URL, all through one classifier (one thread's matchers).
    func records(_ rules: ClassifierRules, _ urls: [String]) -> [String] {
        let classifier = Classifier(rules: rules, format: .ndjson)
        return urls.map { url in
            let out = RecordBuffer()
            var bytes = Array(url.utf8)
            bytes.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
            return String(decoding: out.bytes, as: UTF8.self)
        }
    }

    static let paths = ["/items/1", "/help/1", "/story/x?id=1", "/STORY/y?id=2", "/story/z", "/", "/items/caf%C3%A9"]

    func test_rulesDirectory_domainsServingTheSameFileShareOneCompile() throws {
        let folder = try rulesDirectory([("a.example", Self.shop), ("b.example", Self.shop), ("c.example", Self.news)])
        let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: .dfa)
        let a = try compiled(rules, "a.example")
        let b = try compiled(rules, "b.example")
        let c = try compiled(rules, "c.example")
        XCTAssertTrue(a.automata === b.automata, "the same file bytes compile once")
        XCTAssertFalse(a.automata === c.automata, "other rules compile on their own")
        XCTAssertEqual([a.domain, b.domain, c.domain], ["a.example", "b.example", "c.example"])
        XCTAssertEqual(b.appIDs, ["T.shop"])
    }

    /// Two apps in two entries, one of them named twice: the shape the white-label fleets have.
    static func twoApps(_ first: String, _ second: String) -> String {
        #"{"applinks": {"details": [{"appIDs": ["\#(first)", "\#(second)"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}, "#
            + #"{"appID": "\#(second)", "components": [{"/": "/story/*", "?": {"id": "?*"}}]}]}, "webcredentials": {"apps": []}}"#
    }

    func test_rulesDirectory_documentsDifferingOnlyInAppIDs_shareOneCompile_andKeepTheirOwnApps() throws {
        let files = [
            ("a.example", Self.twoApps("T.one", "T.two")), ("b.example", Self.twoApps("U.red", "U.blue")),
            ("c.example", Self.shop), ("d.example", Self.shopOtherApp),
        ]
        let folder = try rulesDirectory(files)
        let listing = try DomainDocuments.listing(folder)
        let rules = ClassifierRules(listing: listing, engine: .dfa)
        XCTAssertTrue(try compiled(rules, "a.example").automata === compiled(rules, "b.example").automata)
        XCTAssertTrue(try compiled(rules, "c.example").automata === compiled(rules, "d.example").automata)
        XCTAssertEqual(try compiled(rules, "b.example").appIDs, ["U.red", "U.blue"])
        let urls = stream(hosts: files.map(\.0), paths: Self.paths + ["/story/1?id=7", "/story/1"])
        let got = records(rules, urls)
        XCTAssertEqual(got, records(ClassifierRules(listing: listing, engine: .reference), urls))
        XCTAssertTrue(got.contains { $0.contains(#""domain": "b.example", "apps": ["U.red", "U.blue"]"#) })
        XCTAssertTrue(got.contains { $0.contains(#""domain": "b.example", "apps": ["U.blue"]"#) })
    }

    /// Sharing by shape is refused wherever replacing the app IDs' literals could change what
    /// compiles: an app ID also written as a pattern, the legacy dictionary (ordered by the app
    /// IDs themselves), an app ID repeated where another document names two, an escaped one.
    func test_rulesDirectory_documentsWhoseAppIDsAreNotOnlyAppIDs_doNotShareByShape() throws {
        let patternIsAnApp = #"{"applinks": {"details": [{"appIDs": ["T.x"], "components": [{"/": "/q", "?": {"k": "T.x"}}, {"/": "/a/*"}]}]}}"#
        let patternIsAnotherApp = #"{"applinks": {"details": [{"appIDs": ["U.y"], "components": [{"/": "/q", "?": {"k": "U.y"}}, {"/": "/a/*"}]}]}}"#
        let legacyAB = #"{"applinks": {"apps": [], "details": {"B.b": {"paths": ["/one/*"]}, "A.a": {"paths": ["/two/*"]}}}}"#
        let legacyBA = #"{"applinks": {"apps": [], "details": {"A.b": {"paths": ["/one/*"]}, "B.a": {"paths": ["/two/*"]}}}}"#
        let escaped = #"{"applinks": {"details": [{"appIDs": ["T.\u0073hop"], "components": [{"/": "/items/*"}, {"/": "/help/*", "exclude": true}]}]}}"#
        for (pair, sharable) in [((patternIsAnApp, patternIsAnotherApp), false), ((legacyAB, legacyBA), false), ((Self.shop, escaped), false)] {
            let files = [("a.example", pair.0), ("b.example", pair.1)]
            let folder = try rulesDirectory(files)
            let listing = try DomainDocuments.listing(folder)
            let rules = ClassifierRules(listing: listing, engine: .dfa)
            XCTAssertEqual(try compiled(rules, "a.example").automata === compiled(rules, "b.example").automata, sharable, pair.1)
            let urls = stream(hosts: files.map(\.0), paths: ["/q?k=T.x", "/q?k=U.y", "/a/1", "/one/1", "/two/1", "/items/1", "/help/1"])
            XCTAssertEqual(records(rules, urls), records(ClassifierRules(listing: listing, engine: .reference), urls), pair.1)
        }
        // Thousands of app IDs in one large document: the shape is found in one pass over the
        // file (a robustness bound, not a speed claim: a scan per app ID reads it 8 000 times).
        let many = (0..<8_000).map { "T\($0).app" }
        let large = #"{"applinks": {"details": [{"appIDs": ["# + many.map { "\"\($0)\"" }.joined(separator: ", ")
            + #"], "components": [{"/": "/items/*"}]}]}}"#
        let started = Date()
        let shape = try XCTUnwrap(ClassifierRules.shape(of: Array(large.utf8), try AASADocument(bytes: Array(large.utf8))))
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(shape.appIDs.count, 8_000)
        XCTAssertFalse(shape.bytes.contains(Array("T7999.app".utf8)))
        // The same app named twice in an entry (one app there) has no shape: its literals
        // outnumber its appearances.
        let repeated = Self.twoApps("T.one", "T.one")
        XCTAssertNil(ClassifierRules.shape(of: Array(repeated.utf8), try AASADocument(bytes: Array(repeated.utf8))))
        let distinct = Self.twoApps("T.one", "T.two")
        XCTAssertNotNil(ClassifierRules.shape(of: Array(distinct.utf8), try AASADocument(bytes: Array(distinct.utf8))))
    }

    func test_rulesDirectory_interleavedDomainsSharingAMatcher_writeTheReferenceRecords() throws {
        let files = [("a.example", Self.shop), ("b.example", Self.news), ("c.example", Self.shop), ("d.example", Self.news), ("e.example", Self.shopOtherApp)]
        let folder = try rulesDirectory(files)
        let listing = try DomainDocuments.listing(folder)
        let urls = stream(hosts: files.map(\.0) + ["A.EXAMPLE", "unserved.example"], paths: Self.paths)
        let expected = records(ClassifierRules(listing: listing, engine: .reference), urls)
        let got = records(ClassifierRules(listing: listing, engine: .dfa), urls)
        XCTAssertEqual(got, expected)
        // Each domain names itself and its own apps in its records.
        XCTAssertTrue(got.contains { $0.contains(#""domain": "c.example", "apps": ["T.shop"]"#) })
        XCTAssertTrue(got.contains { $0.contains(#""domain": "e.example", "apps": ["U.other"]"#) })
    }

    func test_rulesDirectory_aFailureIsNotShared_eachDomainNamesItsOwnFile() throws {
        let folder = try rulesDirectory([("a.example", Self.broken), ("b.example", Self.broken), ("c.example", Self.shop)])
        let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: .dfa)
        for name in ["a.example", "b.example"] {
            let reason = try XCTUnwrap(rules.domains.first { $0.name == name }?.loaded.failure)
            XCTAssertTrue(reason.contains("\(name).json"), reason)
        }
        XCTAssertNil(rules.domains.first { $0.name == "c.example" }?.loaded.failure)
    }

    func test_artifact_interleavedDomainsSharingABody_writeTheReferenceRecords() throws {
        let files = [("a.example", Self.shop), ("b.example", Self.shopOtherApp), ("c.example", Self.news), ("d.example", Self.shop)]
        let folder = try rulesDirectory(files)
        let documents = try DomainDocuments.directory(folder, configuration: .default)
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(documents: documents, engine: .dfa), budget: .init(), counts: &counts)
        XCTAssertEqual(counts.bodies, 2, "shop and its other-app copy share a body")
        let file = try makeTemporaryFolder("shared-artifact").appendingPathComponent("rules.aasac")
        try Data(bytes).write(to: file)
        let mapped = try CompiledArtifact.open(path: file.path)
        let urls = stream(hosts: files.map(\.0) + ["unserved.example"], paths: Self.paths)
        let expected = records(ClassifierRules(documents: documents, engine: .reference), urls)
        XCTAssertEqual(records(ClassifierRules(artifact: mapped), urls), expected)
        XCTAssertTrue(expected.contains { $0.contains(#""domain": "b.example", "apps": ["U.other"]"#) })
    }

    /// Domains of one body and the same app IDs share what the first of them loaded (its
    /// document, app IDs, rules and record pieces), each under its own name: names longer and
    /// shorter than the first's, met in any order, in every record format.
    func test_artifact_domainsWithTheSameBodyAndApps_shareWhatTheFirstLoaded_eachNamingItself() throws {
        let files = [
            ("a.example", Self.shop), ("b.ex", Self.shop), ("c.much-longer-name.example", Self.shop), ("d.example", Self.shopOtherApp),
            ("e.example", Self.shopOtherApp),
        ]
        let folder = try rulesDirectory(files)
        let documents = try DomainDocuments.directory(folder, configuration: .default)
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(ClassifierRules(documents: documents, engine: .dfa), budget: .init(), counts: &counts)
        XCTAssertEqual(counts.bodies, 1)
        let file = try makeTemporaryFolder("shared-loaded").appendingPathComponent("rules.aasac")
        try Data(bytes).write(to: file)
        let mapped = try CompiledArtifact.open(path: file.path)
        XCTAssertTrue(mapped.sameAppIDs(0, 2))
        XCTAssertFalse(mapped.sameAppIDs(0, 3))
        XCTAssertTrue(mapped.sameAppIDs(3, 4))
        let hosts = ["c.much-longer-name.example", "b.ex", "e.example", "a.example", "d.example"]
        let urls = stream(hosts: hosts, paths: Self.paths)
        for format in [RecordFormat.ndjson, .tsv, .csv] {
            func records(_ rules: ClassifierRules) -> [String] {
                let classifier = Classifier(rules: rules, format: format)
                return urls.map { url in
                    let out = RecordBuffer()
                    Array(url.utf8).withUnsafeBufferPointer { classifier.classify($0, into: out) }
                    return String(decoding: out.bytes, as: UTF8.self)
                }
            }
            let artifact = ClassifierRules(artifact: mapped)
            let got = records(artifact)
            XCTAssertEqual(got, records(ClassifierRules(documents: documents, engine: .reference)), "\(format)")
            let loaded = artifact.domains.map(\.loaded)
            XCTAssertTrue(loaded[1].fragments.noMatchTail.baseAddress != loaded[0].fragments.noMatchTail.baseAddress, "each domain owns its pieces")
            XCTAssertEqual(loaded.map(\.appIDs), [["T.shop"], ["T.shop"], ["T.shop"], ["U.other"], ["U.other"]])
        }
        // Met after a.example, b.ex and c.much-longer-name.example take its pieces.
        let shared = records(ClassifierRules(artifact: mapped), ["https://a.example/x", "https://b.ex/items/1", "https://c.much-longer-name.example/none"])
        XCTAssertEqual(shared.dropFirst(), [
            #"{"url": "https://b.ex/items/1", "domain": "b.ex", "apps": ["T.shop"], "decisions": [{"app": "T.shop", "decision": "match", "entry": 0, "rule": 0}]}"# + "\n",
            #"{"url": "https://c.much-longer-name.example/none", "domain": "c.much-longer-name.example", "apps": [], "decisions": [{"app": "T.shop", "decision": "no_match"}]}"# + "\n",
        ])
    }

    /// A thread keeps its domains' slots in the order it meets them; the counts it reports are
    /// still each domain's own, as its records show them.
    func test_statistics_areEachDomainsOwn_whateverOrderTheThreadMeetsThem() throws {
        let files = [("a.example", Self.shop), ("b.example", Self.broken), ("c.example", Self.news), ("d.example", Self.shop)]
        let folder = try rulesDirectory(files)
        for engine in [ClassifierRules.Engine.dfa, .reference] {
            let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: engine)
            let classifier = Classifier(rules: rules, format: .ndjson)
            // Met in the order d, c, b, a, then interleaved, each domain with its own number of
            // records.
            let urls = stream(hosts: ["d.example", "c.example", "b.example", "a.example", "unserved.example"], paths: Self.paths)
                + stream(hosts: ["d.example", "c.example", "d.example", "b.example"], paths: Self.paths)
            var expected = ClassifyStatistics(rules: rules)
            for url in urls {
                let out = RecordBuffer()
                var bytes = Array(url.utf8)
                bytes.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
                let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.bytes)) as? [String: Any])
                expected.records += 1
                guard let domain = record["domain"] as? String else {
                    expected.withoutDomain += 1
                    continue
                }
                let index = try XCTUnwrap(rules.domains.firstIndex { $0.name == domain })
                expected.domainRecords[index] += 1
                if record["error"] != nil {
                    expected.errors += 1
                    continue
                }
                let opened = try XCTUnwrap(record["apps"] as? [String])
                if !opened.isEmpty { expected.domainMatched[index] += 1 }
                if expected.appMatches[index].isEmpty { expected.appMatches[index] = Array(repeating: 0, count: rules.domains[index].appIDs.count) }
                for app in opened { expected.appMatches[index][try XCTUnwrap(rules.domains[index].appIDs.firstIndex(of: app))] += 1 }
            }
            let got = classifier.statistics
            XCTAssertEqual(got.records, expected.records, "\(engine)")
            XCTAssertEqual(got.errors, expected.errors, "\(engine)")
            XCTAssertEqual(got.withoutDomain, expected.withoutDomain, "\(engine)")
            XCTAssertEqual(got.domainRecords, expected.domainRecords, "\(engine)")
            XCTAssertEqual(got.domainMatched, expected.domainMatched, "\(engine)")
            for index in rules.domains.indices where !expected.appMatches[index].isEmpty {
                XCTAssertEqual(got.appMatches[index], expected.appMatches[index], "\(engine) \(rules.domains[index].name)")
            }
            XCTAssertGreaterThan(expected.domainMatched.reduce(0, +), 0, "some records open an app")
        }
    }

    /// Workers' counts add up per domain and app; a domain one worker never met (empty counts)
    /// takes the other's, and a shorter row is extended, never reset.
    func test_statisticsMerge_addsPerAppCountsPerDomain_extendingAShorterRow() throws {
        let files = [("a.example", Self.shop), ("b.example", Self.shop), ("c.example", Self.shop), ("d.example", Self.shop)]
        let rules = ClassifierRules(listing: try DomainDocuments.listing(try rulesDirectory(files)), engine: .dfa)
        var first = ClassifyStatistics(rules: rules)
        var second = ClassifyStatistics(rules: rules)
        first.appMatches[0] = [2, 1]  // a: first worker only
        second.appMatches[1] = [0, 3]  // b: second worker only
        first.appMatches[2] = [1]  // c: both, the first's shorter
        second.appMatches[2] = [4, 5]
        first.domainRecords[3] = 7  // d: records, no app opened
        var merged = ClassifyStatistics(rules: rules)
        merged.merge(first)
        merged.merge(second)
        XCTAssertEqual(merged.appMatches, [[2, 1], [0, 3], [5, 5], []])
        XCTAssertEqual(merged.domainRecords, [0, 0, 0, 7])
    }

    func test_oneThreadKeepsOneMatcherPerSetOfAutomata() throws {
        let folder = try rulesDirectory([("a.example", Self.shop), ("b.example", Self.shop), ("c.example", Self.news)])
        let rules = ClassifierRules(listing: try DomainDocuments.listing(folder), engine: .dfa)
        let classifier = Classifier(rules: rules, format: .ndjson)
        let out = RecordBuffer()
        for url in ["https://a.example/items/1", "https://b.example/items/2", "https://c.example/story/x?id=1"] {
            var bytes = Array(url.utf8)
            bytes.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
        }
        XCTAssertEqual(classifier.matcherCount, 2)
    }
}
