/// The lazy DFA's transition table: one row of `Int32` per state, one column per byte class.
///
/// The only place in `Automaton/` with unsafe pointers: the hot loop below reads the table and
/// the class map without bounds checks. State ids are premultiplied by the row width, so a
/// transition is one add and one load.
struct TransitionTable {
    /// Not yet computed.
    static let unknown: Int32 = -1
    /// The dead state is row 0: once there, nothing can match.
    static let dead: Int32 = 0

    private(set) var cells: [Int32] = []
    let stride: Int

    init(stride: Int) {
        self.stride = stride
    }

    var stateCount: Int { cells.count / stride }

    /// Appends a row of unknown transitions; returns its premultiplied id.
    mutating func addRow() -> Int32 {
        let id = Int32(cells.count)
        cells.append(contentsOf: repeatElement(Self.unknown, count: stride))
        return id
    }

    mutating func set(_ state: Int32, class cls: Int, to next: Int32) {
        cells[Int(state) + cls] = next
    }

    @inline(__always)
    func get(_ state: Int32, class cls: Int) -> Int32 {
        cells[Int(state) + cls]
    }

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
