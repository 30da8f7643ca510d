@testable import AASAKit
import XCTest
import _AASATestSupport

/// An automaton loaded from an artifact with its table keeps its NFA stored (format 6): the
/// table decides every URL, the NFA is decoded only when something asks for it, and it then is
/// the NFA that was compiled; written again, it is the same bytes.
extension CompiledArtifactTests {
    /// Every automaton of the loaded artifact, with the same automaton of the source.
    func loadedAndSource() throws -> (loaded: [LazyDFA], source: [LazyDFA], rules: ClassifierRules, artifact: [UInt8]) {
        let rules = try corpusRules()
        let artifact = CompiledArtifact.encode(rules)
        let domains = try decode(artifact)
        let loaded = domains.flatMap(automata(of:))
        let source = rules.domains.flatMap { domain in
            automata(of: CompiledArtifact.Domain(name: domain.name, file: domain.file, state: domain.state))
        }
        return (loaded, source, rules, artifact)
    }

    func encodedNFA(_ nfa: NFA) -> [UInt8] {
        var writer = BinaryWriter()
        nfa.encode(into: &writer)
        return writer.bytes
    }

    func test_tableBackedAutomata_loadWithTheirNFAStored_andDecodeItAsCompiledOnRequest() throws {
        let (loaded, source, _, _) = try loadedAndSource()
        XCTAssertEqual(loaded.count, source.count)
        XCTAssertGreaterThan(loaded.count, 5)
        for (dfa, original) in zip(loaded, source) {
            let deferred = try XCTUnwrap(dfa.deferredNFA, "a table-backed automaton keeps its NFA stored")
            XCTAssertTrue(dfa.isPrebuilt)
            // The count a plan shows is read from the stored bytes, not by decoding them.
            XCTAssertEqual(dfa.nfaStateCount, original.nfa.stateCount)
            XCTAssertEqual(dfa.choice.nfaStates, original.nfa.stateCount)
            XCTAssertEqual(deferred.encoded, encodedNFA(original.nfa))
            XCTAssertEqual(encodedNFA(dfa.nfa), encodedNFA(original.nfa))
            XCTAssertEqual(dfa.nfa.kinds, original.nfa.kinds)
            XCTAssertFalse(deferred.decodingFailed)
        }
    }

    /// A loaded document written again is the same artifact, byte for byte: its stored NFAs are
    /// copied as they are, never decoded for it.
    func test_reencodingALoadedArtifact_writesTheSameBytes_withoutDecodingItsNFAs() throws {
        let (_, _, _, artifact) = try loadedAndSource()
        let domains = try decode(artifact)
        let again = CompiledArtifact.encode(ClassifierRules(artifact: domains))
        XCTAssertEqual(again, artifact)
        let automata = domains.flatMap(automata(of:))
        XCTAssertTrue(automata.allSatisfy { $0.deferredNFA != nil })
        XCTAssertTrue(automata.allSatisfy { $0.deferredNFA?.hasDecoded == false }, "encoding decoded a stored NFA")
    }

    /// A table an automaton already has costs no work to store: with no `eager-dfa-work` left
    /// for the document, a loaded artifact is still written again byte for byte.
    func test_reencodingWithNoDocumentWorkLeft_keepsTheTablesItHas() throws {
        let (_, _, _, artifact) = try loadedAndSource()
        var counts = CompiledArtifact.Counts()
        let again = CompiledArtifact.encode(
            ClassifierRules(artifact: try decode(artifact)), budget: .init(maxDocumentWork: 0), counts: &counts)
        XCTAssertEqual(again, artifact)
        XCTAssertGreaterThan(counts.prebuilt, 0)
    }

