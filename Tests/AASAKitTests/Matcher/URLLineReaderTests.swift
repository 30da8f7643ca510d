@testable import AASAKit
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SPEC 14: one URL per line; LF or CRLF; spaces and tabs around a URL removed; blank lines give
/// no record; every other line gives exactly one record, in order; invalid UTF-8 and over-long
/// lines are error records, never dropped.
final class URLLineReaderTests: XCTestCase {
    /// What the reader handed out, copied out of its buffer.
    enum Record: Equatable, CustomStringConvertible {
        case url(String)
        case invalid(String, URLSplitError)

        var description: String {
            switch self {
            case .url(let text): return "url(\(text.debugDescription))"
            case .invalid(let text, let error): return "invalid(\(text.debugDescription), \(error))"
            }
        }

        var isTooLong: Bool {
            if case .invalid(_, .lineTooLong) = self { return true }
            return false
        }
    }

    /// How the bytes reach the reader.
    enum Source {
        /// A temporary regular file, opened with `open(2)`: reads return as much as asked.
        case file
        /// A pipe written by a background thread in small pieces: reads return short counts at
        /// arbitrary places, as with a real stdin.
        case pipe(chunk: Int)
    }

    // MARK: Helpers

    private func read(
        _ bytes: [UInt8], source: Source = .file, maxLineBytes: Int = Configuration.default.input.maxLineBytes,
        bufferBytes: Int = 1 << 20
    ) throws -> [Record] {
        switch source {
        case .file:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("URLLineReaderTests-\(UUID().uuidString)").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let descriptor = open(path, O_RDONLY)
            XCTAssertGreaterThanOrEqual(descriptor, 0, "open failed")
            defer { close(descriptor) }
            return try collect(descriptor, maxLineBytes: maxLineBytes, bufferBytes: bufferBytes)
        case .pipe(let chunk):
            var descriptors: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&descriptors), 0, "pipe failed")
            let readEnd = descriptors[0]
            let writeEnd = descriptors[1]
            let done = DispatchSemaphore(value: 0)
            let writer = Thread {
                var offset = 0
                while offset < bytes.count {
                    let count = min(chunk, bytes.count - offset)
                    let written = bytes.withUnsafeBytes { raw in
                        write(writeEnd, raw.baseAddress.map { $0 + offset }, count)
                    }
                    if written < 0 {
                        if errno == EINTR { continue }
                        break
                    }
                    offset += written
                }
                close(writeEnd)
                done.signal()
            }
            writer.start()
            defer {
                done.wait()
                close(readEnd)
            }
            return try collect(readEnd, maxLineBytes: maxLineBytes, bufferBytes: bufferBytes)
        }
    }

    private func collect(_ descriptor: Int32, maxLineBytes: Int, bufferBytes: Int) throws -> [Record] {
        var reader = URLLineReader(fileDescriptor: descriptor, maxLineBytes: maxLineBytes, bufferBytes: bufferBytes)
        var records: [Record] = []
        try reader.forEachLine { line in
            switch line {
            case .url(let bytes, _): records.append(.url(String(decoding: bytes, as: UTF8.self)))
            case .invalid(let text, let error): records.append(.invalid(text, error))
            }
        }
        return records
    }

    private func read(_ text: String, source: Source = .file) throws -> [Record] {
        try read(Array(text.utf8), source: source)
    }

    // MARK: Terminators

    func test_terminator_LF() throws {
        XCTAssertEqual(try read("https://h/a\nhttps://h/b\n"), [.url("https://h/a"), .url("https://h/b")])
    }

    func test_terminator_CRLF() throws {
        XCTAssertEqual(try read("https://h/a\r\nhttps://h/b\r\n"), [.url("https://h/a"), .url("https://h/b")])
    }

    func test_terminator_mixedLFAndCRLF() throws {
        XCTAssertEqual(
            try read("a\r\nb\nc\r\nd"), [.url("a"), .url("b"), .url("c"), .url("d")])
    }

    func test_terminator_loneCRIsNotALineBreak() throws {
        XCTAssertEqual(try read("https://h/a\rb\n"), [.url("https://h/a\rb")])
    }

    /// The last line needs no LF; a CR ending it is then no terminator (LF or CRLF), but content.
    func test_terminator_lastLineWithoutNewline() throws {
        XCTAssertEqual(try read("https://h/a\nhttps://h/b"), [.url("https://h/a"), .url("https://h/b")])
        XCTAssertEqual(try read("https://h/only"), [.url("https://h/only")])
        XCTAssertEqual(try read("https://h/a\r\nhttps://h/b\r"), [.url("https://h/a"), .url("https://h/b\r")])
        XCTAssertEqual(try read("https://h/a\n\r"), [.url("https://h/a"), .url("\r")])
    }

    // MARK: Trimming and blank lines

    func test_trim_surroundingSpacesAndTabs() throws {
        XCTAssertEqual(
            try read("  \thttps://h/a \t \n\t\thttps://h/b\r\n   https://h/c   "),
            [.url("https://h/a"), .url("https://h/b"), .url("https://h/c")])
    }

    func test_trim_innerSpacesStay() throws {
        XCTAssertEqual(try read(" https://h/a b\t c \n"), [.url("https://h/a b\t c")])
    }

    func test_trim_spacesBeforeCRLF() throws {
        XCTAssertEqual(try read("https://h/a  \r\n"), [.url("https://h/a")])
    }

    func test_blank_linesProduceNoRecord() throws {
        XCTAssertEqual(
            try read("\n\n   \n\t\t\n\r\n \t \r\nhttps://h/a\n\n\nhttps://h/b\n\n"),
            [.url("https://h/a"), .url("https://h/b")])
    }

    func test_blank_emptyAndBlankOnlyInputs() throws {
        XCTAssertEqual(try read(""), [])
        XCTAssertEqual(try read("\n"), [])
        XCTAssertEqual(try read(" \t \r\n\n  "), [])
    }

    // MARK: UTF-8

    // MARK: Byte order mark

    func test_byteOrderMark_atTheStartIsRemovedEvenWhenItArrivesByteByByte() throws {
        let bytes = URLLineReader.byteOrderMark + Array("https://a.example/1\nhttps://a.example/2\n".utf8)
        for source in [Source.file, .pipe(chunk: 1), .pipe(chunk: 2)] {
            for bufferBytes in [0, 1 << 20] {
                XCTAssertEqual(
                    try read(bytes, source: source, bufferBytes: bufferBytes), [.url("https://a.example/1"), .url("https://a.example/2")],
                    "\(source), buffer \(bufferBytes)")
            }
        }
    }

    func test_byteOrderMark_elsewhereIsContentAndAPartialOneIsInvalid() throws {
        let second = Array("https://a.example/1\n".utf8) + URLLineReader.byteOrderMark + Array("https://a.example/2".utf8)
        XCTAssertEqual(try read(second, source: .pipe(chunk: 1)), [.url("https://a.example/1"), .url("\u{FEFF}https://a.example/2")])
        XCTAssertEqual(try read([0xEF, 0xBB], source: .pipe(chunk: 1)), [.invalid("\u{FFFD}", .invalidUTF8)])
        XCTAssertEqual(try read(URLLineReader.byteOrderMark, source: .pipe(chunk: 1)), [])
    }

    func test_utf8_validMultibyteIsAURL() throws {
        XCTAssertEqual(try read("https://h/café/\u{1F600}\n"), [.url("https://h/café/\u{1F600}")])
    }

    func test_utf8_invalidLineIsAnErrorRecordWithReplacementCharacters() throws {
        let bytes = Array("https://h/a\n".utf8) + Array("https://h/".utf8) + [0xFF, 0xFE] + Array("x\nhttps://h/b\n".utf8)
        XCTAssertEqual(
            try read(bytes),
            [.url("https://h/a"), .invalid("https://h/\u{FFFD}\u{FFFD}x", .invalidUTF8), .url("https://h/b")])
    }

    func test_utf8_overlongSurrogateAndTruncatedSequencesAreInvalid() throws {
        let bad: [[UInt8]] = [
            [0xC0, 0xAF],  // overlong "/"
            [0xE0, 0x80, 0xAF],  // overlong
            [0xED, 0xA0, 0x80],  // surrogate U+D800
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xE2, 0x82],  // truncated at the end of the line
            [0x80],  // stray continuation
        ]
        for sequence in bad {
            let records = try read(Array("https://h/".utf8) + sequence + [0x0A])
            XCTAssertEqual(records.count, 1, "\(sequence)")
            guard case .invalid(let text, .invalidUTF8)? = records.first else {
                XCTFail("\(sequence): expected an invalidUTF8 record, got \(records)")
                continue
            }
            XCTAssertTrue(text.hasPrefix("https://h/"), text)
            XCTAssertTrue(text.unicodeScalars.contains("\u{FFFD}"), text)
        }
    }

    // MARK: Length limit

    func test_maxLineBytes_exactlyTheLimitIsAURL() throws {
        let url = "https://h/" + String(repeating: "x", count: 90)
        XCTAssertEqual(url.utf8.count, 100)
        for bufferBytes in [0, 150, 1 << 16] {
            XCTAssertEqual(
                try read(Array((url + "\r\n" + url).utf8), maxLineBytes: 100, bufferBytes: bufferBytes),
                [.url(url), .url(url)], "buffer \(bufferBytes)")
        }
    }

    func test_maxLineBytes_overTheLimitGivesOneRecordAndReadingGoesOn() throws {
        let long = "https://h/" + String(repeating: "y", count: 5_000)
        let input = "https://h/first\n" + long + "\nhttps://h/next\n"
        for bufferBytes in [0, 200, 1 << 20] {
            let records = try read(Array(input.utf8), maxLineBytes: 100, bufferBytes: bufferBytes)
            XCTAssertEqual(records.count, 3, "buffer \(bufferBytes): \(records)")
            XCTAssertEqual(records.first, .url("https://h/first"))
            XCTAssertEqual(records.last, .url("https://h/next"))
            guard records.count == 3, case .invalid(let text, .lineTooLong(let length, let limit)) = records[1] else {
                XCTFail("buffer \(bufferBytes): expected a lineTooLong record, got \(records)")
                continue
            }
            XCTAssertEqual(limit, 100)
            XCTAssertGreaterThan(length, 100)
            XCTAssertTrue(text.hasPrefix("https://h/yyyy"), text)
        }
    }

    /// An over-long line reports the length the limit was applied to, the line trimmed (its
    /// leading and trailing blanks and the terminator's CR left out), whether the excess lies
    /// within the assembler's window or past it: the untrimmed count named a line of 95 bytes
    /// and 1 000 trailing spaces as 1 095 bytes over a limit of 100.
    func test_maxLineBytes_overLongLinesReportTheirTrimmedLength() throws {
        let long = "https://h/" + String(repeating: "y", count: 140)
        let input = Array(("  \t" + long + String(repeating: " ", count: 1_000) + "\t\r\n" + long + " \r " + "\n" + "\t" + long + "  \r").utf8)
        for bufferBytes in [0, 64, 1 << 16] {
            for source in [Source.file, .pipe(chunk: 7)] {
                let records = try read(input, source: source, maxLineBytes: 100, bufferBytes: bufferBytes)
                let lengths = records.map { record -> Int in
                    if case .invalid(_, .lineTooLong(let length, _)) = record { return length }
                    return -1
                }
                XCTAssertEqual(lengths, [150, 152, 153], "buffer \(bufferBytes), \(source): \(records)")
            }
        }
        let short = Array(("https://h/" + String(repeating: "y", count: 91) + "  \r\n").utf8)
        XCTAssertEqual(
            try read(short, maxLineBytes: 100, bufferBytes: 0).map { record -> Int in
                if case .invalid(_, .lineTooLong(let length, _)) = record { return length }
                return -1
            }, [101], "within the window the same count")
    }

    /// A CR followed by blanks is content (only a CR right before the LF is the terminator's),
    /// so `url \r  ` counts 22 bytes after trimming whatever the window and the buffer: the CR
    /// ending the assembler's window must not pass for the terminator's.
    func test_maxLineBytes_aCRBeforeTrailingBlanksCountsAtTheWindowsEdge() throws {
        let url = "https://h/" + String(repeating: "x", count: 10)
        XCTAssertEqual(url.utf8.count, 20)
        let input = Array((url + " \r  \n" + url + " \r \r\nhttps://h/next\n").utf8)
        for bufferBytes in [0, 1 << 16] {
            for source in [Source.file, .pipe(chunk: 3)] {
                for limit in [20, 21] {
                    let records = try read(input, source: source, maxLineBytes: limit, bufferBytes: bufferBytes)
                    XCTAssertEqual(records.map(\.isTooLong), [true, true, false], "limit \(limit), buffer \(bufferBytes): \(records)")
                }
                let records = try read(input, source: source, maxLineBytes: 22, bufferBytes: bufferBytes)
                XCTAssertEqual(records, [.url(url + " \r"), .url(url + " \r"), .url("https://h/next")], "buffer \(bufferBytes)")
            }
        }
    }

    /// An over-long line's record shows its start cut before a UTF-8 sequence, never inside
    /// one: the valid text gets no U+FFFD it never held.
    func test_maxLineBytes_shownTextIsCutOnACharacterBoundary() throws {
        let line = "https://h/" + String(repeating: "é", count: 20)
        for bufferBytes in [0, 1 << 16] {
            let records = try read(Array((line + "\n").utf8), maxLineBytes: 17, bufferBytes: bufferBytes)
            guard case .invalid(let text, .lineTooLong)? = records.first else { return XCTFail("\(records)") }
            XCTAssertFalse(text.contains("\u{FFFD}"), text)
            XCTAssertTrue(text.hasPrefix("https://h/ééé"), text)
            XCTAssertTrue(text.hasSuffix("…"), text)
        }
        let short = Array("https://h/éé".utf8)
        short.withView { view in
            XCTAssertEqual(view.shownText(limit: 200), "https://h/éé", "nothing left out: no ellipsis")
            XCTAssertEqual(view.shownText(limit: 11), "https://h/…", "the é's first byte alone is not shown")
            XCTAssertEqual(view.shownText(limit: 12), "https://h/é…")
        }
    }

    func test_maxLineBytes_oneOverTheLimit() throws {
        let url = "https://h/" + String(repeating: "x", count: 91)
        for bufferBytes in [0, 1 << 16] {
            let records = try read(Array((url + "\nhttps://h/b").utf8), maxLineBytes: 100, bufferBytes: bufferBytes)
            XCTAssertEqual(records.map(\.isTooLong), [true, false], "buffer \(bufferBytes): \(records)")
            XCTAssertEqual(records.last, .url("https://h/b"))
        }
    }

    func test_maxLineBytes_overLongLastLineWithoutNewline() throws {
        let input = "https://h/a\n" + String(repeating: "z", count: 3_000)
        for bufferBytes in [0, 1 << 16] {
            let records = try read(Array(input.utf8), maxLineBytes: 100, bufferBytes: bufferBytes)
            XCTAssertEqual(records.map(\.isTooLong), [false, true], "buffer \(bufferBytes): \(records)")
        }
    }

    func test_maxLineBytes_manyOverLongLinesInARowThroughAPipe() throws {
        let long = String(repeating: "q", count: 1_000)
        let lines = [long, "https://h/1", long, long, "https://h/2", long]
        let input = lines.joined(separator: "\n") + "\n"
        let records = try read(Array(input.utf8), source: .pipe(chunk: 37), maxLineBytes: 64, bufferBytes: 0)
        XCTAssertEqual(records.map(\.isTooLong), [true, false, true, true, false, true], "\(records)")
        XCTAssertEqual(records.filter { !$0.isTooLong }, [.url("https://h/1"), .url("https://h/2")])
    }

    /// The limit is on the URL, which is the trimmed line (SPEC 14 removes spaces and tabs
    /// before anything else). Whether blanks around a URL of exactly the limit are counted must
    /// not depend on where the reader's buffer happens to end: the same bytes must give the
    /// same records with any buffer size or read chunking.
    func test_maxLineBytes_surroundingBlanksDoNotDependOnTheBuffer() throws {
        let url = "https://h/" + String(repeating: "x", count: 90)
        let input = Array(("  " + url + " \t\n" + "https://h/next\n").utf8)
        let big = try read(input, maxLineBytes: 100, bufferBytes: 1 << 16)
        XCTAssertEqual(big, [.url(url), .url("https://h/next")])
        let small = try read(input, maxLineBytes: 100, bufferBytes: 0)
        XCTAssertEqual(small, big, "the minimum buffer gave different records for the same bytes")
        let piecewise = try read(input, source: .pipe(chunk: 7), maxLineBytes: 100, bufferBytes: 0)
        XCTAssertEqual(piecewise, big, "short reads gave different records for the same bytes")
    }

    // MARK: Large inputs

    /// Deterministic lines of varied length, some CRLF, some padded, with blank lines between.
    private func largeInput(targetBytes: Int) -> (bytes: [UInt8], urls: [String]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(targetBytes + 1_000)
        var urls: [String] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var index = 0
        while bytes.count < targetBytes {
            let url = "https://example.com/p/\(index)?q=" + String(repeating: "v", count: Int(next() % 300))
            urls.append(url)
            let roll = next() % 8
            if roll == 0 { bytes += Array("  \t".utf8) }
            bytes += Array(url.utf8)
            if roll == 1 { bytes += Array(" \t ".utf8) }
            bytes += Array((roll == 2 ? "\r\n" : "\n").utf8)
            if roll == 3 { bytes += Array("\n \n".utf8) }
            index += 1
        }
        return (bytes, urls)
    }

    func test_large_threeMegabytesThroughAPipeKeepEveryLine() throws {
        let (bytes, urls) = largeInput(targetBytes: 3 << 20)
        XCTAssertGreaterThan(bytes.count, 3 << 20)
        let records = try read(bytes, source: .pipe(chunk: 4_093))
        XCTAssertEqual(records.count, urls.count)
        XCTAssertEqual(records, urls.map { .url($0) })
    }

    func test_large_threeMegabytesWithSmallBufferKeepEveryLine() throws {
        let (bytes, urls) = largeInput(targetBytes: 3 << 20)
        let records = try read(bytes, source: .file, maxLineBytes: 1_000, bufferBytes: 1_500)
        XCTAssertEqual(records.count, urls.count)
        XCTAssertEqual(records, urls.map { .url($0) })
    }

    func test_large_threeMegabytesFromAFileWithTheDefaults() throws {
        let (bytes, urls) = largeInput(targetBytes: 3 << 20)
        let records = try read(bytes)
        XCTAssertEqual(records.count, urls.count)
        XCTAssertEqual(records, urls.map { .url($0) })
    }

    /// The reader checks UTF-8 and finds plain lines (ASCII, nothing JSON escapes) in one pass,
    /// sixteen or eight bytes at a time with an overlapping last word (`URLLineReader.examine`):
    /// whatever the byte and wherever it falls, the verdict must be what a byte-by-byte reading
    /// gives, and a URL called plain must be written exactly as the JSON writer escapes it.
    func test_examine_agreesWithAByteLoop_forEveryByteAtEveryPositionAndLength() {
        func byteLoop(_ bytes: [UInt8]) -> URLLineReader.LineText {
            guard String(validating: bytes, as: UTF8.self) != nil else { return .invalidUTF8 }
            let plain = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
            return plain ? .plain : .utf8
        }
        var checked = 0
        for length in [1, 5, 7, 8, 9, 15, 16, 17, 23, 24, 31, 33, 40] {
            for position in 0..<length {
                for value in UInt8(0)...UInt8(255) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = value
                    let got = bytes.withView { URLLineReader.examine($0) }
                    XCTAssertEqual(got, byteLoop(bytes), "byte \(value) at \(position) of \(length)")
                    checked += 1
                }
            }
        }
        // Whole scalars and broken ones after plain runs of every alignment.
        for prefix in 0..<20 {
            for tail in ["é", "€", "😀", "\u{7F}", "\"", "\\"].map({ Array($0.utf8) }) + [[0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
                let bytes = [UInt8](repeating: UInt8(ascii: "/"), count: prefix) + tail + Array("/x".utf8)
                XCTAssertEqual(bytes.withView { URLLineReader.examine($0) }, byteLoop(bytes), "\(bytes)")
            }
        }
        XCTAssertGreaterThan(checked, 50_000)
        // Plain means the JSON literal is the bytes between quotes.
        let plain = Array("https://example.com/a/b?c=d&e=f#g~h%20i".utf8)
        XCTAssertEqual(plain.withView { URLLineReader.examine($0) }, .plain)
        var escaped: [UInt8] = []
        plain.withView { JSONWriter.appendEscaped(utf8: $0, to: &escaped) }
        XCTAssertEqual(escaped, [UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")])
    }
}
