/// The suffixes of a `SuffixSplit` that are one whole last segment (`/` then up to 22 bytes
/// none of which is `/`: `/reviews`, `/share`), found by one probe keyed on the text's own last
/// segment instead of a walk down the reversed-suffix trie.
///
/// Why: a text ends in such a suffix exactly when its last segment (from its last `/`) equals
/// it, so there is one candidate per text and one hash probe finds it. At 10 000 generated path
/// rules, 1 727 of 1 728 suffixes are of this kind, and the trie answered them with a walk of
/// dependent steps in memory a large document's URLs do not keep warm.
///
/// PERF: paired A/B in one process, the piece switched off at compile time, off ÷ on, median over
/// rounds (`AASA_AB_HARNESS=1 .build/release/aasa-bench`, the temporary harness of the speed-work
/// A/B record listed in `Benchmarks/Records/INDEX.md`): with every suffix in the trie, 1.03× at the
/// match suite's 1 000 path rules (fastest rounds: 1.08× repeated, 1.03× unseen), 0.97× to 1.03× at
/// 128 KB: borderline, to be measured again on a quiet machine.
struct SegmentSuffixes: Sendable {
    /// Open addressing, four words a slot: the segment's bytes (`key`: three words, zero
    /// padded, its length in the top byte of the third, so that no key is all zero: 0 marks an
    /// empty slot), then the offset of its pairs in the split's `pairTable`. The slot count is
    /// a power of two.
    private let slots: [UInt64]
    /// The longest segment kept here (with its `/`); longer ones stay in the trie.
    static let maxLength = 23
    private static let slotWidth = 4

    /// Whether `suffix` is kept here (else the trie keeps it).
    static func holds(_ suffix: [UInt8]) -> Bool {
        suffix.count <= maxLength && suffix.first == UInt8(ascii: "/") && !suffix.dropFirst().contains(UInt8(ascii: "/"))
    }

    /// `suffixes`: each suffix `holds` accepts, with the offset of its pairs.
    init(_ suffixes: [(bytes: [UInt8], pairs: UInt64)]) {
        guard !suffixes.isEmpty else {
            slots = []
            return
        }
        var capacity = 16
        while capacity < 2 * suffixes.count { capacity *= 2 }
        var slots = [UInt64](repeating: 0, count: capacity * Self.slotWidth)
        for (bytes, pairs) in suffixes {
            let key = bytes.withView { Self.key($0, from: 0) }
            var slot = Self.slot(Self.hash(key), capacity)
            while slots[slot * Self.slotWidth + 2] != 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot * Self.slotWidth] = key.0
            slots[slot * Self.slotWidth + 1] = key.1
            slots[slot * Self.slotWidth + 2] = key.2
            slots[slot * Self.slotWidth + 3] = pairs
        }
        self.slots = slots
    }

    var isEmpty: Bool { slots.isEmpty }
    var memoryUsage: Int { slots.count * 8 }

    /// The key of `text[start...]` (at most `maxLength` bytes): its bytes, first in the low
    /// byte of the first word, zero past its end, and its length in the top byte of the third.
    @inline(__always)
    static func key(_ text: ByteView, from start: Int) -> (UInt64, UInt64, UInt64) {
        let count = text.count
        let length = count &- start
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        guard !text.isEmpty else { return words }
        let view = text
        @inline(__always) func load(_ at: Int) -> UInt64 {
            UInt64(littleEndian: view.word(at: at))
        }
        if count >= 8 {
            // Whole words from the start; the last, partial one read as the text's last eight
            // bytes, those before it shifted out (no copy, no read past the text).
            @inline(__always) func tail(_ wanted: Int) -> UInt64 { load(count &- 8) &>> UInt64(8 &* (8 &- wanted)) }
            if length <= 8 {
                words.0 = tail(length)
            } else if length <= 16 {
                words.0 = load(start)
                words.1 = tail(length &- 8)
            } else {
                words.0 = load(start)
                words.1 = load(start &+ 8)
                words.2 = tail(length &- 16)
            }
        } else {
            for index in 0..<length { words.0 |= UInt64(text[start &+ index]) &<< UInt64(8 &* index) }
        }
        words.2 |= UInt64(length) &<< 56
        return words
    }

    /// Where `text`'s last segment starts (its last `/`), when the segment has at most
    /// `maxLength` bytes; nil otherwise (no suffix here can end it).
    @inline(__always)
    static func lastSegmentStart(_ text: ByteView) -> Int? {
        let count = text.count
        guard count > 0 else { return nil }
        let view = text
        let lowest = count > maxLength ? count &- maxLength : 0
        var end = count
        // Eight bytes at a time, backwards: the highest `/` of each word (exact per byte, so
        // no borrow can report a `/` that is not there).
        while end &- lowest >= 8 {
            let word = UInt64(littleEndian: view.word(at: end &- 8))
            let x = word ^ 0x2F2F_2F2F_2F2F_2F2F
            let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            let zeros = ~(((x & low7) &+ low7) | x | low7)
            if zeros != 0 { return end &- 8 &+ (63 &- zeros.leadingZeroBitCount) >> 3 }
            end &-= 8
        }
        while end > lowest {
            end &-= 1
            if text[end] == UInt8(ascii: "/") { return end }
        }
        return nil
    }

    @inline(__always)
    static func hash(_ key: (UInt64, UInt64, UInt64)) -> UInt64 {
        (key.0 ^ (key.1 &* 0xD6E8_FEB8_6659_FD93) ^ (key.2 &* 0xA076_1D64_78BD_642F)) &* 0x9E37_79B9_7F4A_7C15
    }

    @inline(__always)
    private static func slot(_ hash: UInt64, _ capacity: Int) -> Int {
        Int(truncatingIfNeeded: hash >> 40) & (capacity &- 1)
    }

    /// The offset of the pairs of the suffix `text` ends in, if it ends in one of these.
    @inline(__always)
    func pairs(endingIn text: ByteView) -> UInt64? {
        guard !slots.isEmpty, let start = Self.lastSegmentStart(text) else { return nil }
        let key = Self.key(text, from: start)
        return slots.withView { slots in
            let capacity = slots.count / Self.slotWidth
            var slot = Self.slot(Self.hash(key), capacity)
            while true {
                let at = slot &* Self.slotWidth
                let third = slots[at &+ 2]
                if third == 0 { return nil }
                if third == key.2, slots[at] == key.0, slots[at &+ 1] == key.1 { return slots[at &+ 3] }
                slot = (slot &+ 1) & (capacity &- 1)
            }
        }
    }
}
