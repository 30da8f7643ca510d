/// Literals and numbers: the scalar values that are not strings.
///
/// `true`, `false` and `null` are matched with one four-byte compare each. Numbers are checked
/// against the RFC 8259 grammar and kept as source text, because the engine never does
/// arithmetic on them. Explaining a bad word (`NaN`, `True`) is in `JSONParser+Diagnostics.swift`.
extension JSONParser.Scanner {
    // MARK: Literals and stray words

    /// Parses `true`, `false` or `null` at `pos`, or explains what else is there.
    mutating func parseLiteral() throws(JSONParseError) -> JSONValue {
        let byte = input(at: pos)
        let remaining = end - pos
        // Four-byte loads compare a whole literal at once; a following letter makes it a longer
        // word (`truex`), reported as such below.
        if byte == Byte.t && remaining >= 4 && load32(at: pos) == Self.trueWord
            && !followedByWord(pos + 4)
        {
            pos += 4
            return .bool(true)
        }
        if byte == Byte.n && remaining >= 4 && load32(at: pos) == Self.nullWord
            && !followedByWord(pos + 4)
        {
            pos += 4
            return .null
        }
        if byte == Byte.f && remaining >= 5 && load32(at: pos + 1) == Self.alseWord
            && !followedByWord(pos + 5)
        {
            pos += 5
            return .bool(false)
        }
        throw unexpectedInValuePosition()
    }

    @inline(__always)
    func followedByWord(_ offset: Int) -> Bool {
        offset < end && Self.isWordByte(input(at: offset))
    }

    @inline(__always)
    static func isWordByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= Byte.a && (byte | 0x20) <= Byte.z
            || (byte >= Byte.digit0 && byte <= Byte.digit9) || byte == Byte.underscore
    }

    @inline(__always)
    func load32(at offset: Int) -> UInt32 {
        bytes.uint32LittleEndian(at: offset)
    }

    private static let trueWord: UInt32 = 0x6575_7274  // "true", little-endian
    private static let nullWord: UInt32 = 0x6C6C_756E  // "null"
    private static let alseWord: UInt32 = 0x6573_6C61  // "alse" of "false"

    // MARK: Numbers

    /// Parses a number per the RFC 8259 grammar and returns its source text.
    ///
    /// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`
    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = pos
        if input(at: pos) == Byte.minus {
            pos += 1
            guard pos < end else {
                throw error(
                    .unexpectedEnd, at: pos,
                    "unexpected end of input; expected a digit after '-'")
            }
            if !Self.isDigit(input(at: pos)) {
                if input(at: pos) == Byte.capitalI {
                    throw error(.invalidLiteral, at: start, "-Infinity is not allowed in JSON")
                }
                throw error(.invalidNumber, at: pos, "expected a digit after '-'")
            }
        }
        if input(at: pos) == Byte.digit0 {
            pos += 1
            if pos < end {
                if Self.isDigit(input(at: pos)) {
                    throw error(.invalidNumber, at: start, "numbers cannot have leading zeros")
                }
                if input(at: pos) == Byte.x || input(at: pos) == Byte.capitalX {
                    throw error(
                        .invalidNumber, at: start, "hexadecimal numbers are not allowed in JSON"
                    )
                }
            }
        } else {
            skipDigits()
        }
        if pos < end && input(at: pos) == Byte.period {
            pos += 1
            try requireDigit("after the decimal point")
            skipDigits()
        }
        if pos < end && (input(at: pos) == Byte.e || input(at: pos) == Byte.capitalE) {
            pos += 1
            if pos < end && (input(at: pos) == Byte.plus || input(at: pos) == Byte.minus) {
                pos += 1
            }
            try requireDigit("in the exponent")
            skipDigits()
        }
        return bytes.string(start..<pos)
    }

    @inline(__always)
    mutating func skipDigits() {
        while pos < end && Self.isDigit(input(at: pos)) {
            pos += 1
        }
    }

    func requireDigit(_ place: String) throws(JSONParseError) {
        guard pos < end else {
            throw error(
                .unexpectedEnd, at: pos, "unexpected end of input; expected a digit \(place)")
        }
        guard Self.isDigit(input(at: pos)) else {
            throw error(
                .invalidNumber, at: pos, "expected a digit \(place), found \(describe(at: pos))"
            )
        }
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- Byte.digit0 < 10
    }
}
