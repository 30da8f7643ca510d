/// Rules of the shape `literal * literal` (`/shop/*/reviews`, `/p/item-*.html`, `*/share`),
/// matched in two halves: the DFA checks the prefix and the `*` (the pattern `P*`, tagged with
/// the prefix's group, shared by every rule with that prefix), and the end of the text by a
/// trie of the suffixes, reversed, behind a filter on the text's last bytes (`SuffixEndings`).
///
/// Why: in one DFA, a `*` followed by a literal keeps every state after it tracking that
/// literal for the rest of the text, in combination with whatever else the state tracks, so
/// each prefix context multiplies with every suffix still pending. 1 000 generated path rules
/// (`aasa-bench` paths shape) make 184 097 DFA states out of 14 221 NFA states, and 3 000 make
/// 1 199 370; with these rules split, 11 320 and 38 107: linear again (eager determinisation
/// of both). A lazy DFA pays for every state an unseen URL reaches, so this is
/// what keeps a large document's per-URL time near a small one's.
///
/// PERF: paired A/B in one process, the piece switched off at compile time, off ÷ on, median over
/// rounds (`AASA_AB_HARNESS=1 .build/release/aasa-bench`, the temporary harness of the speed-work
/// A/B record listed in `Benchmarks/Records/INDEX.md`): without the split, 1.63× repeated and 3.22×
/// unseen URLs at the match suite's 1 000 path rules, 3.72× and 8.99× at 128 KB of them
/// (`paths-128k`); no real or fleet document is split.
///
/// Exactness: a rule `P*S` (P, S literal, S not empty) matches a text t iff t starts with P,
/// ends with S and |t| ≥ |P| + |S| bytes. The DFA accepting `P*` means t starts with P and the
/// rest is a run of whole scalars; S is valid UTF-8, so where it starts is a scalar boundary,
/// and the bytes between P and S are a run of scalars, which is what `*` matches. Literals are
/// the rule's normalised text (`Pattern.normalized(for:)`), as the DFA compares them.
public final class SuffixSplit: Sendable, Equatable {
    /// Forward-automaton tags from this value on name prefix groups (`groupBase + group`), not
    /// rules; below it they are rule ids as usual.
    public let groupBase: Int32
    /// Prefix of each group, in group order (what the forward pattern `P*` of the group reads).
    public let prefixes: [String]
    /// One split pattern: its prefix group, suffix and rule id.
    public struct Entry: Sendable, Equatable {
        public var group: Int32
        public var suffix: String
        public var rule: Int32
    }
    public let entries: [Entry]

    /// The reversed-suffix trie, flat. Entries 0..<256 are the root's children by byte (-1:
    /// none). A node is an offset into this array holding: the offset in `pairTable` of the
    /// pairs of the suffix that ends at the node (-1: none), the number of children, then
    /// the children's bytes packed in two words (unused lanes repeat the first byte), then the
    /// children; or, past `denseChildren` children, -1 and a 256-entry table; or a run (see
    /// `runMark`). `padding` entries end the array.
    private let trie: [Int32]
    /// Per suffix, at the offset its node names: the number of its (prefix group, suffix)
    /// pairs, then per pair, sorted by group: the group, the shortest text the pair can match
    /// (|P| + |S| bytes), and the range of its rules in `pairRules` (sorted).
    private let pairTable: [Int32]
    private let pairRules: [Int32]
    /// Open addressing from `group << 32 | suffix's pairTable offset` to the pair, three words
    /// a slot: the key (`UInt64.max`: empty), `shortest text << 32 | first rule index`, and
    /// `end of its rules << 32 | first rule` (the pair's rules are `pairRules[first..<end]`);
    /// the slot count is a power of two. Why inline: a URL's probe is one cache miss, not four
    /// (key, slot, pair, rule), in tables a large document's URLs do not keep warm.
    private let pairSlots: [UInt64]
    private static let slotWidth = 3
    /// The filter a text passes before this side is searched (most texts end in no suffix).
    let endings: SuffixEndings
    /// Suffixes whose pairs are probed through `pairSlots` (all of them), and those the ending
    /// filter keys on the text's last segment (for tests and statistics).
    let hashedSuffixCount: Int
    let segmentSuffixCount: Int

