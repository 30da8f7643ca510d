/// Ids found again by hash: the open-addressing index behind every store that interns things by
/// content while it builds them (the lazy DFA's states, the explorer's subsets and nodes).
///
/// It keeps only ids and their hashes; the owner keeps the things and compares the thing of
/// each id of the same hash (`probe`, `next`) with the one it looks for. Ids are handed out in
/// order from 0, so an owner stores its things in arrays indexed by id. Linear probing over a
/// power-of-two slot array at most half full: a miss, the common case while building, ends at
/// the first empty slot a probe or two away. It never forgets an id until `removeAll`; what it
/// holds is bounded by its owner's budgets.
struct HashSlots {
    /// Ids by hash, -1 where empty.
    private var slots: [Int32]
    /// Every id's hash, by id.
    private(set) var hashes: [UInt64] = []

    /// `capacity` (a power of two) slots to start with.
    init(capacity: Int = 64) {
        slots = [Int32](repeating: -1, count: capacity)
    }

    /// The number of ids handed out.
    var count: Int { hashes.count }

    /// The bytes its arrays hold, room included.
    var heldBytes: Int { slots.capacity * 4 + hashes.capacity * 8 }

    /// Where a look-up for `hash` starts: `next(_:)` then yields the ids of that hash in turn.
    /// A look-up is a loop in its caller rather than a method taking a closure, which, capturing
    /// the owner's arrays, retained them on every look-up.
    @inline(__always)
    func probe(_ hash: UInt64) -> Probe {
        Probe(slot: Int(truncatingIfNeeded: hash) & (slots.count - 1), hash: hash)
    }

    /// The next id whose hash is the probe's, or `nil` when there is none left.
    @inline(__always)
    func next(_ probe: inout Probe) -> Int32? {
        let mask = slots.count - 1
        while slots[probe.slot] >= 0 {
            let id = slots[probe.slot]
            probe.slot = (probe.slot + 1) & mask
            if hashes[Int(id)] == probe.hash { return id }
        }
        return nil
    }

    /// A look-up in progress.
    struct Probe {
        fileprivate var slot: Int
        fileprivate let hash: UInt64
    }

    /// Hands out the next id, for a thing of hash `hash` that a look-up did not find.
    mutating func append(hash: UInt64) -> Int32 {
        let id = Int32(hashes.count)
        hashes.append(hash)
        if hashes.count * 2 > slots.count {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            for known in hashes.indices { place(Int32(known)) }
        } else {
            place(id)
        }
        return id
    }

    /// Forgets every id, keeping the memory for the ids to come.
    mutating func removeAll() {
        hashes.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = -1 }
    }

    /// Forgets every id and gives the memory back.
    mutating func removeAllReleasingMemory(capacity: Int = 64) {
        hashes = []
        slots = [Int32](repeating: -1, count: capacity)
    }

    private mutating func place(_ id: Int32) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[Int(id)]) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = id
    }
}
