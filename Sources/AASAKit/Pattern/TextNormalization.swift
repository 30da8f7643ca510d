import Foundation
import Synchronization

/// The text transformations of SPEC 11 and 12, shared by the compiler (on pattern literals, once)
/// and the matcher (on URL components, once per URL): simple case folding and NFC.
///
/// Folding is *simple* one-to-one lowercase mapping: a scalar whose lowercase form is one scalar
/// maps to it, one whose lowercase form is several scalars (`İ` → `i̇`) stays, so `?` still
/// counts one scalar on both sides. The mapping comes from the Unicode properties of the
/// toolchain, read block by block into a table as scalars are met (`CaseFoldBlocks`); the hot
/// path folds ASCII with a bit operation and looks up only non-ASCII scalars.
public enum TextNormalization {
    /// Every non-ASCII scalar whose simple lowercase is one other scalar, with it: the whole
    /// table, for analyses that enumerate it (`URLExplorer`); matching folds through
    /// `CaseFoldBlocks`, which computes only the blocks it meets.
    static var foldTable: [UInt32: Unicode.Scalar] {
        var table: [UInt32: Unicode.Scalar] = [:]
        for value in UInt32(0x80)..<CaseFoldBlocks.limit {
            let folded = CaseFoldBlocks.shared.fold(value)
            if folded != value, let scalar = Unicode.Scalar(folded) { table[value] = scalar }
        }
        return table
    }

