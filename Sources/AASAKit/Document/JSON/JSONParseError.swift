/// Why and where `JSONParser` rejected its input.
///
/// The parser stops at the first problem, so there is exactly one error per failed parse. It
/// carries a coarse `kind` for code to branch on, the position (byte `offset`, and 1-based `line`
/// and `column` for people) and a specific `message` ("trailing comma before '}'").
///
/// ```swift
/// do { _ = try JSONParser.parse("[1,]") } catch {
///     print(error)  // invalid JSON at line 1, column 4: trailing comma before ']'
/// }
/// ```
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of problem; the `message` says more.
    public enum Kind: Sendable, Equatable {
        /// The input is empty, or holds only whitespace and a byte-order mark.
        case emptyInput
        /// The input ended inside a value, string, or open container.
        case unexpectedEnd
        /// A byte that the grammar does not allow here (a missing comma, a single quote, a
        /// comment, an unquoted key, …).
        case unexpectedCharacter
        /// A `,` directly before `]` or `}`.
        case trailingComma
        /// A bare word that is not `true`, `false` or `null`: `NaN`, `Infinity`, `True`, …
        case invalidLiteral
        /// A number outside the RFC 8259 grammar: leading zeros, leading `+`, `1.`, `1e`, …
        case invalidNumber
        /// A backslash followed by anything but `" \ / b f n r t u`.
        case invalidEscape
        /// `\u` not followed by four hexadecimal digits.
        case invalidUnicodeEscape
        /// A `\uD800`–`\uDFFF` escape that is not half of a high-then-low surrogate pair.
        case unpairedSurrogate
        /// A raw byte below 0x20 inside a string; JSON requires these to be escaped.
        case controlCharacterInString
        /// Bytes that are not well-formed UTF-8 (overlong, surrogate, truncated, stray
        /// continuation, or above U+10FFFF).
        case invalidUTF8
        /// Arrays and objects nested deeper than `limit` (the outermost container is depth 1).
        case tooDeep(limit: Int)
        /// Something other than whitespace after the complete top-level value.
        case trailingContent
    }

    /// The class of problem.
    public let kind: Kind
    /// The byte offset of the problem from the start of the input (a BOM counts as 3 bytes).
    public let offset: Int
    /// The 1-based line of the problem; lines end at LF, CRLF or a lone CR.
    public let line: Int
    /// The 1-based column of the problem, counted in Unicode scalars; a BOM is not a column.
    public let column: Int
    /// The specific, lower-case explanation, without position.
    public let message: String

    public init(kind: Kind, offset: Int, line: Int, column: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.line = line
        self.column = column
        self.message = message
    }

    /// For example, `invalid JSON at line 3, column 7: trailing comma before '}'`.
    public var description: String {
        "invalid JSON at line \(line), column \(column): \(message)"
    }
}
