/// A path plan's whole path answer in one block of memory: the dense table of a
/// `soloPathCompiledRows` plan's one path automaton and every tag set's decision row, or the
/// dense tables of a `multiModePath` plan's two modes and the decision row of every pair of
/// their tag sets, so that deciding a URL on its path alone reads one object instead of a dozen.
///
/// Why: a fleet stream meets a different domain at nearly every URL, and each object a URL's
/// decision passes through is then a cache miss: the matcher, its searcher, the table object,
/// its byte classes, cells and accept list, the rows. Laid out in one block the path walk and
/// its row cost a few cache lines, which `classify` reads straight from a routed URL's bytes
/// (`tagSet(ofUnnormalized:)`) without going through the matcher at all, and the matcher's
/// solo searcher reads the same block (`tagSet(of:)`), so both decide from one table. (The
/// matcher's own search of two modes normalises each mode's text and merges their rules; the
/// block's rows for a pair were merged the same way when it was made, `Planner.modePairRows`.)
///
/// What it will not do: search anything but the whole path, read the query or fragment, hold
/// more than two modes, or normalise text: a URL whose path needs normalising beyond ASCII
/// folding in any of its modes (percent escapes in a decoded mode, non-ASCII bytes in a
/// decoded or folded one) gets `nil` and goes the matcher's way, as does a tag set whose row
/// needs the query or fragment.
///
/// Why unsafe: the hot paths read the block through a bare pointer, unchecked in release builds.
/// What makes it safe: the table it copies keeps the invariants its decoder checks for an
/// artifact's and its builder guarantees otherwise (every class below the stride, every cell a
/// premultiplied row id, every accept index listed; `Prebuilt+Coding.swift`), and `init` checks
/// the sizes the block is laid out from, so each walk stays inside the cells by construction;
/// every read `assert`s its bounds, which the test builds check. The owner frees
/// the block in its `deinit`; a `View` is only held beside something keeping the owner alive.
final class PathRowTable: @unchecked Sendable {
    // @unchecked Sendable: the block is written once, in `init`, and only read afterwards.
    private let words: UnsafeMutablePointer<Int32>
    private let wordCount: Int
    /// The block, lent to hot paths: valid while this table is alive.
    let view: View
    /// The table the block was made from (a matcher checks that its automaton holds this one).
    let source: LazyDFA.Prebuilt

    /// The layout, in `Int32` words: a header of `headerWords` (the slots below), the routed
    /// byte classes (256 bytes: the classes of each byte as `classify` reads it before any
    /// normalisation, lowercased first in a folded mode), the table's own byte classes (256
    /// bytes), then per state a row of `stride` next states (premultiplied by `stride + 1`,
    /// row 0 dead, row 1 the start) followed by the state's accepted tag set. With a second
    /// mode's table (`secondSlot` its start, 0 without): its stride, its routed classes and its
    /// cells, laid out the same. Then the decision rows (`DecisionRows`), one per tag set, or
    /// per pair of tag sets (`first × secondRadix + second`), then one row of -1 per app (a
    /// path that matched nothing).
    private static let strideSlot = 0
    private static let rowWidthSlot = 1
    private static let appCountSlot = 2
    private static let secondSlot = 3
    private static let rowsSlot = 4
    private static let noMatchSlot = 5
    /// The most normalising mode's `TextMode.index`, which decides what text the block can read
    /// as written (`tagSet(ofUnnormalized:)`).
    private static let modeSlot = 6
    /// The second table's tag set count (1 without one).
    private static let secondRadixSlot = 7
    private static let headerWords = 8
    private static let routedClassesByte = headerWords * 4
    private static let classesByte = routedClassesByte + 256
    private static let cellsStart = (classesByte + 256) / 4
    /// A second table's words before its cells: its stride, then its routed classes.
    private static let secondHeaderWords = 1 + 64

    /// The largest block made. The block pays where a URL would otherwise miss the cache on
    /// each of its document's objects: a stream over many small documents. A large document's
    /// table stays warm in the stream that uses it, and a copy of it would only add its size to
    /// the document's memory.
    static let maxBytes = 16 << 10

