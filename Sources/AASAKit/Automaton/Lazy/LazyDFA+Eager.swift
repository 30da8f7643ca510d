extension LazyDFA.Cache {
    /// Builds every state reachable from the start, row by row, with the lazy construction
    /// itself (so the states are exactly the ones searches would build). Returns false, leaving
    /// a partial cache, past `maxStates`, past `maxWork` NFA positions read (a few states of
    /// huge subsets cost as much as many small ones), or when the cache had to be cleared.
    func determinizeAll(maxStates: Int, maxWork: Int) -> Bool {
        let startState = start()
        let clears = clearCount
        var row = table.row(of: startState)
        var classSeeds = ClassSeeds(stride: table.stride)
        var work = 0
        while row < table.stateCount {
            work += Int(spans[row].count) + 1
            if work > maxWork { return false }
            computeRow(Int32(row * table.rowWidth), &classSeeds)
            if clearCount != clears || table.stateCount > maxStates { return false }
            row += 1
        }
        return true
    }

    /// Reused buffers for `computeRow`.
    struct ClassSeeds {
        /// `(class, seed)` pairs of one row, then the seeds bucketed by class.
        var pairs: [(cls: Int32, seed: UInt64)] = []
        var start: [Int]
        var fill: [Int]
        var sorted: [UInt64] = []
        /// The distinct seed lists of the row so far: their hash, range in `sorted`, target.
        var distinct: [(hash: UInt64, start: Int, end: Int, target: Int32)] = []

        init(stride: Int) {
            start = Array(repeating: 0, count: stride + 1)
            fill = Array(repeating: 0, count: stride)
        }
    }

    /// Computes every transition of `state` at once. Reading each NFA position once per row
    /// (its byte ranges cover runs of classes) instead of once per class, and closing each
    /// distinct seed list once (most classes of a row lead to the same state: the dead one, or
    /// the loop of a `*` already passed), makes a row cost a few closures instead of one per
    /// class.
    private func computeRow(_ state: Int32, _ work: inout ClassSeeds) {
        let stride = table.stride
        work.pairs.removeAll(keepingCapacity: true)
        let span = spans[table.row(of: state)]
        let classOf = dfa.classes.classOf
        let nfa = dfa.nfa
        positionArena.withUnsafeBufferPointer { arena in
            nfa.transitionStart.withUnsafeBufferPointer { starts in
                nfa.transitions.withUnsafeBufferPointer { transitions in
                    for position in arena[Int(span.start)..<Int(span.start + span.count)] {
                        let nfaState = Int(truncatingIfNeeded: position & 0xFFFF_FFFF)
                        let high = position & 0xFFFF_FFFF_0000_0000
                        for index in Int(starts[nfaState])..<Int(starts[nfaState + 1]) {
                            let transition = transitions[index]
                            let seed = UInt64(UInt32(bitPattern: transition.next)) | high
                            for cls in Int(classOf[Int(transition.low)])...Int(classOf[Int(transition.high)]) {
                                work.pairs.append((Int32(cls), seed))
                            }
                        }
                    }
                }
            }
        }
        // Counting sort of the seeds by class, keeping each class's seeds in position order.
        for cls in 0...stride { work.start[cls] = 0 }
        for pair in work.pairs { work.start[Int(pair.cls) + 1] += 1 }
        for cls in 0..<stride {
            work.start[cls + 1] += work.start[cls]
            work.fill[cls] = work.start[cls]
        }
        if work.sorted.count < work.pairs.count { work.sorted = Array(repeating: 0, count: work.pairs.count * 2) }
        for pair in work.pairs {
            work.sorted[work.fill[Int(pair.cls)]] = pair.seed
            work.fill[Int(pair.cls)] += 1
        }
        work.distinct.removeAll(keepingCapacity: true)
        var source = state
        for cls in 0..<stride where table.get(source, class: cls) == TransitionTable.unknown {
            let (low, high) = (work.start[cls], work.start[cls + 1])
            if low == high {
                table.set(source, class: cls, to: TransitionTable.dead)
                continue
            }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for index in low..<high { hash = (hash ^ work.sorted[index]) &* 0x100_0000_01B3 }
            var known: Int32?
            for entry in work.distinct where entry.hash == hash && entry.end - entry.start == high - low {
                if (0..<(high - low)).allSatisfy({ work.sorted[entry.start + $0] == work.sorted[low + $0] }) {
                    known = entry.target
                    break
                }
            }
            if let known {
                table.set(source, class: cls, to: known)
                continue
            }
            scratch.seeds.removeAll()
            for index in low..<high { scratch.seeds.append(work.sorted[index]) }
            determinizer.closeSeeds(scratch: scratch)
            let next: Int32
            if scratch.positions.isEmpty && scratch.tags.isEmpty {
                next = TransitionTable.dead
            } else {
                let (interned, from) = intern(from: source)
                // A clear renumbers every state: the caller stops (`determinizeAll`).
                guard let from, from == source else { return }
                source = from
                next = interned
            }
            work.distinct.append((hash, low, high, next))
            table.set(source, class: cls, to: next)
        }
    }
}