    public static func == (lhs: SuffixSplit, rhs: SuffixSplit) -> Bool {
        lhs.groupBase == rhs.groupBase && lhs.prefixes == rhs.prefixes && lhs.entries == rhs.entries
    }

    /// Builds the suffix side from its definition (as `split` makes it, or as an artifact
    /// stores it). Entries must name existing groups; callers decoding untrusted bytes check.
    init(groupBase: Int32, prefixes: [String], entries: [Entry]) {
        self.groupBase = groupBase
        self.prefixes = prefixes
        self.entries = entries
        // Per suffix: prefix group → rules.
        var suffixIDs: [String: Int32] = [:]
        var rulesOf: [[Int32: [Int32]]] = []
        for entry in entries {
            let suffix: Int32
            if let known = suffixIDs[entry.suffix] {
                suffix = known
            } else {
                suffix = Int32(rulesOf.count)
                suffixIDs[entry.suffix] = suffix
                rulesOf.append([:])
            }
            rulesOf[Int(suffix)][entry.group, default: []].append(entry.rule)
        }
        var suffixText = [String](repeating: "", count: rulesOf.count)
        for (text, id) in suffixIDs { suffixText[Int(id)] = text }
        let inSegments = suffixText.map { SuffixEndings.isWholeSegment(Array($0.utf8)) }
        // The trie, built with child maps, then flattened.
        var children: [[UInt8: Int32]] = [[:]]
        var suffixOfNode: [Int32] = [-1]
        for (suffix, text) in suffixText.enumerated() {
            var node: Int32 = 0
            for byte in text.utf8.reversed() {
                if let next = children[Int(node)][byte] {
                    node = next
                } else {
                    let next = Int32(children.count)
                    children.append([:])
                    suffixOfNode.append(-1)
                    children[Int(node)][byte] = next
                    node = next
                }
            }
            suffixOfNode[Int(node)] = Int32(suffix)
        }
        var pairTable: [Int32] = []
        var pairRules: [Int32] = []
        var pairOffset: [Int32] = []
        for (suffix, groups) in rulesOf.enumerated() {
            pairOffset.append(Int32(pairTable.count))
            pairTable.append(Int32(groups.count))
            for (group, rules) in groups.sorted(by: { $0.key < $1.key }) {
                let prefixLength = Int(group) < prefixes.count ? prefixes[Int(group)].utf8.count : 0
                // A rule with several alternatives of one shape (legacy `paths`) may repeat.
                let start = Int32(pairRules.count)
                pairRules += Set(rules).sorted()
                pairTable += [group, Int32(clamping: prefixLength + suffixText[suffix].utf8.count), start, Int32(pairRules.count)]
            }
        }
        // Chains of nodes with one child and no suffix become runs: the chain's bytes in one
        // record, compared in a row, instead of a node (a dependent load in memory a large
        // document's URLs do not keep warm) per byte. Runs (and the depth-first layout) start at
        // depth 3: the nodes above are read by most walks and laid out breadth first.
        let firstRunDepth = 3
        var depth = [Int](repeating: 0, count: children.count)
        var runOf: [Int: (bytes: [UInt8], target: Int)] = [:]
        // A chain's inner nodes start no run of their own: that would make a long suffix
        // quadratic (each of its nodes walking the rest of the chain).
        var inside = [Bool](repeating: false, count: children.count)
        for node in Self.breadthFirst({ children[$0].values.map { Int($0) } }) {
            for child in children[node].values { depth[Int(child)] = depth[node] + 1 }
            guard !inside[node], depth[node] >= firstRunDepth, children[node].count == 1, let (byte, first) = children[node].first
            else { continue }
            var bytes = [byte]
            var target = Int(first)
            while suffixOfNode[target] < 0, children[target].count == 1, let (next, child) = children[target].first {
                inside[target] = true
                bytes.append(next)
                target = Int(child)
            }
            if bytes.count >= 2 { runOf[node] = (bytes, target) }
        }
        // Layout, after the root table: the nodes down to the entry depth breadth first (the
        // shallow nodes, which most walks read, share a few cache lines), then each entry
        // node's subtree depth first, so that a walk below it reads
        // adjacent records; a run's inner nodes left out. Children point at offsets.
        func next(_ node: Int) -> [Int] {
            runOf[node].map { [$0.target] } ?? children[node].sorted(by: { $0.key < $1.key }).map { Int($0.value) }
        }
        var order = Self.breadthFirst { node in depth[node] < firstRunDepth ? next(node) : [] }
        for top in order where depth[top] == firstRunDepth {
            var stack = next(top).reversed().map { $0 }
            while let node = stack.popLast() {
                order.append(node)
                stack += next(node).reversed()
            }
        }
        var offsets = [Int32](repeating: 0, count: children.count)
        var nextOffset = 256
        for node in order {
            offsets[node] = Int32(nextOffset)
            if let run = runOf[node] {
                nextOffset += 4 + (run.bytes.count + 3) / 4
            } else {
                let count = node == 0 ? 0 : children[node].count
                nextOffset += 2 + (count > Self.denseChildren ? 256 : 2 + count)
            }
        }
        let next = nextOffset
        var trie = [Int32](repeating: -1, count: next + Self.padding)
        for (byte, child) in children[0] { trie[Int(byte)] = offsets[Int(child)] }
        for node in order where node > 0 {
            let base = Int(offsets[node])
            let suffix = Int(suffixOfNode[node])
            trie[base] = suffix >= 0 ? pairOffset[suffix] : -1
            if let run = runOf[node] {
                trie[base + 1] = Self.runMark
                trie[base + 2] = Int32(run.bytes.count)
                trie[base + 3] = offsets[run.target]
                for word in 0..<((run.bytes.count + 3) / 4) {
                    var packed: UInt32 = 0
                    for lane in 0..<4 where word * 4 + lane < run.bytes.count {
                        packed |= UInt32(run.bytes[word * 4 + lane]) << (8 * UInt32(lane))
                    }
                    trie[base + 4 + word] = Int32(bitPattern: packed)
                }
                continue
            }
            if children[node].count > Self.denseChildren {
                trie[base + 1] = -1
                for (byte, child) in children[node] { trie[base + 2 + Int(byte)] = offsets[Int(child)] }
                continue
            }
            let sorted = children[node].sorted(by: { $0.key < $1.key })
            trie[base + 1] = Int32(sorted.count)
            var lanes: UInt64 = 0
            for index in 0..<8 {
                let byte = index < sorted.count ? sorted[index].key : sorted.first?.key ?? 0
                lanes |= UInt64(byte) << (8 * UInt64(index))
            }
            trie[base + 2] = Int32(bitPattern: UInt32(truncatingIfNeeded: lanes))
            trie[base + 3] = Int32(bitPattern: UInt32(truncatingIfNeeded: lanes >> 32))
            for (index, (_, child)) in sorted.enumerated() { trie[base + 4 + index] = offsets[Int(child)] }
        }
        self.trie = trie
        self.pairTable = pairTable
        self.pairRules = pairRules
        var capacity = 16
        let hashed = Array(rulesOf.indices)
        hashedSuffixCount = hashed.count
        segmentSuffixCount = inSegments.filter { $0 }.count
        while capacity < 2 * hashed.reduce(0, { $0 + rulesOf[$1].count }) { capacity *= 2 }
        var pairSlots = [UInt64](repeating: .max, count: capacity * Self.slotWidth)
        for offset in hashed.map({ pairOffset[$0] }) {
            for index in 0..<Int(pairTable[Int(offset)]) {
                let pair = Int(offset) + 1 + 4 * index
                let key = Self.key(group: pairTable[pair], pairs: Int(offset))
                var slot = Self.slot(key, capacity)
                while pairSlots[slot * Self.slotWidth] != .max { slot = (slot + 1) & (capacity - 1) }
                let (start, end) = (pairTable[pair + 2], pairTable[pair + 3])
                pairSlots[slot * Self.slotWidth] = key
                pairSlots[slot * Self.slotWidth + 1] = UInt64(UInt32(bitPattern: pairTable[pair + 1])) << 32 | UInt64(UInt32(bitPattern: start))
                pairSlots[slot * Self.slotWidth + 2] = UInt64(UInt32(bitPattern: end)) << 32 | UInt64(UInt32(bitPattern: pairRules[Int(start)]))
            }
        }
        self.pairSlots = pairSlots
        endings = SuffixEndings(
            segments: suffixText.indices.filter { inSegments[$0] }.map { Array(suffixText[$0].utf8) },
            others: suffixText.indices.filter { !inSegments[$0] }.map { Array(suffixText[$0].utf8) })
    }

