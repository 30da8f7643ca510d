/// Error construction: positions (line and column) and the specific human messages.
///
/// Nothing here runs until the parser has already failed, so it favours clear messages over
/// speed: the line and column are found by rescanning the input up to the error.
extension JSONParser.Scanner {
    /// Explains a byte that cannot start a value: a stray word, a quote of the wrong kind, a
    /// comment, a misplaced bracket.
    func unexpectedInValuePosition() -> JSONParseError {
        let byte = input(at: pos)
        switch byte {
        case Byte.singleQuote:
            return error(
                .unexpectedCharacter, at: pos,
                "single quotes are not allowed; strings use double quotes")
        case Byte.slash:
            return error(.unexpectedCharacter, at: pos, "comments are not allowed in JSON")
        case Byte.plus:
            return error(.invalidNumber, at: pos, "a number cannot start with '+'")
        case Byte.period:
            return error(.invalidNumber, at: pos, "a number cannot start with '.'")
        case Byte.rightBracket, Byte.rightBrace, Byte.comma, Byte.colon:
            return error(
                .unexpectedCharacter, at: pos, "expected a value, found \(describe(at: pos))")
        default:
            break
        }
        if Self.isWordByte(byte) {
            return badWordError()
        }
        if byte >= 0x80 {
            if let invalid = invalidUTF8Error(at: pos) {
                return invalid
            }
            // U+201C / U+201D, pasted from a word processor: E2 80 9C / E2 80 9D.
            if byte == 0xE2 && pos + 2 < end && input(at: pos + 1) == 0x80
                && (input(at: pos + 2) == 0x9C || input(at: pos + 2) == 0x9D)
            {
                return error(
                    .unexpectedCharacter, at: pos,
                    "curly quotes are not allowed; strings use straight double quotes")
            }
        }
        return error(
            .unexpectedCharacter, at: pos, "expected a value, found \(describe(at: pos))")
    }

    /// The error for a bare word (`NaN`, `True`, `undefined`, a truncated `tru`) at `pos`.
    func badWordError() -> JSONParseError {
        var wordEnd = pos
        while wordEnd < end && wordEnd - pos < 32 && Self.isWordByte(input(at: wordEnd)) {
            wordEnd += 1
        }
        let word = bytes.string(pos..<wordEnd)
        if wordEnd == end && ["true", "false", "null"].contains(where: { $0.hasPrefix(word) }) {
            return error(.unexpectedEnd, at: end, "unexpected end of input inside '\(word)'")
        }
        switch word {
        case "NaN", "Infinity":
            return error(.invalidLiteral, at: pos, "\(word) is not allowed in JSON")
        default:
            break
        }
        let lower = word.lowercased()
        if lower == "true" || lower == "false" || lower == "null" {
            return error(
                .invalidLiteral, at: pos,
                "'\(word)' is not a JSON literal; did you mean '\(lower)'?")
        }
        return error(.invalidLiteral, at: pos, "unexpected '\(word)'; expected a value")
    }

    // MARK: Errors

    /// Builds an error at `offset`, working out the line and column only now that one is needed.
    func error(_ kind: JSONParseError.Kind, at offset: Int, _ message: String)
        -> JSONParseError
    {
        let (line, column) = location(of: offset)
        return JSONParseError(
            kind: kind, offset: offset, line: line, column: column, message: message)
    }

    /// Whether the byte at `index` ends a line: LF, or a CR not followed by LF (CRLF ends at its LF).
    func endsLine(at index: Int) -> Bool {
        let byte = input(at: index)
        return byte == Byte.lineFeed || (byte == Byte.carriageReturn && !(index + 1 < end && input(at: index + 1) == Byte.lineFeed))
    }

    /// The 1-based line and column of `offset`. Lines end at LF, CRLF or a lone CR; columns count
    /// Unicode scalars (not bytes), and the BOM is not a column.
    func location(of offset: Int) -> (line: Int, column: Int) {
        let target = min(offset, end)
        var line = 1
        var lineStart = bomLength
        var index = bomLength
        while index < target {
            if endsLine(at: index) {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        var column = 1
        index = lineStart
        while index < target {
            if input(at: index) & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    /// A short human description of the character at `offset`, e.g. `'x'`, `U+000A`,
    /// `'é' (U+00E9)`.
    func describe(at offset: Int) -> String {
        guard offset < end else { return "the end of input" }
        let byte = input(at: offset)
        if byte > 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        if byte < 0x80 {
            return Self.scalarName(UInt32(byte))
        }
        guard let length = validSequenceLength(at: offset) else {
            return "byte 0x\(Self.hex2(byte))"
        }
        let text = bytes.string(offset..<(offset + length))
        let scalar = text.unicodeScalars.first ?? "\0"
        guard Self.showsByItself(scalar) else { return Self.scalarName(scalar.value) }
        return "'\(text)' (\(Self.scalarName(scalar.value)))"
    }

    /// Whether `scalar` quoted alone shows what it is. Not a control (a terminal obeys a C1
    /// control), a format character (a second byte-order mark U+FEFF, a zero-width space, a
    /// bidirectional override), a separator other than U+0020 (a no-break space looks like the
    /// space JSON allows, a line separator breaks the line), a combining mark (it lands on the
    /// quote) or a code point with no glyph: between quotes the reader would see nothing, or
    /// something else, so those are named by their code point alone.
    static func showsByItself(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark, .spacingMark,
            .enclosingMark, .privateUse, .surrogate, .unassigned:
            return false
        default:
            return !scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    static func scalarName(_ scalar: UInt32) -> String {
        "U+" + hex4(scalar)
    }

    static func escapeHint(_ byte: UInt8) -> String {
        switch byte {
        case Byte.lineFeed: return "; write it as \\n"
        case Byte.carriageReturn: return "; write it as \\r"
        case Byte.tab: return "; write it as \\t"
        default: return "; write it as \\u\(hex4(UInt32(byte)))"
        }
    }

    static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func hex2(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }
}
