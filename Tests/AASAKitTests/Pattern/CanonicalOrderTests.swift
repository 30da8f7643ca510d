@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `TextNormalization.nfc` puts runs of combining marks in canonical order before Foundation
/// composes the text (Foundation's own reordering is quadratic in an unordered run, and misses
/// the marks of the three starters that decompose into non-starters): the result must be the
/// NFC of UAX #15, scalar for scalar.
final class CanonicalOrderTests: XCTestCase {
    /// Starters, marks of several classes (220, 230, 240, 10, 202), a mark that decomposes
    /// (U+0344), Tibetan signs that decompose into marks (U+0F73, U+0F81), Hangul jamo and
    /// precomposed letters.
    static let pool: [Unicode.Scalar] = [
        "a", "e", "\u{E9}", "\u{1E0B}", "\u{0301}", "\u{0316}", "\u{0323}", "\u{0300}", "\u{0327}", "\u{05B0}", "\u{0345}",
        "\u{0344}", "\u{0F71}", "\u{0F72}", "\u{0F73}", "\u{0F80}", "\u{0F81}", "\u{1100}", "\u{1161}", "\u{11A8}", "\u{11C2}", "\u{AC00}", "\u{AC01}", "\u{AC1C}", "\u{212B}", "\u{0308}",
    ]

    func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    /// NFC as UAX #15 defines it, the slow way: Foundation's canonical decomposition, then every
    /// run of non-starters sorted stably by class (insertion sort), then Foundation's
    /// composition of that ordered text, which it gets right.
    func uax15NFC(_ text: String) -> [UInt32] {
        var decomposed = Array(text.decomposedStringWithCanonicalMapping.unicodeScalars)
        func combiningClass(_ scalar: Unicode.Scalar) -> UInt8 { scalar.properties.canonicalCombiningClass.rawValue }
        for index in decomposed.indices {
            var at = index
            while at > 0, combiningClass(decomposed[at]) != 0, combiningClass(decomposed[at - 1]) > combiningClass(decomposed[at]) {
                decomposed.swapAt(at, at - 1)
                at -= 1
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: decomposed)
        return scalars(String(view).precomposedStringWithCanonicalMapping)
    }

    func test_nfc_equalsUAX15OnRandomRunsOfMarks() {
        var random = RandomSource(seed: 0xD1B5_4A32_D192_ED03)
        for _ in 0..<5_000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<random.int(0...39) { view.append(random.pick(Self.pool)) }
            let text = String(view)
            XCTAssertEqual(scalars(TextNormalization.nfc(text)), uax15NFC(text), "\(scalars(text))")
        }
    }

    /// U+0F73, U+0F75 and U+0F81 are starters whose decompositions are marks (of classes 129,
    /// 130 and 132): a mark of a higher class before one of them goes after its marks, as it
    /// would after those marks written out. Foundation leaves it in front.
    func test_nfc_ordersTheMarksOfStartersThatDecomposeIntoMarks() {
        XCTAssertEqual(scalars(TextNormalization.nfc("x\u{300}\u{F73}")), [0x78, 0xF71, 0xF72, 0x300])
        XCTAssertEqual(scalars(TextNormalization.nfc("x\u{300}\u{F75}")), [0x78, 0xF71, 0xF74, 0x300])
        XCTAssertEqual(scalars(TextNormalization.nfc("x\u{301}\u{F81}")), [0x78, 0xF71, 0xF80, 0x301])
        XCTAssertEqual(TextNormalization.nfc("x\u{300}\u{F73}").unicodeScalars.map(\.value), TextNormalization.nfc("x\u{F71}\u{F72}\u{300}").unicodeScalars.map(\.value))
        XCTAssertEqual(scalars(TextNormalization.nfc("\u{F73}")), [0xF71, 0xF72])
    }

    /// An LV syllable and a trailing jamo compose into the LVT syllable, as the three jamo do;
    /// an LVT syllable takes no second trailing jamo.
    func test_nfc_composesAHangulLVSyllableWithATrailingJamo() {
        XCTAssertEqual(scalars(TextNormalization.nfc("\u{AC00}\u{11A8}")), [0xAC01])
        XCTAssertEqual(scalars(TextNormalization.nfc("\u{1100}\u{1161}\u{11A8}")), [0xAC01])
        XCTAssertEqual(scalars(TextNormalization.nfc("a\u{AC1C}\u{11C2}b")), [0x61, 0xAC1C + 27, 0x62])
        XCTAssertEqual(scalars(TextNormalization.nfc("\u{AC01}\u{11A8}")), [0xAC01, 0x11A8])
    }

    func test_preparedForComposition_sortsEachRunStablyByClassAndLeavesOrderedTextAlone() {
        let ordered = "e\u{0316}\u{0301}\u{0300}x"
        XCTAssertEqual(scalars(TextNormalization.preparedForComposition(ordered)), scalars(ordered))
        // 230, 220, 230, 220 → 220, 220, 230, 230, each class in its own order.
        let run = "e\u{0301}\u{0316}\u{0300}\u{0323}x\u{0345}\u{05B0}"
        XCTAssertEqual(
            scalars(TextNormalization.preparedForComposition(run)), [0x65, 0x316, 0x323, 0x301, 0x300, 0x78, 0x5B0, 0x345])
        let long = "a" + String(repeating: "\u{0345}\u{05B0}", count: 16_000)
        let sorted = scalars(TextNormalization.preparedForComposition(long))
        XCTAssertEqual(sorted, [0x61] + Array(repeating: 0x5B0, count: 16_000) + Array(repeating: 0x345, count: 16_000))
        XCTAssertEqual(scalars(TextNormalization.nfc(long)), sorted)
    }
}
