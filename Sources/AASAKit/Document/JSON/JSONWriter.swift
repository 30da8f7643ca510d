/// Compact JSON output for `JSONValue`, and the string escaper the CLI's record writer reuses.
///
/// Output is compact (no spaces or newlines), keeps object members in their stored order unless
/// asked to sort, and writes numbers as their stored source text. Strings are escaped minimally:
/// `"`, `\` and control characters, plus U+2028/U+2029 so the output is also safe to embed in
/// JavaScript, the C1 controls (U+0085 breaks lines for Python's `splitlines`, U+009B starts a
/// terminal's escape sequence) and the bidirectional overrides and isolates, so that a record
/// shown by `cat` or cut by any line splitter is what it says. Everything else, including
/// non-ASCII, is written as UTF-8 (DEL too: it is ASCII that the writers' word scans pass).
///
/// The writer walks values with an explicit stack, like the parser, so a value nested deeper than
/// any thread stack still serialises.
///
/// Not done here: pretty-printing, and validating `.number` text (the writer trusts it; values
/// from `JSONParser` always hold valid number text).
public enum JSONWriter {
    /// Appends the compact JSON text of `value` to `buffer`.
    ///
    /// - Parameter sortedKeys: Sort object members by key (Unicode scalar order, which is UTF-8
    ///   byte order); members with the same key keep their relative order.
    /// - Complexity: O(*n*) in the size of the output, plus O(*k* log *k*) per object of *k*
    ///   members when sorting.
    public static func append(
        _ value: JSONValue, sortedKeys: Bool = false, to buffer: inout [UInt8]
    ) {
        var work: [Step] = [.value(value)]
        while let step = work.popLast() {
            switch step {
            case .byte(let byte):
                buffer.append(byte)
            case .key(let key):
                appendEscaped(key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
            case .value(let value):
                switch value {
                case .null:
                    buffer.append(contentsOf: "null".utf8)
                case .bool(let flag):
                    buffer.append(contentsOf: (flag ? "true" : "false").utf8)
                case .number(let text):
                    buffer.append(contentsOf: text.utf8)
                case .string(let text):
                    appendEscaped(text, to: &buffer)
                case .array(let elements):
                    buffer.append(UInt8(ascii: "["))
                    // Pushed in reverse so they pop in order.
                    work.append(.byte(UInt8(ascii: "]")))
                    for index in elements.indices.reversed() {
                        work.append(.value(elements[index]))
                        if index > elements.startIndex {
                            work.append(.byte(UInt8(ascii: ",")))
                        }
                    }
                case .object(let object):
                    buffer.append(UInt8(ascii: "{"))
                    work.append(.byte(UInt8(ascii: "}")))
                    let members = sortedKeys ? sorted(object.members) : object.members
                    for index in members.indices.reversed() {
                        work.append(.value(members[index].value))
                        work.append(.key(members[index].key))
                        if index > members.startIndex {
                            work.append(.byte(UInt8(ascii: ",")))
                        }
                    }
                }
            }
        }
    }

    /// Returns `string` as a JSON string literal, quotes included.
    ///
    /// ```swift
    /// JSONWriter.escape("a\"b\n")  // "\"a\\\"b\\n\""
    /// ```
    public static func escape(_ string: String) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(string.utf8.count + 2)
        appendEscaped(string, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends `string` to `buffer` as a JSON string literal, quotes included.
    ///
    /// This is the hot path for streaming output: runs of bytes that need no escape are copied
    /// in bulk, and plain ASCII is checked eight bytes at a time.
    ///
    /// - Complexity: O(*n*) in the UTF-8 length of `string`.
    public static func appendEscaped(_ string: String, to buffer: inout [UInt8]) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            appendEscaped(utf8: ByteView(bytes), to: &buffer)
        }
        if done == nil {
            var copy = string
            copy.withUTF8 { appendEscaped(utf8: ByteView($0), to: &buffer) }
        }
    }

