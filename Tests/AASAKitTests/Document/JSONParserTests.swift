import Foundation
import XCTest

@testable import AASAKit

/// The strict parser and the compact writer: every RFC 8259 rule with a passing and a failing
/// case, the hostile-input limits, and the error messages people will read.
final class JSONParserTests: XCTestCase {
    // MARK: Helpers

    private func parse(
        _ text: String, maxDepth: Int = 512, file: StaticString = #filePath, line: UInt = #line
    ) -> JSONValue? {
        do {
            return try JSONParser.parse(text, maxDepth: maxDepth)
        } catch {
            XCTFail(
                "unexpected error for \(text.debugDescription): \(error)", file: file, line: line)
            return nil
        }
    }

    private func failure(
        _ bytes: [UInt8], maxDepth: Int = 512, file: StaticString = #filePath, line: UInt = #line
    ) -> JSONParseError? {
        do {
            let value = try JSONParser.parse(bytes, maxDepth: maxDepth)
            XCTFail("expected an error, parsed \(value)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func failure(
        _ text: String, maxDepth: Int = 512, file: StaticString = #filePath, line: UInt = #line
    ) -> JSONParseError? {
        failure(Array(text.utf8), maxDepth: maxDepth, file: file, line: line)
    }

    private func assertKind(
        _ text: String, _ kind: JSONParseError.Kind, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertEqual(
            failure(text, file: file, line: line)?.kind, kind, text.debugDescription, file: file,
            line: line)
    }

    // MARK: Literals and scalars

    func test_literals_parse() {
        XCTAssertEqual(parse("true"), .bool(true))
        XCTAssertEqual(parse("false"), .bool(false))
        XCTAssertEqual(parse("null"), .null)
        XCTAssertEqual(parse("\"x\""), .string("x"))
        XCTAssertEqual(parse("[true,false,null]"), .array([.bool(true), .bool(false), .null]))
    }

    func test_literals_boolIsNotNumber() {
        XCTAssertEqual(parse("true"), .bool(true))
        XCTAssertEqual(parse("1"), .number("1"))
        XCTAssertNotEqual(parse("true"), parse("1"))
        XCTAssertNotEqual(parse("false"), parse("0"))
    }

    func test_literals_wrongCaseAndWordsFail() {
        assertKind("True", .invalidLiteral)
        assertKind("NULL", .invalidLiteral)
        assertKind("undefined", .invalidLiteral)
        assertKind("truex", .invalidLiteral)
        assertKind("[nul]", .invalidLiteral)
        XCTAssertEqual(
            failure("True")?.message, "'True' is not a JSON literal; did you mean 'true'?")
    }

    func test_literals_truncatedIsUnexpectedEnd() {
        assertKind("tru", .unexpectedEnd)
        assertKind("[fals", .unexpectedEnd)
        assertKind("n", .unexpectedEnd)
    }

    func test_literals_nanAndInfinityFail() {
        let nan = failure("NaN")
        XCTAssertEqual(nan?.kind, .invalidLiteral)
        XCTAssertEqual(
            nan?.description, "invalid JSON at line 1, column 1: NaN is not allowed in JSON")
        assertKind("[Infinity]", .invalidLiteral)
        assertKind("-Infinity", .invalidLiteral)
    }

    // MARK: Numbers

    func test_numbers_validKeepSourceText() {
        for text in [
            "0", "-0", "1", "-1", "10", "123456789012345678901234567890", "0.5", "-0.5e3", "1E10",
            "1e+2", "1e-2", "2.50", "0e0", "-0.0E-0",
        ] {
            XCTAssertEqual(parse(text), .number(text), text)
            XCTAssertEqual(parse("[\(text)]"), .array([.number(text)]), text)
        }
        XCTAssertEqual(parse(" 1 "), .number("1"))
    }

    func test_numbers_invalidFail() {
        for text in [
            "01", "-01", "00", "+1", ".5", "1.", "1.e5", "-", "-a", "1e", "1e+", "0x10", "- 1",
            "[+1]", "[1.]",
        ] {
            let error = failure(text)
            XCTAssertTrue(
                error?.kind == .invalidNumber || error?.kind == .unexpectedEnd,
                "\(text): \(String(describing: error))")
        }
        XCTAssertEqual(failure("01")?.message, "numbers cannot have leading zeros")
        XCTAssertEqual(failure("+1")?.message, "a number cannot start with '+'")
        assertKind("1.5.3", .trailingContent)
        assertKind("[1 2]", .unexpectedCharacter)
    }

    // MARK: Strings

    func test_strings_simpleEscapes() {
        XCTAssertEqual(
            parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#), .string("a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti"))
        XCTAssertEqual(parse(#""\u0041\u00e9\u4E2D\u0000""#), .string("Aé中\u{0}"))
    }

    func test_strings_surrogatePairCombines() {
        XCTAssertEqual(parse(#""\uD83D\uDE00""#), .string("😀"))
        XCTAssertEqual(parse(#""x\ud834\udd1ey""#), .string("x𝄞y"))
    }

    func test_strings_loneSurrogateFails() {
        assertKind(#""\uD800""#, .unpairedSurrogate)
        assertKind(#""\uDC00""#, .unpairedSurrogate)
        assertKind(#""\uD800x""#, .unpairedSurrogate)
        assertKind(#""\uD800\u0041""#, .unpairedSurrogate)
        assertKind(#""\uD800\uD800""#, .unpairedSurrogate)
        assertKind(#""\uD800\n""#, .unpairedSurrogate)
    }

    func test_strings_invalidEscapesFail() {
        assertKind(#""\x""#, .invalidEscape)
        assertKind(#""\'""#, .invalidEscape)
        assertKind(#""\U0041""#, .invalidEscape)
        assertKind(#""\u12""#, .invalidUnicodeEscape)
        assertKind(#""\u12G4""#, .invalidUnicodeEscape)
        assertKind(#""\u12"#, .unexpectedEnd)
        assertKind(#""\"#, .unexpectedEnd)
        XCTAssertEqual(failure(#""\x""#)?.message, "invalid escape '\\x'")
    }

    func test_strings_controlCharacterFails() {
        let error = failure("\"a\nb\"")
        XCTAssertEqual(error?.kind, .controlCharacterInString)
        XCTAssertEqual(error?.offset, 2)
        XCTAssertEqual(
            error?.message, "unescaped control character U+000A in a string; write it as \\n")
        assertKind("\"\t\"", .controlCharacterInString)
        assertKind("\"\u{0}\"", .controlCharacterInString)
        assertKind("\"\u{1F}\"", .controlCharacterInString)
        // DEL is not a control character in JSON.
        XCTAssertEqual(parse("\"\u{7F}\""), .string("\u{7F}"))
    }

    func test_strings_nonASCIIPassesThrough() {
        XCTAssertEqual(parse("\"héllo 中文 😀\""), .string("héllo 中文 😀"))
        // Long enough to cross the eight-byte fast path at every alignment.
        let long =
            String(repeating: "abcdefg", count: 50) + "é" + String(repeating: "x", count: 33)
        XCTAssertEqual(parse("\"\(long)\""), .string(long))
        XCTAssertEqual(parse("\"\(long)\\n\(long)\""), .string(long + "\n" + long))
    }

    func test_strings_unterminatedFails() {
        let error = failure("[\"abc")
        XCTAssertEqual(error?.kind, .unexpectedEnd)
        XCTAssertEqual(error?.offset, 5)
        assertKind("\"", .unexpectedEnd)
    }

    func test_strings_singleQuotesFail() {
        let error = failure("['a']")
        XCTAssertEqual(error?.kind, .unexpectedCharacter)
        XCTAssertEqual(error?.message, "single quotes are not allowed; strings use double quotes")
        XCTAssertEqual(
            failure("{'a':1}")?.message,
            "single quotes are not allowed; object keys use double quotes")
    }

    func test_strings_curlyQuotesExplained() {
        XCTAssertEqual(
            failure("[“a”]")?.message,
            "curly quotes are not allowed; strings use straight double quotes")
    }

    // MARK: UTF-8

    func test_utf8_invalidBytesInStringFail() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0x80, 0x22],  // stray continuation
            [0x22, 0xC0, 0xAF, 0x22],  // overlong '/'
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong three-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate U+D800
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xC3, 0x22],  // truncated two-byte
            [0x22, 0xE2, 0x82],  // truncated at end of input
        ]
        for bytes in cases {
            let error = failure(bytes)
            XCTAssertEqual(error?.kind, .invalidUTF8, "\(bytes)")
            XCTAssertEqual(error?.offset, 1, "\(bytes)")
        }
    }

    func test_utf8_invalidBytesOutsideStringsFail() {
        XCTAssertEqual(failure([0x5B, 0xFF, 0x5D])?.kind, .invalidUTF8)
        XCTAssertEqual(failure([0x31, 0x20, 0xFE])?.kind, .invalidUTF8)
        XCTAssertEqual(failure([0x7B, 0xC0, 0x7D])?.kind, .invalidUTF8)
        XCTAssertEqual(failure([0x5B, 0x31, 0x80, 0x5D])?.kind, .invalidUTF8)
    }

    func test_utf8_validNonASCIIOutsideStringsIsUnexpected() {
        let error = failure("[é]")
        XCTAssertEqual(error?.kind, .unexpectedCharacter)
        XCTAssertEqual(error?.message, "expected a value, found 'é' (U+00E9)")
    }

    /// A character that shows nothing between quotes (a second byte-order mark, a zero-width
    /// space, a no-break space, a lone combining mark) is named by its code point alone: quoted,
    /// the message would show `''` or a mark sitting on the quote.
    func test_utf8_invisibleCharacterIsNamedNotQuoted() {
        for (text, name) in [
            ("\u{FEFF}\u{FEFF}{}", "U+FEFF"), ("[\u{200B}]", "U+200B"), ("[\u{A0}1]", "U+00A0"), ("[\u{301}]", "U+0301"),
            ("[\u{E000}]", "U+E000"),
        ] {
            XCTAssertEqual(failure(text)?.message, "expected a value, found \(name)", name)
        }
        XCTAssertEqual(failure("[\u{2603}]")?.message, "expected a value, found '\u{2603}' (U+2603)")
    }

    func test_utf8_validFourByteInString() {
        XCTAssertEqual(try JSONParser.parse([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]), .string("😀"))
        XCTAssertEqual(
            try JSONParser.parse([0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]), .string("\u{10FFFF}"))
    }

    // MARK: BOM and whitespace

    func test_bom_skippedAtStart() {
        XCTAssertEqual(try JSONParser.parse([0xEF, 0xBB, 0xBF, 0x5B, 0x5D]), .array([]))
        XCTAssertEqual(
            try JSONParser.parse("\u{FEFF} {\"a\":1}"),
            .object(JSONObject(members: [("a", .number("1"))])))
    }

    func test_bom_notSkippedElsewhere() {
        XCTAssertEqual(failure([0x20, 0xEF, 0xBB, 0xBF, 0x5B, 0x5D])?.kind, .unexpectedCharacter)
        XCTAssertEqual(
            failure([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x31])?.kind, .unexpectedCharacter)
    }

    func test_bom_notCountedAsColumn() {
        let error = failure([0xEF, 0xBB, 0xBF, 0x5B, 0x2C])
        XCTAssertEqual(error?.offset, 4)
        XCTAssertEqual(error?.column, 2)
    }

    func test_whitespace_allFourKindsAllowed() {
        XCTAssertEqual(
            parse(" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ \"a\" \t: \n2 } ] \r\n"),
            .array([.number("1"), .object(JSONObject(members: [("a", .number("2"))]))]))
    }

    func test_whitespace_otherSpacesFail() {
        assertKind("\u{0C}1", .unexpectedCharacter)
        assertKind("\u{A0}1", .unexpectedCharacter)
        assertKind("[1,\u{0B}2]", .unexpectedCharacter)
    }

    // MARK: Empty input and trailing content

    func test_empty_inputFails() {
        XCTAssertEqual(failure("")?.kind, .emptyInput)
        XCTAssertEqual(failure("  \n\t ")?.kind, .emptyInput)
        XCTAssertEqual(failure([0xEF, 0xBB, 0xBF])?.kind, .emptyInput)
        XCTAssertEqual(
            failure("")?.description, "invalid JSON at line 1, column 1: the input is empty")
        // Blank lines only: said of the start, not of the last line's end.
        XCTAssertEqual(
            failure("\n\n \n")?.description, "invalid JSON at line 1, column 1: the input holds only whitespace")
        XCTAssertThrowsError(try JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    func test_trailing_contentFails() {
        let error = failure("{} x")
        XCTAssertEqual(error?.kind, .trailingContent)
        XCTAssertEqual(error?.offset, 3)
        assertKind("1 2", .trailingContent)
        assertKind("[][]", .trailingContent)
        assertKind("null,", .trailingContent)
        XCTAssertEqual(parse("{}  \n "), .object(JSONObject()))
    }

    // MARK: Commas, colons and comments

    func test_commas_trailingCommaInArrayFails() {
        let error = failure("[1,2,]")
        XCTAssertEqual(error?.kind, .trailingComma)
        XCTAssertEqual(error?.offset, 4)
        XCTAssertEqual(
            error?.description, "invalid JSON at line 1, column 5: trailing comma before ']'")
    }

    /// The position is the comma's, not the closing bracket's lines below it.
    func test_commas_trailingCommaInObjectFails() {
        let error = failure("{\n  \"a\": 1,\n  \"b\": 2,\n\n}")
        XCTAssertEqual(error?.kind, .trailingComma)
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.column, 9)
        XCTAssertEqual(
            error?.description, "invalid JSON at line 3, column 9: trailing comma before '}'")
        XCTAssertEqual(failure("[1,\n\n  ]")?.line, 1)
    }

    func test_commas_missingOrDoubledFail() {
        assertKind("[,]", .unexpectedCharacter)
        assertKind("[1,,2]", .unexpectedCharacter)
        assertKind("{,}", .unexpectedCharacter)
        assertKind("{\"a\":1 \"b\":2}", .unexpectedCharacter)
        assertKind("{\"a\" 1}", .unexpectedCharacter)
        assertKind("{\"a\":}", .unexpectedCharacter)
        assertKind("{a:1}", .unexpectedCharacter)
        assertKind("{1:1}", .unexpectedCharacter)
        assertKind("[1}", .unexpectedCharacter)
        assertKind("{\"a\":1]", .unexpectedCharacter)
        XCTAssertEqual(failure("{a:1}")?.message, "object keys must be double-quoted strings")
        XCTAssertEqual(
            failure("[1 2]")?.message, "expected ',' or ']' after an array element, found '2'")
    }

    func test_comments_fail() {
        for text in ["// c\n1", "/* c */ 1", "[1 /* c */]", "[1, // c\n 2]", "{/*c*/}"] {
            let error = failure(text)
            XCTAssertEqual(error?.message, "comments are not allowed in JSON", text)
        }
        assertKind("1 // c", .trailingContent)
    }

    // MARK: Unclosed containers

    func test_unclosed_containersFail() {
        let error = failure("{\n\"a\": [1, 2")
        XCTAssertEqual(error?.kind, .unexpectedEnd)
        XCTAssertEqual(
            error?.message,
            "unexpected end of input; the array opened at line 2, column 6 is not closed")
        assertKind("[", .unexpectedEnd)
        assertKind("{", .unexpectedEnd)
        assertKind("{\"a\"", .unexpectedEnd)
        assertKind("{\"a\":", .unexpectedEnd)
        assertKind("[1,", .unexpectedEnd)
    }

    // MARK: Objects

    func test_objects_keepSourceOrder() {
        guard case .object(let object)? = parse(#"{"z":1,"a":2,"m":{"y":true,"b":null}}"#) else {
            return XCTFail("expected an object")
        }
        XCTAssertEqual(object.members.map(\.key), ["z", "a", "m"])
        guard case .object(let inner)? = object["m"] else {
            return XCTFail("expected an inner object")
        }
        XCTAssertEqual(inner.members.map(\.key), ["y", "b"])
    }

    func test_objects_duplicateKeysKeptAndLastWins() {
        guard case .object(let object)? = parse(#"{"a":1,"b":2,"a":3}"#) else {
            return XCTFail("expected an object")
        }
        XCTAssertEqual(object.members.map(\.key), ["a", "b", "a"])
        XCTAssertEqual(object.members.map(\.value), [.number("1"), .number("2"), .number("3")])
        XCTAssertEqual(object["a"], .number("3"))
        XCTAssertNil(object["c"])
    }

    func test_objects_escapedKeys() {
        guard case .object(let object)? = parse(#"{"a\nb":1,"\u00e9":2}"#) else {
            return XCTFail("expected an object")
        }
        XCTAssertEqual(object.members.map(\.key), ["a\nb", "é"])
    }

    func test_objects_nestedMixedStructure() {
        let value = parse(
            #"{"applinks":{"details":[{"appIDs":["A.b"],"#
                + #""components":[{"/":"/x/*","exclude":true}]}]}}"#
        )
        let component = JSONValue.object(
            JSONObject(members: [("/", .string("/x/*")), ("exclude", .bool(true))]))
        let detail = JSONValue.object(
            JSONObject(members: [
                ("appIDs", .array([.string("A.b")])), ("components", .array([component])),
            ]))
        let expected = JSONValue.object(
            JSONObject(members: [
                ("applinks", .object(JSONObject(members: [("details", .array([detail]))])))
            ]))
        XCTAssertEqual(value, expected)
    }

    // MARK: Depth

    private func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    func test_depth_512Parses() {
        var value = parse(nested(512))
        var depth = 0
        while case .array(let elements)? = value {
            depth += 1
            value = elements.first
        }
        XCTAssertEqual(depth, 512)
    }

    func test_depth_513Fails() {
        let error = failure(nested(513))
        XCTAssertEqual(error?.kind, .tooDeep(limit: 512))
        XCTAssertEqual(error?.offset, 512)
        XCTAssertEqual(
            error?.description,
            "invalid JSON at line 1, column 513: nesting is deeper than the limit of 512 levels (raise it with --limit json-depth=<n>)")
    }

    func test_depth_objectsCountToo() {
        let deepObjects =
            String(repeating: "{\"a\":", count: 3) + "1" + String(repeating: "}", count: 3)
        XCTAssertNotNil(parse(deepObjects, maxDepth: 3))
        XCTAssertEqual(failure(deepObjects, maxDepth: 2)?.kind, .tooDeep(limit: 2))
        XCTAssertEqual(failure("[{\"a\":[1]}]", maxDepth: 2)?.kind, .tooDeep(limit: 2))
    }

    func test_depth_zeroAllowsOnlyScalars() {
        XCTAssertEqual(parse("1", maxDepth: 0), .number("1"))
        XCTAssertEqual(failure("[]", maxDepth: 0)?.kind, .tooDeep(limit: 0))
    }

    func test_depth_tenThousandNestedArraysFailFast() {
        // The error must come at the 513th bracket, without reading (or recursing over) the rest.
        let error = failure(String(repeating: "[", count: 10_000))
        XCTAssertEqual(error?.kind, .tooDeep(limit: 512))
        XCTAssertEqual(error?.offset, 512)
        let huge = [UInt8](repeating: UInt8(ascii: "["), count: 10_000_000)
        XCTAssertEqual(failure(huge)?.offset, 512)
    }

    func test_depth_highLimitDoesNotRecurse() {
        // With the limit lifted, 100 000 levels parse iteratively on a small thread stack.
        final class Box: @unchecked Sendable { var result: Result<JSONValue, JSONParseError>? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let thread = Thread {
            box.result = Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(text, maxDepth: 200_000)
            }
            // Unwind the deep value here, iteratively, so its release does not recurse either.
            if case .success(var value)? = box.result {
                box.result = nil
                while case .array(var elements) = value, let first = elements.popLast() {
                    value = first
                }
            }
            done.signal()
        }
        thread.stackSize = 256 * 1024
        thread.start()
        done.wait()
        XCTAssertNil(box.result)  // nil means it parsed (and was unwound) without error
    }

    // MARK: Error positions

    func test_errors_lineAndColumn() {
        let error = failure("{\n  \"a\": 1,\n  \"b\": x\n}")
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.column, 8)
        XCTAssertEqual(error?.offset, 19)
        // CRLF counts as one line break; columns count scalars, not bytes.
        let crlf = failure("[\r\n\"é\",\r\n x]")
        XCTAssertEqual(crlf?.line, 3)
        XCTAssertEqual(crlf?.column, 2)
        let afterAccent = failure("[\"é\" x]")
        XCTAssertEqual(afterAccent?.column, 6)
        XCTAssertEqual(afterAccent?.offset, 6)
    }

    // MARK: Input forms

    func test_inputForms_agree() throws {
        let text = #"{"a":[1,"b",true]}"#
        let bytes = Array(text.utf8)
        let fromString = try JSONParser.parse(text)
        let fromArray = try JSONParser.parse(bytes)
        let fromBuffer = try bytes.withUnsafeBytes { try JSONParser.parse($0) }
        XCTAssertEqual(fromString, fromArray)
        XCTAssertEqual(fromString, fromBuffer)
    }

    func test_inputForms_largeArray() throws {
        let count = 100_000
        var text = "["
        for index in 0..<count {
            text += index == 0 ? "" : ","
            text += index % 2 == 0 ? "\"item \(index) with some text\"" : "\(index).5e-3"
        }
        text += "]"
        guard case .array(let elements) = try JSONParser.parse(text) else {
            return XCTFail("expected an array")
        }
        XCTAssertEqual(elements.count, count)
        XCTAssertEqual(elements[10], .string("item 10 with some text"))
        XCTAssertEqual(elements[11], .number("11.5e-3"))
    }

    // MARK: Writer

    func test_writer_compactOutput() {
        let value = JSONValue.object(
            JSONObject(members: [
                ("b", .array([.number("1"), .bool(true), .null, .string("x")])),
                ("a", .object(JSONObject())),
                ("c", .array([])),
            ]))
        XCTAssertEqual(value.serialized(), #"{"b":[1,true,null,"x"],"a":{},"c":[]}"#)
        XCTAssertEqual(
            value.serialized(sortedKeys: true), #"{"a":{},"b":[1,true,null,"x"],"c":[]}"#)
    }

    func test_writer_sortedKeysKeepsDuplicateOrder() {
        let value = JSONValue.object(
            JSONObject(members: [("b", .number("1")), ("a", .number("2")), ("b", .number("3"))]))
        XCTAssertEqual(value.serialized(sortedKeys: true), #"{"a":2,"b":1,"b":3}"#)
    }

    func test_writer_escapesControlCharacters() {
        XCTAssertEqual(JSONWriter.escape("a\"b\\c/d"), #""a\"b\\c/d""#)
        XCTAssertEqual(JSONWriter.escape("\n\r\t\u{8}\u{C}"), #""\n\r\t\b\f""#)
        XCTAssertEqual(JSONWriter.escape("\u{0}\u{1}\u{1F}"), #""\u0000\u0001\u001f""#)
        XCTAssertEqual(JSONWriter.escape(""), #""""#)
        XCTAssertEqual(JSONWriter.escape("\u{7F}"), "\"\u{7F}\"")
    }

    func test_writer_escapesLineAndParagraphSeparators() {
        XCTAssertEqual(JSONWriter.escape("a\u{2028}b\u{2029}c"), #""a\u2028b\u2029c""#)
        // Other scalars starting with E2 pass through as UTF-8, but the bidirectional overrides
        // and isolates, which reorder what a terminal shows.
        XCTAssertEqual(JSONWriter.escape("€\u{2027}→\u{202F}\u{2065}\u{206A}"), "\"€\u{2027}→\u{202F}\u{2065}\u{206A}\"")
        XCTAssertEqual(
            JSONWriter.escape("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}"),
            #""\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069""#)
    }

    /// The C1 controls (U+0085 is a line break to Python's `splitlines`, U+009B a terminal's
    /// CSI) are escaped; the rest of the two-byte range is UTF-8.
    func test_writer_escapesC1Controls() {
        XCTAssertEqual(JSONWriter.escape("a\u{80}\u{85}\u{9B}\u{9F}b"), #""a\u0080\u0085\u009b\u009fb""#)
        XCTAssertEqual(JSONWriter.escape("\u{A0}é\u{7FF}"), "\"\u{A0}é\u{7FF}\"")
        for scalar in (0x80...0x9F).compactMap(Unicode.Scalar.init) {
            let text = "x\(scalar)y"
            guard case .string(let back)? = try? JSONParser.parse(Array(JSONWriter.escape(text).utf8)) else { return XCTFail("\(scalar)") }
            XCTAssertEqual(back, text)
        }
    }

    func test_writer_leavesNonASCIIAsUTF8() {
        XCTAssertEqual(JSONWriter.escape("héllo 中文 😀"), "\"héllo 中文 😀\"")
    }

    func test_writer_appendEscapedAcrossFastPath() {
        let long =
            String(repeating: "abcdefgh", count: 9) + "\""
            + String(repeating: "é", count: 9) + "\n"
        var buffer: [UInt8] = Array("prefix:".utf8)
        JSONWriter.appendEscaped(long, to: &buffer)
        JSONWriter.appendEscaped(long.dropFirst(70), to: &buffer)
        let expectedLong =
            String(repeating: "abcdefgh", count: 9) + "\\\"" + String(repeating: "é", count: 9)
            + "\\n"
        XCTAssertEqual(
            String(decoding: buffer, as: UTF8.self),
            "prefix:\"\(expectedLong)\"\"gh\\\"\(String(repeating: "é", count: 9))\\n\"")
    }

    func test_writer_deepValueDoesNotRecurse() {
        var value = JSONValue.null
        for _ in 0..<2_000 {
            value = .array([value])
        }
        let text = value.serialized()
        XCTAssertEqual(
            text,
            String(repeating: "[", count: 2_000) + "null" + String(repeating: "]", count: 2_000))
    }

    // MARK: Round trip

    func test_roundTrip_parseOfSerializedIsIdentity() throws {
        let values: [JSONValue] = [
            .null,
            .bool(false),
            .number("-1.5E+10"),
            .string("tab\there \"quoted\" \\ / \u{0}\u{1F} é 😀 \u{2028}\u{2029}"),
            .array([.array([]), .object(JSONObject()), .string("")]),
            .object(
                JSONObject(members: [
                    (
                        "applinks",
                        .object(
                            JSONObject(members: [
                                (
                                    "details",
                                    .array([
                                        .object(
                                            JSONObject(members: [
                                                ("appIDs", .array([.string("ABCDE.com.example")])),
                                                (
                                                    "components",
                                                    .array([
                                                        .object(
                                                            JSONObject(members: [
                                                                ("/", .string("/buy/*")),
                                                                (
                                                                    "?",
                                                                    .object(
                                                                        JSONObject(members: [
                                                                            ("q", .string("?*"))
                                                                        ]))
                                                                ),
                                                                ("exclude", .bool(true)),
                                                                ("caseSensitive", .bool(false)),
                                                            ]))
                                                    ])
                                                ),
                                            ]))
                                    ])
                                )
                            ]))
                    ),
                    ("dup", .number("1")), ("dup", .number("2")), ("line\nkey", .null),
                ])),
        ]
        for value in values {
            let text = value.serialized()
            XCTAssertEqual(try JSONParser.parse(text), value, text)
        }
    }

    func test_roundTrip_serializedOfParsedIsCompactSource() throws {
        let source = #"{"a":[1,-0.5e3,true,null,"x\n\u0001"],"b":{}}"#
        XCTAssertEqual(try JSONParser.parse(source).serialized(), source)
        XCTAssertEqual(
            try JSONParser.parse(" [ 1 , { \"k\" : \"\\/\" } ] ").serialized(), #"[1,{"k":"/"}]"#)
    }
}
