import AASAKit
import XCTest
import _AASATestSupport

/// The shortcuts of `classify`'s hot path give exactly what the general code gives: a record
/// buffer's JSON strings are `JSONWriter`'s, and a line judged in place is what the line
/// assembler would have delivered.
final class ClassifyFastPathTests: XCTestCase {
    /// Bytes that matter to JSON escaping and to UTF-8 validity, among plain URL bytes.
    static let alphabet: [[UInt8]] = [
        Array("a".utf8), Array("/".utf8), Array("%".utf8), Array("\"".utf8), Array("\\".utf8), [0x0A], [0x0D], [0x09], [0x01],
        [0x7F], Array("é".utf8), Array("\u{2028}".utf8), Array("\u{2029}".utf8), [0xE2, 0x80, 0xA0], Array("😀".utf8), [0xFF],
        [0xC3], Array(" ".utf8),
    ]

    func randomBytes(_ random: inout RandomSource, maxLength: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        let pieces = random.int(0...maxLength)
        for _ in 0..<pieces {
            // Mostly plain bytes, so that whole clean words and clean tails both occur.
            bytes += random.chance(0.8) ? Array("abcdefgh".utf8.prefix(random.int(1...8))) : random.pick(Self.alphabet)
        }
        return bytes
    }

    func test_recordBuffer_jsonStringsAreJSONWritersByteForByte() {
        var random = RandomSource(seed: 4)
        let buffer = RecordBuffer(capacity: 8)
        var compared = 0
        for _ in 0..<20_000 {
            let text = String(decoding: randomBytes(&random, maxLength: 12), as: UTF8.self)
            var bytes = Array(text.utf8)
            var expected: [UInt8] = []
            JSONWriter.appendEscaped(text, to: &expected)
            buffer.removeAll()
            buffer.append("x")
            bytes.withUnsafeMutableBufferPointer { buffer.appendJSONString(UnsafeBufferPointer($0)) }
            XCTAssertEqual(buffer.bytes, Array("x".utf8) + expected, text.debugDescription)
            compared += 1
        }
        XCTAssertEqual(compared, 20_000)
    }

    func test_judgeWholeLine_deliversWhatTheAssemblerDelivers() {
        var random = RandomSource(seed: 5)
        var seen: Set<String> = []
        for _ in 0..<20_000 {
            let maxLineBytes = random.int(1...24)
            var line = randomBytes(&random, maxLength: 6)
            line.removeAll { $0 == 0x0A }
            if random.chance(0.3) { line = Array(repeating: UInt8(ascii: " "), count: random.int(0...3)) + line }
            if random.chance(0.3) { line += Array(repeating: UInt8(ascii: "\t"), count: random.int(0...3)) }
            if random.chance(0.3) { line.append(0x0D) }
            let expected = viaAssembler(line, maxLineBytes: maxLineBytes)
            let found = line.withUnsafeBufferPointer { segment -> String? in
                switch LineAssembler.judgeWholeLine(segment, maxLineBytes: maxLineBytes) {
                case .line(let judged): return Self.describe(judged)
                case .blank: return nil
                case .tooLongForWindow: return expected.map { "assembler: " + $0 }
                }
            }
            XCTAssertEqual(found.map { $0.replacingOccurrences(of: "assembler: ", with: "") }, expected, "\(line), max \(maxLineBytes)")
            seen.insert(found.map { String($0.prefix(12)) } ?? "blank")
        }
        // Every outcome occurred: URLs, blanks, invalid UTF-8, too long, and lines past the window.
        for kind in ["url(", "blank", "invalidUTF8", "tooLong", "assembler: "] {
            XCTAssertTrue(seen.contains { $0.hasPrefix(kind) || $0.contains(kind) }, "no \(kind) case generated: \(seen.prefix(20))")
        }
    }

    func viaAssembler(_ line: [UInt8], maxLineBytes: Int) -> String? {
        var assembler = LineAssembler(maxLineBytes: maxLineBytes)
        var result: String?
        line.withUnsafeBufferPointer { assembler.append($0) }
        assembler.finish { result = Self.describe($0) }
        return result
    }

    static func describe(_ line: URLLineReader.Line) -> String {
        switch line {
        case .url(let bytes, let plain): return "url(\(Array(bytes)), plain: \(plain))"
        case .invalid(let text, let error):
            switch error {
            case .invalidUTF8: return "invalidUTF8 \(text.debugDescription)"
            case .lineTooLong: return "tooLong \(text.debugDescription) \(error)"
            default: return "other \(error)"
            }
        }
    }
}