    /// The last `depth` bytes of `text` (1 to 8, at most its length), the first of them in
    /// the low byte: the key of `endings`' windows.
    @inline(__always)
    static func windowKey(_ text: ByteView, depth: Int) -> UInt64 {
        let count = text.count
        if count >= 8 {
            let word = UInt64(littleEndian: text.word(at: count &- 8))
            return word &>> UInt64(64 &- 8 &* depth)
        }
        var key: UInt64 = 0
        for index in 0..<depth { key |= UInt64(text[count &- depth &+ index]) &<< UInt64(8 &* index) }
        return key
    }

    @inline(__always)
    private static func key(group: Int32, pairs: Int) -> UInt64 {
        UInt64(UInt32(bitPattern: group)) << 32 | UInt64(UInt32(truncatingIfNeeded: pairs))
    }

    @inline(__always)
    private static func slot(_ key: UInt64, _ capacity: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & (capacity - 1)
    }

    /// Nodes with more children than this get a 256-entry table instead of a list to scan.
    static let denseChildren = 8
    /// Entries after the last node: a child lookup reads slot `node + 4 + 8` (no lane found)
    /// before it knows there is no child.
    static let padding = 16
    /// Accepted prefix groups probed without comparing with the suffix's pair count.
    static let fewGroups = 8

