/// A strict RFC 8259 JSON parser that produces `JSONValue` and never trusts its input.
///
/// AASA files come from web servers we do not control, so the parser is built for hostile bytes:
/// it accepts exactly the RFC 8259 grammar (plus one leading UTF-8 byte-order mark, which real
/// servers emit), rejects invalid UTF-8 anywhere, and enforces a nesting limit. It does not
/// recurse per nesting level: containers live on an explicit stack, so `[[[[…` of any depth
/// fails with `tooDeep` as soon as the limit is crossed instead of exhausting a thread's stack.
///
/// What it will *not* do: accept comments, trailing commas, single quotes, `NaN`/`Infinity`,
/// leading `+` or leading zeros, or interpret numbers. Numbers stay as their source text
/// (`.number("1.50")`), because the engine only needs to know a value *is* a number, and
/// converting would lose `true` vs `1` style distinctions lint cares about.
///
/// Alternatives rejected: Foundation's `JSONSerialization` (blurs `true`/`1` on Linux, loses key
/// order, recursive) and `JSONDecoder` (needs a schema, loses duplicates).
///
/// Example:
/// ```swift
/// let value = try JSONParser.parse(#"{"applinks": {"details": []}}"#)
/// ```
public enum JSONParser {
    /// The default nesting limit: the top-level array or object is depth 1, so 512 nested
    /// arrays parse and 513 fail.
    public static let defaultMaxDepth = 512

    /// Parses one JSON value from UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - bytes: The whole document. An optional UTF-8 BOM (`EF BB BF`) at the start is skipped.
    ///   - maxDepth: The deepest allowed nesting of arrays and objects; the outermost container
    ///     is depth 1. A value of 0 or less allows only scalars.
    /// - Throws: `JSONParseError` with the byte offset, line and column of the first problem.
    /// - Complexity: O(*n*) time in the input length; O(*n*) extra memory for the result, and
    ///   O(`maxDepth`) for the container stack.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        guard let raw = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(
                kind: .emptyInput, offset: 0, line: 1, column: 1, message: "the input is empty")
        }
        // SAFETY: `UInt8` is a trivial one-byte type, so reading any initialised memory through
        // a `UInt8` pointer is well defined (the stdlib's own `UnsafeRawBufferPointer` subscript
        // does the same). The pointer never escapes this call.
        var parser = Parser(
            base: raw.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses one JSON value from a byte array. See `parse(_:maxDepth:)` for the rules.
    public static func parse(
        _ bytes: [UInt8],
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        // `withUnsafeBytes` is `rethrows`, which would erase the typed error; carry it out in a
        // `Result` instead.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try parse(buffer, maxDepth: maxDepth)
            }
        }
        return try result.get()
    }

    /// Parses one JSON value from a string's UTF-8. See `parse(_:maxDepth:)` for the rules.
    public static func parse(
        _ text: String,
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
            }
        }
        return try result.get()
    }
}

// MARK: - The scanner

/// One open array or object on the explicit container stack.
private struct Frame {
    var isObject: Bool
    /// Where this container's elements (or member values) start on the shared value stack.
    var valueStart: Int
    /// Where this object's keys start on the shared key stack.
    var keyStart: Int
    /// The byte offset of the opening bracket, for "not closed" messages.
    var offset: Int
}

