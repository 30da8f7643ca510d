extension NFA {
    func encode(into writer: inout BinaryWriter) {
        writer.write(transitionStart)
        writer.write(transitions.count)
        for transition in transitions {
            writer.write(transition.low)
            writer.write(transition.high)
            writer.write(transition.next)
        }
        writer.write(epsilonStart)
        writer.write(epsilons)
        writer.write(kinds.count)
        for kind in kinds {
            switch kind {
            case .plain: writer.write(UInt8(0))
            case .match(let tag):
                writer.write(UInt8(1))
                writer.write(tag)
            case .call(let variable, let next):
                writer.write(UInt8(2))
                writer.write(variable)
                writer.write(next)
            case .ret: writer.write(UInt8(3))
            }
        }
        writer.write(start)
        writer.write(variableStarts)
        writer.write(variableNames)
    }

    /// Decodes and validates: every state index in range, every row boundary monotonic, so a
    /// damaged artifact can never make a search read out of bounds.
    static func decode(from reader: inout BinaryReader) throws(ArtifactError) -> NFA {
        let transitionStart = try reader.int32s()
        let transitionCount = try reader.count(elementSize: 6)
        var transitions: [Transition] = []
        transitions.reserveCapacity(transitionCount)
        for _ in 0..<transitionCount {
            let low = try reader.uint8()
            let high = try reader.uint8()
            transitions.append(Transition(low: low, high: high, next: try reader.int32()))
        }
        let epsilonStart = try reader.int32s()
        let epsilons = try reader.int32s()
        let kindCount = try reader.count()
        var kinds: [Kind] = []
        kinds.reserveCapacity(kindCount)
        for _ in 0..<kindCount {
            switch try reader.uint8() {
            case 0: kinds.append(.plain)
            case 1: kinds.append(.match(tag: try reader.int32()))
            case 2:
                let variable = try reader.int32()
                kinds.append(.call(variable: variable, next: try reader.int32()))
            case 3: kinds.append(.ret)
            default: throw .corrupt("unknown NFA state kind")
            }
        }
        let start = try reader.int32()
        let variableStarts = try reader.int32s()
        let variableNames = try reader.strings()

        let states = kinds.count
        func state(_ id: Int32) -> Bool { id >= 0 && Int(id) < states }
        func rows(_ starts: [Int32], _ total: Int) -> Bool {
            starts.count == states + 1 && starts.first == 0 && starts.last.map { Int($0) == total } == true
                && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 }
        }
        guard states > 0, state(start), rows(transitionStart, transitions.count), rows(epsilonStart, epsilons.count),
            transitions.allSatisfy({ $0.low <= $0.high && state($0.next) }), epsilons.allSatisfy(state),
            variableStarts.count == variableNames.count, variableStarts.allSatisfy({ $0 == -1 || state($0) })
        else { throw .corrupt("an automaton's states are inconsistent") }
        for kind in kinds {
            if case .call(let variable, let next) = kind,
                variable < 0 || Int(variable) >= variableStarts.count || !state(next)
            {
                throw .corrupt("an automaton calls a variable that does not exist")
            }
            if case .match(let tag) = kind, tag < 0 { throw .corrupt("a negative rule number") }
        }
        return NFA(
            transitionStart: transitionStart, transitions: transitions, epsilonStart: epsilonStart, epsilons: epsilons,
            kinds: kinds, start: start, variableStarts: variableStarts, variableNames: variableNames)
    }
}
