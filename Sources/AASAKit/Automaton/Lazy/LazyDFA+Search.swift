extension LazyDFA {
    /// The tags of every pattern that matches the whole of `text`.
    ///
    /// - Complexity: O(n) transitions for n bytes once the states are cached; building a state
    ///   costs O(NFA positions in it).
    public func search(_ text: UnsafeBufferPointer<UInt8>, cache: Cache) -> TagSet {
        search(ByteView(text), cache: cache)
    }

    func search(_ text: ByteView, cache: Cache) -> TagSet {
        if let prebuilt { return prebuilt.search(text) }
        // The index first: the search may intern a tag set.
        let index = searchTagSet(text, cache: cache)
        return cache.tagSets[Int(index)]
    }

    /// Like `search`, but answers with the index of the accepted tag set in `cache`
    /// (`cache.tagSets`), valid until the cache is next cleared (`clearCount`); 0 is the empty
    /// set.
    ///
    /// Walks cached transitions in the tight loop of `TransitionTable.walk`, stepping out only
    /// to build a missing state. If the cache has to be cleared more than
    /// `configuration.maxClearsPerSearch` times during this search, or the search builds a new
    /// state for nearly every byte (`LazyDFA.simulateAfterStates`), the rest of the text is
    /// read by NFA simulation from the current subset (never wrong; slower than cached states,
    /// faster than building them), and its result is interned in the cache like any state's.
    ///
    /// PERF: an index instead of a `TagSet` spares the caller two retains and releases per
    /// search, and lets the matcher keep one decision per tag set (peers suite, 10 rules).
    public func searchTagSet(_ text: UnsafeBufferPointer<UInt8>, cache: Cache) -> Int32 {
        searchTagSet(ByteView(text), cache: cache)
    }

    func searchTagSet(_ text: ByteView, cache: Cache) -> Int32 {
        assert(cache.dfa === self, "a LazyDFA.Cache must be used with the LazyDFA that made it")
        return cache.searchTagSet(text)
    }

    /// Convenience for tests and tools: searches the UTF-8 bytes of `text`.
    public func search(_ text: String, cache: Cache) -> TagSet {
        var text = text
        return text.withUTF8 { search($0, cache: cache) }
    }
}

extension LazyDFA.Cache {
    /// `LazyDFA.searchTagSet` on this cache's automaton.
    ///
    /// PERF: a method of the cache, so that a matcher holding only the cache pays no retain and
    /// release of the automaton per search (peers suite, 10 rules).
    public func searchTagSet(_ text: UnsafeBufferPointer<UInt8>) -> Int32 {
        searchTagSet(ByteView(text))
    }

    func searchTagSet(_ text: ByteView) -> Int32 {
        if let prebuilt = dfa.prebuilt {
            // A prebuilt table answers alone; its tag sets were interned in this cache at reset,
            // so the index means the same to the caller.
            let accept = prebuilt.acceptIndex(text)
            return accept < 0 ? 0 : store.value.prebuiltSharesTagSets ? accept : store.value.prebuiltTagSets[Int(accept)]
        }
        if store.value.ownsMeter { store.value.meter.begin() }
        var state = start()
        let startWeight = store.value.startWeight
        if startWeight >= LazyDFA.heavyWeight, !store.value.meter.charge(startWeight) { return 0 }
        if state == TransitionTable.dead { return 0 }
        var position = 0
        let clearsBefore = store.value.clearCount
        // The stretch of text whose new states are being counted (`simulateAfterStates`): from
        // the search's start, or its last clear, or where the count last started again.
        var stretchStart = 0
        var builtBefore = store.value.statesBuilt
        var clearsInStretch = clearsBefore
        while true {
            let walked = table.walk(from: state, text: text, position: position)
            switch walked.stop {
            case .end:
                return table.tagSet(of: walked.state)
            case .dead:
                return 0
            case .unknown:
                // A cache that thrashes, or a stretch of text whose subsets are nearly all new:
                // the rest is simulated (`LazyDFA.simulateAfterStates`).
                if store.value.clearCount - clearsBefore > dfa.configuration.maxClearsPerSearch {
                    return simulate(from: walked.state, text: text[walked.position..<text.count])
                }
                let built = store.value.statesBuilt &- builtBefore
                if store.value.clearCount != clearsInStretch {
                    // Rebuilt states are not new: a small cache that clears is the rule above's.
                    clearsInStretch = store.value.clearCount
                    stretchStart = walked.position
                    builtBefore = store.value.statesBuilt
                } else if built >= LazyDFA.simulateAfterStates {
                    if built &* 2 > walked.position &- stretchStart {
                        return simulate(from: walked.state, text: text[walked.position..<text.count])
                    }
                    stretchStart = walked.position
                    builtBefore = store.value.statesBuilt
                }
                state = computeTransition(from: walked.state, byte: text[walked.position])
                if state == TransitionTable.dead { return 0 }
                position = walked.position + 1
                if position == text.count { return table.tagSet(of: state) }
            }
        }
    }

    /// Reads the rest of a search's text, `text`, by NFA simulation from `state`
    /// (`NFASimulation`); the index of the tag set accepted at its end, interned here like any
    /// state's.
    @inline(never)
    private func simulate(from state: Int32, text: ByteView) -> Int32 {
        noteFallback()
        if !store.value.bitsetTried {
            store.value.bitsetTried = true
            if let made = BitsetSimulation(nfa: determinizer.nfa) {
                store.value.bitset = made
                noteDerived(bytes: made.heldBytes)
            }
        }
        let span = store.value.spans[table.row(of: state)]
        let meter = store.value.meter
        let bitset = store.value.bitset
        let end = store.value.positionArena.withView { arena in
            NFASimulation(determinizer: determinizer, scratch: scratch, bitset: bitset).run(
                from: arena[Int(span.start)..<Int(span.start + span.count)], text: text, meter: meter)
        }
        switch end {
        case .read: return internTags(scratch.tags)
        case .dead, .overBudget: return 0
        }
    }
}
