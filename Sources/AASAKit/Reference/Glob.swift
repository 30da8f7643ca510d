/// The oracle's glob: a pattern as a list of tokens, matched by evaluating the memoised
/// backtracking recursion bottom-up.
///
/// The textbook backtracking glob (`*` tries every split, a variable tries every alternative) is
/// exponential on `*a*a*a…b`. Memoising it on (token, text position) makes it polynomial; doing
/// the memo table bottom-up, one row per token, keeps the stack flat whatever the pattern or URL
/// length. `row[i]` answers "do the tokens from here on match `text[i...]`, followed by whatever
/// the continuation row accepts".
struct Glob: Sendable {
    indirect enum Token: Equatable, Sendable {
        case scalar(Unicode.Scalar)
        /// `?`: exactly one scalar.
        case one
        /// `*`: zero or more scalars.
        case many
        /// `$(name)`: one of the alternatives, each itself a token list; `nil` when the variable is
        /// undefined, which never matches (SPEC 9).
        case variable(name: String, alternatives: [[Token]]?)
    }

    let tokens: [Token]
    /// The rows `matches` computes, each as long as the text plus one: a token is one row, a
    /// variable one row plus those of every alternative. `ReferenceMatcher` bounds a URL's
    /// work with it before deciding.
    let weight: Int

    init(tokens: [Token]) {
        self.tokens = tokens
        weight = Self.weight(of: tokens)
    }

    /// Parses `pattern` and normalises its literal runs (and those of variable values) for the
    /// rule's flags.
    init(_ pattern: String, text: ReferenceText, variables: ReferenceVariables) {
        self.init(tokens: Self.tokens(of: pattern, allowVariables: true, text: text, variables: variables))
    }

    private static func weight(of tokens: [Token]) -> Int {
        tokens.reduce(0) { total, token in
            guard case .variable(_, let alternatives) = token else { return total &+ 1 }
            return (alternatives ?? []).reduce(total &+ 1) { $0 &+ weight(of: $1) }
        }
    }

    static func tokens(
        of pattern: String, allowVariables: Bool, text: ReferenceText, variables: ReferenceVariables
    ) -> [Token] {
        let scalars = Array(pattern.unicodeScalars)
        var tokens: [Token] = []
        var literal = String.UnicodeScalarView()
        func flushLiteral() {
            guard !literal.isEmpty else { return }
            tokens += text.normalizeLiteral(String(literal)).unicodeScalars.map { Token.scalar($0) }
            literal = String.UnicodeScalarView()
        }
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            if scalar == "*" {
                flushLiteral()
                tokens.append(.many)
            } else if scalar == "?" {
                flushLiteral()
                tokens.append(.one)
            } else if allowVariables, scalar == "$", let (name, end) = variableReference(in: scalars, at: i) {
                flushLiteral()
                let alternatives = variables.alternatives(of: name, text: text)
                tokens.append(.variable(name: name, alternatives: alternatives))
                i = end
            } else {
                literal.append(scalar)
            }
            i += 1
        }
        flushLiteral()
        return tokens
    }

    /// SPEC 9: `$(` starts a reference only when a `)` follows with no `$` or `(` in between.
    /// Returns the name and the index of the closing `)`.
    private static func variableReference(in scalars: [Unicode.Scalar], at dollar: Int) -> (String, Int)? {
        guard dollar + 1 < scalars.count, scalars[dollar + 1] == "(" else { return nil }
        var name = String.UnicodeScalarView()
        var j = dollar + 2
        while j < scalars.count {
            switch scalars[j] {
            case ")": return (String(name), j)
            case "$", "(": return nil
            default: name.append(scalars[j])
            }
            j += 1
        }
        return nil
    }

    /// Whether the tokens match the whole of `text`.
    func matches(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var terminal = [Bool](repeating: false, count: scalars.count + 1)
        terminal[scalars.count] = true
        return Self.row(tokens, text: scalars, continuation: terminal)[0]
    }

    /// `result[i]` is true when `tokens` match `text[i..<j]` for some `j` with `continuation[j]`.
    private static func row(_ tokens: [Token], text: [Unicode.Scalar], continuation: [Bool]) -> [Bool] {
        let n = text.count
        var next = continuation
        for token in tokens.reversed() {
            var row = [Bool](repeating: false, count: n + 1)
            switch token {
            case .scalar(let expected):
                for i in 0..<n where text[i] == expected && next[i + 1] { row[i] = true }
            case .one:
                for i in 0..<n where next[i + 1] { row[i] = true }
            case .many:
                row[n] = next[n]
                var i = n - 1
                while i >= 0 {
                    row[i] = next[i] || row[i + 1]
                    i -= 1
                }
            case .variable(_, let alternatives):
                for alternative in alternatives ?? [] {
                    let accepted = Self.row(alternative, text: text, continuation: next)
                    for i in 0...n where accepted[i] { row[i] = true }
                }
            }
            next = row
        }
        return next
    }
}
