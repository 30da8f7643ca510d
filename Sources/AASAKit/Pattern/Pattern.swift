/// The Pattern layer: one pattern string to a small AST, normalised for the rule's text mode.
///
/// Second stage of the pipeline (document → **pattern** → automaton → plan → matcher). A pattern has
/// exactly four kinds of piece (SPEC 5, 9): literal text, `?` (one Unicode scalar), `*` (any
/// run of scalars) and `$(name)` (one alternative of a substitution variable). There is no
/// escape syntax, so every other character, including every regex metacharacter, is literal;
/// the automaton compiler therefore never sees regex syntax at all and has nothing to escape.
///
/// Normalisation happens here, once, at compile time: literal runs are put in NFC when the rule
/// compares decoded text and folded when it ignores case (`TextMode`), and path patterns get the
/// slash rules of SPEC 6 (`PathNormalization`). The matcher applies the same normalisation to
/// URL text once per URL, so the automaton compares bytes and nothing else.
///
/// What the Pattern folder will not do: match anything (the `Automaton` layer compiles these
/// ASTs; the oracle parses patterns on its own, `Reference/`), touch URL text (the matcher
/// normalises it with the same `TextNormalization`), or expand variables into pattern lists
/// (`ListExpansion` only counts what that would cost).
public struct Pattern: Sendable, Hashable, CustomStringConvertible {
    public enum Piece: Sendable, Hashable {
        /// Literal text (already normalised for the pattern's mode once `normalized(for:)` ran).
        case literal(String)
        /// `?`: exactly one Unicode scalar.
        case anyOne
        /// `*`: zero or more Unicode scalars, across `/`.
        case anyMany
        /// `$(name)`: one of the variable's alternatives.
        case variable(String)
    }

    public var pieces: [Piece]

    /// `*`, the pattern a missing key stands for (SPEC 10).
    public static let universal = Pattern(pieces: [.anyMany])

    public init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// Parses pattern text. With `allowVariables: false` (inside variable values, SPEC 9) every
    /// `$` is a literal.
    ///
    /// `$(` starts a reference only when a `)` follows with no `$` or `(` in between; otherwise
    /// the `$` is literal, so `$(a$(b)` is the literal `$(a` followed by the reference `$(b)`.
    ///
    /// - Complexity: O(n) in the pattern's length: each scan for a closing `)` stops at the
    ///   next `$` or `(`, where the following scan starts.
    public init(parsing text: String, allowVariables: Bool = true) {
        var text = text
        pieces = text.withUTF8 { Self.pieces(of: ByteView($0), allowVariables: allowVariables) }
    }

    /// The parse, over the UTF-8 bytes: the special characters `*?$()` are ASCII and an ASCII
    /// byte never occurs inside a multi-byte scalar, so cutting the bytes at them cuts between
    /// the same scalars a scalar-wise scan would, and each literal is one slice of the input.
    private static func pieces(of bytes: ByteView, allowVariables: Bool) -> [Piece] {
        // Each special byte ends at most one literal and adds at most one piece.
        var specials = 0
        for byte in bytes where byte == UInt8(ascii: "*") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "$") {
            specials += 1
        }
        var pieces: [Piece] = []
        pieces.reserveCapacity(2 * specials + 1)
        var literalStart = 0
        func flush(upTo end: Int) {
            if literalStart < end { pieces.append(.literal(bytes.string(literalStart..<end))) }
        }
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "*"):
                flush(upTo: index)
                literalStart = index + 1
                // A run of `*` means the same as one `*`.
                if case .anyMany? = pieces.last {} else { pieces.append(.anyMany) }
            case UInt8(ascii: "?"):
                flush(upTo: index)
                literalStart = index + 1
                pieces.append(.anyOne)
            case UInt8(ascii: "$") where allowVariables:
                if let close = referenceEnd(bytes, dollar: index) {
                    flush(upTo: index)
                    pieces.append(.variable(bytes.string((index + 2)..<close)))
                    index = close
                    literalStart = close + 1
                }
            default:
                break
            }
            index += 1
        }
        flush(upTo: bytes.count)
        return pieces
    }

    private static func referenceEnd(_ bytes: ByteView, dollar: Int) -> Int? {
        guard dollar + 1 < bytes.count, bytes[dollar + 1] == UInt8(ascii: "(") else { return nil }
        var index = dollar + 2
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: ")"): return index
            case UInt8(ascii: "$"), UInt8(ascii: "("): return nil
            default: index += 1
            }
        }
        return nil
    }

    /// The names of the variables the pattern refers to, in order of first use.
    public var variableNames: [String] {
        var seen = Set<String>()
        return pieces.compactMap { piece in
            if case .variable(let name) = piece, seen.insert(name).inserted { return name }
            return nil
        }
    }

    /// `true` for a pattern that matches every text (`*`).
    public var isUniversal: Bool { pieces == [.anyMany] }

    /// The pattern written back in AASA syntax (literal `*`, `?` and `$(` cannot occur in a
    /// literal piece produced by the parser, so this round-trips).
    public var description: String {
        pieces.map { piece in
            switch piece {
            case .literal(let text): return text
            case .anyOne: return "?"
            case .anyMany: return "*"
            case .variable(let name): return "$(\(name))"
            }
        }.joined()
    }
}
