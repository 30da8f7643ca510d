/// The custom substitution variables of a document (`applinks.substitutionVariables`, SPEC 9),
/// in source order, looked up by exact name.
///
/// Names are case-sensitive and compared scalar by scalar: a precomposed and a decomposed
/// spelling are two different variables (see `ExactString`).
public struct SubstitutionVariables: Sendable, Equatable {
    /// The names, in the order the document defines them.
    public private(set) var names: [String] = []
    private var valuesByName: [ExactString: [String]] = [:]

    public init() {}

    public init(_ pairs: [(name: String, values: [String])]) {
        for pair in pairs { self[pair.name] = pair.values }
    }

    /// The values of `name`, or `nil` when the document does not define it.
    public subscript(name: String) -> [String]? {
        get { valuesByName[ExactString(name)] }
        set {
            let key = ExactString(name)
            if valuesByName[key] == nil, newValue != nil { names.append(name) }
            if newValue == nil { names.removeAll { $0.isExactly(name) } }
            valuesByName[key] = newValue
        }
    }

    public var isEmpty: Bool { names.isEmpty }
    public var count: Int { names.count }

    /// The alternatives of `name` as the engine sees them: the custom variable when defined
    /// (it overrides a predefined one of the same name), else the predefined one, else `nil`
    /// (an undefined variable never matches).
    public func resolve(_ name: String) -> [String]? {
        self[name] ?? PredefinedVariables.values(of: name)
    }
}
