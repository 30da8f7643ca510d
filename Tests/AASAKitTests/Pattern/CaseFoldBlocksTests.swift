@testable import AASAKit
import Foundation
import Synchronization
import XCTest

/// Folding reads the Unicode tables block by block (`CaseFoldBlocks`): it must give, for every
/// scalar, the simple lowercase the toolchain's properties give, whichever block is met first and
/// from however many threads.
final class CaseFoldBlocksTests: XCTestCase {
    /// The specification: a scalar whose lowercase is one other scalar maps to it; any other
    /// scalar stays.
    static func simpleLowercase(_ value: UInt32) -> UInt32 {
        guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenLowercased else { return value }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower[lower.startIndex].value : value
    }

    func test_everyScalar_foldsToItsSimpleLowercase() {
        let blocks = CaseFoldBlocks()
        var mismatches: [String] = []
        // From the top down, so blocks are met in another order than a scan would.
        for value in stride(from: UInt32(0x10_FFFF), through: 0x80, by: -1) where !(0xD800...0xDFFF).contains(value) {
            let expected = Self.simpleLowercase(value)
            let got = blocks.fold(value)
            if got != expected { mismatches.append("U+\(String(value, radix: 16)): \(got) instead of \(expected)") }
            if mismatches.count > 10 { break }
        }
        XCTAssertEqual(mismatches, [])
    }

    func test_noScalarAtOrAboveTheLimit_changesWhenLowercased() {
        let cased = (CaseFoldBlocks.limit...0x10_FFFF).filter { Unicode.Scalar($0)?.properties.changesWhenLowercased == true }
        XCTAssertEqual(cased, [], "the blocks stop at U+20000 because no cased scalar lies beyond")
    }

    func test_threadsFoldingAtOnce_allGetTheSameMappings() {
        let blocks = CaseFoldBlocks()
        let values: [UInt32] = [0xC0, 0xC9, 0x100, 0x391, 0x410, 0x130, 0x212A, 0x1E900, 0x10400, 0x4E00]
        let expected = values.map(Self.simpleLowercase)
        let results = Mutex<[[UInt32]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let got = values.map { blocks.fold($0) }
            results.withLock { $0.append(got) }
        }
        XCTAssertEqual(results.withLock { $0 }, Array(repeating: expected, count: 8))
    }
}
