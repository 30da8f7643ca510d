/// The slash rules of SPEC 6, applied to a path pattern's AST.
///
/// The pattern's leading run of `/` collapses to one (and a pattern without a leading `/` gets
/// one); the trailing run of `/` is dropped (the matcher drops it from the URL path too); runs of
/// `*` are already one piece. A pattern that then ends in `/*` also matches the path without that
/// segment, so it yields a second alternative: `/buy/*`, `/buy/**`, `/buy//*` and `/buy/*/` all
/// also match `/buy`. Only one segment is removed: `/a/*/*` does not match `/a`.
public enum PathNormalization {
    /// The alternatives a path pattern stands for (one or two), each normalised.
    public static func alternatives(of pattern: Pattern) -> [Pattern] {
        var pieces = pattern.pieces
        // Leading run of "/": strip it, then put back exactly one.
        while case .literal(let text)? = pieces.first {
            // Scalar-wise, never grapheme-wise: "/" followed by a combining mark is one
            // Character but still starts with the scalar "/".
            let stripped = text.unicodeScalars.drop { $0 == "/" }
            if stripped.isEmpty {
                pieces.removeFirst()
            } else {
                pieces[0] = .literal(String(Substring(stripped)))
                break
            }
        }
        pieces.insert(.literal("/"), at: 0)
        pieces = merged(pieces)
        pieces = droppingTrailingSlashes(pieces)
        var result = [Pattern(pieces: pieces)]
        if pieces.last == .anyMany, pieces.count >= 2, case .literal(let text) = pieces[pieces.count - 2],
            text.unicodeScalars.last == "/"
        {
            var shorter = Array(pieces.dropLast(2))
            shorter.append(.literal(String(Substring(text.unicodeScalars.dropLast()))))
            result.append(Pattern(pieces: droppingTrailingSlashes(merged(shorter))))
        }
        return result
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

    static func droppingTrailingSlashes(_ pieces: [Pattern.Piece]) -> [Pattern.Piece] {
        var pieces = pieces
        while case .literal(let text)? = pieces.last {
            var trimmed = text.unicodeScalars[...]
            while trimmed.last == "/" { trimmed = trimmed.dropLast() }
            if trimmed.isEmpty {
                pieces.removeLast()
            } else {
                pieces[pieces.count - 1] = .literal(String(Substring(trimmed)))
                break
            }
        }
        return pieces
    }

    /// Joins adjacent literals and drops empty ones, so "ends with `/*`" is a structural check.
    static func merged(_ pieces: [Pattern.Piece]) -> [Pattern.Piece] {
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
}