    /// Splits the `literal * literal` patterns out of `patterns` when the plan says so
    /// (`Planner.splits`: at least `minimum` of them): returns the patterns for the forward
    /// automaton (the others unchanged, then one `P*` per prefix group, tagged
    /// `groupBase + group`) and the suffix side; otherwise the patterns unchanged and `nil`.
    /// `candidates` is how many could have been split, for the plan's record.
    static func split(_ patterns: [(pattern: Pattern, tag: Int32)], groupBase: Int32, minimum: Int)
        -> (patterns: [(pattern: Pattern, tag: Int32)], split: SuffixSplit?, candidates: Int)
    {
        var shapes = patterns.map { splitShape($0.pattern) }
        // A minimum of 0 splits whatever can be (the test suite's way to run every split rule
        // through the suffix side); otherwise rules past a prefix of their own stay.
        if minimum > 0 {
            for index in isolatedShapes(patterns.map(\.pattern), shapes) { shapes[index] = nil }
        }
        let eligible = shapes.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        guard Planner.splits(candidates: eligible, minimum: minimum) else { return (patterns, nil, eligible) }
        var kept: [(pattern: Pattern, tag: Int32)] = []
        var groupOf: [String: Int32] = [:]
        var prefixes: [String] = []
        var entries: [Entry] = []
        for (index, item) in patterns.enumerated() {
            guard let shape = shapes[index] else {
                kept.append(item)
                continue
            }
            let group: Int32
            if let known = groupOf[shape.prefix] {
                group = known
            } else {
                group = Int32(prefixes.count)
                groupOf[shape.prefix] = group
                prefixes.append(shape.prefix)
            }
            entries.append(Entry(group: group, suffix: shape.suffix, rule: item.tag))
        }
        for (group, prefix) in prefixes.enumerated() {
            let pieces: [Pattern.Piece] = prefix.isEmpty ? [.anyMany] : [.literal(prefix), .anyMany]
            kept.append((Pattern(pieces: pieces), groupBase + Int32(group)))
        }
        return (kept, SuffixSplit(groupBase: groupBase, prefixes: prefixes, entries: entries), eligible)
    }

