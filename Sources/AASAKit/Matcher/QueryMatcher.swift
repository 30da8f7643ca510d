/// Query dictionaries (SPEC 7) on the compiled engine.
///
/// Every predicate of every rule is numbered. Items are split on the raw `&` and `=` first, then
/// each name and value is normalised per mode; the value runs through the automaton of its
/// (mode, name) group, and every predicate of the group that does not accept it fails its rule
/// (every repetition must match). A predicate that an empty value does not satisfy also needs
/// its group among the URL's items (a missing item counts as present and empty). A rule's
/// dictionary holds when none of its predicates failed. Every item of the URL charges the
/// predicates of its name to the URL's work budget (`url-work`).
///
/// Why per rule and by counting: a URL's cost must follow its own items, not the document's
/// names. A document within 128 KB can name 11 000 items; visiting every name for every URL
/// (to fail the missing ones) would make a one-item query cost the whole list. Instead, each
/// rule knows how many of its predicates need their item (`QueryItemIndex.required`), a URL
/// counts those whose item it has, and a rule holds when nothing failed and the counts agree.
struct QueryItemIndex: Sendable {
    /// Per mode (`TextMode.index`): normalised item name → group number in `groups`.
    let numbers: [[ExactString: Int32]]
    let groups: [CompiledDocument.QueryGroup]
    /// Per predicate: the rule that lists it, or -1.
    let predicateRule: [Int32]
    /// Per rule: how many of its predicates an empty value does not satisfy; empty when no
    /// rule has a dictionary.
    let required: [Int32]

    static let empty = QueryItemIndex(numbers: [], groups: [], predicateRule: [], required: [])

    private init(numbers: [[ExactString: Int32]], groups: [CompiledDocument.QueryGroup], predicateRule: [Int32], required: [Int32]) {
        self.numbers = numbers
        self.groups = groups
        self.predicateRule = predicateRule
        self.required = required
    }

    /// Numbers the groups and inverts the rules' predicate lists. Predicate numbers are below
    /// `predicateCount` (compiled so, or checked when an artifact is decoded).
    init(groups byMode: [[ExactString: CompiledDocument.QueryGroup]], rules: [CompiledDocument.RuleInfo], predicateCount: Int) {
        let hasItems = rules.contains { if case .items = $0.queryKind { return true } else { return false } }
        guard hasItems || byMode.contains(where: { !$0.isEmpty }) else {
            self = .empty
            return
        }
        var numbers: [[ExactString: Int32]] = []
        var groups: [CompiledDocument.QueryGroup] = []
        for modeGroups in byMode {
            var modeNumbers: [ExactString: Int32] = [:]
            modeNumbers.reserveCapacity(modeGroups.count)
            for (name, group) in modeGroups {
                modeNumbers[name] = Int32(groups.count)
                groups.append(group)
            }
            numbers.append(modeNumbers)
        }
        var predicateRule = Array(repeating: Int32(-1), count: predicateCount)
        for (rule, info) in rules.enumerated() {
            if case .items(let predicates) = info.queryKind {
                for predicate in predicates where Int(predicate) < predicateCount { predicateRule[Int(predicate)] = Int32(rule) }
            }
        }
        var required = Array(repeating: Int32(0), count: rules.count)
        for group in groups {
            for predicate in group.failOnMissing where Int(predicate) < predicateCount {
                let rule = predicateRule[Int(predicate)]
                if rule >= 0 { required[Int(rule)] += 1 }
            }
        }
        self.init(numbers: numbers, groups: groups, predicateRule: predicateRule, required: required)
    }
}

/// One thread's evaluation of a document's query dictionaries (`QueryItemIndex`), with a cache
/// for each item name made when a URL first has an item of that name.
///
/// Per-URL marks are generation stamps, so that starting a URL clears nothing: a rule failed
/// for this URL when `ruleFailed[rule] == generation`.
struct QueryItemEvaluator {
    private let index: QueryItemIndex
    private let meter: WorkMeter?
    private let account: LazyCacheMemory?
    /// Per group: its cache, once a URL has had an item of its name.
    private(set) var caches: [LazyDFA.Cache?]
    /// The groups that have a cache, in the order they were made.
    private var madeGroups: [Int32] = []
    /// What the caches held when made (`LazyDFA.Cache.emptyFootprint`), charged to `account`:
    /// a URL chooses how many there are, so an empty cache counts too, and `dropCaches` gives
    /// it back.
    private var madeFootprint = 0
    private var generation: UInt32 = 0
    /// Per group: the generation of the last URL with an item of its name.
    private var groupSeen: [UInt32]
    /// Per rule: the generation of the last URL that failed one of its predicates.
    private var ruleFailed: [UInt32]
    /// Per rule: the generation `presentCount` counts for, and how many of the rule's required
    /// predicates (`QueryItemIndex.required`) have their item in that URL.
    private var presentStamp: [UInt32]
    private var presentCount: [Int32]

