/// The set of tags (rule numbers, or query-predicate numbers) that an automaton accepts at the
/// end of a text: what an accepting DFA state carries.
///
/// Two views of one set, both built once when the DFA state is built: the sorted list, for
/// walking matches in rule order (the first rule that matches decides, SPEC 3), and a bitset,
/// for O(1) membership ("does the query match rule 12?").
public struct TagSet: Sendable, Hashable {
    /// The tags in increasing order.
    public let sorted: [Int32]
    /// Bit `t` set when tag `t` is in the set; trailing zero words omitted.
    public let words: [UInt64]

    public init(sorted: [Int32]) {
        self.sorted = sorted
        var words: [UInt64] = []
        for tag in sorted {
            let word = Int(tag) >> 6
            if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
            words[word] |= 1 << UInt64(Int(tag) & 63)
        }
        self.words = words
    }

    public static let empty = TagSet(sorted: [])

    public var isEmpty: Bool { sorted.isEmpty }

    @inline(__always)
    public func contains(_ tag: Int) -> Bool {
        let word = tag >> 6
        return word < words.count && words[word] & (1 << UInt64(tag & 63)) != 0
    }

    /// Approximate heap bytes, for cache budgets.
    var memoryUsage: Int { sorted.count * 4 + words.count * 8 + 64 }
}
