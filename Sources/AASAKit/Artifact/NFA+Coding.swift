extension NFA {
    /// Layout (format 5; in format 6 the automaton gives its length first; format 9 adds the
    /// variable positions): the state count, the variable positions (`variablePositions`) and
    /// the start, then state by state a header byte (kind in bits 0-1, transition and epsilon
    /// counts up to 6 in bits 2-4 and 5-7, 7 meaning "7 plus a varint"), the kind's operands,
    /// each transition as its low byte and a varint of the zigzag step to its target shifted
    /// left once, the low bit telling whether a high byte follows (a range, not one byte), and
    /// each epsilon as a zigzag step; then the variables' entries (zigzag, -1 for none) and
    /// names. Why steps: the compiler numbers states in the order it builds them, so most edges
    /// go a few states forward and take a byte.
    func encode(into writer: inout BinaryWriter) {
        writer.varint(stateCount)
        writer.varint(variablePositions)
        writer.varint(Int(start))
        for state in 0..<stateCount {
            let id = StateID(state)
            let moves = transitions(of: id)
            let jumps = epsilons(of: id)
            let kind: Int
            switch kinds[state] {
            case .plain: kind = 0
            case .match: kind = 1
            case .call: kind = 2
            case .ret: kind = 3
            }
            writer.write(UInt8(kind | min(moves.count, 7) << 2 | min(jumps.count, 7) << 5))
            if moves.count >= 7 { writer.varint(moves.count - 7) }
            if jumps.count >= 7 { writer.varint(jumps.count - 7) }
            switch kinds[state] {
            case .match(let tag): writer.varint(Int(tag))
            case .call(let variable, let next):
                writer.varint(Int(variable))
                writer.signed(Int(next) - state)
            case .plain, .ret: break
            }
            for move in moves {
                writer.write(move.low)
                let step = Int64(Int(move.next) - state)
                let zigzag = UInt64(bitPattern: (step << 1) ^ (step >> 63))
                writer.varint(zigzag << 1 | (move.low == move.high ? 0 : 1))
                if move.low != move.high { writer.write(move.high) }
            }
            for next in jumps { writer.signed(Int(next) - state) }
        }
        writer.varint(variableStarts.count)
        for entry in variableStarts { writer.signed(Int(entry)) }
        writer.texts(variableNames)
    }

    /// Decodes and validates: every state index in range, so a damaged artifact can never make
    /// a search read out of bounds; and the shape compilation gives an NFA under `limits`
    /// (`checkCompiledShape`), so that a crafted artifact cannot load what `aasa compile` would
    /// have refused.
    static func decode(from reader: inout BinaryReader, limits: Configuration.Automata) throws(ArtifactError) -> NFA {
        // A state takes at least its header byte.
        let states = try reader.length(elementSize: 1)
        // Checked before the states are read: the limit is the compiler's (`NFABuilder.add`).
        guard states <= limits.maxNFAStates else {
            throw .overLimit(.nfaStates, found: states, maximum: limits.maxNFAStates)
        }
        let positions = try reader.natural()
        guard positions <= limits.maxVariablePositions else {
            throw .overLimit(.variablePositions, found: positions, maximum: limits.maxVariablePositions)
        }
        let start = try reader.natural()
        guard states > 0, start < states else { throw .corrupt("an automaton's states are inconsistent") }
        func target(_ state: Int, _ step: Int) throws(ArtifactError) -> Int32 {
            let next = state + step
            guard next >= 0, next < states else { throw .corrupt("an automaton's states are inconsistent") }
            return Int32(next)
        }
        var transitionStart: [Int32] = []
        var transitions: [Transition] = []
        var epsilonStart: [Int32] = []
        var epsilons: [StateID] = []
        var kinds: [Kind] = []
        transitionStart.reserveCapacity(states + 1)
        epsilonStart.reserveCapacity(states + 1)
        kinds.reserveCapacity(states)
        transitions.reserveCapacity(states)
        epsilons.reserveCapacity(states)
        var variables = 0
        for state in 0..<states {
            transitionStart.append(Int32(transitions.count))
            epsilonStart.append(Int32(epsilons.count))
            let header = Int(try reader.uint8())
            var moveCount = header >> 2 & 7
            var jumpCount = header >> 5
            if moveCount == 7 { moveCount += try reader.length(elementSize: 2) }
            if jumpCount == 7 { jumpCount += try reader.length(elementSize: 1) }
            switch header & 3 {
            case 0: kinds.append(.plain)
            case 1: kinds.append(.match(tag: Int32(try reader.natural())))
            case 2:
                let variable = try reader.natural()
                variables = max(variables, variable + 1)
                kinds.append(.call(variable: Int32(variable), next: try target(state, try reader.signed())))
            default: kinds.append(.ret)
            }
            for _ in 0..<moveCount {
                let low = try reader.uint8()
                let code = try reader.varint()
                let zigzag = code >> 1
                let step = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
                guard step >= Int64(-states), step <= Int64(states) else { throw .corrupt("an automaton's states are inconsistent") }
                let high = code & 1 == 1 ? try reader.uint8() : low
                guard low <= high else { throw .corrupt("an automaton's states are inconsistent") }
                transitions.append(Transition(low: low, high: high, next: try target(state, Int(step))))
            }
            for _ in 0..<jumpCount { epsilons.append(try target(state, try reader.signed())) }
        }
        transitionStart.append(Int32(transitions.count))
        epsilonStart.append(Int32(epsilons.count))
        let variableCount = try reader.length(elementSize: 1)
        var variableStarts: [StateID] = []
        variableStarts.reserveCapacity(variableCount)
        for _ in 0..<variableCount {
            let entry = try reader.signed()
            guard entry >= -1, entry < states else { throw .corrupt("an automaton's states are inconsistent") }
            variableStarts.append(Int32(entry))
        }
        let variableNames = try reader.texts()
        guard variableNames.count == variableCount else { throw .corrupt("an automaton's states are inconsistent") }
        guard variables <= variableCount else { throw .corrupt("an automaton calls a variable that does not exist") }
        let nfa = NFA(
            transitionStart: transitionStart, transitions: transitions, epsilonStart: epsilonStart, epsilons: epsilons,
            kinds: kinds, start: Int32(start), variableStarts: variableStarts, variableNames: variableNames)
        // The count declared is the one a table-backed automaton is held to without this
        // decoding (`CompiledDocument.deferredNFA`): it must be the count of these states.
        guard try nfa.checkCompiledShape() == positions else { throw .corrupt("an automaton's variable positions are not the count stored") }
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
    ///
    /// Returns the variable positions: over every `call` state, the states of the called
    /// variable's sub-automaton added up, which `variable-positions` bounds. The compiler counts
    /// a variable's whole block of states, which is at least what is reachable from its entry,
    /// so whatever it accepted under a limit passes under the same limit.
    func checkCompiledShape() throws(ArtifactError) -> Int {
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
        }
        return positions
    }

    /// The variable positions an artifact declares for this NFA (`checkCompiledShape`); 0 for
    /// a shape compilation never gives, which the check on decoding then refuses as corrupt.
    var variablePositions: Int { (try? checkCompiledShape()) ?? 0 }
}
