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
        try parse(ByteView(raw: bytes), maxDepth: maxDepth)
    }

    /// Parses one JSON value from the bytes `view` lends.
    static func parse(_ view: ByteView, maxDepth: Int) throws(JSONParseError) -> JSONValue {
        var parser = try scanner(view, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    private static func scanner(_ view: ByteView, maxDepth: Int) throws(JSONParseError) -> Scanner {
        guard !view.isEmpty else {
            throw JSONParseError(
                kind: .emptyInput, offset: 0, line: 1, column: 1, message: "the input is empty")
        }
        return Scanner(bytes: view, maxDepth: maxDepth)
    }

    /// Parses one JSON value from a byte array. See `parse(_:maxDepth:)` for the rules.
    public static func parse(
        _ bytes: [UInt8],
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        try bytes.withView { (view) throws(JSONParseError) -> JSONValue in try parse(view, maxDepth: maxDepth) }
    }

    /// Parses one JSON value and notes the line each value starts on (an object member's: its
    /// key's), keyed by its position path: at each level the value's place among its container's
    /// elements or members, in source order (`JSONTree.sourceOrder(of:)` gives the same key for a
    /// `JSONPath`). For lint, whose SARIF and GitHub reports point at lines; one pass, no recursion.
    static func parseNotingLines(
        _ bytes: [UInt8], maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> (value: JSONValue, lines: [[Int]: Int]) {
        try bytes.withView { (view) throws(JSONParseError) -> (value: JSONValue, lines: [[Int]: Int]) in
            var parser = try scanner(view, maxDepth: maxDepth)
            parser.valueLines = [:]
            let value = try parser.parseDocument()
            return (value, parser.valueLines ?? [:])
        }
    }

    /// Parses one JSON value from a string's UTF-8. See `parse(_:maxDepth:)` for the rules.
    public static func parse(
        _ text: String,
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        var text = text
        // `withUTF8` is `rethrows`, which would erase the typed error; carry it out in a
        // `Result` instead.
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try parse(ByteView(buffer), maxDepth: maxDepth)
            }
        }
        return try result.get()
    }
}

// MARK: - The scanner

extension JSONParser {
    /// One open array or object on the explicit container stack.
    struct Frame {
        var isObject: Bool
        /// Where this container's elements (or member values) start on the shared value stack.
        var valueStart: Int
        /// Where this object's keys start on the shared key stack.
        var keyStart: Int
        /// The byte offset of the opening bracket, for "not closed" messages.
        var offset: Int
    }

    /// The parsing state over one buffer. Every byte read goes through `input(at:)` after an
    /// `offset < end` check.
    struct Scanner {
        let bytes: ByteView
        let end: Int
        let maxDepth: Int
        var pos = 0
        /// 3 when the input starts with a BOM, so columns on line 1 do not count it.
        var bomLength = 0
        /// Reused for strings with escapes, so a document allocates one decode buffer, not one per
        /// string.
        var scratch: [UInt8] = []
        /// When not nil, the line each value starts on, by position path (`parseNotingLines`).
        var valueLines: [[Int]: Int]?
        /// How far lines have been counted, and the line there: values come in source order.
        private var countedTo = 0
        private var countedLine = 1
        /// Where the last object key read starts: a member's line is its key's, since findings
        /// about a member (an unknown or repeated key) are about the key, and its value may be
        /// lines further on. Stored by `parse` too, which notes no lines: one store per key
        /// (0.24 % more instructions to parse a 125 KB document of 881 rules, callgrind).
        private var keyOffset = 0

        init(bytes: ByteView, maxDepth: Int) {
            self.bytes = bytes
            self.end = bytes.count
            self.maxDepth = maxDepth
        }

        // MARK: Document and containers

