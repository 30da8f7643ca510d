/// The set of tags (rule numbers, or query-predicate numbers) that an automaton accepts at the
/// end of a text: what an accepting DFA state carries.
///
/// Two views of one set, both built once when the DFA state is built: the sorted list, for
/// walking matches in rule order (the first rule that matches decides, SPEC 3), and a bitset,
/// for O(1) membership ("does the query match rule 12?").
public struct TagSet: Sendable, Hashable {
    /// The tags in increasing order.
    public let sorted: [Int32]
    /// Bit `t - 64 × firstWord` set when tag `t` is in the set: the words from the lowest
    /// tag's to the highest's only, so a set of a few high rule numbers (an accepting state of
    /// a 10 000-rule document) costs a word or two, not 157.
    public let words: [UInt64]
    let firstWord: Int

    public init(sorted: [Int32]) {
        self.sorted = sorted
        let firstWord = sorted.first.map { Int($0) >> 6 } ?? 0
        var words: [UInt64] = []
        for tag in sorted {
            let word = Int(tag) >> 6 - firstWord
            if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
            words[word] |= 1 << UInt64(Int(tag) & 63)
        }
        self.words = words
        self.firstWord = firstWord
    }

    public static let empty = TagSet(sorted: [])

    public var isEmpty: Bool { sorted.isEmpty }

    @inline(__always)
    public func contains(_ tag: Int) -> Bool {
        let word = tag >> 6 - firstWord
        return word >= 0 && word < words.count && words[word] & (1 << UInt64(tag & 63)) != 0
    }

    /// Approximate heap bytes, for cache budgets.
    var memoryUsage: Int { sorted.count * 4 + words.count * 8 + 64 }
}
