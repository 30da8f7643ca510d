extension LazyDFA.Prebuilt {
    /// Layout: stride, 256 class bytes, state count, the cells (state count × stride raw words),
    /// the accept index per state (raw words), then the tag sets.
    func encode(into writer: inout BinaryWriter) {
        writer.write(stride)
        for cls in classOf { writer.write(cls) }
        writer.write(stateCount)
        writer.writeBlock(cells)
        writer.writeBlock(acceptOf)
        writer.write(tagSets.count)
        for tags in tagSets { writer.write(tags.sorted) }
    }

    /// Decodes and validates every cell, class and tag, so that the unchecked walk of `search`
    /// can never leave the table, whatever the file holds. The table must also be one
    /// `Prebuilt(nfa:budget:)` could have built for `nfa` under `budget` (what `aasa compile`
    /// uses): `nfa`'s byte classes, and no more states or bytes than the budget allows.
    static func decode(from reader: inout BinaryReader, nfa: NFA, tagLimit: Int, budget: Budget = Budget())
        throws(ArtifactError) -> LazyDFA.Prebuilt
    {
        let stride = try reader.int()
        guard stride >= 1, stride <= 256 else { throw .corrupt("a DFA table has \(stride) byte classes") }
        let classOf = Array(try reader.bytes(256))
        // Also what keeps every class below `stride`: the NFA's classes number `count`.
        let classes = nfa.byteClasses()
        guard stride == classes.count, classOf == classes.classOf else {
            throw .corrupt("a DFA table's byte classes are not its automaton's")
        }
        let stateCount = try reader.count(elementSize: 4 * (stride + 1))
        guard stateCount >= 2 else { throw .corrupt("a DFA table has no start state") }
        guard stateCount <= min(budget.maxStates, budget.maxTableBytes / (4 * stride)) else {
            throw .corrupt("a DFA table has \(stateCount) states, more than compilation stores")
        }
        let cells = try reader.int32Block(stateCount * stride)
        let limit = Int32(stateCount * stride)
        guard cells.allSatisfy({ $0 >= 0 && $0 < limit && Int($0) % stride == 0 }) else {
            throw .corrupt("a DFA transition leads to no state")
        }
        guard cells[0..<stride].allSatisfy({ $0 == 0 }) else { throw .corrupt("the dead state of a DFA table is not dead") }
        let acceptOf = try reader.int32Block(stateCount)
        let tagSetCount = try reader.count(elementSize: 8)
        // Compilation keeps the distinct accept sets of the states: never more sets than states.
        // Matchers build a row per tag set (`CompiledDocument.pathDecisions`), so this matters.
        guard tagSetCount <= stateCount else { throw .corrupt("a DFA table has more accept sets than states") }
        var tagSets: [TagSet] = []
        tagSets.reserveCapacity(tagSetCount)
        for _ in 0..<tagSetCount {
            let tags = try reader.int32s()
            guard tags.allSatisfy({ $0 >= 0 && Int($0) < tagLimit }), zip(tags, tags.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw .corrupt("a DFA state accepts an unknown or unsorted rule")
            }
            tagSets.append(TagSet(sorted: tags))
        }
        guard acceptOf.allSatisfy({ $0 >= 0 && Int($0) < tagSets.count }) else { throw .corrupt("a DFA state's accept set is missing") }
        return LazyDFA.Prebuilt(stride: stride, classOf: classOf, cells: cells, acceptOf: acceptOf, tagSets: tagSets)
    }
}
