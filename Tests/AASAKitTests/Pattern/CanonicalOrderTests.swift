@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// `TextNormalization.nfc` is UAX #15's NFC, scalar for scalar: the standard library composes,
/// after runs of marks are put in canonical order (its own reordering is quadratic in an
/// unordered run, and misses the marks of the three starters that decompose into marks).
final class CanonicalOrderTests: XCTestCase {
    /// Starters, marks of several classes (220, 230, 240, 10, 202), a mark that decomposes
    /// (U+0344), Tibetan signs that decompose into marks (U+0F73, U+0F81), Hangul syllables and
    /// jamo (the first and last of each range, and the ones just outside), astral letters and
    /// marks, starters that compose with a starter (U+0B47 U+0B3E), precomposed letters.
    static let pool: [Unicode.Scalar] = [
        "a", "e", "\u{E9}", "\u{1E0B}", "\u{1EC7}", "\u{0301}", "\u{0316}", "\u{0323}", "\u{0300}", "\u{0327}", "\u{05B0}",
        "\u{0345}", "\u{0344}", "\u{0F71}", "\u{0F72}", "\u{0F73}", "\u{0F80}", "\u{0F81}", "\u{1100}", "\u{1112}", "\u{1113}",
        "\u{1161}", "\u{1175}", "\u{1176}", "\u{11A7}", "\u{11A8}", "\u{11C2}", "\u{11C3}", "\u{AC00}", "\u{AC01}", "\u{AC1C}",
        "\u{D7A3}", "\u{212B}", "\u{0308}", "\u{10041}", "\u{10413}", "\u{1D15E}", "\u{1D165}", "\u{11099}", "\u{110BA}",
        "\u{0B47}", "\u{0B3E}",
    ]

    func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    /// NFC of each text as Python's `unicodedata` computes it, an implementation that shares
    /// nothing with this one (every scalar of `pool` has had its properties since Unicode 6);
    /// nil when python3 cannot be run.
    func pythonNFC(_ texts: [String]) throws -> [[UInt32]]? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return nil }
        let folder = try makeTemporaryFolder("aasa-nfc")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.txt")
        let script = folder.appendingPathComponent("nfc.py")
        try texts.map { text in scalars(text).map { String($0, radix: 16) }.joined(separator: " ") }.joined(separator: "\n")
            .write(to: input, atomically: true, encoding: .utf8)
        try """
            import sys, unicodedata
            for line in open(sys.argv[1]).read().split("\\n"):
                text = "".join(chr(int(h, 16)) for h in line.split())
                print(" ".join("%x" % ord(c) for c in unicodedata.normalize("NFC", text)))
            """.write(to: script, atomically: true, encoding: .utf8)
        let run = try CLIRunner.runShell("/usr/bin/python3 '\(script.path)' '\(input.path)'")
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            line.split(separator: " ").compactMap { UInt32($0, radix: 16) }
        }
    }

    func test_nfc_equalsPythonsUnicodedataOnRandomRunsOfMarks() throws {
        var random = RandomSource(seed: 0xD1B5_4A32_D192_ED03)
        var texts: [String] = []
        for _ in 0..<5_000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<random.int(0...39) { view.append(random.pick(Self.pool)) }
            texts.append(String(view))
        }
        guard let expected = try pythonNFC(texts) else { throw XCTSkip("python3 is needed as the independent NFC") }
        XCTAssertEqual(expected.count, texts.count)
        for (text, want) in zip(texts, expected) {
            XCTAssertEqual(scalars(TextNormalization.nfc(text)), want, "\(scalars(text))")
        }
    }

    /// Foundation's NFC on Linux gets these wrong; each is its own NFC.
    func test_nfc_leavesWhatFoundationComposedWrongly() {
        for text in ["\u{10041}\u{301}", "\u{10413}\u{301}", "\u{1113}\u{116E}", "\u{1106}\u{1176}", "\u{AC00}\u{11A7}", "\u{AC00}\u{11C3}"] {
            XCTAssertEqual(scalars(TextNormalization.nfc(text)), scalars(text), "\(scalars(text))")
        }
    }

    /// A precomposed letter before a long run of marks of a lower class: its own mark goes past
    /// them and, not blocked by lower classes, composes with it again (Foundation took 0.8 s
    /// for 32 000 marks, quadratic).
    func test_nfc_precomposedLetterBeforeALongRunOfMarks() {
        let text = "\u{1E09}" + String(repeating: "\u{316}", count: 32_000)
        XCTAssertEqual(scalars(TextNormalization.nfc(text)), [0x1E09] + Array(repeating: 0x316, count: 32_000))
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
