/// The lazy DFA's transition table: one row of `Int32` per state, one column per byte class,
/// plus one last column holding the index of the state's accepted tag set.
///
/// The table keeps its cells and the byte-class map in `ScratchBuffer`s, so that the hot loop
/// below reads them through views (no bounds checks in release, asserted in test builds), with
/// no reference counting or exclusivity checks. Every entry point checks (or, in the hot loop,
/// asserts) its indices. State ids are premultiplied by the row width, so a transition is one
/// add and one load, and the tag set of the state a walk ends in is one more load in the same
/// row (no division to turn the id back into a row number).
///
/// PERF: with the cells in an `Array` held by the cache, every search retained and released
/// the array and went through `swift_beginAccess`: about 140 of the 1 000 instructions a URL
/// cost on the peers suite's 10-rule document (callgrind, `aasa-peers --profile ours`).
final class TransitionTable {
    /// Not yet computed.
    static let unknown: Int32 = -1
    /// The dead state is row 0: once there, nothing can match.
    static let dead: Int32 = 0

    /// Columns of transitions (the number of byte classes).
    let stride: Int
    /// Cells per row: the transitions and the tag-set column.
    let rowWidth: Int
    private let cells: ScratchBuffer<Int32>
    /// The rows there is room for at first, and again after `removeAllReleasingMemory`.
    private let initialRows: Int
    /// The class of each byte (256 entries, each < `stride`).
    private let classOf: ScratchBuffer<UInt8>

    /// Room for `rows` rows at first: a cache builds a few states at once, but one whose
    /// automaton has a prebuilt table holds only the dead state.
    init(classes: ByteClasses, rows: Int = 16) {
        stride = classes.count
        rowWidth = stride + 1
        initialRows = max(1, rows)
        cells = ScratchBuffer(capacity: rowWidth * initialRows)
        classOf = ScratchBuffer(capacity: 256)
        classOf.append(contentsOf: classes.classOf)
        precondition(classOf.count == 256, "a byte class map has 256 entries")
    }

    /// Cells in use: the rows built times `rowWidth`.
    var count: Int { cells.count }

    var stateCount: Int { count / rowWidth }

    /// The rows the cells have room for before growing.
    var rowCapacity: Int { cells.capacity / rowWidth }

    /// The bytes its cells and byte-class map hold, room included.
    var heldBytes: Int { cells.capacity * 4 + classOf.capacity }

    @inline(__always)
    func classOf(_ byte: UInt8) -> Int { classOf.withView { Int($0[Int(byte)]) } }

    /// Appends a row of unknown transitions whose state accepts tag set `tagSet`; returns its
    /// premultiplied id.
    func addRow(tagSet: Int32) -> Int32 {
        let id = Int32(cells.count)
        cells.append(repeating: Self.unknown, count: stride)
        cells.append(tagSet)
        return id
    }

    func set(_ state: Int32, class cls: Int, to next: Int32) {
        precondition(state >= 0 && Int(state) + rowWidth <= count && cls >= 0 && cls < stride, "transition out of the table")
        cells[Int(state) + cls] = next
    }

    /// Sets every transition of `state` to `next`.
    func fillRow(_ state: Int32, with next: Int32) {
        precondition(state >= 0 && Int(state) + rowWidth <= count, "row out of the table")
        for cls in 0..<stride { cells[Int(state) + cls] = next }
    }

    func get(_ state: Int32, class cls: Int) -> Int32 {
        precondition(state >= 0 && Int(state) + rowWidth <= count && cls >= 0 && cls < stride, "transition out of the table")
        return cells[Int(state) + cls]
    }

    /// The index of the tag set that `state` accepts.
    @inline(__always)
    func tagSet(of state: Int32) -> Int32 {
        let stride = self.stride
        return cells.withView { cells in
            assert(state >= 0 && Int(state) + stride < cells.count, "state out of the table")
            return cells[Int(state) &+ stride]
        }
    }

    /// The row number of a premultiplied state id.
    @inline(__always)
    func row(of state: Int32) -> Int { Int(state) / rowWidth }

    func removeAll() {
        cells.removeAll()
    }

    /// As `removeAll`, the memory of all but a few rows given back.
    func removeAllReleasingMemory() {
        cells.removeAll(keepingRoomFor: rowWidth * initialRows)
    }

    /// Where a walk stopped.
    enum Stop {
        /// Every byte was consumed.
        case end
        /// The dead state was reached: no pattern can match.
        case dead
        /// The transition on the byte at the returned position is not computed yet.
        case unknown
    }

    /// Follows known transitions from `state` over `text[position...]`.
    ///
    /// PERF: the unchecked loop is the whole cost of a search once the cache is warm; bounds
    /// checks on both arrays roughly doubled its time (`aasa-bench`, match suite).
    @inline(__always)
    func walk(from state: Int32, text: ByteView, position: Int) -> (state: Int32, position: Int, stop: Stop) {
        cells.withView { cells in
            classOf.withView { classOf in
                var current = state
                var index = position
                let count = text.count
                while index < count {
                    // `classOf` has 256 entries and every class is < stride; `current` is a
                    // premultiplied row id of this table (the walk starts at one and only
                    // follows computed transitions, which are row ids), so `current + class`
                    // is in bounds (the views assert both reads in test builds).
                    let cls = Int(classOf[Int(text[index])])
                    let next = cells[Int(current) &+ cls]
                    if next <= 0 {
                        return next == Self.unknown ? (current, index, .unknown) : (Self.dead, index + 1, .dead)
                    }
                    current = next
                    index &+= 1
                }
                return (current, index, .end)
            }
        }
    }
}
