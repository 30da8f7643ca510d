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
    /// damaged artifact can never make a search read out of bounds; and the shape compilation
    /// gives an NFA under `limits` (`checkCompiledShape`), so that a crafted artifact cannot
    /// load what `aasa compile` would have refused.
    static func decode(from reader: inout BinaryReader, limits: Configuration.Automata) throws(ArtifactError) -> NFA {
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
        // Checked before the states are read: the limit is the compiler's (`NFABuilder.add`).
        guard kindCount <= limits.maxNFAStates else {
            throw .overLimit(.nfaStates, found: kindCount, maximum: limits.maxNFAStates)
        }
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
        let nfa = NFA(
            transitionStart: transitionStart, transitions: transitions, epsilonStart: epsilonStart, epsilons: epsilons,
            kinds: kinds, start: start, variableStarts: variableStarts, variableNames: variableNames)
        try nfa.checkCompiledShape(maxVariablePositions: limits.maxVariablePositions)
        return nfa
    }

    /// Refuses what `NFACompiler` never produces and what the run-time bounds assume away.
    ///
    /// Index checks keep a search in bounds, not small: a crafted artifact with a valid checksum
    /// once made a 400 KB file cost gigabytes and tens of seconds on its first URL, by calling a large
    /// variable from hundreds of places (every call makes all of the variable's states live
    /// again in one DFA state) and by nesting calls. Compilation guarantees, and this checks in
    /// one pass over the states and edges:
    ///
    /// - each variable's sub-automaton (the states reachable from its entry) is its own: no two
    ///   variables, and not the main automaton, share a state, and none holds a `call` (values
    ///   cannot use variables, SPEC 9, so calls never nest) or a `match` (only patterns accept);
    /// - the main automaton (reachable from the start, stepping over calls to their `next`)
    ///   holds no `ret`: only a variable returns;
    /// - over every `call` state, the states of the called variable's sub-automaton add up to at
    ///   most `maxVariablePositions` (`variable-positions`). The compiler counts a variable's
    ///   whole block of states, which is at least what is reachable from its entry, so whatever
    ///   it accepted under a limit passes here under the same limit.
    func checkCompiledShape(maxVariablePositions: Int) throws(ArtifactError) {
        let unvisited: Int32 = -2
        let main: Int32 = -1
        // Per state: which part of the NFA it belongs to (a variable's number, or `main`).
        var owner = [Int32](repeating: unvisited, count: stateCount)
        var stack: [StateID] = []
        var sizes = [Int](repeating: 0, count: variableStarts.count)
        func visit(_ state: StateID, as part: Int32) throws(ArtifactError) {
            let current = owner[Int(state)]
            if current == unvisited {
                owner[Int(state)] = part
                stack.append(state)
            } else if current != part {
                throw .corrupt(
                    part == main || current == main
                        ? "a variable of an automaton shares states with its patterns" : "two variables of an automaton share states")
            }
        }
        func successors(of state: StateID, as part: Int32) throws(ArtifactError) {
            for transition in transitions(of: state) { try visit(transition.next, as: part) }
            for next in epsilons(of: state) { try visit(next, as: part) }
        }
        for (variable, entry) in variableStarts.enumerated() where entry >= 0 {
            let part = Int32(variable)
            try visit(entry, as: part)
            while let state = stack.popLast() {
                sizes[variable] += 1
                switch kinds[Int(state)] {
                case .call: throw .corrupt("a variable of an automaton calls a variable (calls never nest)")
                case .match: throw .corrupt("a variable of an automaton accepts a rule")
                case .plain, .ret: break
                }
                try successors(of: state, as: part)
            }
        }
        try visit(start, as: main)
        while let state = stack.popLast() {
            switch kinds[Int(state)] {
            case .ret: throw .corrupt("an automaton returns from outside any variable")
            case .call(_, let next): try visit(next, as: main)
            case .plain, .match: break
            }
            try successors(of: state, as: main)
        }
        var positions = 0
        for kind in kinds {
            guard case .call(let variable, _) = kind else { continue }
            positions += sizes[Int(variable)]
            if positions > maxVariablePositions {
                throw .overLimit(.variablePositions, found: positions, maximum: maxVariablePositions)
            }
        }
    }
}
