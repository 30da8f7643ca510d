extension LazyDFA.Prebuilt {
    /// A whole DFA in little memory, laid out so that a walk through it is mostly predicted.
    ///
    /// Three observations shape it:
    ///
    /// - on ASCII bytes, a state sends all but a few classes to one target (a trie node: its
    ///   other bytes lead to the dead state, or to the loop of a `*` already passed), so its
    ///   ASCII part is stored as that default and its exceptions;
    /// - on bytes from 0x80 (UTF-8 lead and continuation bytes), the targets depend only on
    ///   which `*` and `?` the state is inside, which many states share, so the high part of
    ///   every row is one of a few shared rows;
    /// - a walk is a chain of dependent loads: each step's address comes from the previous
    ///   step's load, so a step costs a load's latency however few instructions it has (and a
    ///   cache miss's in a large table). Two kinds of step need no loaded address, and are
    ///   flagged so that the walk takes them on a predicted branch, the processor running ahead
    ///   into the next records while it checks: a *chain* state, whose first exception leads to
    ///   the record laid out right after it (the walk along one pattern's literal), and a
    ///   *self* state, whose default is itself (the loop of a trailing `*`).
    ///
    /// States are laid out depth-first from the start, each state's first exception target
    /// right after it, so a literal is a run of adjacent records.
    ///
    /// Why: dense rows of 37 classes are 150 bytes a state; at 10 000 path rules (138 107
    /// states) that is 20 MB, and nearly every step of a walk is a cache miss.
    ///
    /// PERF: paired A/B in one process, the piece switched off at compile time, off ÷ on, median
    /// over rounds (`AASA_AB_HARNESS=1 .build/release/aasa-bench`, the temporary harness of the
    /// speed-work A/B record listed in `Benchmarks/Records/INDEX.md`): with the automaton left lazy
    /// instead, 1.44× repeated and 2.36× unseen URLs at the match suite's 1 000 path rules, 2.97×
    /// and 7.28× at 128 KB of them (`paths-128k`); no real or fleet document gets a compact table.
    struct Compact: Sendable {
        /// Records, at state offsets: a header of three words (`Header`: `flags << 24 | default
        /// target`, the offset of the state's high row, its accept index); then the payload: the exceptions
        /// (`class << 24 | target`), a dense row over the ASCII classes, or a run
        /// (`length << 24 | target`, then the run's classes, four to a word). Offset 0 is the
        /// dead state.
        let code: [UInt32]
        /// Shared rows over the classes from `firstHigh` on (targets are record offsets).
        let high: [UInt32]
        let firstHigh: Int
        let start: Int
        /// Bytes from this value on have a class from `firstHigh` on (0x80, or 0x100 when no
        /// class starts at 0x80).
        let highByte: Int
        /// Runs in the table (for tests and statistics).
        let runCount: Int

        /// Flags (the record's top byte): the exception count in the low bits, or one of
        /// `dense` and `run`; `selfLoop` and `chain` mark the predicted steps.
        static let countMask: UInt32 = 0x07
        static let run: UInt32 = 0x10
        static let dense: UInt32 = 0x20
        static let selfLoop: UInt32 = 0x40
        static let chain: UInt32 = 0x80
        /// Sparse records hold at most this many exceptions.
        static let maxExceptions = 4
        /// A run covers at most this many states (its length is stored in 8 bits).
        static let maxRun = 255

        init?(targets: [Int32], acceptOf: [Int32], stride: Int, classOf: [UInt8]) {
            let rows = acceptOf.count
            // Classes of bytes from 0x80 on, when 0x80 starts a class (it does whenever a `*`
            // or `?` reads UTF-8); otherwise every class is handled in the record.
            let firstHigh = classOf[0x7F] != classOf[0x80] ? Int(classOf[0x80]) : stride
            let lowCount = firstHigh
            // Classes are stored in 8 bits.
            guard stride <= 256, rows >= 2 else { return nil }
            let shape = Shape(targets: targets, acceptOf: acceptOf, stride: stride, lowCount: lowCount)

            // Depth-first order from the start (row 1) over the rows that get a record, the
            // dead state (row 0) first. A row's exception targets are visited before its
            // default, the lowest class first, so that the first one not laid out yet comes
            // right after it; a run's target comes right after the run.
            var order = [0]
            var seen = [Bool](repeating: false, count: rows)
            seen[0] = true
            // States reached only through bytes from 0x80 (inside a UTF-8 scalar: at 10 000
            // generated path rules, 25 565 of 64 407 records) go after the others, so that
            // ASCII text, most of what URLs hold, walks a denser table.
            var later: [Int] = []
            var stack = [1]
            while true {
                while let row = stack.popLast() {
                    if seen[row] { continue }
                    seen[row] = true
                    order.append(row)
                    let fallback = shape.defaults[row]
                    if !seen[Int(fallback)] { stack.append(Int(fallback)) }
                    if let run = shape.runs[row] {
                        if !seen[Int(run.target)] { stack.append(Int(run.target)) }
                        continue
                    }
                    for cls in (0..<stride).reversed() {
                        let next = targets[row * stride + cls]
                        guard next != fallback, !seen[Int(next)] else { continue }
                        if cls >= lowCount { later.append(Int(next)) } else { stack.append(Int(next)) }
                    }
                }
                guard !later.isEmpty else { break }
                stack = later.reversed()
                later.removeAll()
            }

            // The high rows (shared), then the offsets.
            var highOf = [Int](repeating: 0, count: rows)
            var highRows: [[Int32]: Int] = [:]
            var highTargets: [Int32] = []
            for row in order {
                let highRow = Array(targets[(row * stride + firstHigh)..<(row * stride + stride)])
                if let known = highRows[highRow] {
                    highOf[row] = known
                } else {
                    highOf[row] = highTargets.count
                    highRows[highRow] = highTargets.count
                    highTargets += highRow
                }
            }
            let header = Header.words
            var offsets = [Int](repeating: -1, count: rows)
            var size = 0
            for row in order {
                offsets[row] = size
                if let run = shape.runs[row] {
                    size += header + 1 + (run.classes.count + 3) / 4
                } else {
                    size += header + (shape.isDense(row) ? lowCount : shape.exceptionCount[row])
                }
            }
            // Targets are packed in 24 bits; every target must have a record.
            guard size < 1 << 24 else { return nil }
            func offset(_ row: Int32) -> UInt32? { offsets[Int(row)] < 0 ? nil : UInt32(offsets[Int(row)]) }
            var code = [UInt32](repeating: 0, count: size)
            for row in order {
                let base = offsets[row]
                let fallback = shape.defaults[row]
                guard let fallbackOffset = offset(fallback) else { return nil }
                code[base + 1] = UInt32(highOf[row])
                code[base + 2] = UInt32(bitPattern: acceptOf[row])
                var flags: UInt32 = fallback == Int32(row) ? Self.selfLoop : 0
                if let run = shape.runs[row] {
                    guard let target = offset(run.target) else { return nil }
                    flags |= Self.run
                    code[base + header] = UInt32(run.classes.count) << 24 | target
                    for (index, cls) in run.classes.enumerated() {
                        code[base + header + 1 + index / 4] |= UInt32(cls) << (8 * UInt32(index % 4))
                    }
                } else if shape.isDense(row) {
                    flags |= Self.dense
                    for cls in 0..<lowCount {
                        guard let target = offset(targets[row * stride + cls]) else { return nil }
                        code[base + header + cls] = target
                    }
                } else {
                    var exceptions: [UInt32] = []
                    let next = UInt32(base + header + shape.exceptionCount[row])
                    for cls in 0..<lowCount where targets[row * stride + cls] != fallback {
                        guard let target = offset(targets[row * stride + cls]) else { return nil }
                        let exception = UInt32(cls) << 24 | target
                        // The exception leading to the next record goes first: a chain step.
                        if target == next, flags & Self.chain == 0 {
                            flags |= Self.chain
                            exceptions.insert(exception, at: 0)
                        } else {
                            exceptions.append(exception)
                        }
                    }
                    flags |= UInt32(exceptions.count)
                    for (index, exception) in exceptions.enumerated() { code[base + header + index] = exception }
                }
                code[base] = flags << 24 | fallbackOffset
            }
            var high = [UInt32]()
            high.reserveCapacity(highTargets.count)
            for target in highTargets {
                guard let known = offset(target) else { return nil }
                high.append(known)
            }
            self.code = code
            self.high = high
            self.firstHigh = firstHigh
            self.highByte = firstHigh < stride ? 0x80 : 0x100
            self.start = offsets[1]
            self.runCount = shape.runs.count
        }

        /// What the layout needs to know of each row: its ASCII default and exception count,
        /// whether it is dense, and the runs.
        private struct Shape {
            var defaults: [Int32]
            var exceptionCount: [Int]
            /// At the first state of each run: the run's classes and the state it leads to.
            var runs: [Int: (classes: [UInt8], target: Int32)] = [:]

            func isDense(_ row: Int) -> Bool { exceptionCount[row] > Compact.maxExceptions }

            init(targets: [Int32], acceptOf: [Int32], stride: Int, lowCount: Int) {
                let rows = acceptOf.count
                defaults = [Int32](repeating: 0, count: rows)
                exceptionCount = [Int](repeating: 0, count: rows)
                var lowRow = [Int32](repeating: 0, count: lowCount)
                for row in 0..<rows {
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
                    exceptionCount[row] = lowCount - bestCount
                }
                findRuns(targets: targets, acceptOf: acceptOf, stride: stride, lowCount: lowCount)
            }

            /// A run: states s0 … s(k-1), each with one ASCII exception leading to the next (the
            /// last one's to the run's target), all with the same default and the same high
            /// row, which accept the same tags and of which s1 … s(k-1) are reached from nowhere else. Such
            /// states need no records: the run's classes say everything, and a walk compares
            /// them with the text's classes without a load's latency a byte.
            mutating func findRuns(targets: [Int32], acceptOf: [Int32], stride: Int, lowCount: Int) {
                let rows = acceptOf.count
                var incoming = [Int](repeating: 0, count: rows)
                incoming[1] = 1  // the start is entered from outside
                for row in 0..<rows {
                    for cls in 0..<stride { incoming[Int(targets[row * stride + cls])] += 1 }
                }
                func single(_ row: Int) -> (cls: Int, target: Int32)? {
                    guard !isDense(row), exceptionCount[row] == 1 else { return nil }
                    for cls in 0..<lowCount where targets[row * stride + cls] != defaults[row] {
                        return (cls, targets[row * stride + cls])
                    }
                    return nil
                }
                func sameHigh(_ a: Int, _ b: Int) -> Bool {
                    (lowCount..<stride).allSatisfy { targets[a * stride + $0] == targets[b * stride + $0] }
                }
                var inside = [Bool](repeating: false, count: rows)
                for first in 1..<rows where !inside[first] {
                    guard var step = single(first) else { continue }
                    var classes = [UInt8(step.cls)]
                    var members = [first]
                    while classes.count < Compact.maxRun {
                        let next = Int(step.target)
                        guard next != first, !inside[next], runs[next] == nil, incoming[next] == 1, acceptOf[next] == acceptOf[first],
                            defaults[next] == defaults[first], sameHigh(next, first), let following = single(next)
                        else { break }
                        classes.append(UInt8(following.cls))
                        members.append(next)
                        step = following
                    }
                    guard classes.count >= 2 else { continue }
                    for member in members.dropFirst() { inside[member] = true }
                    runs[first] = (classes, step.target)
                }
            }
        }

        /// The accept index of the state `text` leads to, or -1 when the walk dies.
        @inline(__always)
        func acceptIndex(_ text: ByteView, classOf: ByteView) -> Int32 {
            walk(text, classOf: classOf)
        }

        @inline(__always)
        private func walk(_ text: ByteView, classOf: ByteView) -> Int32 {
            let firstHigh = self.firstHigh
            let highByte = self.highByte
            return code.withView { code in
                high.withView { high in
                    guard !code.isEmpty else { return -1 }
                    let runBytes = code.bytes
                    var state = start
                    var index = 0
                    let end = text.count
                    // Construction writes every record whole, every target as the offset of a
                    // record and every high index as the start of a high row; `classOf` has 256
                    // entries below the stride, and a byte below `highByte` has a class below
                    // `firstHigh` (the views assert every read in test builds).
                    while index < end {
                        let byte = text[index]
                        index &+= 1
                        let cls = Int(classOf[Int(byte)])
                        if cls >= firstHigh {
                            state = Int(high[Header.highBase(code, state) &+ cls &- firstHigh])
                            if state == 0 { return -1 }
                            continue
                        }
                        let flags = code[state] >> 24
                        let wanted = UInt32(cls)
                        // Predicted steps: the next state's address does not wait for a load.
                        if flags & Self.chain != 0, code[state &+ Header.words] >> 24 == wanted {
                            state &+= Header.words &+ Int(flags & Self.countMask)
                            continue
                        }
                        if flags & Self.run != 0 {
                            // Classes compared in a row; a mismatch leaves the run through the
                            // default or the high row, which all its states share.
                            let info = code[state &+ Header.words]
                            let length = Int(info >> 24)
                            let classes = (state &+ Header.words &+ 1) &* 4
                            var position = 0
                            var mismatch = cls
                            while true {
                                if UInt8(truncatingIfNeeded: mismatch) != runBytes[classes &+ position] {
                                    break
                                }
                                position &+= 1
                                if position == length { break }
                                // Ends inside the run: its states accept the same.
                                if index == end { return Header.accept(code, state) }
                                mismatch = Int(classOf[Int(text[index])])
                                index &+= 1
                            }
                            if position == length {
                                state = Int(info & 0xFF_FFFF)
                                continue
                            }
                            if mismatch >= firstHigh {
                                state = Int(high[Header.highBase(code, state) &+ mismatch &- firstHigh])
                            } else {
                                state = Int(code[state] & 0xFF_FFFF)
                            }
                            if state == 0 { return -1 }
                            continue
                        }
                        if flags & Self.dense != 0 {
                            state = Int(code[state &+ Header.words &+ cls])
                            if state == 0 { return -1 }
                            continue
                        }
                        let count = Int(flags & Self.countMask)
                        var next = -1
                        var lane = 0
                        while lane < count {
                            let exception = code[state &+ Header.words &+ lane]
                            if exception >> 24 == wanted {
                                next = Int(exception & 0xFF_FFFF)
                                break
                            }
                            lane &+= 1
                        }
                        if next < 0 {
                            if flags & Self.selfLoop != 0 {
                                // A `*` loop: stays; with no exception, for every byte up to
                                // the next high one.
                                if count == 0 {
                                    index = highByte > 0xFF ? end : Self.asciiEnd(of: text, from: index)
                                }
                                continue
                            }
                            next = Int(code[state] & 0xFF_FFFF)
                        }
                        state = next
                        if state == 0 { return -1 }
                    }
                    return Header.accept(code, state)
                }
            }
        }

        /// The index of the first byte from 0x80 in `text` from `start`, or its end: eight
        /// bytes tested at once.
        ///
        /// Why: a trailing `*` reads the rest of a path (about seven bytes in the generated
        /// URLs), and a loop per byte ends on a mispredicted branch whose trip count varies
        /// with every URL (10 000 generated path rules, A/B in one process).
        @inline(__always)
        static func asciiEnd(of text: ByteView, from start: Int) -> Int {
            let end = text.count
            guard start < end else { return end }
            let view = text
            let high: UInt64 = 0x8080_8080_8080_8080
            var index = start
            while end &- index >= 8 {
                let word = UInt64(littleEndian: view.word(at: index))
                if word & high != 0 { return index &+ (word & high).trailingZeroBitCount >> 3 }
                index &+= 8
            }
            if index == end { return end }
            if end >= 8 {
                // The text's last eight bytes, those before `index` masked off.
                let word = UInt64(littleEndian: view.word(at: end &- 8))
                let bits = word & (high &<< UInt64(8 &* (8 &- (end &- index))))
                return bits == 0 ? end : end &- 8 &+ bits.trailingZeroBitCount >> 3
            }
            while index < end, text[index] < 0x80 { index &+= 1 }
            return index
        }

        var memoryUsage: Int { (code.count + high.count) * 4 }
    }

    /// A record's header: `flags << 24 | default`, the offset of its high row in `high`, its
    /// accept index.
    enum Header {
        static let words = 3
        @inline(__always)
        static func highBase(_ code: BufferView<UInt32>, _ state: Int) -> Int {
            Int(code[state &+ 1])
        }
        @inline(__always)
        static func accept(_ code: BufferView<UInt32>, _ state: Int) -> Int32 {
            Int32(bitPattern: code[state &+ 2])
        }
    }
}
