extension DenseDFA {
    /// The minimal DFA accepting the same tag sets (Moore's partition refinement).
    ///
    /// States start grouped by their accepted tags and are split until every state of a group
    /// goes, class by class, to the same groups. Canonical numbering is kept: groups are
    /// renumbered in order of their first state, so the dead state stays 0 and the start 1.
    public func minimized() -> DenseDFA {
        var spent = 0
        return minimized(maxWork: .max, spent: &spent) ?? self
    }

    /// As `minimized()`, or nil once refining would pass `maxWork` cells (each round reads
    /// every state's row): a round can split off one state only, so a chain of states (a long
    /// literal pattern) takes a round per state, and 50 000 of them took minutes. `spent`
    /// tells the cells read, finished or not.
    func minimized(maxWork: Int, spent: inout Int) -> DenseDFA? {
        spent = 0
        let stride = classes.count
        var group = [Int](repeating: 0, count: stateCount)
        var signatureIndex: [[Int32]: Int] = [:]
        for state in 0..<stateCount {
            let key = accepts[state]
            if let known = signatureIndex[key] {
                group[state] = known
            } else {
                group[state] = signatureIndex.count
                signatureIndex[key] = signatureIndex.count
            }
        }
        var groupCount = signatureIndex.count
        while true {
            guard spent <= maxWork - stateCount * (stride + 1) else { return nil }
            spent += stateCount * (stride + 1)
            var refined = [[Int]: Int]()
            var newGroup = [Int](repeating: 0, count: stateCount)
            for state in 0..<stateCount {
                var signature = [group[state]]
                signature.reserveCapacity(stride + 1)
                for cls in 0..<stride { signature.append(group[Int(transitions[state * stride + cls])]) }
                if let known = refined[signature] {
                    newGroup[state] = known
                } else {
                    newGroup[state] = refined.count
                    refined[signature] = refined.count
                }
            }
            group = newGroup
            if refined.count == groupCount { break }
            groupCount = refined.count
        }
        // Renumber: dead (state 0) first, then in order of first appearance.
        var renumber = [Int](repeating: -1, count: groupCount)
        var order: [Int] = []
        for state in 0..<stateCount where renumber[group[state]] < 0 {
            renumber[group[state]] = order.count
            order.append(state)
        }
        var newTransitions = [Int32](repeating: 0, count: order.count * stride)
        var newAccepts: [[Int32]] = []
        for (newState, state) in order.enumerated() {
            for cls in 0..<stride {
                newTransitions[newState * stride + cls] = Int32(renumber[group[Int(transitions[state * stride + cls])]])
            }
            newAccepts.append(accepts[state])
        }
        return DenseDFA(classes: classes, transitions: newTransitions, accepts: newAccepts, heaviestStep: heaviestStep)
    }
}
