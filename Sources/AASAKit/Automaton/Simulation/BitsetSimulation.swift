/// `NFASimulation`'s steps for a small automaton without variables: a subset is a bitset over
/// the NFA's states, and what each state reaches on each byte class (its targets' epsilon
/// closures) is listed once, so a step sets bits where the general form scans transitions and
/// pushes, pops and stamps each position it visits.
///
/// It computes exactly the subsets, visits and charges of the general form (a closure's visits
/// are the states it reaches, here the bits set), so a search reads the same text to the same
/// end either way; `NFASimulation` leaves it the text but its last byte, whose tags it reads
/// the general way.
///
/// What it will not do: automata that call variables (their positions carry a continuation,
/// and a closure depends on it), or over `maxStates` states, or whose lists would take more than
/// `maxCells` entries (states times classes, or states listed). Those keep the general form.
// PERF: the general form scanned every position's transitions and pushed, popped and stamped
// every position it visited, at every byte: `aasa-bench --suite hostile` (full), `star-chains`
// (`*a` and 200 `?` in six automata, 60 KB random `a`/`b` paths) 360 → 92 ms a URL,
// `new-subsets` (`/*a` and 20 `?`) 11.6 → 3.9 ms, the same states built and searches simulated
// (`Benchmarks/Records/2026-12-07-bitset-simulation.md`).
struct BitsetSimulation {
    static let maxStates = 8_192
    static let maxCells = 1 << 18

    let words: Int
    let classOf: [UInt8]
    let classCount: Int
    /// Per (state, class), at `state * classCount + class`: the states its transitions on the
    /// class reach, epsilon closures included, as a range of `reached`.
    let stepStart: [Int32]
    let reached: [Int32]
    /// States with a byte transition: the ones a subset keeps after its closure.
    let reading: [UInt64]

    /// Nil when `nfa` calls a variable or is too large (see the type's comment).
    init?(nfa: NFA) {
        let count = nfa.stateCount
        guard count > 0, count <= Self.maxStates else { return nil }
        for kind in nfa.kinds {
            switch kind {
            case .call, .ret: return nil
            case .plain, .match: break
            }
        }
        let classes = nfa.byteClasses()
        guard count * classes.count <= Self.maxCells else { return nil }
        words = (count + 63) / 64
        classOf = classes.classOf
        classCount = classes.count
        var reading = [UInt64](repeating: 0, count: words)
        for state in 0..<count where nfa.transitionStart[state + 1] > nfa.transitionStart[state] {
            reading[state >> 6] |= 1 << UInt64(state & 63)
        }
        self.reading = reading
        // Each state's epsilon closure, itself first.
        var closureStart = [Int](repeating: 0, count: count + 1)
        var closure: [Int32] = []
        var mark = [Int](repeating: -1, count: count)
        var stack: [Int] = []
        for state in 0..<count {
            mark[state] = state
            stack.append(state)
            while let next = stack.popLast() {
                closure.append(Int32(next))
                guard closure.count <= Self.maxCells else { return nil }
                for index in Int(nfa.epsilonStart[next])..<Int(nfa.epsilonStart[next + 1]) {
                    let target = Int(nfa.epsilons[index])
                    if mark[target] != state {
                        mark[target] = state
                        stack.append(target)
                    }
                }
            }
            closureStart[state + 1] = closure.count
        }
        // A byte of each class stands for it: no transition tells the bytes of a class apart.
        var sample = [UInt8](repeating: 0, count: classes.count)
        for byte in (0...255).reversed() { sample[Int(classes.classOf[byte])] = UInt8(byte) }
        var stepStart = [Int32](repeating: 0, count: count * classes.count + 1)
        var reached: [Int32] = []
        for index in mark.indices { mark[index] = -1 }
        for state in 0..<count {
            for byteClass in 0..<classes.count {
                let cell = state * classes.count + byteClass
                let byte = sample[byteClass]
                for edge in Int(nfa.transitionStart[state])..<Int(nfa.transitionStart[state + 1]) {
                    let transition = nfa.transitions[edge]
                    guard transition.low <= byte && byte <= transition.high else { continue }
                    for entry in closureStart[Int(transition.next)]..<closureStart[Int(transition.next) + 1] {
                        let target = Int(closure[entry])
                        if mark[target] != cell {
                            mark[target] = cell
                            reached.append(Int32(target))
                        }
                    }
                }
                guard reached.count <= Self.maxCells else { return nil }
                stepStart[cell + 1] = Int32(reached.count)
            }
        }
        self.stepStart = stepStart
        self.reached = reached
    }

    /// The bytes its tables hold.
    var heldBytes: Int { (stepStart.count + reached.count) * 4 + reading.count * 8 + classOf.count }

    /// Steps `current` (a bitset of `words` words, the subset's reading states) through `text`,
    /// as `NFASimulation.run` would through every byte but the search's last: `.read` leaves
    /// the subset in `current`; `.dead` when it empties; `.overBudget` as the general form.
    func run(_ current: inout [UInt64], text: ByteView, meter: WorkMeter) -> NFASimulation.End {
        var visited = [UInt64](repeating: 0, count: words)
        let cap = meter.limit
        return stepStart.withView { stepStart in
            reached.withView { reached in
                for index in 0..<text.count {
                    let byteClass = Int(classOf[Int(text[index])])
                    for word in 0..<words { visited[word] = 0 }
                    for word in 0..<words {
                        var bits = current[word]
                        while bits != 0 {
                            // Bits are set only for this NFA's states, so the cell and the
                            // one after it index `stepStart`.
                            let cell = (word << 6 | bits.trailingZeroBitCount) &* classCount &+ byteClass
                            bits &= bits &- 1
                            for entry in Int(stepStart[cell])..<Int(stepStart[cell &+ 1]) {
                                let state = Int(reached[entry])
                                visited[state >> 6] |= 1 << UInt64(state & 63)
                            }
                        }
                    }
                    var visits = 0
                    var alive: UInt64 = 0
                    for word in 0..<words {
                        visits &+= visited[word].nonzeroBitCount
                        current[word] = visited[word] & reading[word]
                        alive |= current[word]
                    }
                    if visits > cap {
                        meter.exhaust()
                        return .overBudget
                    }
                    if visits >= LazyDFA.heavyWeight, !meter.charge(visits) { return .overBudget }
                    if alive == 0 { return .dead }
                }
                return .read
            }
        }
    }
}