        /// Parses the whole document with an explicit stack of open containers.
        ///
        /// Values of open containers sit on one flat `values` stack (keys on `keys`); closing a
        /// container slices its part off into a fresh array. This keeps each value copied once and
        /// avoids nested copy-on-write arrays inside stack frames.
        mutating func parseDocument() throws(JSONParseError) -> JSONValue {
            if end >= 3 && input(at: 0) == 0xEF && input(at: 1) == 0xBB && input(at: 2) == 0xBF {
                pos = 3
                bomLength = 3
            }
            skipWhitespace()
            if pos == end {
                // Nothing but blanks: said at the start, not at the end of the last blank line.
                throw pos == bomLength
                    ? error(.emptyInput, at: pos, "the input is empty")
                    : error(.emptyInput, at: bomLength, "the input holds only whitespace")
            }
            // One allocation each for a typical document's nesting, not one per doubling.
            var frames: [Frame] = []
            frames.reserveCapacity(8)
            var values: [JSONValue] = []
            values.reserveCapacity(16)
            var keys: [String] = []
            keys.reserveCapacity(16)

            nextValue: while true {
                skipWhitespace()
                guard pos < end else {
                    throw error(
                        .unexpectedEnd, at: pos, "unexpected end of input; expected a value")
                }
                if valueLines != nil { noteLine(frames: frames, valueCount: values.count) }
                var value: JSONValue
                switch input(at: pos) {
                case Byte.leftBracket, Byte.leftBrace:
                    let isObject = input(at: pos) == Byte.leftBrace
                    guard frames.count < maxDepth else {
                        throw error(
                            .tooDeep(limit: maxDepth), at: pos,
                            "nesting is deeper than the limit of \(maxDepth) levels (\(Configuration.Limit.jsonDepth.hint))")
                    }
                    frames.append(
                        Frame(
                            isObject: isObject, valueStart: values.count, keyStart: keys.count,
                            offset: pos))
                    pos += 1
                    skipWhitespace()
                    let close: UInt8 = isObject ? Byte.rightBrace : Byte.rightBracket
                    if pos < end && input(at: pos) == close {
                        pos += 1
                        frames.removeLast()
                        value = isObject ? .object(JSONObject()) : .array([])
                    } else {
                        if isObject {
                            keys.append(try parseKey(afterComma: nil))
                        }
                        continue nextValue
                    }
                case Byte.quote:
                    value = .string(try parseString())
                case Byte.minus, Byte.digit0...Byte.digit9:
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
                        let opened = "opened at line \(line), column \(column)"
                        throw error(
                            .unexpectedEnd, at: pos,
                            "unexpected end of input; the \(what) \(opened) is not closed")
                    }
                    let byte = input(at: pos)
                    if byte == Byte.comma {
                        // A trailing comma is reported where it stands, not at the bracket
                        // after it, which may be lines further on (an editor jumps there).
                        let comma = pos
                        pos += 1
                        skipWhitespace()
                        if frame.isObject {
                            keys.append(try parseKey(afterComma: comma))
                        } else if pos < end && input(at: pos) == Byte.rightBracket {
                            throw error(.trailingComma, at: comma, "trailing comma before ']'")
                        }
                        continue nextValue
                    }
                    if frame.isObject && byte == Byte.rightBrace {
                        pos += 1
                        frames.removeLast()
                        value = .object(takeMembers(of: frame, values: &values, keys: &keys))
                    } else if !frame.isObject && byte == Byte.rightBracket {
                        pos += 1
                        frames.removeLast()
                        let elements = Array(values[frame.valueStart...])
                        values.removeLast(values.count - frame.valueStart)
                        value = .array(elements)
                    } else {
                        throw unexpectedAfterValue(inObject: frame.isObject)
                    }
                }
            }
        }

        /// Notes the line of the value starting at `pos` (of its key, in an object): at each open
        /// container, its child's place is the number of values it already holds.
        private mutating func noteLine(frames: [Frame], valueCount: Int) {
            var positions: [Int] = []
            positions.reserveCapacity(frames.count)
            for index in frames.indices {
                let next = index + 1 < frames.count ? frames[index + 1].valueStart : valueCount
                positions.append(next - frames[index].valueStart)
            }
            let start = frames.last?.isObject == true ? keyOffset : pos
            while countedTo < start {
                if endsLine(at: countedTo) { countedLine += 1 }
                countedTo += 1
            }
            valueLines?[positions] = countedLine
        }

