/// The work budget of one URL, shared by every automaton a matcher searches for it.
///
/// A lazy DFA over a hostile document can need, for one byte, a closure of millions of NFA
/// positions, and a text of 65 536 bytes can lead through as many distinct states; "slower,
/// never wrong" is then unbounded. The meter bounds it the way RE2 reports running out of
/// memory apart from "no match": past the budget the search stops and the caller gives the URL
/// an error record, never a decision.
///
/// The charge is a property of the URL's path through the DFA, not of what the cache happens
/// to hold, so the same URL is refused or decided alike by every thread, engine configuration
/// and `--jobs`: a search is over budget when one closure on its path visits more than the
/// limit of NFA positions, or when the closures of its heavy transitions (those whose closure
/// visits at least `LazyDFA.heavyWeight` positions) add up to more than the limit. Light
/// transitions are never charged: they cost less than `heavyWeight` to build and nothing to
/// follow once built, so a URL's uncharged work is at most `heavyWeight` per byte.
public final class WorkMeter {
    /// What is left of the budget of the current URL (below zero once it is exceeded), and the
    /// budget. A meter belongs to one matcher, so to one thread: the counts need no exclusivity
    /// checks. One cell for both: every URL begins the meter, and each cell is one more object
    /// for a fleet URL to miss in the cache (PERF: see `DomainSlot`).
    private let counts: UnsharedCell<Counts>
    struct Counts {
        var left: Int
        var budget: Int
    }

    public init(limit: Int) {
        counts = UnsharedCell(Counts(left: limit, budget: limit))
    }

    /// Most NFA positions one URL may cost (`Configuration.Automata.maxURLWork`), from the
    /// next URL on when changed.
    ///
    /// Changed in place rather than by a new meter: a matcher's meter is then a constant, which
    /// the hot path reads without retaining it.
    public var limit: Int {
        @inline(__always) get { counts.value.budget }
        set { counts.value.budget = newValue }
    }

    /// What is left of the budget of the current URL; below zero once it is exceeded.
    @inline(__always)
    public var remaining: Int { counts.value.left }

    /// The next URL starts with the whole budget.
    @inline(__always)
    public func begin() { counts.value.left = counts.value.budget }

    /// Whether the current URL has run over its budget.
    @inline(__always)
    public var exceeded: Bool { counts.value.left < 0 }

    /// Charges `work` positions; returns false once the budget is exceeded.
    @inline(__always)
    func charge(_ work: Int) -> Bool {
        counts.value.left -= work
        return counts.value.left >= 0
    }

    /// One closure alone passed the limit.
    func exhaust() { counts.value.left = -1 }
}
