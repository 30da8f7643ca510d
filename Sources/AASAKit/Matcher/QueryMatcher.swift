/// Query dictionaries (SPEC 7) on the compiled engine.
///
/// Every predicate of every rule is numbered. Items are split on the raw `&` and `=` first, then
/// each name and value is normalised per mode; the value runs through the automaton of its
/// (mode, name) group, and every predicate of the group that does not accept it fails (every
/// repetition must match). Groups with no item in the URL fail the predicates an empty value
/// does not satisfy (a missing item counts as present and empty). A rule's dictionary holds when
/// none of its predicates failed.
struct QueryItemEvaluator {
    private var failed: [Bool] = []
    private var seenGroups = Set<ExactString>()

    mutating func reserve(predicates: Int) {
        failed = Array(repeating: false, count: predicates)
    }

    func allHold(_ predicates: [Int32]) -> Bool {
        predicates.allSatisfy { !failed[Int($0)] }
    }

    mutating func evaluate(
        _ query: ByteView, compiled: CompiledDocument, caches: [[ExactString: LazyDFA.Cache]],
        normalizer: inout ComponentNormalizer
    ) {
        for index in failed.indices { failed[index] = false }
        for mode in TextMode.all {
            let groups = compiled.queryGroups[mode.index]
            if groups.isEmpty { continue }
            seenGroups.removeAll(keepingCapacity: true)
            if !query.isEmpty {
                var start = 0
                while start <= query.count {
                    var end = start
                    while end < query.count, query[end] != UInt8(ascii: "&") { end += 1 }
                    let item = query[start..<end]
                    var equals = 0
                    while equals < item.count, item[equals] != UInt8(ascii: "=") { equals += 1 }
                    let rawName = item[0..<equals]
                    let rawValue = equals < item.count ? item[(equals + 1)..<item.count] : .empty
                    let name = normalizer.withNormalized(rawName, mode: mode) { ExactString($0.string(0..<$0.count)) }
                    if let group = groups[name], let cache = caches[mode.index][name] {
                        seenGroups.insert(name)
                        let accepted = normalizer.withNormalized(rawValue, mode: mode) { group.dfa.search($0, cache: cache) }
                        for predicate in group.predicates where !accepted.contains(Int(predicate)) {
                            failed[Int(predicate)] = true
                        }
                    }
                    start = end + 1
                }
            }
            for (name, group) in groups where !seenGroups.contains(name) {
                for predicate in group.failOnMissing { failed[Int(predicate)] = true }
            }
        }
    }
}

/// A matcher's query-text and fragment automata, one per text mode, with the tag set each
/// reached for the URL being decided.
///
/// Why the answer is a tag-set index kept beside its cache: a `TagSet` value held two arrays,
/// retained when stored and released when forgotten, for every URL with a query or fragment
/// pattern; the index is a number, valid until the cache is next cleared, and no other search of
/// the same cache runs between a URL's search and its lookups.
struct ComponentSearchers {
    /// One automaton's cache and its answer for the URL being decided.
    struct Automaton {
        let cache: LazyDFA.Cache?
        /// The tag set the URL's component reached (0 is the empty set), or -1 before it is
        /// searched.
        private(set) var tagSet: Int32 = -1

        var searched: Bool { tagSet >= 0 }

        /// Searches the component, normalised for the mode. Mutating, so that it runs on the
        /// element in place, which holds `cache` for the call (reached otherwise, it was
        /// retained around the search).
        @inline(__always)
        mutating func search(_ text: ByteView) {
            tagSet = cache?.searchTagSet(text) ?? 0
        }

        /// Whether the searched component satisfies `rule`'s pattern.
        @inline(__always)
        mutating func accepted(_ rule: Int) -> Bool {
            guard tagSet > 0 else { return false }
            return cache?.tagSet(tagSet, contains: rule) == true
        }

        mutating func forget() { tagSet = -1 }
    }

    /// Per text mode (`TextMode.index`).
    var query: [Automaton]
    var fragment: [Automaton]

    init(query: [LazyDFA.Cache?], fragment: [LazyDFA.Cache?]) {
        self.query = query.map { Automaton(cache: $0) }
        self.fragment = fragment.map { Automaton(cache: $0) }
    }

    /// Forgets the last URL's answers.
    mutating func forget() {
        for index in query.indices { query[index].forget() }
        for index in fragment.indices { fragment[index].forget() }
    }
}
