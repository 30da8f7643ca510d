/// Why a document's automata could not be built or run within the configured limits.
///
/// These are never turned into a "no match": the caller reports them (SPEC 1: an engine that
/// failed must say so).
public enum AutomatonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The NFA would need more states than `Configuration.automata.maxNFAStates`.
    case tooManyNFAStates(needed: Int, limit: Int)
    /// The lazy DFA cache budget cannot hold the few states a search needs.
    case budgetTooSmall(minimum: Int, given: Int)
    /// The eager DFA would need more states than allowed.
    case tooManyDFAStates(limit: Int)
    /// An intermediate structure of compilation passed its limit (`variable-positions`), at
    /// the rule `location` names (a JSON path, when known).
    case overLimit(Configuration.Limit, found: Int, maximum: Int, location: JSONPath?)
    /// Two documents differ in more changes (an app and its deciding rule on either side) than
    /// one diff may hold (`analysis-pairs`).
    case tooManyChanges(limit: Int)

    public var description: String {
        switch self {
        case .tooManyNFAStates(let needed, let limit):
            return "the document needs more than \(limit) automaton states (at least \(needed)); \(Configuration.Limit.nfaStates.hint)"
        case .budgetTooSmall(let minimum, let given):
            return "the DFA cache budget of \(given) bytes is below the minimum of \(minimum) bytes for this document (\(Configuration.Limit.dfaCacheBytes.hint))"
        case .tooManyDFAStates(let limit):
            return "the eager DFA needs more than \(limit) states; use the lazy DFA"
        case .overLimit(let limit, let found, let maximum, let location):
            let place = location.map { " at \($0)" } ?? ""
            return "the document needs at least \(found) \(limit.unit), over the \(limit.rawValue) limit of \(maximum)\(place) (\(limit.hint))"
        case .tooManyChanges(let limit):
            let pairs = Configuration.Limit.analysisPairs
            return "the documents differ in more than \(limit) changes (an app and its deciding rules), over the \(pairs.rawValue) limit (\(pairs.hint))"
        }
    }
}
