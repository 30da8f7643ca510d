extension LazyDFA {
    /// The tags of every pattern that matches the whole of `text`.
    ///
    /// Walks cached transitions in the tight loop of `TransitionTable.walk`, stepping out only
    /// to build a missing state. If the cache has to be cleared more than
    /// `configuration.maxClearsPerSearch` times during this search, the rest of the text is
    /// read by NFA simulation from the current subset: slower, never wrong.
    ///
    /// - Complexity: O(n) transitions for n bytes once the states are cached; building a state
    ///   costs O(NFA positions in it).
    public func search(_ text: UnsafeBufferPointer<UInt8>, cache: Cache) -> TagSet {
        assert(cache.dfa === self, "a LazyDFA.Cache must be used with the LazyDFA that made it")
        if let prebuilt { return prebuilt.search(text) }
        var state = cache.start()
        var position = 0
        let clearsBefore = cache.clearCount
        return cache.classOf.withUnsafeBufferPointer { classOf in
            while true {
                let walked = cache.table.walk(from: state, text: text, position: position, classOf: classOf)
                switch walked.stop {
                case .end:
                    return cache.tags(of: walked.state)
                case .dead:
                    return .empty
                case .unknown:
                    if cache.clearCount - clearsBefore > configuration.maxClearsPerSearch {
                        cache.noteFallback()
                        return NFASimulation(nfa: nfa).run(
                            from: cache.subset(of: walked.state),
                            text: UnsafeBufferPointer(rebasing: text[walked.position...]))
                    }
                    state = cache.computeTransition(from: walked.state, byte: text[walked.position])
                    if state == TransitionTable.dead { return .empty }
                    position = walked.position + 1
                    if position == text.count { return cache.tags(of: state) }
                }
            }
        }
    }

    /// Convenience for tests and tools: searches the UTF-8 bytes of `text`.
    public func search(_ text: String, cache: Cache) -> TagSet {
        var text = text
        return text.withUTF8 { search($0, cache: cache) }
    }
}