extension LazyDFA.Prebuilt {
    /// The whole DFA of `nfa`, determinised now, in the compact form (`Compact`), when it has
    /// at most `maxStates` states and its dense rows would take more than `minimumBytes`.
    ///
    /// Why at compile time: a lazy DFA pays for every state the first URL to reach it builds
    /// (about a microsecond each), and a large document has more states than a day's URLs may
    /// visit, each thread building its own. Built once, shared by every thread, the table makes
    /// an unseen URL cost what a repeated one does. `maxStates` bounds the work: a document
    /// whose DFA blows up is left lazy after building that many states.
    ///
    /// Why not for small automata: their cache is warm after a few URLs and holds just the
    /// states URLs visit, packed together in visiting order, which walks faster than a whole
    /// table in canonical order (peers suite, 10 and 100 rules: 5% to 14% slower with a whole
    /// minimised table, same instruction count).
    convenience init?(eager nfa: NFA, configuration: LazyDFA.Configuration, maxStates: Int, minimumBytes: Int) {
        var lazyConfiguration = configuration
        lazyConfiguration.eagerMaxStates = 0
        guard maxStates >= 2, let dfa = try? LazyDFA(nfa: nfa, configuration: lazyConfiguration) else { return nil }
        let cache = dfa.makeCache()
        // Eight positions a state on average: a linear DFA (trie nodes and a few `*` loops)
        // uses about five; a blow-up's subsets hold hundreds and stop here early.
        guard cache.determinizeAll(maxStates: maxStates, maxWork: 8 * maxStates) else { return nil }
        let table = cache.table
        let stride = table.stride
        let rows = table.stateCount
        guard rows * stride * 4 > minimumBytes else { return nil }
        // Rows as the cache numbered them: 0 dead, then the start (built first).
        let startRow = table.row(of: cache.start())
        guard startRow == 1 else { return nil }
        var targets = [Int32](repeating: 0, count: rows * stride)
        var acceptOf = [Int32](repeating: 0, count: rows)
        for row in 0..<rows {
            let id = Int32(row * table.rowWidth)
            for cls in 0..<stride {
                let next = table.get(id, class: cls)
                targets[row * stride + cls] = next <= 0 ? 0 : Int32(table.row(of: next))
            }
            acceptOf[row] = table.tagSet(of: id)
        }
        let classOf = dfa.classes.classOf
        guard let compact = Compact(targets: targets, acceptOf: acceptOf, stride: stride, classOf: classOf) else {
            return nil
        }
        self.init(stride: stride, classOf: classOf, compact: compact, stateCount: rows, tagSets: cache.tagSets)
    }