        /// Moves an object's keys and values off the stacks into a `JSONObject`, in source order.
        private func takeMembers(
            of frame: Frame, values: inout [JSONValue], keys: inout [String]
        ) -> JSONObject {
            let count = values.count - frame.valueStart
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(count)
            for index in 0..<count {
                members.append(
                    (key: keys[frame.keyStart + index], value: values[frame.valueStart + index]))
            }
            values.removeLast(count)
            keys.removeLast(keys.count - frame.keyStart)
            return JSONObject(members: members)
        }

        /// Parses `"key"` `:` at `pos` (whitespace already skipped) and leaves `pos` at the value.
        private mutating func parseKey(afterComma comma: Int?) throws(JSONParseError) -> String {
            keyOffset = pos
            guard pos < end else {
                throw error(
                    .unexpectedEnd, at: pos, "unexpected end of input; expected an object key")
            }
            let byte = input(at: pos)
            if byte != Byte.quote {
                if byte == Byte.rightBrace, let comma {
                    throw error(.trailingComma, at: comma, "trailing comma before '}'")
                }
                if byte == Byte.singleQuote {
                    throw error(
                        .unexpectedCharacter, at: pos,
                        "single quotes are not allowed; object keys use double quotes")
                }
                if byte == Byte.slash {
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
                throw error(
                    .unexpectedEnd, at: pos,
                    "unexpected end of input; expected ':' after an object key")
            }
            guard input(at: pos) == Byte.colon else {
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
            let expected =
                inObject ? "',' or '}' after an object member" : "',' or ']' after an array element"
            let byte = input(at: pos)
            if byte == Byte.slash {
                return error(.unexpectedCharacter, at: pos, "comments are not allowed in JSON")
            }
            if byte >= 0x80, let invalid = invalidUTF8Error(at: pos) {
                return invalid
            }
            return error(
                .unexpectedCharacter, at: pos, "expected \(expected), found \(describe(at: pos))")
        }

        /// The input byte at `offset`. Callers check `offset < end` first (each call site reads
        /// `pos < end && …` or is past such a guard); `BufferView` asserts it.
        @inline(__always)
        func input(at offset: Int) -> UInt8 {
            bytes[offset]
        }

        // MARK: Whitespace

        @inline(__always)
        mutating func skipWhitespace() {
            while pos < end {
                switch input(at: pos) {
                case Byte.space, Byte.tab, Byte.lineFeed, Byte.carriageReturn: pos += 1
                default: return
                }
            }
        }
    }
}

// MARK: - Byte names

extension JSONParser.Scanner {
    /// The bytes the grammar names, nested here so they cannot clash with other files' names.
    enum Byte {
        static let tab: UInt8 = 0x09
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let quote: UInt8 = 0x22
        static let singleQuote: UInt8 = 0x27
        static let plus: UInt8 = 0x2B
        static let comma: UInt8 = 0x2C
        static let minus: UInt8 = 0x2D
        static let period: UInt8 = 0x2E
        static let slash: UInt8 = 0x2F
        static let digit0: UInt8 = 0x30
        static let digit9: UInt8 = 0x39
        static let colon: UInt8 = 0x3A
        static let capitalA: UInt8 = 0x41
        static let capitalE: UInt8 = 0x45
        static let capitalF: UInt8 = 0x46
        static let capitalI: UInt8 = 0x49
        static let capitalX: UInt8 = 0x58
        static let leftBracket: UInt8 = 0x5B
        static let backslash: UInt8 = 0x5C
        static let rightBracket: UInt8 = 0x5D
        static let underscore: UInt8 = 0x5F
        static let a: UInt8 = 0x61
        static let b: UInt8 = 0x62
        static let e: UInt8 = 0x65
        static let f: UInt8 = 0x66
        static let n: UInt8 = 0x6E
        static let r: UInt8 = 0x72
        static let t: UInt8 = 0x74
        static let u: UInt8 = 0x75
        static let x: UInt8 = 0x78
        static let z: UInt8 = 0x7A
        static let leftBrace: UInt8 = 0x7B
        static let rightBrace: UInt8 = 0x7D
    }
}
