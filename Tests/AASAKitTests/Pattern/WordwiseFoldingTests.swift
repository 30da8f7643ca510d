@testable import AASAKit
import XCTest

/// The matcher folds ASCII URL text eight bytes at a time (`ASCIIWords`), and skips folding
/// when a word check says nothing would change (`TextNormalization.isOwnFold`): both must agree
/// with folding byte by byte, whatever the length (the last bytes go through an overlapping
/// word, or a gathered one under eight bytes) and wherever the letters sit.
final class WordwiseFoldingTests: XCTestCase {
    static func bytewiseFold(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }
    }

    func test_everyASCIIByte_lowercasesAsTheByteLoopDoes_atEveryPositionOfAWord() {
        for byte in UInt8(0)..<0x80 {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 8)
                bytes[position] = byte
                let word = bytes.withView { $0.word(at: 0) }
                let lowered = withUnsafeBytes(of: ASCIIWords.lowercased(word)) { Array($0) }
                XCTAssertEqual(lowered, Self.bytewiseFold(bytes), "byte \(byte) at \(position)")
            }
        }
    }

    func test_asciiTextOfAnyLength_foldsAndIsJudgedAsTheByteLoopDoes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(UInt8(0)..<0x80)
        for length in 0...40 {
            for _ in 0..<50 {
                // Mostly lower-case text with the odd capital, as URL paths are.
                let bytes = (0..<length).map { _ in
                    Int.random(in: 0..<6, using: &generator) == 0
                        ? alphabet.randomElement(using: &generator) ?? 0 : UInt8.random(in: 0x61...0x7A, using: &generator)
                }
                let scratch = ScratchBuffer<UInt8>(capacity: 4)
                scratch.append(UInt8(ascii: "#"))  // appending after existing bytes
                bytes.withView { TextNormalization.appendFolded($0, to: scratch) }
                XCTAssertEqual(scratch.array, [UInt8(ascii: "#")] + Self.bytewiseFold(bytes), "\(bytes)")
                let ownFold = bytes.withView { TextNormalization.isOwnFold($0) }
                XCTAssertEqual(ownFold, Self.bytewiseFold(bytes) == bytes, "\(bytes)")
            }
        }
    }

    func test_nonASCIIText_isNeverItsOwnFold_andFoldsScalarByScalar() {
        for text in ["É", "/shop/ÉTÉ/İ", "/abcdefghÀ", "/ABCDEFGHIJKLMNOP/é"] {
            let bytes = Array(text.utf8)
            XCTAssertFalse(bytes.withView { TextNormalization.isOwnFold($0) }, text)
            let scratch = ScratchBuffer<UInt8>()
            bytes.withView { TextNormalization.appendFolded($0, to: scratch) }
            var scalarWise = String.UnicodeScalarView()
            scalarWise.append(contentsOf: text.unicodeScalars.map(TextNormalization.fold))
            XCTAssertEqual(String(decoding: scratch.array, as: UTF8.self), String(scalarWise), text)
        }
        XCTAssertEqual(TextNormalization.folded("/ABCDEFGHIJKLMNOP/É"), "/abcdefghijklmnop/é")
    }
}