    /// The indices of the `P*S` shapes that stay in the forward automaton: P is not empty, no
    /// other pattern's leading literal starts with P, and no pattern that keeps a `*` with
    /// text after it in the forward automaton has a leading literal that P starts with.
    ///
    /// Why: what multiplies DFA states is a `*` whose suffix is pending while other patterns
    /// still branch (a shared prefix such as `/shop/`, or none), or while another pending
    /// `*` is active. Past a prefix no other pattern shares, the forward automaton walks at
    /// most |S| + 1 states of this rule (the suffix's matching progress), and splitting it
    /// only sends every URL that ends in S (`.html` at 10 000 generated path rules: a fifth
    /// of them, each probing a hash slot per prefix group) through the suffix side.
    static func isolatedShapes(_ patterns: [Pattern], _ shapes: [(prefix: String, suffix: String)?]) -> [Int] {
        // Most documents have no `P*S` pattern at all: nothing to isolate, no tries to build.
        guard shapes.contains(where: { $0 != nil }) else { return [] }
        func leadingLiteral(_ pattern: Pattern) -> [UInt8] {
            var bytes: [UInt8] = []
            for piece in pattern.pieces {
                guard case .literal(let text) = piece else { break }
                bytes += text.utf8
            }
            return bytes
        }
        let leading = patterns.map(leadingLiteral)
        // Leading literals of the patterns left in the forward automaton with a pending `*`
        // (or a variable, whose values may hold one), as a trie: a prefix is checked against
        // all of them in one pass over its bytes.
        var pendingChildren: [[UInt8: Int]] = [[:]]
        var pendingEnds: [Bool] = [false]
        for (index, pattern) in patterns.enumerated() where shapes[index] == nil {
            let pieces = pattern.pieces
            let variable = pieces.contains { if case .variable = $0 { return true } else { return false } }
            guard variable || pieces.dropLast().contains(.anyMany) else { continue }
            var node = 0
            for byte in leading[index] {
                if let child = pendingChildren[node][byte] {
                    node = child
                } else {
                    pendingChildren[node][byte] = pendingChildren.count
                    node = pendingChildren.count
                    pendingChildren.append([:])
                    pendingEnds.append(false)
                }
            }
            pendingEnds[node] = true
        }
        /// Whether a pending pattern's leading literal is a prefix of `prefix` (or equals it).
        func underPending(_ prefix: [UInt8]) -> Bool {
            var node = 0
            if pendingEnds[node] { return true }
            for byte in prefix {
                guard let child = pendingChildren[node][byte] else { return false }
                node = child
                if pendingEnds[node] { return true }
            }
            return false
        }
        let sorted = leading.sorted { $0.lexicographicallyPrecedes($1) }
        /// How many leading literals start with `prefix`.
        func extensions(of prefix: [UInt8]) -> Int {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle].lexicographicallyPrecedes(prefix) { low = middle + 1 } else { high = middle }
            }
            var count = 0
            var index = low
            while index < sorted.count, sorted[index].starts(with: prefix), count < 2 {
                count += 1
                index += 1
            }
            return count
        }
        var isolated: [Int] = []
        for (index, shape) in shapes.enumerated() {
            guard let shape, !shape.prefix.isEmpty else { continue }
            let prefix = Array(shape.prefix.utf8)
            guard extensions(of: prefix) == 1 else { continue }
            guard !underPending(prefix) else { continue }
            isolated.append(index)
        }
        return isolated
    }

    /// `(P, S)` when `pattern` is `P*S` with literal P (maybe empty) and literal, non-empty S.
    static func splitShape(_ pattern: Pattern) -> (prefix: String, suffix: String)? {
        var prefix = ""
        var suffix = ""
        var seenStar = false
        for piece in pattern.pieces {
            switch piece {
            case .literal(let text):
                if seenStar { suffix += text } else { prefix += text }
            case .anyMany:
                if seenStar { return nil }
                seenStar = true
            case .anyOne, .variable:
                return nil
            }
        }
        return seenStar && !suffix.isEmpty ? (prefix, suffix) : nil
    }

    /// Appends to `out` the rules of the split patterns that match all of `text`, sorted and
    /// without repeats, given `forward`: the sorted tags the forward automaton accepted for
    /// the same text.
    ///
    /// - Complexity: the reverse walk reads at most the longest suffix; per suffix found, a
    ///   hash probe per prefix group accepted, or fewer lookups when the suffix has fewer
    ///   pairs (never more than the document's pairs, whatever the text).
    func collect(_ text: ByteView, forward: BufferView<Int32>, into out: inout [Int32]) {
        // The prefix groups the forward automaton accepted: its tags from `groupBase` on (all
        // of them when the matcher passes a decision row's groups).
        var low = 0
        var high = !forward.isEmpty && forward[0] >= groupBase ? 0 : forward.count
        while low < high {
            let middle = (low + high) / 2
            if forward[middle] < groupBase { low = middle + 1 } else { high = middle }
        }
        guard low < forward.count else { return }
        let firstGroup = low
        let before = out.count
        pairTable.withView { pairTable in
            trie.withView { trie in
                guard let (node, position) = firstSuffix(text, trie) else { return }
                walk(text, trie, pairTable, from: node, position: position, forward: forward, firstGroup: firstGroup, into: &out)
            }
        }
        guard out.count - before > 1 else { return }
        // Several pairs matched: sort and drop repeats, in place. A few are sorted by insertion;
        // a document decides how many there are (10 000 `/*z` and `/*yz` rules against
        // `/p/xyz`), and insertion sorting them cost 27 million moves a URL.
        if out.count - before > 16 {
            out[before..<out.count].sort()
        } else {
            for index in (before + 1)..<out.count {
                let value = out[index]
                var slot = index
                while slot > before, out[slot - 1] > value {
                    out[slot] = out[slot - 1]
                    slot -= 1
                }
                out[slot] = value
            }
        }
        var write = before + 1
        for read in (before + 1)..<out.count where out[read] != out[write - 1] {
            out[write] = out[read]
            write += 1
        }
        if write < out.count { out.removeLast(out.count - write) }
    }

    /// `collect` for a forward tag set held in a lazy DFA cache.
    func collect(_ text: ByteView, tagSets: [TagSet], tagSet: Int32, into out: inout [Int32]) {
        tagSets[Int(tagSet)].sorted.withView { forward in collect(text, forward: forward, into: &out) }
    }

    /// The node of the shortest suffix of `text` in the trie, with the position of its first
    /// byte; nil when no suffix is (most texts: the walk stops after a few bytes).
    @inline(__always)
    private func firstSuffix(_ text: ByteView, _ trie: BufferView<Int32>) -> (Int, Int)? {
        guard !text.isEmpty else { return nil }
        let last = text[text.count - 1]
        var node = Int(trie[Int(last)])
        var position = text.count - 1
        guard node >= 0 else { return nil }
        while trie[node] == -1 {
            guard Self.advance(trie, text, &node, &position) else { return nil }
        }
        return (node, position)
    }

    /// The nodes of a tree, breadth first from node 0.
    private static func breadthFirst(_ children: (Int) -> [Int]) -> [Int] {
        var queue = [0]
        var head = 0
        while head < queue.count {
            queue += children(queue[head])
            head += 1
        }
        return queue
    }

    /// Marks a run node, in the children-count slot: then the run's length, the node it leads
    /// to, and its bytes (in the order the walk reads them, backwards through the text), four
    /// to a word.
    static let runMark: Int32 = -2

    /// Moves `node` one step towards the start of `text` (one byte, or a run's bytes) and
    /// `position` to the first byte read; false when the trie has no such node.
    @inline(__always)
    private static func advance(
        _ trie: BufferView<Int32>, _ text: ByteView, _ node: inout Int, _ position: inout Int
    ) -> Bool {
        if trie[node &+ 1] == runMark {
            let length = Int(trie[node &+ 2])
            guard position >= length else { return false }
            // Construction packs the run's bytes in the words from `node + 4`.
            let bytes = trie.bytes
            let first = (node &+ 4) &* 4
            for index in 0..<length where text[position &- 1 &- index] != bytes[first &+ index] {
                return false
            }
            position &-= length
            node = Int(trie[node &+ 3])
            return true
        }
        guard position > 0 else { return false }
        position &-= 1
        node = child(trie, node, text[position])
        return node >= 0
    }

    @inline(__always)
    private static func child(_ trie: BufferView<Int32>, _ node: Int, _ byte: UInt8) -> Int {
        let children = Int(trie[node &+ 1])
        if children < 0 { return Int(trie[node &+ 2 &+ Int(byte)]) }
        // The lane holding `byte`, without a loop: the lowest zero byte of `lanes ^ byte×8`
        // (8 when none; unused lanes repeat lane 0, so they never answer first).
        let lanes = UInt64(UInt32(bitPattern: trie[node &+ 2])) | UInt64(UInt32(bitPattern: trie[node &+ 3])) << 32
        let difference = lanes ^ (UInt64(byte) &* 0x0101_0101_0101_0101)
        let zeros = (difference &- 0x0101_0101_0101_0101) & ~difference & 0x8080_8080_8080_8080
        let lane = zeros.trailingZeroBitCount >> 3
        let found = Int(trie[node &+ 4 &+ lane])
        return lane < children ? found : -1
    }

    /// The reverse walk from `node` (reached with `text[position...]` read), taking the pairs
    /// of every suffix on the way (unsorted: `collect` sorts).
    private func walk(
        _ text: ByteView, _ trie: BufferView<Int32>, _ pairTable: BufferView<Int32>,
        from start: Int, position startPosition: Int, forward: BufferView<Int32>, firstGroup: Int, into out: inout [Int32]
    ) {
        var node = start
        var position = startPosition
        while true {
            let pairs = Int(trie[node])
            if pairs >= 0 {
                take(pairs, pairTable, forward, firstGroup, text.count, &out)
            }
            guard Self.advance(trie, text, &node, &position) else { break }
        }
    }

    /// The rules of the suffix's pairs (at `pairs`) whose prefix group is in
    /// `forward[firstGroup...]`: a hash probe per group accepted, or, when the suffix has fewer
    /// pairs than that, a binary search in `forward` per pair (so a document cannot make this
    /// cost more than its own pairs). Up to `fewGroups` groups, the probes go ahead without
    /// reading the pair count (a cold load).
    @inline(__always)
    private func take(
        _ pairs: Int, _ pairTable: BufferView<Int32>, _ forward: BufferView<Int32>, _ firstGroup: Int,
        _ textLength: Int, _ out: inout [Int32]
    ) {
        func add(_ pair: Int) {
            guard textLength >= Int(pairTable[pair + 1]) else { return }
            for rule in Int(pairTable[pair + 2])..<Int(pairTable[pair + 3]) { out.append(pairRules[rule]) }
        }
        let groups = forward.count - firstGroup
        if groups <= Self.fewGroups || groups <= Int(pairTable[pairs]) {
            pairSlots.withView { slots in
                let capacity = slots.count / Self.slotWidth
                for index in firstGroup..<forward.count {
                    let key = Self.key(group: forward[index] - groupBase, pairs: pairs)
                    var slot = Self.slot(key, capacity)
                    while slots[slot * Self.slotWidth] != .max {
                        if slots[slot * Self.slotWidth] == key {
                            let (bounds, rules) = (slots[slot * Self.slotWidth + 1], slots[slot * Self.slotWidth + 2])
                            guard textLength >= Int(bounds >> 32) else { break }
                            let (start, end) = (Int(UInt32(truncatingIfNeeded: bounds)), Int(rules >> 32))
                            if end - start == 1 {
                                out.append(Int32(bitPattern: UInt32(truncatingIfNeeded: rules)))
                            } else {
                                for rule in start..<end { out.append(pairRules[rule]) }
                            }
                            break
                        }
                        slot = (slot + 1) & (capacity - 1)
                    }
                }
            }
        } else {
            for index in 0..<Int(pairTable[pairs]) {
                let pair = pairs + 1 + 4 * index
                let tag = groupBase + pairTable[pair]
                var low = firstGroup
                var high = forward.count
                while low < high {
                    let middle = (low + high) / 2
                    if forward[middle] < tag { low = middle + 1 } else { high = middle }
                }
                if low < forward.count, forward[low] == tag { add(pair) }
            }
        }
    }

    /// Heap bytes, roughly.
    var memoryUsage: Int {
        (trie.count + pairTable.count + pairRules.count) * 4 + pairSlots.count * 8 + endings.memoryUsage
            + entries.count * 40
            + prefixes.reduce(0) { $0 + $1.utf8.count + 16 }
    }
}
