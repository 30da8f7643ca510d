import Foundation

/// Reads a stream of URLs, one per line, the way SPEC 14 says: LF or CRLF terminators, spaces and
/// tabs around the URL removed, blank lines skipped, every other line one record, in order.
///
/// The reader hands out byte slices of a large reusable buffer, so reading allocates nothing per
/// line. A line that is not valid UTF-8, or longer than the limit, is still a record: the caller
/// turns it into an error record, so nothing is ever silently dropped.
public struct URLLineReader {
    /// One non-blank input line.
    public enum Line {
        /// A valid UTF-8 line within the length limit: the URL bytes, trimmed. The buffer is only
        /// valid inside the closure that received it.
        case url(UnsafeBufferPointer<UInt8>)
        /// A line that cannot be a URL; `text` is the line with U+FFFD for invalid UTF-8 (cut to
        /// the limit for an over-long line).
        case invalid(text: String, error: URLSplitError)
    }

    private let fileDescriptor: Int32
    private let maxLineBytes: Int
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// Skipping the rest of an over-long line.
    private var discarding = false

    public init(fileDescriptor: Int32, maxLineBytes: Int = Configuration.default.maxURLBytes, bufferBytes: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.maxLineBytes = maxLineBytes
        self.buffer = [UInt8](repeating: 0, count: max(bufferBytes, maxLineBytes + 2))
    }

    /// Calls `body` for every record in the stream, in order.
    /// - Throws: the `errno` of a failed read, as `POSIXError`-like `CocoaError`; records before it
    ///   have been delivered.
    public mutating func forEachLine(_ body: (Line) throws -> Void) throws {
        while true {
            guard let (lineStart, lineEnd, complete) = try nextLineBounds() else { return }
            if discarding {
                if complete { discarding = false }
                continue
            }
            if !complete {
                // Over the limit: report it once, then skip to the end of the line.
                let shown = Array(buffer[lineStart..<min(lineEnd, lineStart + 200)])
                discarding = true
                try body(.invalid(text: String(decoding: shown, as: UTF8.self) + "…", error: .tooLong(length: lineEnd - lineStart, limit: maxLineBytes)))
                continue
            }
            try buffer.withUnsafeBufferPointer { all in
                let trimmed = Self.trim(UnsafeBufferPointer(rebasing: all[lineStart..<lineEnd]))
                if trimmed.isEmpty { return }
                if trimmed.count > maxLineBytes {
                    let shown = String(decoding: trimmed.prefix(200), as: UTF8.self) + "…"
                    try body(.invalid(text: shown, error: .tooLong(length: trimmed.count, limit: maxLineBytes)))
                } else if !Self.isValidUTF8(trimmed) {
                    try body(.invalid(text: String(decoding: trimmed, as: UTF8.self), error: .invalidUTF8))
                } else {
                    try body(.url(trimmed))
                }
            }
        }
    }

    /// The bounds of the next line without its terminator; `complete` is false when the line
    /// is longer than the limit (the bounds then cover what was buffered).
    private mutating func nextLineBounds() throws -> (Int, Int, Bool)? {
        var searchFrom = start
        while true {
            if let newline = buffer[searchFrom..<end].firstIndex(of: UInt8(ascii: "\n")) {
                let lineStart = start
                start = newline + 1
                var lineEnd = newline
                if lineEnd > lineStart, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                return (lineStart, lineEnd, true)
            }
            if atEOF {
                guard start < end else { return nil }
                let lineStart = start
                start = end
                var lineEnd = end
                if lineEnd > lineStart, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                return (lineStart, lineEnd, true)
            }
            if end - start > maxLineBytes + 1 {
                // No newline within the limit: hand out the over-long prefix and move on.
                let lineStart = start
                let lineEnd = end
                start = end
                return (lineStart, lineEnd, false)
            }
            // Move the partial line to the front and read more.
            if start > 0 {
                buffer.withUnsafeMutableBufferPointer { all in
                    guard let base = all.baseAddress else { return }
                    memmove(base, base + start, end - start)
                }
                end -= start
                searchFrom -= start
                start = 0
            }
            searchFrom = end
            let readCount = buffer.withUnsafeMutableBufferPointer { all -> Int in
                guard let base = all.baseAddress else { return 0 }
                while true {
                    let n = read(fileDescriptor, base + end, all.count - end)
                    if n < 0, errno == EINTR { continue }
                    return n
                }
            }
            if readCount < 0 { throw CocoaError(.fileReadUnknown, userInfo: ["errno": errno]) }
            if readCount == 0 { atEOF = true }
            end += readCount
        }
    }

    static func trim(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lower = 0
        var upper = bytes.count
        while lower < upper, bytes[lower] == UInt8(ascii: " ") || bytes[lower] == UInt8(ascii: "\t") { lower += 1 }
        while upper > lower, bytes[upper - 1] == UInt8(ascii: " ") || bytes[upper - 1] == UInt8(ascii: "\t") { upper -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lower..<upper])
    }

    /// Whether `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
    public static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upperBound = 0x9F
            case 0xF0: length = 4; lowerBound = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upperBound = 0x8F
            default: return false
            }
            guard i + length <= n else { return false }
            guard bytes[i + 1] >= lowerBound, bytes[i + 1] <= upperBound else { return false }
            var k = 2
            while k < length {
                guard bytes[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += length
        }
        return true
    }
}