    /// A whole DFA in little memory. Two observations make most rows small:
    ///
    /// - on ASCII bytes, a state sends all but a few classes to one target (a trie node: its
    ///   other bytes lead to the dead state, or to the loop of a `*` already passed), so its
    ///   ASCII part is stored as that default and its exceptions;
    /// - on bytes from 0x80 (UTF-8 lead and continuation bytes), the targets depend only on
    ///   which `*` and `?` the state is inside, which many states share, so the high part of
    ///   every row is one of a few shared rows.
    ///
    /// States are laid out depth-first from the start, so the states a URL walks through one
    /// after the other, along one pattern's literal, sit side by side in memory.
    ///
    /// Why: dense rows of 37 classes are 150 bytes a state; at 10 000 path rules (138 107
    /// states) that is 20 MB, and nearly every step of a walk is a cache miss.
    struct Compact: Sendable {
        /// Records, at state offsets: `count << 24 | default target` (count: the exceptions, or
        /// `dense`); the offset of the state's high row in `high`; the accept index; then the
        /// exceptions (`class << 24 | target`), or a dense row over the ASCII classes. Offset 0
        /// is the dead state.
        let code: [UInt32]
        /// Shared rows over the classes from `firstHigh` on (targets are record offsets).
        let high: [UInt32]
        let firstHigh: Int
        let start: Int
        static let dense: UInt32 = 0xFF
        /// Sparse records hold at most this many exceptions.
        static let maxExceptions = 4
        /// Dense rows kept for the states nearest the start (half of a core's L2 here).
        static let hotBytes = 512 << 10

        init?(targets: [Int32], acceptOf: [Int32], stride: Int, classOf: [UInt8]) {
            let rows = acceptOf.count
            // Classes of bytes from 0x80 on, when 0x80 starts a class (it does whenever a `*`
            // or `?` reads UTF-8); otherwise every class is handled in the record.
            let firstHigh = classOf[0x7F] != classOf[0x80] ? Int(classOf[0x80]) : stride
            let lowCount = firstHigh
            // Depth-first order from the start (row 1); the dead state (row 0) first.
            var order = [0]
            var seen = [Bool](repeating: false, count: rows)
            seen[0] = true
            var stack = [1]
            while let row = stack.popLast() {
                if seen[row] { continue }
                seen[row] = true
                order.append(row)
                // Pushed in reverse class order, so the lowest class is visited first.
                for cls in (0..<stride).reversed() {
                    let next = Int(targets[row * stride + cls])
                    if !seen[next] { stack.append(next) }
                }
            }
            // The states nearest the start, breadth first, keep dense rows up to `hotBytes`:
            // every URL walks them (the first bytes of a path, and most real URLs die there),
            // and a dense step costs a quarter of a sparse one.
            var hot = [Bool](repeating: false, count: rows)
            var queue = [1]
            var queued = [Bool](repeating: false, count: rows)
            queued[0] = true
            queued[1] = true
            var hotBudget = Self.hotBytes / (4 * (3 + lowCount))
            var head = 0
            while head < queue.count, hotBudget > 0 {
                let row = queue[head]
                head += 1
                hot[row] = true
                hotBudget -= 1
                for cls in 0..<stride {
                    let next = Int(targets[row * stride + cls])
                    if !queued[next] {
                        queued[next] = true
                        queue.append(next)
                    }
                }
            }
            // Per row: default target of the ASCII part (or dense), and its high row.
            var defaults = [Int32](repeating: 0, count: rows)
            var sparse = [Bool](repeating: false, count: rows)
            var offsets = [Int](repeating: 0, count: rows)
            var highOf = [Int](repeating: 0, count: rows)
            var highRows: [[Int32]: Int] = [:]
            var highTargets: [Int32] = []
            var size = 0
            var lowRow = [Int32](repeating: 0, count: lowCount)
            for row in order {
                // The most frequent target of the ASCII part: the longest run once sorted.
                for cls in 0..<lowCount { lowRow[cls] = targets[row * stride + cls] }
                lowRow.sort()
                var best: Int32 = 0
                var bestCount = 0
                var run = 0
                for index in 0..<lowCount {
                    run = index > 0 && lowRow[index] == lowRow[index - 1] ? run + 1 : 1
                    if run > bestCount {
                        best = lowRow[index]
                        bestCount = run
                    }
                }
                defaults[row] = best
                sparse[row] = !hot[row] && lowCount - bestCount <= Self.maxExceptions
                offsets[row] = size
                size += 3 + (sparse[row] ? lowCount - bestCount : lowCount)
                let highRow = Array(targets[(row * stride + firstHigh)..<(row * stride + stride)])
                if let known = highRows[highRow] {
                    highOf[row] = known
                } else {
                    highOf[row] = highTargets.count
                    highRows[highRow] = highTargets.count
                    highTargets += highRow
                }
            }
            // Targets are packed in 24 bits.
            guard size < 1 << 24 else { return nil }
            var code = [UInt32](repeating: 0, count: size)
            for row in order {
                let base = offsets[row]
                code[base + 1] = UInt32(highOf[row])
                code[base + 2] = UInt32(bitPattern: acceptOf[row])
                if sparse[row] {
                    let fallback = defaults[row]
                    var count: UInt32 = 0
                    for cls in 0..<lowCount where targets[row * stride + cls] != fallback {
                        code[base + 3 + Int(count)] = UInt32(cls) << 24 | UInt32(offsets[Int(targets[row * stride + cls])])
                        count += 1
                    }
                    code[base] = count << 24 | UInt32(offsets[Int(fallback)])
                } else {
                    code[base] = Self.dense << 24
                    for cls in 0..<lowCount { code[base + 3 + cls] = UInt32(offsets[Int(targets[row * stride + cls])]) }
                }
            }
            self.code = code
            self.high = highTargets.map { UInt32(offsets[Int($0)]) }
            self.firstHigh = firstHigh
            self.start = offsets[1]
        }