    /// `generation` is the stamp before the first URL: tests start near its wrap.
    init(index: QueryItemIndex = .empty, meter: WorkMeter? = nil, account: LazyCacheMemory? = nil, generation: UInt32 = 0) {
        self.index = index
        self.generation = generation
        self.meter = meter
        self.account = account
        caches = Array(repeating: nil, count: index.groups.count)
        groupSeen = Array(repeating: 0, count: index.groups.count)
        ruleFailed = Array(repeating: 0, count: index.required.count)
        presentStamp = ruleFailed
        presentCount = Array(repeating: 0, count: index.required.count)
    }

    /// Empties and drops every cache, giving what each was charged back to `account`, between
    /// two URLs: the thread's caches passed their budget. Emptying alone would keep each name's
    /// objects, and a stream naming thousands of items in each of many documents would hold
    /// them all. A name's cache is made again when a URL next names it.
    mutating func dropCaches() {
        for group in madeGroups {
            caches[Int(group)]?.release()
            caches[Int(group)] = nil
        }
        madeGroups.removeAll()
        account?.bytes -= madeFootprint
        madeFootprint = 0
    }

    /// Whether `rule`'s dictionary holds for the URL last evaluated.
    func holds(rule: Int) -> Bool {
        guard rule < index.required.count else { return true }
        if ruleFailed[rule] == generation { return false }
        let required = index.required[rule]
        return required == 0 || (presentStamp[rule] == generation && presentCount[rule] == required)
    }

    mutating func evaluate(_ query: ByteView, normalizer: inout ComponentNormalizer) {
        generation &+= 1
        if generation == 0 {
            // Wrapped after 2^32 URLs: no stamp may equal a new generation by age.
            for group in groupSeen.indices { groupSeen[group] = 0 }
            for rule in ruleFailed.indices {
                ruleFailed[rule] = 0
                presentStamp[rule] = 0
            }
            generation = 1
        }
        if query.isEmpty { return }
        for mode in TextMode.all where mode.index < index.numbers.count {
            if index.numbers[mode.index].isEmpty { continue }
            var start = 0
            while start <= query.count {
                var end = start
                while end < query.count, query[end] != UInt8(ascii: "&") { end += 1 }
                let item = query[start..<end]
                start = end + 1
                var equals = 0
                while equals < item.count, item[equals] != UInt8(ascii: "=") { equals += 1 }
                let rawName = item[0..<equals]
                let rawValue = equals < item.count ? item[(equals + 1)..<item.count] : .empty
                let name = normalizer.withNormalized(rawName, mode: mode) { ExactString($0.string(0..<$0.count)) }
                guard let number = index.numbers[mode.index][name] else { continue }
                // Each item checks every predicate of its name: charged to the URL's budget, or
                // a name shared by thousands of rules, repeated through a long query, would
                // cost items × predicates unbounded (7 000 rules naming `a`, `?a&a&…`).
                if let meter, !meter.charge(index.groups[Int(number)].predicates.count) { return }
                evaluate(group: Int(number), rawValue: rawValue, mode: mode, normalizer: &normalizer)
            }
        }
    }

    /// One item of group `group`: the first of its name counts the predicates that needed it,
    /// and every predicate its value does not satisfy fails its rule.
    private mutating func evaluate(group: Int, rawValue: ByteView, mode: TextMode, normalizer: inout ComponentNormalizer) {
        let dfa = index.groups[group].dfa
        if groupSeen[group] != generation {
            groupSeen[group] = generation
            for predicate in index.groups[group].failOnMissing {
                let rule = Int(index.predicateRule[Int(predicate)])
                if rule < 0 { continue }
                if presentStamp[rule] != generation {
                    presentStamp[rule] = generation
                    presentCount[rule] = 0
                }
                presentCount[rule] += 1
            }
        }
        let cache: LazyDFA.Cache
        if let made = caches[group] {
            cache = made
        } else {
            cache = meter.map { dfa.makeCache(sharing: $0, account: account) } ?? dfa.makeCache()
            caches[group] = cache
            madeGroups.append(Int32(group))
            let footprint = cache.emptyFootprint
            madeFootprint += footprint
            account?.bytes += footprint
        }
        let accepted = normalizer.withNormalized(rawValue, mode: mode) { dfa.search($0, cache: cache) }
        for predicate in index.groups[group].predicates where !accepted.contains(Int(predicate)) {
            let rule = index.predicateRule[Int(predicate)]
            if rule >= 0 { ruleFailed[Int(rule)] = generation }
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
