@testable import AASAKit
import XCTest
import _AASATestSupport

/// The explorer's subset table gives one id per subset, however many it holds, and tells apart
/// subsets that differ only in their tags or only in one position.
final class InternedSubsetsTests: XCTestCase {
    /// Every subset reached from the start of `/a*b*`-like patterns' NFA by up to three bytes,
    /// interned through the table and through a dictionary of `Determinizer.Subset`s (the
    /// allocating form it replaced): the two number the subsets alike, past several growths of
    /// the table's slots.
    func test_subsetsReachedAgain_getTheIdsTheyGotFirst() throws {
        let patterns = (0..<24).map { (pattern: Pattern(parsing: "/\($0 % 6)*\($0)*x\($0 % 5)"), tag: Int32($0)) }
        let nfa = try NFACompiler.compile(patterns, mode: TextMode.all[0], maxStates: 1 << 20, variables: { _ in nil })
        let determinizer = Determinizer(nfa: nfa)
        let scratch = StateScratch(stateCount: nfa.stateCount)
        var table = InternedSubsets()
        var reference: [Determinizer.Subset: Int32] = [:]
        func intern() -> Int32 {
            let (id, isNew) = table.intern(scratch)
            let subset = Determinizer.Subset(
                positions: scratch.positions.withView { Array($0) }, tags: scratch.tags.withView { Array($0) })
            if let known = reference[subset] {
                XCTAssertFalse(isNew)
                XCTAssertEqual(id, known)
            } else {
                XCTAssertTrue(isNew)
                XCTAssertEqual(Int(id), reference.count)
                reference[subset] = id
            }
            XCTAssertEqual(table.positionCount(id), subset.positions.count)
            XCTAssertEqual(table.withPositions(id) { Array($0) }, subset.positions)
            XCTAssertEqual(table.tags[Int(id)], subset.tags)
            return id
        }
        // The same walk twice: the second meets only subsets the first interned, every one of
        // which must be found again under its id.
        for walk in 0..<2 {
            scratch.seeds.removeAll()
            scratch.seeds.append(Determinizer.pack(nfa.start, continuation: -1))
            XCTAssertTrue(determinizer.closeSeeds(scratch: scratch, cap: .max))
            var frontier = [intern()]
            let bytes = Array("/0123456789x*".utf8)
            for _ in 0..<4 {
                var next: [Int32] = []
                for id in frontier {
                    for byte in bytes {
                        table.withPositions(id) { determinizer.collectSeeds(from: $0, on: byte, scratch: scratch) }
                        XCTAssertTrue(determinizer.closeSeeds(scratch: scratch, cap: .max))
                        next.append(intern())
                    }
                }
                frontier = Array(Set(next)).sorted()
            }
            XCTAssertEqual(table.count, reference.count, "walk \(walk)")
        }
        XCTAssertGreaterThan(table.count, 64, "enough subsets to grow the slots past their first size")
    }
}
