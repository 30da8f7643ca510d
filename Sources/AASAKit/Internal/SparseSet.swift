/// A set of small integers with O(1) insert, membership and clear (Briggs and Torczon).
///
/// The determiniser's epsilon closures visit up to every NFA state per byte on hostile patterns
/// (`*a*a*a…b`); hashing each visit into a `Set` made those closures several times slower than
/// these two array lookups.
struct SparseSet {
    private var dense: [Int32]
    private var sparse: [Int32]
    private(set) var count = 0

    init(capacity: Int) {
        dense = [Int32](repeating: 0, count: capacity)
        sparse = [Int32](repeating: 0, count: capacity)
    }

    var capacity: Int { dense.count }

    /// Inserts `value`; returns whether it was new.
    @inline(__always)
    mutating func insert(_ value: Int32) -> Bool {
        let slot = Int(sparse[Int(value)])
        if slot < count && dense[slot] == value { return false }
        dense[count] = value
        sparse[Int(value)] = Int32(count)
        count += 1
        return true
    }

    @inline(__always)
    mutating func removeAll() {
        count = 0
    }
}
