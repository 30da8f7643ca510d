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
    /// `configuration.maxClearsPerSearch` times during this search, the rest of the text is
    /// read by NFA simulation from the current subset (slower, never wrong), and its result is
    /// interned in the cache like any state's.
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
        while true {
            let walked = table.walk(from: state, text: text, position: position)
            switch walked.stop {
            case .end:
                return table.tagSet(of: walked.state)
            case .dead:
                return 0
            case .unknown:
                if store.value.clearCount - clearsBefore > dfa.configuration.maxClearsPerSearch {
                    noteFallback()
                    let tags = NFASimulation(nfa: dfa.nfa).run(
                        from: subset(of: walked.state), text: text[walked.position..<text.count], meter: store.value.meter)
                    return tags.map { internTags($0.sorted) } ?? 0
                }
                state = computeTransition(from: walked.state, byte: text[walked.position])
                if state == TransitionTable.dead { return 0 }
                position = walked.position + 1
                if position == text.count { return table.tagSet(of: state) }
            }
        }
    }
}
