/// A `soloPathCompiledRows` plan's whole path answer in one block of memory: the dense table of
/// its one path automaton and every tag set's decision row, so that deciding a URL on its path
/// alone reads one object instead of a dozen.
///
/// Why: a fleet stream meets a different domain at nearly every URL, and each object a URL's
/// decision passes through is then a cache miss: the matcher, its searcher, the table object,
/// its byte classes, cells and accept list, the rows. Laid out in one block the path walk and
/// its row cost a few cache lines, which `classify` reads straight from a routed URL's bytes
/// (`tagSet(ofUnnormalized:)`) without going through the matcher at all, and the matcher's
/// solo searcher reads the same block (`tagSet(of:)`), so both decide from one table.
///
/// What it will not do: search anything but the whole path, read the query or fragment, or
/// normalise text: a URL whose path needs normalising beyond ASCII folding (percent escapes in
/// a decoded mode, non-ASCII bytes in a decoded or folded one) gets `nil` and goes the
/// matcher's way, as does a tag set whose row needs the query or fragment.
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
    /// row 0 dead, row 1 the start) followed by the state's accepted tag set, then the
    /// decision rows (`DecisionRows`), then one row of -1 per app (a path that matched nothing).
    private static let strideSlot = 0
    private static let rowWidthSlot = 1
    private static let appCountSlot = 2
    private static let cellsSlot = 3
    private static let rowsSlot = 4
    private static let noMatchSlot = 5
    private static let modeSlot = 6
    private static let headerWords = 8
    private static let routedClassesByte = headerWords * 4
    private static let classesByte = routedClassesByte + 256
    private static let cellsStart = (classesByte + 256) / 4

    /// The largest block made. The block pays where a URL would otherwise miss the cache on
    /// each of its document's objects: a stream over many small documents. A large document's
    /// table stays warm in the stream that uses it, and a copy of it would only add its size to
    /// the document's memory.
    static let maxBytes = 16 << 10

    /// The block of `table` (dense, its tag set 0 the empty one) with `rows` computed for its tag
    /// sets, searched in `mode`; nil when the table is not dense, the block would pass `maxBytes`,
    /// or the table's sizes disagree with the rows'.
    init?(table: LazyDFA.Prebuilt, rows: DecisionRows, appCount: Int, mode: TextMode) {
        // Read once into locals: each read of a class's array property in a loop reloads it.
        let stride = table.stride
        let states = table.stateCount
        let tagSets = table.tagSets.count
        let width = rows.width
        let rowsStart = Self.cellsStart + states * (stride + 1)
        let noMatchStart = rowsStart + tagSets * width
        let count = noMatchStart + appCount
        // The size first: a large table is refused before any of it is read.
        guard table.isDense, stride >= 1, stride <= 256, states >= 2, tagSets >= 1, appCount >= 0,
            count * 4 <= Self.maxBytes
        else { return nil }
        let classOf = table.classOf
        let cells = table.cells
        let acceptOf = table.acceptOf
        let rowWords = rows.rows
        // The table's own invariants (every class below `stride`, every cell a premultiplied
        // row id, every accept set listed) are checked where it is made or decoded
        // (`Prebuilt+Coding.swift`), and the walks `assert` them; only the sizes the block is
        // laid out from are checked again here.
        guard classOf.count == 256, cells.count == states * stride, acceptOf.count == states,
            width == DecisionRows.width(appCount: appCount), rowWords.count == tagSets * width
        else { return nil }
        // A local until every member is set: the copies below run in closures.
        let words = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        // SAFETY: `count` words were just allocated; every write below stays under the offsets
        // computed from the checked sizes above.
        words.initialize(repeating: 0, count: Self.cellsStart)
        words[Self.strideSlot] = Int32(stride)
        words[Self.rowWidthSlot] = Int32(width)
        words[Self.appCountSlot] = Int32(appCount)
        words[Self.cellsSlot] = Int32(Self.cellsStart)
        words[Self.rowsSlot] = Int32(rowsStart)
        words[Self.noMatchSlot] = Int32(noMatchStart)
        words[Self.modeSlot] = Int32(mode.index)
        let bytes = UnsafeMutableRawPointer(words)
        classOf.withUnsafeBytes { classOf in
            // SAFETY: both 256-byte class maps lie inside the block's first `cellsStart` words.
            (bytes + Self.routedClassesByte).copyMemory(from: classOf.baseAddress.unsafelyUnwrapped, byteCount: 256)
            (bytes + Self.classesByte).copyMemory(from: classOf.baseAddress.unsafelyUnwrapped, byteCount: 256)
        }
        if mode.folded {
            // The routed text is lowercased as it is read: an upper-case letter takes its
            // lower-case letter's class.
            for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") {
                // SAFETY: a byte offset inside the routed class map.
                bytes.storeBytes(of: classOf[Int(byte | 0x20)], toByteOffset: Self.routedClassesByte + Int(byte), as: UInt8.self)
            }
        }
        // A cell holds `target × stride`; the block's holds `target × (stride + 1)`. The target is
        // found by multiplying by the rounded-up reciprocal `(2^32 + r) / stride` instead of
        // dividing (a division per cell made the block cost as much as decoding the document):
        // the product is `target + target × r / 2^32`, exact since `target` is below 2^12
        // (`maxBytes`) and `r` below 256.
        let reciprocal = (UInt64(1) << 32 + UInt64(stride) - 1) / UInt64(stride)
        let multiplier = stride + 1
        cells.withUnsafeBufferPointer { cells in
            acceptOf.withUnsafeBufferPointer { acceptOf in
                var from = 0
                var to = Self.cellsStart
                for state in 0..<states {
                    for _ in 0..<stride {
                        let target = Int((UInt64(truncatingIfNeeded: cells[from]) &* reciprocal) >> 32)
                        words[to] = Int32(truncatingIfNeeded: target &* multiplier)
                        from &+= 1
                        to &+= 1
                    }
                    // The dead state accepts nothing (the prebuilt search's -1, the empty tag
                    // set).
                    words[to] = state == 0 ? 0 : acceptOf[state]
                    to &+= 1
                }
            }
        }
        rowWords.withUnsafeBufferPointer { rowWords in
            if let source = rowWords.baseAddress { (words + rowsStart).initialize(from: source, count: rowWords.count) }
        }
        (words + noMatchStart).initialize(repeating: -1, count: appCount)
        self.words = words
        wordCount = count
        view = View(words: UnsafePointer(words), count: count)
        source = table
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
        /// a `%` in a decoded one), which only the matcher's normaliser does.
        @inline(never)
        func tagSet(ofUnnormalized path: ByteView) -> Int32? {
            let mode = word(PathRowTable.modeSlot)
            if mode != 0 {
                // Modes 1 (raw/folded), 2 (decoded/exact), 3 (decoded/folded): `TextMode.index`.
                if !ASCIIWords.isASCII(path) { return nil }
                if mode >= 2, path.contains(UInt8(ascii: "%")) { return nil }
            }
            return walk(path[0..<PathNormalization.trimmedPathLength(path)], classesAt: PathRowTable.routedClassesByte)
        }

        @inline(__always)
        private func walk(_ text: ByteView, classesAt classes: Int) -> Int32 {
            let stride = Int(word(PathRowTable.strideSlot))
            let cells = PathRowTable.cellsStart
            // SAFETY: the two class maps are 256 bytes each inside the block's first
            // `cellsStart` words; a byte indexes within one.
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