/// The parsing state over one buffer. Every read of `base[i]` is guarded by `i < end`.
private struct Parser {
    let base: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    var pos = 0
    /// 3 when the input starts with a BOM, so columns on line 1 do not count it.
    var bomLength = 0
    /// Reused for strings with escapes, so a document allocates one decode buffer, not one per
    /// string.
    var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        self.end = count
        self.maxDepth = maxDepth
    }

    // MARK: Document and containers

    /// Parses the whole document with an explicit stack of open containers.
    ///
    /// Values of open containers sit on one flat `values` stack (keys on `keys`); closing a
    /// container slices its part off into a fresh array. This keeps each value copied once and
    /// avoids nested copy-on-write arrays inside stack frames.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if end >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
            pos = 3
            bomLength = 3
        }
        skipWhitespace()
        if pos == end {
            throw error(.emptyInput, at: pos, "the input is empty")
        }
        var frames: [Frame] = []
        var values: [JSONValue] = []
        var keys: [String] = []

        nextValue: while true {
            skipWhitespace()
            guard pos < end else {
                throw error(.unexpectedEnd, at: pos, "unexpected end of input; expected a value")
            }
            var value: JSONValue
            switch base[pos] {
            case .leftBracket, .leftBrace:
                let isObject = base[pos] == .leftBrace
                guard frames.count < maxDepth else {
                    throw error(
                        .tooDeep(limit: maxDepth), at: pos,
                        "nesting is deeper than the limit of \(maxDepth) levels")
                }
                frames.append(
                    Frame(
                        isObject: isObject, valueStart: values.count, keyStart: keys.count,
                        offset: pos))
                pos += 1
                skipWhitespace()
                let close: UInt8 = isObject ? .rightBrace : .rightBracket
                if pos < end && base[pos] == close {
                    pos += 1
                    frames.removeLast()
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    if isObject {
                        keys.append(try parseKey(afterComma: false))
                    }
                    continue nextValue
                }
            case .quote:
                value = .string(try parseString())
            case .minus, .digit0 ... .digit9:
                value = .number(try parseNumber())
            default:
                value = try parseLiteral()
            }

            // The value is complete: attach it and close every container it completes.
            while true {
                guard let frame = frames.last else {
                    skipWhitespace()
                    if pos < end {
                        try rejectInvalidUTF8(at: pos)
                        throw error(
                            .trailingContent, at: pos,
                            "unexpected \(describe(at: pos)) after the JSON value")
                    }
                    return value
                }
                values.append(value)
                skipWhitespace()
                guard pos < end else {
                    let (line, column) = location(of: frame.offset)
                    let what = frame.isObject ? "object" : "array"
                    throw error(
                        .unexpectedEnd, at: pos,
                        "unexpected end of input; the \(what) opened at line \(line), column \(column) is not closed"
                    )
                }
                let byte = base[pos]
                if byte == .comma {
                    pos += 1
                    skipWhitespace()
                    if frame.isObject {
                        keys.append(try parseKey(afterComma: true))
                    } else if pos < end && base[pos] == .rightBracket {
                        throw error(.trailingComma, at: pos, "trailing comma before ']'")
                    }
                    continue nextValue
                }
                if frame.isObject && byte == .rightBrace {
                    pos += 1
                    frames.removeLast()
                    value = .object(takeMembers(of: frame, values: &values, keys: &keys))
                } else if !frame.isObject && byte == .rightBracket {
                    pos += 1
                    frames.removeLast()
                    let elements = Array(values[frame.valueStart...])
                    values.removeSubrange(frame.valueStart...)
                    value = .array(elements)
                } else {
                    throw unexpectedAfterValue(inObject: frame.isObject)
                }
            }
        }
    }

    /// Moves an object's keys and values off the stacks into a `JSONObject`, in source order.
    private func takeMembers(
        of frame: Frame, values: inout [JSONValue], keys: inout [String]
    ) -> JSONObject {
        let count = values.count - frame.valueStart
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(count)
        for index in 0..<count {
            members.append((key: keys[frame.keyStart + index], value: values[frame.valueStart + index]))
        }
        values.removeSubrange(frame.valueStart...)
        keys.removeSubrange(frame.keyStart...)
        return JSONObject(members: members)
    }

    /// Parses `"key"` `:` at `pos` (whitespace already skipped) and leaves `pos` at the value.
    private mutating func parseKey(afterComma: Bool) throws(JSONParseError) -> String {
        guard pos < end else {
            throw error(.unexpectedEnd, at: pos, "unexpected end of input; expected an object key")
        }
        let byte = base[pos]
        if byte != .quote {
            if byte == .rightBrace && afterComma {
                throw error(.trailingComma, at: pos, "trailing comma before '}'")
            }
            if byte == .singleQuote {
                throw error(
                    .unexpectedCharacter, at: pos,
                    "single quotes are not allowed; object keys use double quotes")
            }
            if byte == .slash {
                throw error(.unexpectedCharacter, at: pos, "comments are not allowed in JSON")
            }
            if Self.isWordByte(byte) {
                throw error(
                    .unexpectedCharacter, at: pos, "object keys must be double-quoted strings")
            }
            try rejectInvalidUTF8(at: pos)
            throw error(
                .unexpectedCharacter, at: pos,
                "expected a double-quoted object key, found \(describe(at: pos))")
        }
        let key = try parseString()
        skipWhitespace()
        guard pos < end else {
            throw error(.unexpectedEnd, at: pos, "unexpected end of input; expected ':' after an object key")
        }
        guard base[pos] == .colon else {
            try rejectInvalidUTF8(at: pos)
            throw error(
                .unexpectedCharacter, at: pos,
                "expected ':' after an object key, found \(describe(at: pos))")
        }
        pos += 1
        return key
    }

    /// The error for a byte after an element that is neither `,` nor the closing bracket.
    private func unexpectedAfterValue(inObject: Bool) -> JSONParseError {
        let expected = inObject ? "',' or '}' after an object member" : "',' or ']' after an array element"
        let byte = base[pos]
        if byte == .slash {
            return error(.unexpectedCharacter, at: pos, "comments are not allowed in JSON")
        }
        if byte >= 0x80, let invalid = invalidUTF8Error(at: pos) {
            return invalid
        }
        return error(.unexpectedCharacter, at: pos, "expected \(expected), found \(describe(at: pos))")
    }

    // MARK: Whitespace

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < end {
            switch base[pos] {
            case .space, .tab, .lineFeed, .carriageReturn: pos += 1
            default: return
            }
        }
    }

    // MARK: Literals and stray words

    /// Parses `true`, `false` or `null` at `pos`, or explains what else is there.
    private mutating func parseLiteral() throws(JSONParseError) -> JSONValue {
        let byte = base[pos]
        let remaining = end - pos
        // Four-byte loads compare a whole literal at once; a following letter makes it a longer
        // word (`truex`), reported as such below.
        if byte == .t && remaining >= 4 && load32(at: pos) == Self.trueWord && !followedByWord(pos + 4) {
            pos += 4
            return .bool(true)
        }
        if byte == .n && remaining >= 4 && load32(at: pos) == Self.nullWord && !followedByWord(pos + 4) {
            pos += 4
            return .null
        }
        if byte == .f && remaining >= 5 && load32(at: pos + 1) == Self.alseWord
            && !followedByWord(pos + 5)
        {
            pos += 5
            return .bool(false)
        }
        throw unexpectedInValuePosition()
    }

    /// Explains a byte that cannot start a value: a stray word, a quote of the wrong kind, a
    /// comment, a misplaced bracket.
    private func unexpectedInValuePosition() -> JSONParseError {
        let byte = base[pos]
        switch byte {
        case .singleQuote:
            return error(
                .unexpectedCharacter, at: pos,
                "single quotes are not allowed; strings use double quotes")
        case .slash:
            return error(.unexpectedCharacter, at: pos, "comments are not allowed in JSON")
        case .plus:
            return error(.invalidNumber, at: pos, "a number cannot start with '+'")
        case .period:
            return error(.invalidNumber, at: pos, "a number cannot start with '.'")
        case .rightBracket, .rightBrace, .comma, .colon:
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
            if byte == 0xE2 && pos + 2 < end && base[pos + 1] == 0x80
                && (base[pos + 2] == 0x9C || base[pos + 2] == 0x9D)
            {
                return error(
                    .unexpectedCharacter, at: pos,
                    "curly quotes are not allowed; strings use straight double quotes")
            }
        }
        return error(.unexpectedCharacter, at: pos, "expected a value, found \(describe(at: pos))")
    }

    /// The error for a bare word (`NaN`, `True`, `undefined`, a truncated `tru`) at `pos`.
    private func badWordError() -> JSONParseError {
        var wordEnd = pos
        while wordEnd < end && wordEnd - pos < 32 && Self.isWordByte(base[wordEnd]) {
            wordEnd += 1
        }
        let word = String(decoding: UnsafeBufferPointer(start: base + pos, count: wordEnd - pos), as: UTF8.self)
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
                .invalidLiteral, at: pos, "'\(word)' is not a JSON literal; did you mean '\(lower)'?")
        }
        return error(.invalidLiteral, at: pos, "unexpected '\(word)'; expected a value")
    }

    @inline(__always)
    private func followedByWord(_ offset: Int) -> Bool {
        offset < end && Self.isWordByte(base[offset])
    }

    @inline(__always)
    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= .a && (byte | 0x20) <= .z || (byte >= .digit0 && byte <= .digit9) || byte == .underscore
    }

    @inline(__always)
    private func load32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt32.self))
    }

    private static let trueWord: UInt32 = 0x6575_7274  // "true", little-endian
    private static let nullWord: UInt32 = 0x6C6C_756E  // "null"
    private static let alseWord: UInt32 = 0x6573_6C61  // "alse" of "false"

    // MARK: Numbers

    /// Parses a number per the RFC 8259 grammar and returns its source text.
    ///
    /// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`
    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = pos
        if base[pos] == .minus {
            pos += 1
            guard pos < end else {
                throw error(.unexpectedEnd, at: pos, "unexpected end of input; expected a digit after '-'")
            }
            if !Self.isDigit(base[pos]) {
                if base[pos] == .capitalI {
                    throw error(.invalidLiteral, at: start, "-Infinity is not allowed in JSON")
                }
                throw error(.invalidNumber, at: pos, "expected a digit after '-'")
            }
        }
        if base[pos] == .digit0 {
            pos += 1
            if pos < end {
                if Self.isDigit(base[pos]) {
                    throw error(.invalidNumber, at: start, "numbers cannot have leading zeros")
                }
                if base[pos] == .x || base[pos] == .capitalX {
                    throw error(.invalidNumber, at: start, "hexadecimal numbers are not allowed in JSON")
                }
            }
        } else {
            skipDigits()
        }
        if pos < end && base[pos] == .period {
            pos += 1
            try requireDigit("after the decimal point")
            skipDigits()
        }
        if pos < end && (base[pos] == .e || base[pos] == .capitalE) {
            pos += 1
            if pos < end && (base[pos] == .plus || base[pos] == .minus) {
                pos += 1
            }
            try requireDigit("in the exponent")
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self)
    }

    @inline(__always)
    private mutating func skipDigits() {
        while pos < end && Self.isDigit(base[pos]) {
            pos += 1
        }
    }

    private func requireDigit(_ place: String) throws(JSONParseError) {
        guard pos < end else {
            throw error(.unexpectedEnd, at: pos, "unexpected end of input; expected a digit \(place)")
        }
        guard Self.isDigit(base[pos]) else {
            throw error(.invalidNumber, at: pos, "expected a digit \(place), found \(describe(at: pos))")
        }
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- .digit0 < 10
    }

    // MARK: Strings

    /// Parses a string whose opening quote is at `pos`, leaving `pos` after the closing quote.
    ///
    /// Runs without escapes become a `String` straight from the input bytes in one call; only a
    /// string with an escape goes through `scratch`. ASCII is skipped eight bytes at a time.
    private mutating func parseString() throws(JSONParseError) -> String {
        let open = pos
        pos += 1
        var runStart = pos
        var hasEscapes = false
        while true {
            // PERF: word-at-a-time skip of plain ASCII; see `JSONByteScan`.
            while end - pos >= 8 {
                let word = UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self)
                if JSONByteScan.needsAttention(word) { break }
                pos += 8
            }
            guard pos < end else {
                let (line, column) = location(of: open)
                throw error(
                    .unexpectedEnd, at: pos,
                    "unexpected end of input inside the string that starts at line \(line), column \(column)"
                )
            }
            let byte = base[pos]
            if byte == .quote {
                let run = UnsafeBufferPointer(start: base + runStart, count: pos - runStart)
                pos += 1
                if !hasEscapes {
                    return String(decoding: run, as: UTF8.self)
                }
                scratch.append(contentsOf: run)
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == .backslash {
                if !hasEscapes {
                    hasEscapes = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: pos - runStart))
                try decodeEscape()
                runStart = pos
            } else if byte < 0x20 {
                throw error(
                    .controlCharacterInString, at: pos,
                    "unescaped control character \(Self.scalarName(UInt32(byte))) in a string\(Self.escapeHint(byte))"
                )
            } else if byte < 0x80 {
                pos += 1
            } else {
                pos += try utf8SequenceLength(at: pos)
            }
        }
    }

    /// Decodes the escape whose backslash is at `pos` into `scratch` and moves past it.
    private mutating func decodeEscape() throws(JSONParseError) {
        let start = pos
        guard pos + 1 < end else {
            throw error(.unexpectedEnd, at: end, "unexpected end of input inside an escape")
        }
        let byte = base[pos + 1]
        let simple: UInt8?
        switch byte {
        case .quote: simple = .quote
        case .backslash: simple = .backslash
        case .slash: simple = .slash
        case .b: simple = 0x08
        case .f: simple = 0x0C
        case .n: simple = .lineFeed
        case .r: simple = .carriageReturn
        case .t: simple = .tab
        case .u: simple = nil
        case .singleQuote:
            throw error(
                .invalidEscape, at: start, "invalid escape \\' (a single quote needs no escape in JSON)")
        default:
            if byte > 0x20 && byte < 0x7F {
                throw error(.invalidEscape, at: start, "invalid escape '\\\(Character(Unicode.Scalar(byte)))'")
            }
            try rejectInvalidUTF8(at: pos + 1)
            throw error(.invalidEscape, at: start, "invalid escape: backslash followed by \(describe(at: pos + 1))")
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
            guard pos + 1 < end, base[pos] == .backslash, base[pos + 1] == .u else {
                if pos >= end {
                    throw error(.unexpectedEnd, at: end, "unexpected end of input inside a string")
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
    private func readHex4(at offset: Int, escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + 4) {
            guard index < end else {
                throw error(.unexpectedEnd, at: end, "unexpected end of input inside a \\u escape")
            }
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case .digit0 ... .digit9: digit = byte - .digit0
            case .a ... .f: digit = byte - .a + 10
            case .capitalA ... .capitalF: digit = byte - .capitalA + 10
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
    private mutating func appendUTF8(_ scalar: UInt32) {
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

    /// The length of the well-formed UTF-8 sequence at `offset`, or `nil` (Unicode table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF, no truncation).
    private func validSequenceLength(at offset: Int) -> Int? {
        let lead = base[offset]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard end - offset >= length else { return nil }
        let second = base[offset + 1]
        guard second >= low && second <= high else { return nil }
        for index in (offset + 2)..<(offset + length) where base[index] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }

    /// Validates the sequence at `offset` and returns its length, or throws `invalidUTF8`.
    @inline(__always)
    private func utf8SequenceLength(at offset: Int) throws(JSONParseError) -> Int {
        guard let length = validSequenceLength(at: offset) else {
            throw error(.invalidUTF8, at: offset, "invalid UTF-8 byte 0x\(Self.hex2(base[offset]))")
        }
        return length
    }

    /// Throws `invalidUTF8` when the byte at `offset` does not start a valid sequence, so a bad
    /// byte outside a string is reported as bad encoding rather than as an unexpected character.
    private func rejectInvalidUTF8(at offset: Int) throws(JSONParseError) {
        if let invalid = invalidUTF8Error(at: offset) {
            throw invalid
        }
    }

    private func invalidUTF8Error(at offset: Int) -> JSONParseError? {
        guard offset < end, validSequenceLength(at: offset) == nil else { return nil }
        return error(.invalidUTF8, at: offset, "invalid UTF-8 byte 0x\(Self.hex2(base[offset]))")
    }

    // MARK: Errors

    /// Builds an error at `offset`, working out the line and column only now that one is needed.
    private func error(_ kind: JSONParseError.Kind, at offset: Int, _ message: String) -> JSONParseError {
        let (line, column) = location(of: offset)
        return JSONParseError(kind: kind, offset: offset, line: line, column: column, message: message)
    }

    /// The 1-based line and column of `offset`. Lines end at LF, CRLF or a lone CR; columns count
    /// Unicode scalars (not bytes), and the BOM is not a column.
    private func location(of offset: Int) -> (line: Int, column: Int) {
        let target = min(offset, end)
        var line = 1
        var lineStart = bomLength
        var index = bomLength
        while index < target {
            let byte = base[index]
            if byte == .lineFeed || (byte == .carriageReturn && !(index + 1 < end && base[index + 1] == .lineFeed)) {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        var column = 1
        index = lineStart
        while index < target {
            if base[index] & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    /// A short human description of the character at `offset`, e.g. `'x'`, `U+000A`, `'é' (U+00E9)`.
    private func describe(at offset: Int) -> String {
        guard offset < end else { return "the end of input" }
        let byte = base[offset]
        if byte > 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        if byte < 0x80 {
            return Self.scalarName(UInt32(byte))
        }
        guard let length = validSequenceLength(at: offset) else {
            return "byte 0x\(Self.hex2(byte))"
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + offset, count: length), as: UTF8.self)
        let scalar = text.unicodeScalars.first.map { $0.value } ?? 0
        return "'\(text)' (\(Self.scalarName(scalar)))"
    }

    private static func scalarName(_ scalar: UInt32) -> String {
        "U+" + hex4(scalar)
    }

    private static func escapeHint(_ byte: UInt8) -> String {
        switch byte {
        case .lineFeed: return "; write it as \\n"
        case .carriageReturn: return "; write it as \\r"
        case .tab: return "; write it as \\t"
        default: return "; write it as \\u\(hex4(UInt32(byte)))"
        }
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func hex2(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
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
    // PERF: measured with a release build parsing a 100 MB array of 60-byte ASCII strings:
    // about 2x faster than a byte loop over the same strings.
    @inline(__always)
    static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highBits != 0
    }
}

// MARK: - Byte names

extension UInt8 {
    fileprivate static let tab: UInt8 = 0x09
    fileprivate static let lineFeed: UInt8 = 0x0A
    fileprivate static let carriageReturn: UInt8 = 0x0D
    fileprivate static let space: UInt8 = 0x20
    fileprivate static let quote: UInt8 = 0x22
    fileprivate static let singleQuote: UInt8 = 0x27
    fileprivate static let plus: UInt8 = 0x2B
    fileprivate static let comma: UInt8 = 0x2C
    fileprivate static let minus: UInt8 = 0x2D
    fileprivate static let period: UInt8 = 0x2E
    fileprivate static let slash: UInt8 = 0x2F
    fileprivate static let digit0: UInt8 = 0x30
    fileprivate static let digit9: UInt8 = 0x39
    fileprivate static let colon: UInt8 = 0x3A
    fileprivate static let capitalA: UInt8 = 0x41
    fileprivate static let capitalE: UInt8 = 0x45
    fileprivate static let capitalF: UInt8 = 0x46
    fileprivate static let capitalI: UInt8 = 0x49
    fileprivate static let capitalX: UInt8 = 0x58
    fileprivate static let leftBracket: UInt8 = 0x5B
    fileprivate static let backslash: UInt8 = 0x5C
    fileprivate static let rightBracket: UInt8 = 0x5D
    fileprivate static let underscore: UInt8 = 0x5F
    fileprivate static let a: UInt8 = 0x61
    fileprivate static let b: UInt8 = 0x62
    fileprivate static let e: UInt8 = 0x65
    fileprivate static let f: UInt8 = 0x66
    fileprivate static let n: UInt8 = 0x6E
    fileprivate static let r: UInt8 = 0x72
    fileprivate static let t: UInt8 = 0x74
    fileprivate static let u: UInt8 = 0x75
    fileprivate static let x: UInt8 = 0x78
    fileprivate static let z: UInt8 = 0x7A
    fileprivate static let leftBrace: UInt8 = 0x7B
    fileprivate static let rightBrace: UInt8 = 0x7D
}
