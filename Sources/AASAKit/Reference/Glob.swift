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
        /// `$(name)`: one of the alternatives; `nil` when the variable is undefined, which never
        /// matches (SPEC 9).
        case variable(name: String, alternatives: Alternatives?)
    }

    /// A variable's values as token lists, with what matching them costs counted once per
    /// variable and text mode: summed again at every call site, the count took 17 s to make a
    /// matcher for one pattern calling a variable of 15 500 values 16 000 times.
    struct Alternatives: Equatable, Sendable {
        let lists: [[Token]]
        /// A row per token of every value (values call no variable).
        let rows: Int

        init(_ lists: [[Token]]) {
            self.lists = lists
            rows = lists.reduce(0) { ReferenceWork.sum($0, $1.count) }
        }
    }

    let tokens: [Token]
    /// The rows `matches` allocates besides its terminal row: one per token, and for a variable
    /// those of its values (`Alternatives.rows`).
    let weight: Int
    /// The passes `matches` makes to merge a value's row into its variable's: one per value of
    /// each variable called, even an empty one.
    let merges: Int

    init(tokens: [Token]) {
        self.tokens = tokens
        var weight = 0
        var merges = 0
        for token in tokens {
            weight = ReferenceWork.sum(weight, 1)
            if case .variable(_, let alternatives?) = token {
                weight = ReferenceWork.sum(weight, alternatives.rows)
                merges = ReferenceWork.sum(merges, alternatives.lists.count)
            }
        }
        self.weight = weight
        self.merges = merges
    }

    /// Parses `pattern` and normalises its literal runs (and those of variable values) for the
    /// rule's flags.
    init(_ pattern: String, text: ReferenceText, variables: ReferenceVariables) {
        self.init(tokens: Self.tokens(of: pattern, allowVariables: true, text: text, variables: variables))
    }

    /// What allocating a row and starting its pass costs, in cells. Without it a pattern calling
    /// a 15 500-value variable 16 000 times was charged one cell a row against an empty path,
    /// while each value took about 90 ns (22 s for the URL).
    static let cellsPerRow = 64

    /// The cells `matches` computes against `count` texts of `scalars` scalars in all (the
    /// values of a query item are matched one by one): per text, its terminal row and a row per
    /// `weight`, each as long as the text plus one and `cellsPerRow` more, and a pass as long per
    /// merge.
    func cells(texts count: Int, scalars: Int) -> Int {
        let pass = ReferenceWork.sum(scalars, count)
        let row = ReferenceWork.sum(pass, ReferenceWork.product(count, Self.cellsPerRow))
        return ReferenceWork.sum(ReferenceWork.product(ReferenceWork.sum(weight, 1), row), ReferenceWork.product(merges, pass))
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
                tokens.append(.variable(name: name, alternatives: variables.alternatives(of: name, text: text)))
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

    /// Whether the tokens match the whole of `text`, a compared text's scalars (`ComparedURL`).
    func matches(_ text: [Unicode.Scalar]) -> Bool {
        var terminal = [Bool](repeating: false, count: text.count + 1)
        terminal[text.count] = true
        return Self.row(tokens, text: text, continuation: terminal)[0]
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
                for alternative in alternatives?.lists ?? [] {
                    let accepted = Self.row(alternative, text: text, continuation: next)
                    for i in 0...n where accepted[i] { row[i] = true }
                }
            }
            next = row
        }
        return next
    }
}
