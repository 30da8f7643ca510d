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
    /// What is left of the budget of the current URL; below zero once it is exceeded. A meter
    /// belongs to one matcher, so to one thread: the count needs no exclusivity checks.
    private let left: UnsharedCell<Int>
    private let budget: UnsharedCell<Int>

    public init(limit: Int) {
        budget = UnsharedCell(limit)
        left = UnsharedCell(limit)
    }

    /// Most NFA positions one URL may cost (`Configuration.Automata.maxURLWork`), from the
    /// next URL on when changed.
    ///
    /// Changed in place rather than by a new meter: a matcher's meter is then a constant, which
    /// the hot path reads without retaining it.
    public var limit: Int {
        @inline(__always) get { budget.value }
        set { budget.value = newValue }
    }

    /// What is left of the budget of the current URL; below zero once it is exceeded.
    @inline(__always)
    public var remaining: Int { left.value }

    /// The next URL starts with the whole budget.
    @inline(__always)
    public func begin() { left.value = budget.value }

    /// Whether the current URL has run over its budget.
    @inline(__always)
    public var exceeded: Bool { left.value < 0 }

    /// Charges `work` positions; returns false once the budget is exceeded.
    @inline(__always)
    func charge(_ work: Int) -> Bool {
        left.value -= work
        return left.value >= 0
    }

    /// One closure alone passed the limit.
    func exhaust() { left.value = -1 }
}
