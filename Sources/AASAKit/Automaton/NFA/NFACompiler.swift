/// Compiles many tagged patterns into one NFA: an unanchored alternation at the start state,
/// each pattern a chain of pieces ending in a `match(tag)` state.
///
/// All patterns of one component kind and text mode go into one NFA, so one DFA pass over a
/// URL component answers "which rules match" for all of them at once (RE2::Set's idea). Patterns
/// are anchored at both ends by construction: the DFA runs from the start state over the whole
/// component and reads the accept set at the end of the text.
public struct NFACompiler {
    /// Resolves a variable name to its alternatives (custom first, then predefined), or `nil`
    /// when undefined.
    public typealias VariableResolver = (String) -> [String]?

    let mode: TextMode
    let resolve: VariableResolver
    var builder: NFABuilder
    // Exact keys: "é" and "e\u{301}" name two different variables.
    var variableIDs: [ExactString: Int32] = [:]
    var variableNames: [String] = []
    var variableStarts: [NFA.StateID] = []

    public init(mode: TextMode, maxStates: Int, variables: @escaping VariableResolver) {
        self.mode = mode
        self.resolve = variables
        self.builder = NFABuilder(limit: maxStates)
    }

    /// Compiles `patterns`; tag `t` is accepted at the end of a text that some pattern tagged
    /// `t` matches whole.
    public static func compile(
        _ patterns: [(pattern: Pattern, tag: Int32)], mode: TextMode, maxStates: Int,
        variables: @escaping VariableResolver
    ) throws(AutomatonError) -> NFA {
        var compiler = NFACompiler(mode: mode, maxStates: maxStates, variables: variables)
        return try compiler.compile(patterns)
    }

    mutating func compile(_ patterns: [(pattern: Pattern, tag: Int32)]) throws(AutomatonError) -> NFA {
        let start = try builder.add()
        for (pattern, tag) in patterns {
            let first = try builder.add()
            builder.addEpsilon(from: start, to: first)
            var current = first
            for piece in pattern.pieces {
                switch piece {
                case .literal(let text):
                    current = try builder.addLiteral(text, from: current)
                case .anyOne:
                    current = try builder.addAnyScalar(from: current)
                case .anyMany:
                    current = try builder.addAnyRun(from: current)
                case .variable(let name):
                    let variable = try variableID(name)
                    let next = try builder.add()
                    let call = try builder.add(.call(variable: variable, next: next))
                    builder.addEpsilon(from: current, to: call)
                    current = next
                }
            }
            let accept = try builder.add(.match(tag: tag))
            builder.addEpsilon(from: current, to: accept)
        }
        return NFA(builder: builder, start: start, variableStarts: variableStarts, variableNames: variableNames)
    }

    /// The variable's id, building its shared sub-automaton on first use.
    mutating func variableID(_ name: String) throws(AutomatonError) -> Int32 {
        if let id = variableIDs[ExactString(name)] { return id }
        let id = Int32(variableNames.count)
        variableIDs[ExactString(name)] = id
        variableNames.append(name)
        variableStarts.append(-1)
        if let values = resolve(name) {
            let patterns = values.map { Pattern(parsing: $0, allowVariables: false).normalized(for: mode) }
            variableStarts[Int(id)] = try builder.addVariable(patterns)
        }
        return id
    }
}
