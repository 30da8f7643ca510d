/// The oracle's path component (SPEC 6).
enum PathComparison {
    /// The pattern's globs after the slash rules.
    static func prepare(_ pattern: String, text: ReferenceText, variables: ReferenceVariables) -> [Glob] {
        slashNormalized(Glob(pattern, text: text, variables: variables).tokens).map { Glob(tokens: $0) }
    }

    /// `path`: the URL's path normalised for the rule, its trailing slashes dropped
    /// (`ComparedURL`).
    static func evaluate(_ globs: [Glob], pattern: String, _ path: ComparedURL.Text) -> ComponentEvaluation {
        let matched = globs.contains { $0.matches(path.scalars) }
        return ComponentEvaluation(component: "/", comparedText: path.string, pattern: pattern, matched: matched)
    }

    /// The pattern's token lists after the slash rules: the leading run of `/` becomes one `/`
    /// (added when missing), runs of `*` become one, the trailing run of `/` goes, and a pattern
    /// that then ends in `/*` gets a second form without that segment.
    static func slashNormalized(_ tokens: [Glob.Token]) -> [[Glob.Token]] {
        var tokens = tokens
        var leading = 0
        while leading < tokens.count, tokens[leading] == .scalar("/") { leading += 1 }
        tokens.removeFirst(leading)
        tokens.insert(.scalar("/"), at: 0)
        var collapsed: [Glob.Token] = []
        for token in tokens where !(token == .many && collapsed.last == .many) {
            collapsed.append(token)
        }
        tokens = dropTrailingSlashes(collapsed)
        var forms = [tokens]
        if tokens.count >= 2, tokens[tokens.count - 1] == .many, tokens[tokens.count - 2] == .scalar("/") {
            forms.append(dropTrailingSlashes(Array(tokens.dropLast(2))))
        }
        return forms
    }

    static func dropTrailingSlashes(_ tokens: [Glob.Token]) -> [Glob.Token] {
        var tokens = tokens
        while tokens.last == .scalar("/") { tokens.removeLast() }
        return tokens
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var scalars = Array(path.unicodeScalars)
        while scalars.last == "/" { scalars.removeLast() }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}
