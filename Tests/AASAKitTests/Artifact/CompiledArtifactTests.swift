@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Compiled artifacts round-trip exactly, and every kind of damage is refused, never crashed on.
final class CompiledArtifactTests: XCTestCase {
    func corpusRules() throws -> ClassifierRules {
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus").path
        return ClassifierRules(documents: try DomainDocuments.directory(corpus, configuration: .default), engine: .dfa)
    }

    func decode(_ bytes: [UInt8]) throws -> [CompiledArtifact.Domain] {
        let result: Result<[CompiledArtifact.Domain], ArtifactError> = bytes.withUnsafeBytes { raw in
            do throws(ArtifactError) {
                return .success(try CompiledArtifact.decode(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A matcher's decision for `url`, or the error it refused it with: compared whole, so that
    /// two refusals agree only when they are the same refusal.
    func outcome(_ matcher: DFAMatcher, _ url: String) -> Result<URLDecision, URLSplitError> {
        do throws(URLSplitError) {
            return .success(try matcher.decide(url, app: nil))
        } catch {
            return .failure(error)
        }
    }

    func test_artifact_roundTripDecidesExactlyAsTheSource() throws {
        let rules = try corpusRules()
        let loaded = ClassifierRules(artifact: try decode(CompiledArtifact.encode(rules)))
        XCTAssertEqual(loaded.domains.map(\.name), rules.domains.map(\.name))
        var generator = DifferentialGenerator(seed: 7)
        for (source, copy) in zip(rules.domains, loaded.domains) {
            guard case .compiled(let original) = source.state, case .compiled(let decoded) = copy.state else {
                return XCTFail("\(source.name) did not compile")
            }
            // URLs aimed at the domain's own rules: its scenario's URLs (some of them no URL at
            // all), and URLs drawn from its document's patterns, most of them on its own host.
            let file = URL(fileURLWithPath: source.file)
            let document = try JSONParser.parse(Array(try Data(contentsOf: file)))
            let scenario = try String(contentsOf: file.deletingLastPathComponent().appendingPathComponent("urls.txt"), encoding: .utf8)
            let urls = scenario.split(separator: "\n").map(String.init)
                + (0..<300).map { _ in generator.url(for: document).replacingOccurrences(of: "example.com", with: source.name, options: .caseInsensitive) }
            let a = DFAMatcher(original)
            let b = DFAMatcher(decoded)
            var decided = 0
            for url in urls {
                let expected = outcome(a, url)
                XCTAssertEqual(outcome(b, url), expected, url)
                if case .success(let decision) = expected, decision.decisions.contains(where: { $0.kind != .noMatch }) { decided += 1 }
            }
            XCTAssertGreaterThanOrEqual(decided, 30, "\(source.name): the URLs must reach the document's rules")
        }
    }

    /// Every automaton of a compiled document, as the artifact loaded it.
    func automata(of domain: CompiledArtifact.Domain) -> [LazyDFA] {
        guard case .compiled(let compiled) = domain.state else { return [] }
        let components = (compiled.path + compiled.queryText + compiled.fragment).compactMap { $0 }
        return components + compiled.queryGroups.flatMap { $0.values.map(\.dfa) }
    }

    /// An artifact's strings (names, files, app IDs) are read back only when they are valid
    /// UTF-8: every form of invalid sequence is refused as corrupt, every valid one (up to four
    /// bytes, U+FFFD itself included) comes back as written.
    func test_artifactStrings_areReadOnlyWhenValidUTF8() throws {
        func read(_ bytes: [UInt8]) -> String? {
            var writer = BinaryWriter()
            writer.varint(bytes.count)
            writer.append(bytes)
            return writer.bytes.withView { view in
                var reader = BinaryReader(view)
                return try? reader.text()
            }
        }
        for valid in ["", "a.example", "caf\u{e9}.example", "\u{20AC}\u{FFFD}", "\u{1F600}/0123456789abcdef"] {
            XCTAssertEqual(read(Array(valid.utf8)), valid)
        }
        let invalid: [[UInt8]] = [
            [0xFF], [0x80], [0x61, 0xC3], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF8, 0x88, 0x80, 0x80, 0x80], Array("0123456789abcdef".utf8) + [0xE2, 0x82],
        ]
        for bytes in invalid { XCTAssertNil(read(bytes), "\(bytes)") }
    }

    func test_artifact_smallDocumentsHoldPrebuiltTables() throws {
        var counts = CompiledArtifact.Counts()
        let domains = try decode(CompiledArtifact.encode(try corpusRules(), budget: .init(), counts: &counts))
        let loaded = domains.flatMap(automata(of:))
        XCTAssertGreaterThan(loaded.count, 5)
        XCTAssertTrue(loaded.allSatisfy(\.isPrebuilt))
        XCTAssertEqual(counts.prebuilt, loaded.count)
        XCTAssertEqual(counts.lazy, 0)
    }

    /// `/*a` followed by 20 `?` needs 2^20 DFA states (the last 21 characters must be
    /// remembered): over any budget, so the path automaton stays lazy, and still decides as
    /// the source does; the small query automaton next to it is prebuilt.
    func test_artifact_blowUpDocumentFallsBackToTheLazyForm() throws {
        let pattern = "/*a" + String(repeating: "?", count: 20)
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "\#(pattern)", "?": {"q": "x*"}}]}]}}"#
        let document = try AASADocument(bytes: Array(json.utf8))
        let compiled = try CompiledDocument(document: document, domain: "blowup.example")
        let rules = ClassifierRules(
            artifact: [CompiledArtifact.Domain(name: "blowup.example", file: "test", state: .compiled(compiled))])
        var counts = CompiledArtifact.Counts()
        let started = Date()
        let bytes = CompiledArtifact.encode(rules, budget: .init(), counts: &counts)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "the work bound must stop the attempt early")
        XCTAssertEqual(counts, CompiledArtifact.Counts(prebuilt: 1, lazy: 1, bodies: 1))
        let domain = try XCTUnwrap(try decode(bytes).first)
        guard case .compiled(let decoded) = domain.state else { return XCTFail("not compiled") }
        XCTAssertEqual(decoded.path.compactMap { $0 }.map(\.isPrebuilt), [false])
        XCTAssertEqual(automata(of: domain).filter(\.isPrebuilt).count, 1)
        let a = DFAMatcher(compiled)
        let b = DFAMatcher(decoded)
        for path in ["/xa" + String(repeating: "b", count: 20), "/a" + String(repeating: "b", count: 19), "/aaaa" + String(repeating: "é", count: 20)] {
            for query in ["?q=x1", "?q=y", ""] {
                let url = "https://blowup.example" + path + query
                XCTAssertEqual(try a.decide(url, app: nil), try b.decide(url, app: nil), url)
            }
        }
    }

    /// `/*/word` next to `/*/word/*` for a dozen words (the shape of a real 2.3 KB document)
    /// makes a DFA of thousands of states whose table would outweigh its NFA many times in the
    /// file: it is stored lazy, marked so that loading does not try to determinise it, and
    /// decides as the source does.
    func test_artifact_blownUpTableIsStoredLazyAndDecidesTheSame() throws {
        let words = ["dispositif", "demarche", "program", "procedure", "qui-sommes-nous", "who-are-we", "mentions-legales",
            "legal-notices", "politique-de-confidentialite", "privacy-policy", "declaration-accessibilite", "accessibility"]
        let components = words.prefix(2).map { #"{"/": "/\#($0)/*"}"# } + words.prefix(4).map { #"{"/": "/*/\#($0)/*"}"# }
            + words.dropFirst(4).map { #"{"/": "/*/\#($0)"}"# }
        let json = #"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [\#(components.joined(separator: ","))]}]}}"#
        let compiled = try CompiledDocument(document: try AASADocument(bytes: Array(json.utf8)), domain: "blowup.example")
        let rules = ClassifierRules(
            artifact: [CompiledArtifact.Domain(name: "blowup.example", file: "test", state: .compiled(compiled))])
        var counts = CompiledArtifact.Counts()
        let bytes = CompiledArtifact.encode(rules, budget: .init(), counts: &counts)
        XCTAssertEqual(counts, CompiledArtifact.Counts(prebuilt: 0, lazy: 1, bodies: 1))
        XCTAssertLessThan(bytes.count, 4 * json.utf8.count)
        let domain = try XCTUnwrap(try decode(bytes).first)
        guard case .compiled(let decoded) = domain.state else { return XCTFail("not compiled") }
        let path = try XCTUnwrap(decoded.path.compactMap { $0 }.first)
        XCTAssertFalse(path.isPrebuilt)
        XCTAssertEqual(path.configuration.eagerMaxStates, 0)
        let a = DFAMatcher(compiled)
        let b = DFAMatcher(decoded)
        for path in ["/fr/privacy-policy", "/x/y/demarche/z", "/dispositif/1", "/a/b/accessibility/", "/who-are-we", "/a/who-are-we"] {
            let url = "https://blowup.example" + path
            XCTAssertEqual(try a.decide(url, app: nil), try b.decide(url, app: nil), url)
        }
    }

    /// Format 8 (NFAs without their variable positions) and older are refused, not migrated.
    func test_artifact_refusesTheOlderFormatWithAClearMessage() throws {
        XCTAssertEqual(CompiledArtifact.version, 9)
        for version: UInt8 in [5, 6, 7, 8] {
            var older = CompiledArtifact.encode(try corpusRules())
            older[8] = version
            XCTAssertThrowsError(try decode(older)) {
                XCTAssertEqual($0 as? ArtifactError, .otherVersion(found: UInt32(version), expected: CompiledArtifact.version))
                XCTAssertTrue("\($0)".contains("run 'aasa compile' again"), "\($0)")
            }
        }
    }

    func test_artifact_refusesWrongMagicOtherVersionTruncationAndDamage() throws {
        let bytes = CompiledArtifact.encode(try corpusRules())
        XCTAssertThrowsError(try decode(Array("not an artifact at all, but long enough".utf8))) {
            XCTAssertEqual($0 as? ArtifactError, .notAnArtifact)
        }
        var otherVersion = bytes
        otherVersion[8] = 99
        XCTAssertThrowsError(try decode(otherVersion)) {
            XCTAssertEqual($0 as? ArtifactError, .otherVersion(found: 99, expected: CompiledArtifact.version))
        }
        XCTAssertThrowsError(try decode(Array(bytes.prefix(bytes.count - 1)))) { XCTAssertEqual($0 as? ArtifactError, .truncated) }
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0x40
        XCTAssertThrowsError(try decode(damaged)) { XCTAssertEqual($0 as? ArtifactError, .checksumMismatch) }
    }

    /// `aasa compile` writes each domain once, ASCII-lowercased, in byte order, and the host
    /// table relies on it: an index naming `A.COM` matched only upper-case hosts, and a repeated
    /// name was shadowed by the first. Such an index is refused as corrupt, checksum or not.
    func test_artifact_refusesDomainNamesCompileNeverWrites() throws {
        let domains = try decode(CompiledArtifact.encode(try corpusRules()))
        XCTAssertGreaterThanOrEqual(domains.count, 2)
        func encoded(_ names: [String]) -> [UInt8] {
            var renamed = Array(domains.prefix(names.count))
            for index in renamed.indices { renamed[index].name = names[index] }
            return CompiledArtifact.encode(ClassifierRules(artifact: renamed))
        }
        XCTAssertEqual(try decode(encoded(["a.example", "b.example"])).map(\.name), ["a.example", "b.example"])
        for names in [["A.example", "b.example"], ["a.example", "a.example"], ["b.example", "a.example"], ["", "a.example"]] {
            XCTAssertThrowsError(try decode(encoded(names)), "\(names)") {
                guard case .corrupt = $0 as? ArtifactError else { return XCTFail("\(names): \($0)") }
            }
        }
    }

    /// Damage that keeps a valid checksum (re-signed) must still be refused or decode into
    /// something safe: the structural checks run on every index.
    func test_artifact_resignedDamageNeverCrashes() throws {
        let bytes = CompiledArtifact.encode(try corpusRules())
        var random = RandomSource(seed: 11)
        var refused = 0
        for _ in 0..<400 {
            var damaged = bytes
            for _ in 0..<random.int(1...4) {
                let at = random.int(CompiledArtifact.headerSize...(bytes.count - 1))
                damaged[at] = UInt8(truncatingIfNeeded: random.next())
            }
            damaged = CompiledArtifact.resigned(damaged)
            do {
                let domains = try decode(damaged)
                // Whatever decoded must be usable without crashing.
                let rules = ClassifierRules(artifact: domains)
                let classifier = Classifier(rules: rules, format: .ndjson)
                let out = RecordBuffer()
                for domain in rules.domains.prefix(3) {
                    var url = Array("https://\(domain.name)/a/b?c=d#e".utf8)
                    url.withUnsafeMutableBufferPointer { classifier.classify(UnsafeBufferPointer($0), into: out) }
                }
            } catch {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 0)
    }

    /// Each body is checked when a domain using it is decoded: damage in one body leaves the
    /// others usable, and the URLs of the domains using it get error records instead of the
    /// run being refused.
    func test_mappedArtifact_damagedBodyFailsOnlyItsDomain() throws {
        let rules = try corpusRules()
        var bytes = CompiledArtifact.encode(rules)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).aasac")
        defer { try? FileManager.default.removeItem(at: file) }
        // The last byte belongs to the last body.
        bytes[bytes.count - 1] ^= 0x5A
        try Data(bytes).write(to: file)
        let mapped = try CompiledArtifact.open(path: file.path)
        XCTAssertEqual(mapped.entries.map(\.name), rules.domains.map(\.name))
        XCTAssertThrowsError(try decode(bytes)) { XCTAssertEqual($0 as? ArtifactError, .checksumMismatch) }
        let users = Set(
            mapped.entries.filter { entry in
                if case .compiled(let body, _) = entry.kind { return body == mapped.bodyCount - 1 }
                return false
            }.map(\.name))
        XCTAssertFalse(users.isEmpty)
        let reported = Reported()
        let lazy = ClassifierRules(artifact: mapped) { domain, _ in reported.add(domain) }
        for domain in lazy.domains {
            switch domain.state {
            case .failed(let reason):
                XCTAssertTrue(users.contains(domain.name), "\(domain.name): \(reason)")
                XCTAssertTrue(reason.contains("checksum mismatch"), reason)
            case .compiled: XCTAssertFalse(users.contains(domain.name), "a damaged body must fail \(domain.name)")
            case .reference: XCTFail("\(domain.name) has the reference engine")
            }
        }
        XCTAssertEqual(Set(reported.names), users)
    }
}

/// Names reported by a load-failure callback, from any thread.
final class Reported: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ name: String) { lock.lock(); list.append(name); lock.unlock() }
    var names: [String] { lock.lock(); defer { lock.unlock() }; return list }
}