    /// The folded form of one scalar.
    @inline(__always)
    public static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.value < 0x80 {
            if scalar.value >= 0x41 && scalar.value <= 0x5A {
                return Unicode.Scalar(UInt8(scalar.value | 0x20))
            }
            return scalar
        }
        return Unicode.Scalar(CaseFoldBlocks.shared.fold(scalar.value)) ?? scalar
    }

    /// Every scalar of `text` folded, through the UTF-8 folding the matcher uses; text without
    /// an upper-case ASCII letter or a non-ASCII byte, the usual literal, is its own fold.
    public static func folded(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 || ($0 &- 0x41) < 26 }) else { return text }
        var text = text
        return text.withUTF8 { utf8 in
            let scratch = ScratchBuffer<UInt8>(capacity: utf8.count)
            appendFolded(ByteView(utf8), to: scratch)
            return scratch.withView { String(decoding: $0.buffer, as: UTF8.self) }
        }
    }

    /// Folds UTF-8 bytes into `output` (appending).
    public static func appendFolded(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let scratch = ScratchBuffer<UInt8>(capacity: bytes.count)
        appendFolded(ByteView(bytes), to: scratch)
        scratch.withView { output.append(contentsOf: $0) }
    }

    /// Whether folding leaves `bytes` as they are: no upper-case ASCII letter, no non-ASCII byte.
    @inline(__always)
    static func isOwnFold(_ bytes: ByteView) -> Bool {
        let count = bytes.count
        guard count >= 8 else { return !bytes.contains(where: { ($0 &- 0x41) < 26 || $0 >= 0x80 }) }
        var index = 0
        while count &- index >= 8 {
            if ASCIIWords.upperOrNonASCII(bytes.word(at: index)) { return false }
            index &+= 8
        }
        return index == count || !ASCIIWords.upperOrNonASCII(bytes.lastWord)
    }

    /// As `appendFolded(_:to:)`, the bytes lent as a view, into a scratch buffer.
    ///
    /// ASCII text, nearly every URL component, is lowercased eight bytes at a time.
    // PERF: folding and the "nothing to fold" check by words instead of byte loops (with the
    // lazy-map append into an array): a warm URL of the 10 000-domain fleet stream 1 795 → 1 675
    // instructions with `--compiled`, 1 802 → 1 681 with `--rules` (`AASA_BENCH_KEEP_FLEET=1
    // aasa-bench --suite fleet`, `aasa classify --jobs 1`, callgrind, stream twice − once),
    // records identical.
    static func appendFolded(_ bytes: ByteView, to output: ScratchBuffer<UInt8>) {
        if ASCIIWords.isASCII(bytes) {
            output.append(contentsOf: bytes, wordwise: ASCIIWords.lowercased)
            return
        }
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 {
                var end = index + 1
                while end < count && bytes[end] < 0x80 { end += 1 }
                output.append(contentsOf: bytes[index..<end], wordwise: ASCIIWords.lowercased)
                index = end
                continue
            }
            // Non-ASCII: decode one scalar (the input is valid UTF-8), fold, re-encode.
            var length = 2
            if byte >= 0xF0 { length = 4 } else if byte >= 0xE0 { length = 3 }
            let end = min(index + length, count)
            var decoder = UTF8()
            var iterator = bytes[index..<end].makeIterator()
            if case .scalarValue(let scalar) = decoder.decode(&iterator) {
                let folded = fold(scalar)
                UTF8.encode(folded) { output.append($0) }
            } else {
                output.append(contentsOf: bytes[index..<end])
            }
            index = end
        }
    }

    /// NFC (canonical decomposition, canonical ordering, canonical composition: UAX #15); ASCII
    /// text is returned as is.
    ///
    /// The standard library's normaliser composes (`_nfcCodeUnits`: the public normalisation API
    /// is not in this toolchain), after `preparedForComposition` closes its two gaps:
    /// - It puts each run of combining marks in canonical order in time quadratic in the run's
    ///   length when the run is out of order (32 000 marks alternating two classes: 0.2 s; a 64 KB
    ///   URL is compared in several decoded modes). Runs are put in order first, in O(n log n);
    ///   the text is canonically equivalent, so its NFC is the same.
    /// - It leaves the marks of the starters that decompose into marks out of order (`x`, U+0300,
    ///   U+0F73 stays `x` U+0300 U+0F71 U+0F72, where NFC is `x` U+0F71 U+0F72 U+0300), and so
    ///   does `String`'s `==`.
    ///
    /// Why not Foundation's `precomposedStringWithCanonicalMapping`: on Linux it composes an
    /// astral letter and a mark as the BMP letter of its low 16 bits (U+10041 U+0301 became
    /// U+00C1), reads the Hangul jamo ranges one too wide (U+1113 U+116E became U+FFFD), leaves a
    /// Hangul LV syllable and a trailing jamo apart, and reorders the marks of a precomposed
    /// letter in quadratic time (0.8 s for one 64 KB URL).
    public static func nfc(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return String(decoding: preparedForComposition(text)._nfcCodeUnits, as: UTF8.self)
    }

    /// `text`, canonically equivalent, with the starters that decompose into marks
    /// (`nonStarterDecomposition`) decomposed and each run of non-starters (canonical combining
    /// class above 0) sorted stably by class, as canonical decomposition orders them. A
    /// non-starter that decomposes does so into marks of its own class, so sorting before
    /// decomposing orders them too. Returned as is when there is nothing to do.
    static func preparedForComposition(_ text: String) -> String {
        // No scalar below U+0300 is a non-starter.
        func combiningClass(_ scalar: Unicode.Scalar) -> UInt8 {
            scalar.value < 0x300 ? 0 : scalar.properties.canonicalCombiningClass.rawValue
        }
        // Most text needs nothing: found without allocating, and returned as is.
        var previous: UInt8 = 0
        let ready = text.unicodeScalars.allSatisfy { scalar in
            let current = combiningClass(scalar)
            defer { previous = current }
            return (current == 0 || current >= previous) && nonStarterDecomposition(scalar) == nil
        }
        if ready { return text }
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if let marks = nonStarterDecomposition(scalar) { scalars += marks } else { scalars.append(scalar) }
        }
        var start = 0
        while start < scalars.count {
            guard combiningClass(scalars[start]) != 0 else {
                start += 1
                continue
            }
            var end = start + 1
            while end < scalars.count, combiningClass(scalars[end]) != 0 { end += 1 }
            // Sorted by (class, position): stable whatever the sort.
            let run = scalars[start..<end].enumerated().map { (combiningClass($0.element), $0.offset, $0.element) }
            for (offset, entry) in run.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }).enumerated() { scalars[start + offset] = entry.2 }
            start = end
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// The canonical decomposition of a starter that decomposes into non-starters, or nil. UAX
    /// #15 lists four "non-starter decompositions"; U+0344 is a non-starter itself, of the class
    /// of both its marks, so only these three change the order of a run. The list is closed:
    /// Unicode's stability policy fixes canonical decompositions.
    @inline(__always)
    static func nonStarterDecomposition(_ scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
        switch scalar.value {
        case 0x0F73: return ["\u{0F71}", "\u{0F72}"]
        case 0x0F75: return ["\u{0F71}", "\u{0F74}"]
        case 0x0F81: return ["\u{0F71}", "\u{0F80}"]
        default: return nil
        }
    }

    /// The literal as a rule in `mode` compares it: NFC when decoded, then folded.
    public static func normalizeLiteral(_ literal: String, mode: TextMode) -> String {
        var text = literal
        if mode.decoded { text = nfc(text) }
        if mode.folded { text = folded(text) }
        return text
    }
}