    /// The block of `table` (dense, its tag set 0 the empty one) with `rows` computed for its tag
    /// sets, searched in `mode`; nil when the table is not dense, the block would pass `maxBytes`,
    /// or the table's sizes disagree with the rows'.
    convenience init?(table: LazyDFA.Prebuilt, rows: DecisionRows, appCount: Int, mode: TextMode) {
        self.init(tables: [(table, mode)], rows: rows.rows, width: rows.width, appCount: appCount)
    }

    /// The block of one table, or of two modes' tables (`classify` walks a path through both),
    /// with `rows` of `width` words: one per tag set of the first table, or one per pair of tag
    /// sets, the first table's major. Each table dense, its tag set 0 the empty one; nil
    /// otherwise, or when the block would pass `maxBytes`, or the sizes disagree.
    init?(tables: [(table: LazyDFA.Prebuilt, mode: TextMode)], rows rowWords: [Int32], width: Int, appCount: Int) {
        guard let first = tables.first?.table, tables.count <= 2 else { return nil }
        // Read once into locals: each read of a class's array property in a loop reloads it.
        let stride = first.stride
        var sectionEnd = Self.cellsStart + first.stateCount * (stride + 1)
        var secondStart = 0
        var tagSetProduct = first.tagSets.count
        if let second = tables.dropFirst().first?.table {
            secondStart = sectionEnd
            sectionEnd += Self.secondHeaderWords + second.stateCount * (second.stride + 1)
            tagSetProduct *= second.tagSets.count
        }
        let rowsStart = sectionEnd
        let noMatchStart = rowsStart + rowWords.count
        let count = noMatchStart + appCount
        // The size first: a large table is refused before any of it is read.
        guard count * 4 <= Self.maxBytes, appCount >= 0, width == DecisionRows.width(appCount: appCount),
            rowWords.count == tagSetProduct * width,
            tables.allSatisfy({ entry in
                let table = entry.table
                return table.isDense && table.stride >= 1 && table.stride <= 256 && table.stateCount >= 2
                    && table.tagSets.count >= 1 && table.classOf.count == 256 && table.cells.count == table.stateCount * table.stride
                    && table.acceptOf.count == table.stateCount
            })
        else { return nil }
        // The tables' own invariants (every class below `stride`, every cell a premultiplied
        // row id, every accept set listed) are checked where they are made or decoded
        // (`Prebuilt+Coding.swift`), and the walks `assert` them; only the sizes the block is
        // laid out from are checked again here.
        // A local until every member is set: the copies below run in closures.
        let words = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        // SAFETY: `count` words were just allocated; every write below stays under the offsets
        // computed from the checked sizes above.
        words.initialize(repeating: 0, count: Self.cellsStart)
        words[Self.strideSlot] = Int32(stride)
        words[Self.rowWidthSlot] = Int32(width)
        words[Self.appCountSlot] = Int32(appCount)
        words[Self.secondSlot] = Int32(secondStart)
        words[Self.rowsSlot] = Int32(rowsStart)
        words[Self.noMatchSlot] = Int32(noMatchStart)
        words[Self.modeSlot] = Int32(tables.map(\.mode.index).max() ?? 0)
        words[Self.secondRadixSlot] = Int32(tables.count > 1 ? tables[1].table.tagSets.count : 1)
        let bytes = UnsafeMutableRawPointer(words)
        for (number, entry) in tables.enumerated() {
            let table = entry.table
            let routedByte = number == 0 ? Self.routedClassesByte : (secondStart + 1) * 4
            let cellsStart = number == 0 ? Self.cellsStart : secondStart + Self.secondHeaderWords
            if number > 0 {
                // SAFETY: the second table's stride word lies inside the block (its section was
                // counted above).
                words[secondStart] = Int32(table.stride)
            }
            table.classOf.withUnsafeBytes { classOf in
                // SAFETY: each 256-byte class map lies inside its section's words before its cells.
                (bytes + routedByte).copyMemory(from: classOf.baseAddress.unsafelyUnwrapped, byteCount: 256)
                if number == 0 {
                    (bytes + Self.classesByte).copyMemory(from: classOf.baseAddress.unsafelyUnwrapped, byteCount: 256)
                }
            }
            if entry.mode.folded {
                // The routed text is lowercased as it is read: an upper-case letter takes its
                // lower-case letter's class.
                for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") {
                    // SAFETY: a byte offset inside the routed class map.
                    bytes.storeBytes(of: table.classOf[Int(byte | 0x20)], toByteOffset: routedByte + Int(byte), as: UInt8.self)
                }
            }
            Self.copyCells(of: table, to: words + cellsStart)
        }
        rowWords.withUnsafeBufferPointer { rowWords in
            if let source = rowWords.baseAddress { (words + rowsStart).initialize(from: source, count: rowWords.count) }
        }
        (words + noMatchStart).initialize(repeating: -1, count: appCount)
        self.words = words
        wordCount = count
        view = View(words: UnsafePointer(words), count: count)
        source = first
    }

    /// Writes `table`'s rows at `cells`: per state its `stride` next states, premultiplied by
    /// `stride + 1`, then its accepted tag set.
    ///
    /// A cell holds `target × stride`; the block's holds `target × (stride + 1)`, that is the
    /// cell plus its target. The target is an exact quotient, so it is found without dividing:
    /// `stride` is `odd × 2^shift`, and `(cell >> shift) × inverse` (the inverse of `odd` modulo
    /// 2^32, wrapping arithmetic) is the target. Three 32-bit operations a cell, which the
    /// compiler runs several cells at a time.
    // PERF: quick fleet kept by `AASA_BENCH_KEEP_FLEET=1 aasa-bench --quick --suite fleet`
    // (`aasa classify --compiled --jobs 1`, cachegrind): copying the cells 221 → 153
    // instructions a URL with first use, against a 64-bit reciprocal multiply per cell.
    private static func copyCells(of table: LazyDFA.Prebuilt, to cells: UnsafeMutablePointer<Int32>) {
        let stride = table.stride
        let states = table.stateCount
        let shift = UInt32(stride.trailingZeroBitCount)
        let odd = UInt32(truncatingIfNeeded: stride >> Int(shift))
        // Newton's iteration doubles the correct low bits of an odd number's inverse: 3 to start
        // (an odd number is its own inverse modulo 8), 48 after four steps.
        var inverse = odd
        for _ in 0..<4 { inverse = inverse &* (2 &- odd &* inverse) }
        table.cells.withUnsafeBufferPointer { source in
            table.acceptOf.withUnsafeBufferPointer { acceptOf in
                guard let source = source.baseAddress else { return }
                for state in 0..<states {
                    // SAFETY: the table holds `states × stride` cells, and the caller counted
                    // `states × (stride + 1)` words at `cells`.
                    let from = source + state &* stride
                    let to = cells + state &* (stride &+ 1)
                    for column in 0..<stride {
                        let cell = UInt32(bitPattern: from[column])
                        to[column] = Int32(bitPattern: cell &+ (cell >> shift) &* inverse)
                    }
                    // The dead state accepts nothing (the prebuilt search's -1, the empty tag
                    // set).
                    to[stride] = state == 0 ? 0 : acceptOf[state]
                }
            }
        }
    }

    deinit { words.deallocate() }

    /// Heap bytes of the block.
    var memoryUsage: Int { wordCount * 4 }

    /// The block as the hot paths read it: a pointer, copied freely and never counted, valid
    /// while its `PathRowTable` lives (the compiled document holding the plan keeps it).
    struct View {
        let words: UnsafePointer<Int32>
        /// Words in the block: only the `assert`s read it.
        let count: Int

        @inline(__always)
        private func word(_ index: Int) -> Int32 {
            assert(index >= 0 && index < count, "row table read out of bounds")
            // SAFETY: every index is a header slot or an offset `init` derived from the checked
            // table (asserted above).
            return words[index]
        }

        /// The tag set (index into the table's tag sets, 0 for none) accepted for all of `text`,
        /// already normalised for the mode: what `LazyDFA.Prebuilt.acceptIndex` answers, the
        /// dead walk as 0.
        @inline(__always)
        func tagSet(of text: ByteView) -> Int32 {
            walk(text, classesAt: PathRowTable.classesByte)
        }

        /// `tagSet(of:)` of a path as written in the URL (after the authority): its trailing `/`
        /// run dropped and, in a folded mode, ASCII lowercased through the routed classes; nil
        /// when the mode would change it further (non-ASCII bytes in a folded or decoded mode,
        /// a `%` in a decoded one), which only the matcher's normaliser does. With a second
        /// mode's table, the index of the pair of tag sets (`decidedRow` reads its row): ASCII
        /// text without escapes is the same text in every mode but for case.
        @inline(__always)
        func tagSet(ofUnnormalized path: ByteView) -> Int32? {
            word(PathRowTable.secondSlot) == 0 ? tagSet(ofUnnormalizedAlone: path) : pairTagSet(ofUnnormalized: path)
        }

        /// `tagSet(ofUnnormalized:)` of a block with one table.
        // PERF: apart from the two-table walk, so that this one makes no call: beside it, saving
        // and restoring the registers the call needs took 12 more instructions a URL on the
        // one-domain stream kept by `AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet` (`aasa
        // classify --compiled --jobs 1`, cachegrind, stream twice − once).
        @inline(never)
        private func tagSet(ofUnnormalizedAlone path: ByteView) -> Int32? {
            guard let text = readable(path) else { return nil }
            return walk(text, classesAt: PathRowTable.routedClassesByte)
        }

        /// `tagSet(ofUnnormalized:)` of a block with two tables: the index of the pair of tag sets.
        @inline(never)
        private func pairTagSet(ofUnnormalized path: ByteView) -> Int32? {
            guard let text = readable(path) else { return nil }
            let first = walk(text, classesAt: PathRowTable.routedClassesByte)
            let second = Int(word(PathRowTable.secondSlot))
            let other = walk(text, classesAt: (second + 1) * 4, cells: second + PathRowTable.secondHeaderWords, stride: Int(word(second)))
            return first &* word(PathRowTable.secondRadixSlot) &+ other
        }

        /// The path the routed walks read, its trailing `/` run dropped; nil when the most
        /// normalising mode would change it beyond ASCII case.
        @inline(__always)
        private func readable(_ path: ByteView) -> ByteView? {
            let mode = word(PathRowTable.modeSlot)
            if mode != 0 {
                // Modes 1 (raw/folded), 2 (decoded/exact), 3 (decoded/folded): `TextMode.index`.
                if !ASCIIWords.isASCII(path) { return nil }
                if mode >= 2, path.contains(UInt8(ascii: "%")) { return nil }
            }
            return path[0..<PathNormalization.trimmedPathLength(path)]
        }

        @inline(__always)
        private func walk(_ text: ByteView, classesAt classes: Int) -> Int32 {
            walk(text, classesAt: classes, cells: PathRowTable.cellsStart, stride: Int(word(PathRowTable.strideSlot)))
        }

        @inline(__always)
        private func walk(_ text: ByteView, classesAt classes: Int, cells: Int, stride: Int) -> Int32 {
            // SAFETY: each class map is 256 bytes inside its table's section, before its cells;
            // a byte indexes within one.
            let classOf = UnsafeRawPointer(words) + classes
            var state = stride + 1
            for byte in text {
                // SAFETY: every class is below `stride` and every cell a row start of this table
                // (the table's invariants), so `state + class` stays inside the cells (`word`
                // asserts it).
                state = Int(word(cells &+ state &+ Int(classOf.load(fromByteOffset: Int(byte), as: UInt8.self))))
                if state == 0 { return 0 }
            }
            // Column `stride` of a row start is that state's tag set.
            return word(cells &+ state &+ stride)
        }

        /// The decision row of `tagSet` (per app, the deciding rule id or -1), or nil when it
        /// needs the query or fragment (`DecisionRows.decidedSlot` 0). Lent for as long as the
        /// table lives.
        @inline(__always)
        func decidedRow(_ tagSet: Int32) -> BufferView<Int32>? {
            let apps = Int(word(PathRowTable.appCountSlot))
            if tagSet == 0 {
                let start = Int(word(PathRowTable.noMatchSlot))
                assert(start + apps == count, "row table no-match row out of bounds")
                // SAFETY: `apps` words of -1 end the block (asserted above).
                return BufferView(UnsafeBufferPointer(start: words + start, count: apps))
            }
            // A tag set from `tagSet(of:)` is below the table's tag set count, whose rows of
            // `rowWidth` words start at the rows slot's offset.
            let row = Int(word(PathRowTable.rowsSlot)) + Int(tagSet) * Int(word(PathRowTable.rowWidthSlot))
            if word(row + DecisionRows.decidedSlot) == 0 { return nil }
            assert(row + DecisionRows.firstAppSlot + apps <= count, "row table row out of bounds")
            // SAFETY: the row's app words lie inside the block (asserted above).
            return BufferView(UnsafeBufferPointer(start: words + row + DecisionRows.firstAppSlot, count: apps))
        }
    }
}
