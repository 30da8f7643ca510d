/// Documents shaped to blow up the automata, shared by the library and CLI tests of the work
/// budget.
public enum WorkBudgetShapes {
    /// `/{a,?}^11$(v)` for `sites` distinct call sites of a variable of `values` values `*N`:
    /// after `/aaaa…` every call site is live with every value's `*` loop.
    public static func variableBlowUp(values: Int, sites: Int) -> String {
        let variable = (0..<values).map { "\"*\($0)\"" }.joined(separator: ",")
        var patterns: [String] = []
        for combination in 0..<sites {
            let prefix = (0..<11).map { bit in combination >> bit & 1 == 0 ? "a" : "?" }.joined()
            patterns.append("\"/\(prefix)$(v)\"")
        }
        return #"{"applinks":{"substitutionVariables":{"v":[\#(variable)]},"details":[{"appID":"T.a","paths":[\#(patterns.joined(separator: ","))]}]}}"#
    }
}