    /// Appends `string` to `buffer` as a JSON string literal, quotes included. See
    /// `appendEscaped(_:to:)` for `String`.
    public static func appendEscaped(_ string: Substring, to buffer: inout [UInt8]) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            appendEscaped(utf8: ByteView(bytes), to: &buffer)
        }
        if done == nil {
            var copy = string
            copy.withUTF8 { appendEscaped(utf8: ByteView($0), to: &buffer) }
        }
    }

    /// Appends well-formed UTF-8 `bytes` to `buffer` as a JSON string literal, quotes included.
    public static func appendEscaped(utf8 bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        appendEscaped(utf8: ByteView(bytes), to: &buffer)
    }

    /// As `appendEscaped(utf8:to:)`, the bytes lent as a view.
    static func appendEscaped(utf8 bytes: ByteView, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        // Every read is at `index < count` (word loads at `index + 8 <= count`), and the runs
        // copied lie in `runStart...index <= count`.
        let count = bytes.count
        var runStart = 0
        var index = 0
        while index < count {
            // PERF: skip eight plain ASCII bytes at a time (shared check with the parser).
            while count - index >= 8
                && !JSONByteScan.needsAttention(bytes.word(at: index))
            {
                index += 8
            }
            guard index < count else { break }
            let byte = bytes[index]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xC2 && byte != 0xE2 {
                index += 1
                continue
            }
            let escape: StaticString
            var width = 1
            // The \uXXXX written for an escape that is not one of the short ones: the scalar's
            // high and low bytes.
            var high: UInt8 = 0
            var low = byte
            switch byte {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0xC2:
                // The C1 controls U+0080 to U+009F (C2 80 to C2 9F): terminals obey some, and
                // U+0085 is a line break to Python's `splitlines`. Other C2 sequences pass.
                guard count - index >= 2, bytes[index + 1] <= 0x9F else {
                    index += 1
                    continue
                }
                escape = ""
                low = bytes[index + 1]
                width = 2
            case 0xE2:
                // U+2028 and U+2029 (E2 80 A8, E2 80 A9), line breaks to JavaScript, and the
                // bidirectional embeddings, overrides (U+202A to U+202E) and isolates (U+2066 to
                // U+2069), which reorder what a terminal shows after them. Other E2 sequences pass.
                guard count - index >= 3 else {
                    index += 1
                    continue
                }
                let middle = bytes[index + 1]
                let last = bytes[index + 2]
                guard (middle == 0x80 && (0xA8...0xAE).contains(last)) || (middle == 0x81 && (0xA6...0xA9).contains(last)) else {
                    index += 1
                    continue
                }
                escape = ""
                high = 0x20
                low = (middle & 0x03) << 6 | (last & 0x3F)
                width = 3
            default:
                escape = ""  // Other control characters: \u00XX, written below.
            }
            buffer.append(contentsOf: bytes[runStart..<index])
            if escape.utf8CodeUnitCount > 0 {
                escape.withUTF8Buffer { buffer.append(contentsOf: $0) }
            } else {
                // Lower-case hex digits: 0-9 are 0x30 + n, a-f are 0x57 + n.
                buffer.append(contentsOf: "\\u".utf8)
                for nibble in [high >> 4, high & 0x0F, low >> 4, low & 0x0F] {
                    buffer.append(nibble < 10 ? 0x30 + nibble : 0x57 + nibble)
                }
            }
            index += width
            runStart = index
        }
        buffer.append(contentsOf: bytes[runStart..<count])
        buffer.append(UInt8(ascii: "\""))
    }

    /// One pending piece of output on the writer's explicit stack.
    private enum Step {
        case value(JSONValue)
        case key(String)
        case byte(UInt8)
    }

    /// Members sorted by key in UTF-8 byte order; ties keep source order (the sort key includes
    /// the original index, so this does not depend on sort stability).
    private static func sorted(
        _ members: [(key: String, value: JSONValue)]
    ) -> [(key: String, value: JSONValue)] {
        members.enumerated()
            .sorted { lhs, rhs in
                if lhs.element.key.utf8.elementsEqual(rhs.element.key.utf8) {
                    return lhs.offset < rhs.offset
                }
                return lhs.element.key.utf8.lexicographicallyPrecedes(rhs.element.key.utf8)
            }
            .map { $0.element }
    }
}

extension JSONValue {
    /// The value as compact JSON text (no spaces), e.g. `{"a":[1,true,null]}`.
    ///
    /// - Parameter sortedKeys: Sort object members by key, for stable output across documents
    ///   that differ only in key order.
    /// - Complexity: O(*n*) in the size of the output.
    public func serialized(sortedKeys: Bool = false) -> String {
        var buffer: [UInt8] = []
        JSONWriter.append(self, sortedKeys: sortedKeys, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