/// Eight ASCII bytes at once, in one `UInt64` (any byte order: every operation is per byte).
enum ASCIIWords {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// 0x80 in each byte that is an upper-case ASCII letter, 0 elsewhere. Adding to the low
    /// seven bits cannot carry into the next byte: `A`...`Z` is at least 0x41 and at most 0x5A.
    @inline(__always)
    static func upperCaseMarks(_ word: UInt64) -> UInt64 {
        let low = word & ~highBits
        let atLeastA = low &+ ones &* 0x3F
        let aboveZ = low &+ ones &* 0x25
        return atLeastA & ~aboveZ & ~word & highBits
    }

    /// The word with its upper-case ASCII letters lowercased (other bytes as they are).
    @inline(__always)
    static func lowercased(_ word: UInt64) -> UInt64 {
        word | (upperCaseMarks(word) >> 2)
    }

    @inline(__always)
    static func upperOrNonASCII(_ word: UInt64) -> Bool {
        (upperCaseMarks(word) | word) & highBits != 0
    }

    /// Whether every byte of `bytes` is ASCII.
    @inline(__always)
    static func isASCII(_ bytes: ByteView) -> Bool {
        let count = bytes.count
        guard count >= 8 else { return !bytes.contains(where: { $0 >= 0x80 }) }
        var index = 0
        while count &- index >= 8 {
            if bytes.word(at: index) & highBits != 0 { return false }
            index &+= 8
        }
        return index == count || bytes.lastWord & highBits == 0
    }
}

/// Simple lowercase mappings of non-ASCII scalars (where the lowercase is one other scalar), by
/// block of 128 scalars, each block asked of the Unicode tables the first time one of its
/// scalars is folded. Cased scripts end before U+20000; scalars above fold to themselves.
///
/// Why blocks: the whole table asks the Unicode tables about 130 000 scalars, which the first URL
/// folding a non-ASCII scalar would wait for, while a stream meets a few blocks. Why a lock:
/// worker threads fold at once; it is held for an array read (a block is computed outside it),
/// which costs about what the dictionary lookup it replaces did (warm URLs unchanged).
// PERF: the whole table (about 40 million instructions) at first use → blocks as met: a URL
// with first use on the 10 000-domain fleet stream 3 339 → 3 142 instructions (`aasa classify
// --compiled --jobs 1`, callgrind, stream − empty input), records identical.
final class CaseFoldBlocks: Sendable {
    static let shared = CaseFoldBlocks()
    static let limit: UInt32 = 0x2_0000
    static let blockSize = 128

    private struct Table {
        /// Per block, where its mappings start in `folded`, or -1 before it is computed.
        var starts = [Int32](repeating: -1, count: Int(CaseFoldBlocks.limit) / CaseFoldBlocks.blockSize)
        var folded: [UInt32] = []
    }

    private let table = Mutex(Table())

    /// The simple lowercase of the scalar `value`, or `value` itself.
    func fold(_ value: UInt32) -> UInt32 {
        guard value < Self.limit else { return value }
        let block = Int(value) / Self.blockSize
        let offset = Int(value) % Self.blockSize
        let known = table.withLock { table -> UInt32? in
            let start = table.starts[block]
            return start < 0 ? nil : table.folded[Int(start) + offset]
        }
        if let known { return known }
        let computed = Self.compute(block)
        table.withLock { table in
            guard table.starts[block] < 0 else { return }
            table.starts[block] = Int32(table.folded.count)
            table.folded.append(contentsOf: computed)
        }
        return computed[offset]
    }

    private static func compute(_ block: Int) -> [UInt32] {
        (0..<blockSize).map { index in
            let value = UInt32(block * blockSize + index)
            guard value >= 0x80, let scalar = Unicode.Scalar(value), scalar.properties.changesWhenLowercased else { return value }
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            guard lower.count == 1, let only = lower.first else { return value }
            return only.value
        }
    }
}
