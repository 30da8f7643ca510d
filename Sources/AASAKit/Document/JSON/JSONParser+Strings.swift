/// Strings: escapes, surrogate pairs and UTF-8 validation.
///
/// Strings are the bulk of an AASA file (paths, app IDs), so this is the hot part of the parser:
/// plain ASCII is skipped eight bytes at a time and a run without escapes becomes a `String` in one
/// call. Only a string containing an escape is assembled in the reusable `scratch` buffer.
extension JSONParser.Scanner {
    // MARK: Strings

    /// Parses a string whose opening quote is at `pos`, leaving `pos` after the closing quote.
    ///
    /// Runs without escapes become a `String` straight from the input bytes in one call; only a
    /// string with an escape goes through `scratch`. ASCII is skipped eight bytes at a time.
    mutating func parseString() throws(JSONParseError) -> String {
        let open = pos
        pos += 1
        var runStart = pos
        var hasEscapes = false
        while true {
            // PERF: word-at-a-time skip of plain ASCII; see `JSONByteScan`.
            while end - pos >= 8 {
                let word = bytes.word(at: pos)
                if JSONByteScan.needsAttention(word) { break }
                pos += 8
            }
            guard pos < end else {
                let (line, column) = location(of: open)
                throw error(
                    .unexpectedEnd, at: pos,
                    "unexpected end of input inside the string that starts at line \(line), "
                        + "column \(column)"
                )
            }
            let byte = input(at: pos)
            if byte == Byte.quote {
                let run = bytes[runStart..<pos]
                pos += 1
                if !hasEscapes {
                    return String(decoding: run.buffer, as: UTF8.self)
                }
                scratch.append(contentsOf: run)
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == Byte.backslash {
                if !hasEscapes {
                    hasEscapes = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: bytes[runStart..<pos])
                try decodeEscape()
                runStart = pos
            } else if byte < 0x20 {
                throw error(
                    .controlCharacterInString, at: pos,
                    "unescaped control character \(Self.scalarName(UInt32(byte))) in a string"
                        + Self.escapeHint(byte)
                )
            } else if byte < 0x80 {
                pos += 1
            } else {
                pos += try utf8SequenceLength(at: pos)
            }
        }
    }

    /// Decodes the escape whose backslash is at `pos` into `scratch` and moves past it.
    mutating func decodeEscape() throws(JSONParseError) {
        let start = pos
        guard pos + 1 < end else {
            throw error(.unexpectedEnd, at: end, "unexpected end of input inside an escape")
        }
        let byte = input(at: pos + 1)
        let simple: UInt8?
        switch byte {
        case Byte.quote: simple = Byte.quote
        case Byte.backslash: simple = Byte.backslash
        case Byte.slash: simple = Byte.slash
        case Byte.b: simple = 0x08
        case Byte.f: simple = 0x0C
        case Byte.n: simple = Byte.lineFeed
        case Byte.r: simple = Byte.carriageReturn
        case Byte.t: simple = Byte.tab
        case Byte.u: simple = nil
        case Byte.singleQuote:
            throw error(
                .invalidEscape, at: start,
                "invalid escape \\' (a single quote needs no escape in JSON)")
        default:
            if byte > 0x20 && byte < 0x7F {
                throw error(
                    .invalidEscape, at: start,
                    "invalid escape '\\\(Character(Unicode.Scalar(byte)))'")
            }
            try rejectInvalidUTF8(at: pos + 1)
            throw error(
                .invalidEscape, at: start,
                "invalid escape: backslash followed by \(describe(at: pos + 1))")
        }
        if let simple {
            scratch.append(simple)
            pos += 2
            return
        }
        var scalar = try readHex4(at: pos + 2, escapeStart: start)
        pos += 6
        if scalar >= 0xDC00 && scalar <= 0xDFFF {
            throw error(
                .unpairedSurrogate, at: start,
                "unpaired low surrogate \\u\(Self.hex4(scalar)) in a string")
        }
        if scalar >= 0xD800 && scalar <= 0xDBFF {
            guard pos + 1 < end, input(at: pos) == Byte.backslash, input(at: pos + 1) == Byte.u
            else {
                if pos >= end {
                    throw error(
                        .unexpectedEnd, at: end, "unexpected end of input inside a string")
                }
                throw error(
                    .unpairedSurrogate, at: start,
                    "unpaired high surrogate \\u\(Self.hex4(scalar)) in a string")
            }
            let low = try readHex4(at: pos + 2, escapeStart: pos)
            guard low >= 0xDC00 && low <= 0xDFFF else {
                throw error(
                    .unpairedSurrogate, at: start,
                    "high surrogate \\u\(Self.hex4(scalar)) is not followed by a low surrogate")
            }
            pos += 6
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        appendUTF8(scalar)
    }

    /// Reads the four hex digits of a `\u` escape starting at `offset`.
    func readHex4(at offset: Int, escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + 4) {
            guard index < end else {
                throw error(
                    .unexpectedEnd, at: end, "unexpected end of input inside a \\u escape")
            }
            let byte = input(at: index)
            let digit: UInt8
            switch byte {
            case Byte.digit0...Byte.digit9: digit = byte - Byte.digit0
            case Byte.a...Byte.f: digit = byte - Byte.a + 10
            case Byte.capitalA...Byte.capitalF: digit = byte - Byte.capitalA + 10
            default:
                throw error(
                    .invalidUnicodeEscape, at: escapeStart,
                    "\\u must be followed by four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Appends a scalar (never a surrogate) to `scratch` as UTF-8.
    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: UTF-8 validation

    /// The length of the well-formed UTF-8 sequence at `offset`, or `nil`
    /// (`ByteView.utf8SequenceLength(at:)`).
    @inline(__always)
    func validSequenceLength(at offset: Int) -> Int? { bytes.utf8SequenceLength(at: offset) }

    /// Validates the sequence at `offset` and returns its length, or throws `invalidUTF8`.
    @inline(__always)
    func utf8SequenceLength(at offset: Int) throws(JSONParseError) -> Int {
        guard let length = validSequenceLength(at: offset) else {
            throw error(
                .invalidUTF8, at: offset, "invalid UTF-8 byte 0x\(Self.hex2(input(at: offset)))"
            )
        }
        return length
    }

    /// Throws `invalidUTF8` when the byte at `offset` does not start a valid sequence, so a bad
    /// byte outside a string is reported as bad encoding rather than as an unexpected character.
    func rejectInvalidUTF8(at offset: Int) throws(JSONParseError) {
        if let invalid = invalidUTF8Error(at: offset) {
            throw invalid
        }
    }

    func invalidUTF8Error(at offset: Int) -> JSONParseError? {
        guard offset < end, validSequenceLength(at: offset) == nil else { return nil }
        return error(
            .invalidUTF8, at: offset, "invalid UTF-8 byte 0x\(Self.hex2(input(at: offset)))")
    }
}

// MARK: - Shared byte scanning

/// Word-at-a-time checks shared by the parser and `JSONWriter`.
enum JSONByteScan {
    /// Whether any of the eight bytes in `word` is a quote, a backslash, a control character
    /// (< 0x20) or non-ASCII (≥ 0x80), i.e. whether a string scan must look at them one by one.
    ///
    /// Uses the classic "has zero byte" / "has byte less than" bit tricks: exact as a yes/no
    /// answer, which is all the callers need. Byte order does not matter.
    // PERF: release build, ad-hoc harness parsing 100 strings of 1 MB ASCII each: 125 ms with a
    // byte loop, 85 ms with this check (about 1.5x); about 1.3x on a 100 MB array of 60-byte
    // strings, where allocating the Strings dominates.
    @inline(__always)
    static func needsAttention(_ word: UInt64) -> Bool {
        attentionMarks(word) != 0
    }

    /// Nonzero exactly when `needsAttention(word)`: its high bits, before the comparison, so
    /// that a caller can test several words with one branch.
    @inline(__always)
    static func attentionMarks(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highBits
    }
}
