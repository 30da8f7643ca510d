/// A set of small non-negative integers (rule or predicate ids) as machine words.
///
/// The explorer keys its product states on which rules are still alive; a value type of a few
/// words hashes and compares far faster than a `Set<Int>`, and iterates in ascending order,
/// which is rule order.
struct Bitset: Hashable, Sendable {
    private(set) var words: [UInt64]

    init(capacity: Int) {
        words = [UInt64](repeating: 0, count: (capacity + 63) / 64)
    }

    /// Every id in `0..<capacity`.
    static func full(capacity: Int) -> Bitset {
        var set = Bitset(capacity: capacity)
        for index in set.words.indices { set.words[index] = ~0 }
        if capacity % 64 != 0, let last = set.words.indices.last { set.words[last] = (1 << UInt64(capacity % 64)) - 1 }
        return set
    }

    @inline(__always)
    func contains(_ id: Int) -> Bool {
        id >= 0 && id / 64 < words.count && words[id / 64] & (1 << UInt64(id % 64)) != 0
    }

    @inline(__always)
    mutating func insert(_ id: Int) {
        words[id / 64] |= 1 << UInt64(id % 64)
    }

    @inline(__always)
    mutating func remove(_ id: Int) {
        words[id / 64] &= ~(1 << UInt64(id % 64))
    }

    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    /// Whether the two sets share an id.
    func intersects(_ other: Bitset) -> Bool {
        for index in 0..<min(words.count, other.words.count) where words[index] & other.words[index] != 0 { return true }
        return false
    }

    /// The words folded into `folded` (a multiply-xorshift mix), so that a set of a thousand
    /// rules costs the hasher one word rather than sixteen.
    @inline(__always)
    func fold(into folded: inout UInt64) {
        folded = WordMix.mix(folded, UInt64(words.count))
        for word in words { folded = WordMix.mix(folded, word) }
    }

    func hash(into hasher: inout Hasher) {
        var folded: UInt64 = 0
        fold(into: &folded)
        hasher.combine(folded)
    }

    /// The ids, ascending.
    var members: [Int] {
        var result: [Int] = []
        for (index, word) in words.enumerated() {
            var remaining = word
            while remaining != 0 {
                result.append(index * 64 + remaining.trailingZeroBitCount)
                remaining &= remaining - 1
            }
        }
        return result
    }
}
