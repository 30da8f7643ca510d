/// The slash rules of SPEC 6, applied to a path pattern's AST.
///
/// The pattern's leading run of `/` collapses to one (and a pattern without a leading `/` gets
/// one); the trailing run of `/` is dropped (the matcher drops it from the URL path too); runs of
/// `*` are already one piece. A pattern that then ends in `/*` also matches the path without that
/// segment, so it yields a second alternative: `/buy/*`, `/buy/**`, `/buy//*` and `/buy/*/` all
/// also match `/buy`. Only one segment is removed: `/a/*/*` does not match `/a`.
public enum PathNormalization {
    /// The alternatives a path pattern stands for (one or two), each normalised.
    ///
    /// Merging first makes the leading and trailing literal runs single pieces, so each slash rule
    /// edits one literal. `/` is one byte and one scalar, so counting it in the UTF-8 and cutting
    /// there is the scalar-wise (never grapheme-wise) cut: `/` followed by a combining mark is one
    /// Character but still starts with the scalar `/`.
    public static func alternatives(of pattern: Pattern) -> [Pattern] {
        var pieces = merged(pattern.pieces)
        // Leading run of "/": exactly one. Pieces are only written when a rule changes them, so
        // a pattern already in shape shares its array.
        if case .literal(let text)? = pieces.first {
            if let changed = withOneLeadingSlash(text) { pieces[0] = .literal(changed) }
        } else {
            pieces.insert(.literal("/"), at: 0)
        }
        // Trailing run of "/": none.
        if case .literal(let text)? = pieces.last, let trimmed = droppingTrailingSlashes(text) {
            if trimmed.isEmpty {
                pieces.removeLast()
            } else {
                pieces[pieces.count - 1] = .literal(trimmed)
            }
        }
        guard pieces.count >= 2, case .anyMany = pieces[pieces.count - 1],
            case .literal(let text) = pieces[pieces.count - 2], text.utf8.last == UInt8(ascii: "/")
        else { return [Pattern(pieces: pieces)] }
        // `…/*` without its last segment: the literal loses its `/`, then its trailing run of `/`.
        var shorter = Array(pieces.dropLast(2))
        let trimmed = droppingTrailingSlashes(text) ?? text
        if !trimmed.isEmpty { shorter.append(.literal(trimmed)) }
        return [Pattern(pieces: pieces), Pattern(pieces: shorter)]
    }

    /// Removes the trailing run of `/` from URL path bytes (SPEC 6); an empty or all-slash path
    /// becomes empty, which is what the root pattern `/` compiles to.
    @inline(__always)
    public static func trimmedPathLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        trimmedPathLength(ByteView(bytes))
    }

    /// As `trimmedPathLength(_:)`, the bytes lent as a view.
    @inline(__always)
    static func trimmedPathLength(_ bytes: ByteView) -> Int {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end
    }

    /// `text` with its leading run of `/` made exactly one `/`; `nil` when it already is.
    static func withOneLeadingSlash(_ text: String) -> String? {
        var slashes = 0
        for byte in text.utf8 {
            guard byte == UInt8(ascii: "/") else { break }
            slashes += 1
        }
        switch slashes {
        case 0: return "/" + text
        case 1: return nil
        default: return String(Substring(text.utf8.dropFirst(slashes - 1)))
        }
    }

    /// `text` without its trailing run of `/` (what `trimmedPathLength` keeps of a URL path);
    /// `nil` when it has none.
    static func droppingTrailingSlashes(_ text: String) -> String? {
        guard text.utf8.last == UInt8(ascii: "/") else { return nil }
        var text = text
        return text.withUTF8 { buffer in
            let bytes = ByteView(buffer)
            return bytes.string(0..<trimmedPathLength(bytes))
        }
    }

    /// Joins adjacent literals and drops empty ones, so the leading and trailing literal runs are
    /// one piece each and "ends with `/*`" is a structural check. The parser's output is already
    /// in this form and comes back as is.
    static func merged(_ pieces: [Pattern.Piece]) -> [Pattern.Piece] {
        if isMerged(pieces) { return pieces }
        var result: [Pattern.Piece] = []
        for piece in pieces {
            if case .literal(let text) = piece {
                if text.isEmpty { continue }
                if case .literal(let previous)? = result.last {
                    result[result.count - 1] = .literal(previous + text)
                    continue
                }
            }
            if piece == .anyMany, result.last == .anyMany { continue }
            result.append(piece)
        }
        return result
    }

    /// Whether `merged` would leave `pieces` unchanged: no empty literal, no two literals or two
    /// `*` in a row.
    static func isMerged(_ pieces: [Pattern.Piece]) -> Bool {
        var previousIsLiteral = false
        var previousIsAnyMany = false
        for piece in pieces {
            switch piece {
            case .literal(let text):
                if text.isEmpty || previousIsLiteral { return false }
                previousIsLiteral = true
                previousIsAnyMany = false
            case .anyMany:
                if previousIsAnyMany { return false }
                previousIsLiteral = false
                previousIsAnyMany = true
            case .anyOne, .variable:
                previousIsLiteral = false
                previousIsAnyMany = false
            }
        }
        return true
    }
}
