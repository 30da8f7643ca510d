/// The lazy DFA's transition table: one row of `Int32` per state, one column per byte class,
/// plus one last column holding the index of the state's accepted tag set.
///
/// The only place in `Automaton/Lazy` with unsafe pointers: the hot loop below reads the table
/// and the class map without bounds checks. State ids are premultiplied by the row width, so a
/// transition is one add and one load, and the tag set of the state a walk ends in is one more
/// load in the same row (no division to turn the id back into a row number).
struct TransitionTable {
    /// Not yet computed.
    static let unknown: Int32 = -1
    /// The dead state is row 0: once there, nothing can match.
    static let dead: Int32 = 0

    private(set) var cells: [Int32] = []
    /// Columns of transitions (the number of byte classes).
    let stride: Int
    /// Cells per row: the transitions and the tag-set column.
    let rowWidth: Int

    init(stride: Int) {
        self.stride = stride
        self.rowWidth = stride + 1
    }

    var stateCount: Int { cells.count / rowWidth }

    /// Appends a row of unknown transitions whose state accepts tag set `tagSet`; returns its
    /// premultiplied id.
    mutating func addRow(tagSet: Int32) -> Int32 {
        let id = Int32(cells.count)
        // PERF: a loop, not `append(contentsOf: repeatElement(...))`, whose generic path cost
        // about 150 instructions per row (callgrind, paths-10000).
        for _ in 0..<stride { cells.append(Self.unknown) }
        cells.append(tagSet)
        return id
    }

    mutating func set(_ state: Int32, class cls: Int, to next: Int32) {
        cells[Int(state) + cls] = next
    }

    @inline(__always)
    func get(_ state: Int32, class cls: Int) -> Int32 {
        cells[Int(state) + cls]
    }

    /// The index of the tag set that `state` accepts.
    @inline(__always)
    func tagSet(of state: Int32) -> Int32 {
        cells[Int(state) + stride]
    }

    /// The row number of a premultiplied state id.
    @inline(__always)
    func row(of state: Int32) -> Int { Int(state) / rowWidth }

    mutating func removeAll() {
        cells.removeAll(keepingCapacity: true)
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
    func walk(
        from state: Int32, text: UnsafeBufferPointer<UInt8>, position: Int, classOf: UnsafeBufferPointer<UInt8>
    ) -> (state: Int32, position: Int, stop: Stop) {
        cells.withUnsafeBufferPointer { table in
            var current = state
            var index = position
            let count = text.count
            while index < count {
                // SAFETY: `classOf` has 256 entries and every class is < stride; `current` is a
                // premultiplied row id of this table, so `current + class` is in bounds.
                let cls = Int(classOf[Int(text[index])])
                assert(Int(current) + cls < table.count)
                let next = table[Int(current) &+ cls]
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
