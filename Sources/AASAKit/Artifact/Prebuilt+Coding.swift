extension LazyDFA.Prebuilt {
    /// Layout (format 6): the stride (the number of byte classes), the first byte of each class
    /// after the first (classes are runs of bytes, `ByteClasses`), and the state count; per
    /// state its row as its most common target, the number of cells that differ, and those
    /// cells (class byte, target); the accept index of each state; then the tag sets (each
    /// sorted, as steps from the previous tag). Targets and accept indices take the fewest
    /// bytes (1, 2 or 4) that hold every state number. Why the classes (format 6): with them
    /// the table is searched without its NFA, which then stays stored (`DeferredNFA`). Why rows
    /// this way: a pattern's DFA state goes on in a few classes and falls to the dead state or
    /// one fallback on the rest, so rows are mostly one value.
    func encode(into writer: inout BinaryWriter) {
        writer.varint(stride)
        for byte in 1..<256 where classOf[byte] != classOf[byte - 1] { writer.write(UInt8(byte)) }
        writer.varint(stateCount)
        let width = Self.width(stateCount)
        var counts = [Int32: Int]()
        for state in 0..<stateCount {
            let row = cells[(state * stride)..<((state + 1) * stride)]
            counts.removeAll(keepingCapacity: true)
            for cell in row { counts[cell, default: 0] += 1 }
            // The most common target, the lowest on a tie: the same bytes on every run.
            let common = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? 0
            writer.fixed(Int(common) / stride, width: width)
            writer.write(UInt8(stride - (counts[common] ?? 0)))
            for (cls, cell) in row.enumerated() where cell != common {
                writer.write(UInt8(cls))
                writer.fixed(Int(cell) / stride, width: width)
            }
        }
        for accept in acceptOf { writer.fixed(Int(accept), width: width) }
        writer.varint(tagSets.count)
        for tags in tagSets {
            writer.varint(tags.sorted.count)
            var previous: Int32 = -1
            for tag in tags.sorted {
                writer.varint(Int(tag - previous - 1))
                previous = tag
            }
        }
    }

    /// Bytes per cell for a table of `states` states.
    static func width(_ states: Int) -> Int { states <= 256 ? 1 : states <= 65_536 ? 2 : 4 }

    /// Decodes and validates every cell, class and tag, so that the unchecked walk of `search`
    /// can never leave the table, whatever the file holds. The table must also be one
    /// `Prebuilt(nfa:budget:)` could have built under `budget` (what `aasa compile` uses): no
    /// more states or bytes than the budget allows; and its dense cells may outweigh the bytes
    /// of its automaton in the file (`nfaBytes` plus its own) at most
    /// `CompiledDocument.eagerBytesPerNFAByte` times, the bound an automaton stored without a
    /// table gets, so that a small crafted file cannot hold a large table. Not checked: that
    /// the classes and rows are the NFA's (the NFA is not read; a table that disagrees with it
    /// answers as the table says, within bounds).
    static func decode(
        from reader: inout BinaryReader, nfaBytes: Int, tagLimit: Int, budget: Budget = Budget()
    ) throws(ArtifactError) -> LazyDFA.Prebuilt {
        let start = reader.offset
        let stride = try reader.natural()
        guard stride >= 1, stride <= 256 else { throw .corrupt("a DFA table's byte classes are inconsistent") }
        // Each class after the first starts at a byte above the previous class's start: so the
        // classes number exactly `stride`, and every byte's class is below it.
        var boundaries = [Bool](repeating: false, count: 256)
        var previous = 0
        for _ in 1..<stride {
            let first = Int(try reader.uint8())
            guard first > previous else { throw .corrupt("a DFA table's byte classes are inconsistent") }
            boundaries[first] = true
            previous = first
        }
        let classes = ByteClasses(boundaries: boundaries)
        // A state takes at least its common target and its count of other cells.
        let stateCount = try reader.length(elementSize: 2)
        guard stateCount >= 2 else { throw .corrupt("a DFA table has no start state") }
        guard stateCount <= min(budget.maxStates, budget.maxTableBytes / (4 * stride)) else {
            throw .corrupt("a DFA table has \(stateCount) states, more than compilation stores")
        }
        let width = Self.width(stateCount)
        var cells = [Int32](repeating: 0, count: stateCount * stride)
        for state in 0..<stateCount {
            let common = try reader.fixed(width: width)
            guard common < stateCount else { throw .corrupt("a DFA transition leads to no state") }
            let base = state * stride
            let value = Int32(truncatingIfNeeded: common * stride)
            if value != 0 { for index in base..<(base + stride) { cells[index] = value } }
            let others = Int(try reader.uint8())
            guard others < stride else { throw .corrupt("a DFA table row is inconsistent") }
            for _ in 0..<others {
                let cls = Int(try reader.uint8())
                let target = try reader.fixed(width: width)
                guard cls < stride, target < stateCount else { throw .corrupt("a DFA transition leads to no state") }
                cells[base + cls] = Int32(truncatingIfNeeded: target * stride)
            }
        }
        guard cells[0..<stride].allSatisfy({ $0 == 0 }) else { throw .corrupt("the dead state of a DFA table is not dead") }
        var acceptOf = [Int32](repeating: 0, count: stateCount)
        var largestAccept = 0
        for state in 0..<stateCount {
            let accept = try reader.fixed(width: width)
            largestAccept = max(largestAccept, accept)
            acceptOf[state] = Int32(truncatingIfNeeded: accept)
        }
        let tagSetCount = try reader.length(elementSize: 1)
        // Compilation keeps the distinct accept sets of the states: never more sets than states.
        // Matchers build a row per tag set (`DecisionRows`), so this matters.
        guard tagSetCount <= stateCount else { throw .corrupt("a DFA table has more accept sets than states") }
        var tagSets: [TagSet] = []
        tagSets.reserveCapacity(tagSetCount)
        for _ in 0..<tagSetCount {
            let count = try reader.length(elementSize: 1)
            var tags: [Int32] = []
            tags.reserveCapacity(count)
            var previous = -1
            for _ in 0..<count {
                let tag = previous + 1 + (try reader.natural())
                guard tag < tagLimit else { throw .corrupt("a DFA state accepts an unknown or unsorted rule") }
                tags.append(Int32(tag))
                previous = tag
            }
            tagSets.append(TagSet(sorted: tags))
        }
        guard largestAccept < tagSets.count else { throw .corrupt("a DFA state's accept set is missing") }
        let stored = nfaBytes + reader.offset - start
        guard stateCount * stride * 4 <= CompiledDocument.eagerBytesPerNFAByte * stored else {
            throw .corrupt("a DFA table of \(stateCount) states outweighs its \(stored) bytes in the file")
        }
        return LazyDFA.Prebuilt(stride: stride, classOf: classes.classOf, cells: cells, acceptOf: acceptOf, tagSets: tagSets)
    }
}
