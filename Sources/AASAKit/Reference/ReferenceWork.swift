/// The oracle's work on one URL: glob table cells, `ReferenceMatcher.cellsPerWorkUnit` per unit
/// of `url-work`, each step charged before it is taken, so that no step runs past the budget.
///
/// Charged as the rules are evaluated rather than added up for every rule first: that sum
/// refused a URL that the document's second rule decides as soon as the document held enough
/// rules (a 128 KiB document of `*ab*$(lang)` rules, which SPEC 2 must not refuse).
struct ReferenceWork {
    /// The `url-work` the refusal names.
    let workLimit: Int
    private let limit: Int
    private(set) var cells = 0

    init(workLimit: Int) {
        self.workLimit = workLimit
        limit = Self.product(workLimit, ReferenceMatcher.cellsPerWorkUnit)
    }

    /// Adds `amount` cells; throws once the total passes the budget.
    mutating func charge(_ amount: Int) throws(URLSplitError) {
        cells = Self.sum(cells, amount)
        guard cells <= limit else { throw .workLimitExceeded(limit: workLimit) }
    }

    /// `terms` added, at most `Int.max`: a count past it only has to stay over every budget.
    static func sum(_ terms: Int...) -> Int {
        terms.reduce(0) { total, term in
            let sum = total.addingReportingOverflow(term)
            return sum.overflow ? Int.max : sum.partialValue
        }
    }

    /// `a × b`, at most `Int.max`.
    static func product(_ a: Int, _ b: Int) -> Int {
        let product = a.multipliedReportingOverflow(by: b)
        return product.overflow ? Int.max : product.partialValue
    }
}