        /// The accept index of the state `text` leads to, or -1 when the walk dies.
        @inline(__always)
        func acceptIndex(_ text: UnsafeBufferPointer<UInt8>, classOf: UnsafeBufferPointer<UInt8>) -> Int32 {
            let firstHigh = self.firstHigh
            return code.withUnsafeBufferPointer { code in
                high.withUnsafeBufferPointer { high in
                    var state = start
                    for byte in text {
                        // SAFETY: construction writes every record whole, every target as the
                        // offset of a record and every high index as the start of a high row;
                        // `classOf` has 256 entries below the stride, and a byte below 0x80
                        // has a class below `firstHigh` (0x80 starts the first high class).
                        let cls = Int(classOf[Int(byte)])
                        if cls >= firstHigh {
                            state = Int(high[Int(code[state &+ 1]) &+ cls &- firstHigh])
                        } else {
                            let head = code[state]
                            let count = head >> 24
                            let wanted = UInt32(cls)
                            if count == 1 {
                                // The usual trie node: one byte leads on, the rest to the default.
                                let exception = code[state &+ 3]
                                state = Int(exception >> 24 == wanted ? exception & 0xFF_FFFF : head & 0xFF_FFFF)
                            } else if count == Self.dense {
                                state = Int(code[state &+ 3 &+ cls])
                            } else {
                                var next = head & 0xFF_FFFF
                                var index = 0
                                while index < Int(count) {
                                    let exception = code[state &+ 3 &+ index]
                                    if exception >> 24 == wanted {
                                        next = exception & 0xFF_FFFF
                                        break
                                    }
                                    index &+= 1
                                }
                                state = Int(next)
                            }
                        }
                        if state == 0 { return -1 }
                    }
                    return Int32(bitPattern: code[state &+ 2])
                }
            }
        }

        var memoryUsage: Int { (code.count + high.count) * 4 }
    }
}
