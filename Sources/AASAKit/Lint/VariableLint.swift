/// Substitution variables that cannot do what their author meant (SPEC 9).
///
/// The engine's reading of variables is strict and silent: an undefined `$(name)` never
/// matches, an unterminated `$(name` is literal text, a reference inside a variable's value is
/// literal text, an empty value list never matches, and a custom variable named like a
/// predefined one replaces Apple's list. Each of these makes a rule quietly dead or different,
/// so each gets a finding at the exact pattern or value.
enum VariableLint {
    static func findings(document: AASADocument, tree: JSONTree) -> [LintFinding] {
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        var findings: [LintFinding] = []
        var used = Set<ExactString>()
        var suggestions = SpellingSuggestions(candidates: variables.names + PredefinedVariables.names)
        for site in PatternSite.all(in: document) {
            let pattern = Pattern(parsing: site.text)
            var reported = Set<ExactString>()
            for piece in pattern.pieces {
                switch piece {
                case .variable(let name):
                    used.insert(ExactString(name))
                    guard variables.resolve(name) == nil, reported.insert(ExactString(name)).inserted else { continue }
                    findings.append(.undefinedVariable(site.path, name: name, suggestion: suggestions.nearest(to: name)))
                case .literal(let text):
                    if let fragment = MalformedReference.find(in: text) {
                        findings.append(.malformedVariableReference(site.path, fragment: fragment))
                    }
                case .anyOne, .anyMany:
                    continue
                }
            }
        }
        let definitions = JSONPath.root / "applinks" / "substitutionVariables"
        let ignoredPaths = document.diagnostics.contains { $0.code == LintCatalog.componentsAndPaths.code }
        for name in variables.names {
            let path = definitions / name
            let values = variables[name] ?? []
            if PredefinedVariables.names.contains(where: { $0.isExactly(name) }) {
                findings.append(.shadowsPredefinedVariable(path, name: name))
            }
            if values.isEmpty {
                findings.append(.emptyVariable(path, name: name))
            }
            if !used.contains(ExactString(name)) {
                findings.append(.unusedVariable(path, name: name, ignoredPaths: ignoredPaths))
            }
            guard case .array(let elements)? = tree.value(at: path) else { continue }
            for (index, element) in elements.enumerated() {
                guard case .string(let value) = element else { continue }
                // Values are literal text (SPEC 9); parsing them as patterns shows what the author
                // *meant* as a reference.
                for referenced in Pattern(parsing: value).variableNames {
                    findings.append(
                        referenced.isExactly(name)
                            ? .selfReferencingVariable(path / index, name: name)
                            : .variableInVariableValue(path / index, name: name, referenced: referenced))
                }
            }
        }
        return findings
    }
}

/// Near-miss names for undefined variables, bounded: each distinct name is looked up once, and
/// only the first `limit` distinct names get a suggestion. Without the bound a hostile file of
/// thousands of variables and thousands of misspelt references costs an edit distance per pair.
struct SpellingSuggestions {
    let candidates: [String]
    var limit = 64
    private var cache: [ExactString: String?] = [:]

    init(candidates: [String]) {
        self.candidates = candidates
    }

    mutating func nearest(to name: String) -> String? {
        if let cached = cache[ExactString(name)] { return cached }
        guard cache.count < limit else { return nil }
        let found = KeySpelling.nearest(to: name, in: candidates)
        cache[ExactString(name)] = .some(found)
        return found
    }
}

/// Text inside a literal run that its author surely meant as a variable reference.
enum MalformedReference {
    /// The suspicious fragment: `$(` that did not become a reference (no `)` before the next
    /// `$` or `(`, SPEC 9), or shell-style `${`. Quoted up to 24 scalars.
    static func find(in literal: String) -> String? {
        let scalars = Array(literal.unicodeScalars)
        for index in scalars.indices.dropLast() where scalars[index] == "$" {
            let next = scalars[index + 1]
            guard next == "(" || next == "{" else { continue }
            var fragment = String.UnicodeScalarView()
            fragment.append(contentsOf: scalars[index..<min(scalars.count, index + 24)])
            return String(fragment)
        }
        return nil
    }
}

extension LintFinding {
    static func undefinedVariable(_ path: JSONPath, name: String, suggestion: String?) -> LintFinding {
        let hint =
            suggestion.map { "did you mean $(\($0))? Names are case-sensitive" }
            ?? #"define it in applinks.substitutionVariables ("\#(name)": ["value", …]) or use a predefined one: "#
            + PredefinedVariables.names.map { "$(\($0))" }.joined(separator: ", ")
        return LintCatalog.undefinedVariable.finding(
            at: path, "$(\(name)) is defined neither in substitutionVariables nor by Apple, so this pattern never matches",
            hint: hint)
    }

    static func malformedVariableReference(_ path: JSONPath, fragment: String) -> LintFinding {
        let shellStyle = fragment.hasPrefix("${")
        return LintCatalog.malformedVariableReference.finding(
            at: path, shellStyle
                ? "\(JSONWriter.escape(fragment)) is not a variable reference (AASA writes $(name)), so it is compared as literal text"
                : "\(JSONWriter.escape(fragment)) is not a variable reference (no \")\" closes it before the next \"$\" or \"(\"), so it is compared as literal text",
            hint: #"write a reference as $(name); a name cannot contain "$", "(" or ")""#)
    }

    static func selfReferencingVariable(_ path: JSONPath, name: String) -> LintFinding {
        LintCatalog.selfReferencingVariable.finding(
            at: path, "the value of \(JSONWriter.escape(name)) contains $(\(name)); values cannot refer to variables, so this is the literal text \"$(\(name))\"",
            hint: "list every alternative explicitly; a variable cannot be recursive")
    }

    static func variableInVariableValue(_ path: JSONPath, name: String, referenced: String) -> LintFinding {
        LintCatalog.variableInVariableValue.finding(
            at: path, "the value of \(JSONWriter.escape(name)) contains $(\(referenced)); values cannot refer to variables, so this is literal text",
            hint: "copy the values of $(\(referenced)) into this list, or write $(\(referenced)) in the pattern itself")
    }

    static func emptyVariable(_ path: JSONPath, name: String) -> LintFinding {
        LintCatalog.emptyVariable.finding(
            at: path, "$(\(name)) has no values, so every pattern that uses it never matches",
            hint: "list at least one value, or remove the variable and the rules that use it")
    }

    static func shadowsPredefinedVariable(_ path: JSONPath, name: String) -> LintFinding {
        LintCatalog.shadowsPredefinedVariable.finding(
            at: path, "this custom variable replaces Apple's predefined $(\(name)) in every pattern of the file",
            hint: "rename it unless replacing Apple's list is intended")
    }

    /// `ignoredPaths`: some entry has `paths` beside `components`, which the engine does not read
    /// (a variable used only there is unused); said only then.
    static func unusedVariable(_ path: JSONPath, name: String, ignoredPaths: Bool) -> LintFinding {
        LintCatalog.unusedVariable.finding(
            at: path,
            "$(\(name)) is defined but no pattern the engine reads uses it" + (ignoredPaths ? " (a paths array beside components is not read)" : ""),
            hint: "remove it, or check the patterns that were meant to use it for a misspelt name")
    }
}