    /// Stored bytes that do not decode to a valid NFA (never written by `aasa compile`) read as
    /// the NFA that accepts nothing, and say so; the table is what searches read meanwhile.
    func test_damagedStoredNFA_readsAsAcceptingNothing_andSaysSo() throws {
        let (loaded, _, _, _) = try loadedAndSource()
        let good = try XCTUnwrap(loaded.first?.deferredNFA?.encoded)
        // The variable positions declared one more than the states hold: refused by the checks
        // of `NFA.decode`, as a transition's target beyond the states would be.
        let (states, positions, rest) = try good.withView { view throws(ArtifactError) in
            var reader = BinaryReader(view)
            return (try reader.natural(), try reader.natural(), view.count - reader.remaining)
        }
        var header = BinaryWriter()
        header.varint(states)
        header.varint(positions + 1)
        let damaged = header.bytes + good[rest...]
        let limits = Configuration.Automata()
        for bytes in [damaged, Array(good.dropLast()), good + [0]] {
            let deferred = try bytes.withView { try CompiledDocument.deferredNFA($0, tagLimit: 1_000, limits: limits) }
            XCTAssertEqual(deferred.nfa.stateCount, NFA.acceptingNothing.stateCount, "\(bytes)")
            XCTAssertEqual(deferred.nfa.kinds, [.plain])
            XCTAssertTrue(deferred.decodingFailed)
        }
        let intact = try good.withView { try CompiledDocument.deferredNFA($0, tagLimit: 1_000, limits: limits) }
        XCTAssertFalse(intact.hasDecoded)
        XCTAssertEqual(encodedNFA(intact.nfa), good)
        XCTAssertFalse(intact.decodingFailed)
    }

    /// The state count an NFA declares is held to `nfa-states` when its automaton is loaded,
    /// as compiling its document would be.
    func test_storedNFAOverTheStateLimit_isRefusedAtLoad() throws {
        let (loaded, _, _, _) = try loadedAndSource()
        let stored = try XCTUnwrap(loaded.max { $0.nfaStateCount < $1.nfaStateCount }?.deferredNFA)
        var limits = Configuration.Automata()
        limits.maxNFAStates = stored.declaredStateCount - 1
        XCTAssertThrowsError(try stored.encoded.withView { try CompiledDocument.deferredNFA($0, tagLimit: 1_000, limits: limits) }) {
            guard case .overLimit(.nfaStates, let found, _)? = $0 as? ArtifactError else { return XCTFail("\($0)") }
            XCTAssertEqual(found, stored.declaredStateCount)
        }
    }

    /// A table's byte classes are stored as the first byte of each class after the first, in
    /// increasing order: any other order is refused, so no byte's class reaches past a row.
    func test_tableByteClassesOutOfOrder_areRefused() throws {
        let (loaded, _, _, _) = try loadedAndSource()
        let table = try XCTUnwrap(loaded.compactMap(\.prebuilt).first { $0.stride >= 3 && $0.stride < 128 })
        var writer = BinaryWriter()
        table.encode(into: &writer)
        func decoded(_ bytes: [UInt8]) throws -> LazyDFA.Prebuilt {
            let result: Result<LazyDFA.Prebuilt, ArtifactError> = bytes.withView { view in
                var reader = BinaryReader(view)
                do throws(ArtifactError) {
                    return .success(try LazyDFA.Prebuilt.decode(from: &reader, nfaBytes: 1_000, tagLimit: 10))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
        let again = try decoded(writer.bytes)
        XCTAssertEqual(again.classOf, table.classOf)
        XCTAssertEqual(again.cells, table.cells)
        // Byte 0 is the stride (under 128), bytes 1 and 2 the starts of classes 1 and 2.
        var swapped = writer.bytes
        swapped.swapAt(1, 2)
        XCTAssertThrowsError(try decoded(swapped)) {
            XCTAssertEqual($0 as? ArtifactError, .corrupt("a DFA table's byte classes are inconsistent"))
        }
        var repeated = writer.bytes
        repeated[2] = repeated[1]
        XCTAssertThrowsError(try decoded(repeated))
        var zero = writer.bytes
        zero[1] = 0
        XCTAssertThrowsError(try decoded(zero))
    }
}
