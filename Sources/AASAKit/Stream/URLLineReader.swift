import Foundation

/// Reads a stream of URLs, one per line, the way SPEC 14 says: a leading UTF-8 byte order mark,
/// LF or CRLF terminators and spaces and tabs around the URL removed, blank lines skipped, every
/// other line one record, in order.
///
/// Input is read in large blocks; each line is gathered into one reusable buffer, so reading
/// allocates nothing per line. A line is judged *after* trimming: whether it is over the length
/// limit never depends on how the input happened to be split into reads. Bytes beyond the limit
/// are not kept, only examined (are they trailing blanks, or more URL?), so an endless line
/// costs no memory. A line that is not valid UTF-8, or too long, is still a record: the caller
/// turns it into an error record, so nothing is ever silently dropped.
///
/// What the Stream folder will not do: judge whether a line is a URL (`URLSplitter` does),
/// decode or normalise its text, open files (it reads a file descriptor the caller opened), or
/// keep more than one line: an over-long line costs its limit in memory, not its length.
public struct URLLineReader {
    /// One non-blank input line.
    public enum Line {
        /// A valid UTF-8 line within the length limit: the URL bytes, trimmed. The buffer is only
        /// valid inside the closure that received it. `plain` when every byte is ASCII and none
        /// needs escaping in a JSON string (no quote, backslash or control character), found by
        /// the same pass that checked the UTF-8, so that a record writer can copy the URL as it
        /// is; `false` says nothing (the writer looks for itself).
        case url(UnsafeBufferPointer<UInt8>, plain: Bool)
        /// A line that cannot be a URL; `text` is the line with U+FFFD for invalid UTF-8 (its
        /// first 200 bytes and "…" for an over-long line).
        case invalid(text: String, error: URLSplitError)
    }

    private let fileDescriptor: Int32
    private let maxLineBytes: Int
    private var block: [UInt8]
    /// Bytes of `block` filled by the last read, and the next one to look at.
    private var blockCount = 0
    private var position = 0
    private var atEOF = false
    /// Whether the start of the stream was examined for a byte order mark.
    private var startExamined = false

    private var assembler: LineAssembler

    public init(fileDescriptor: Int32, maxLineBytes: Int = Configuration.default.input.maxLineBytes, bufferBytes: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.maxLineBytes = maxLineBytes
        // At least three bytes, so that the byte order mark fits in the first block.
        self.block = [UInt8](repeating: 0, count: max(bufferBytes, 3))
        self.assembler = LineAssembler(maxLineBytes: maxLineBytes)
    }

    /// Calls `body` for every record in the stream, in order.
    ///
    /// If `body` throws, reading stops after the line it was given; calling `forEachLine` again
    /// resumes with the next line (the CSV reader takes the header row this way).
    /// - Throws: an error for a failed read (records before it were delivered), or what `body`
    ///   throws.
    public mutating func forEachLine(_ body: (Line) throws -> Void) throws {
        while true {
            if position >= blockCount {
                if atEOF { return }
                var block = self.block
                var count = try Self.read(fileDescriptor, into: &block, at: 0)
                position = 0
                if !startExamined {
                    startExamined = true
                    // A pipe may deliver the mark in pieces; read on only while what came could
                    // still be one, so a short line typed at a terminal is never held back.
                    while count > 0, count < 3, block.prefix(count).elementsEqual(Self.byteOrderMark.prefix(count)) {
                        let more = try Self.read(fileDescriptor, into: &block, at: count)
                        if more == 0 { break }
                        count += more
                    }
                    if count >= 3, block.prefix(3).elementsEqual(Self.byteOrderMark) { position = 3 }
                }
                self.block = block
                blockCount = count
                if count == 0 {
                    atEOF = true
                    if assembler.hasPartialLine { try assembler.finish(terminated: false, body) }
                    return
                }
            }
            // Swap the block out so the closure below does not overlap an access to `self`.
            let block = self.block
            let blockCount = self.blockCount
            try block.withView { all in
                let filled = all[0..<blockCount]
                while position < blockCount {
                    // PERF: `index(of:from:)` is memchr, which finds the newline several bytes
                    // per cycle.
                    let end = filled.index(of: 0x0A, from: position)
                    assembler.append(filled[position..<end])
                    let complete = end < blockCount
                    position = end + 1
                    if complete { try assembler.finish(body) }
                }
            }
        }
    }

    /// The UTF-8 byte order mark, which some editors and spreadsheet exports put first.
    public static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// One `read` into `block` from `offset`, retried on EINTR.
    private static func read(_ fileDescriptor: Int32, into block: inout [UInt8], at offset: Int) throws(InputReadError) -> Int {
        while true {
            let result = FileDescriptorRead.read(fileDescriptor, into: &block, at: offset)
            if result == -Int(EINTR) { continue }
            if result < 0 { throw InputReadError(code: Int32(-result)) }
            return result
        }
    }

    @inline(__always)
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// What one pass over a line's bytes found (`examine`).
    enum LineText {
        case invalidUTF8
        /// Well-formed UTF-8 holding a non-ASCII scalar or a byte JSON escapes.
        case utf8
        /// ASCII without a quote, backslash or control character: its JSON string literal is
        /// the bytes between quotes.
        case plain
    }

    /// Whether `bytes` is well-formed UTF-8 and whether it is `plain`, in one pass: eight
    /// bytes at a time while they are plain, the UTF-8 check from the first non-ASCII byte on.
    // PERF: the record writer then copies a plain URL instead of scanning it again (and the
    // copy is inlined): a warm URL of the 10 000-domain fleet stream 1 590 → 1 494 instructions
    // with `--compiled`, 1 594 → 1 498 with `--rules` (`AASA_BENCH_KEEP_FLEET=1 aasa-bench
    // --suite fleet`, `aasa classify --jobs 1`, callgrind, stream twice − once), records
    // identical in NDJSON, TSV and CSV.
    static func examine(_ bytes: ByteView) -> LineText {
        let count = bytes.count
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var plain = true
        var index = 0
        // Sixteen bytes a step while nothing needs attention: one branch for two words.
        while count &- index >= 16,
            JSONByteScan.attentionMarks(bytes.word(at: index)) | JSONByteScan.attentionMarks(bytes.word(at: index &+ 8)) == 0
        {
            index &+= 16
        }
        while count &- index >= 8 {
            let word = bytes.word(at: index)
            if JSONByteScan.needsAttention(word) {
                // Non-ASCII from here: every byte before `index` is ASCII, so `index` starts a
                // scalar, and the UTF-8 check takes over.
                if word & highBits != 0 { return isValidUTF8(bytes[index..<count]) ? .utf8 : .invalidUTF8 }
                plain = false
            }
            index &+= 8
        }
        if index == count { return plain ? .plain : .utf8 }
        if count >= 8 {
            // The last few bytes in one word overlapping the checked ones, which are ASCII.
            let word = bytes.lastWord
            if !JSONByteScan.needsAttention(word) { return plain ? .plain : .utf8 }
            if word & highBits == 0 { return .utf8 }
            return isValidUTF8(bytes[index..<count]) ? .utf8 : .invalidUTF8
        }
        for offset in 0..<count {
            let byte = bytes[offset]
            if byte >= 0x80 { return isValidUTF8(bytes) ? .utf8 : .invalidUTF8 }
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { plain = false }
        }
        return plain ? .plain : .utf8
    }

    /// Whether `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
    public static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isValidUTF8(ByteView(bytes))
    }

    /// As `isValidUTF8(_:)`, the bytes lent as a view.
    @inline(__always)
    static func isValidUTF8(_ bytes: ByteView) -> Bool { bytes.isValidUTF8 }
}

/// A failed `read` of the input, described the way a person reads it ("Is a directory").
public struct InputReadError: Error, Sendable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) {
        self.code = code
    }

    public var description: String { String(cString: strerror(code)) }
}

/// Gathers one line from segments (a line may arrive split across reads) and judges it as SPEC 14
/// says, after trimming. Shared by `URLLineReader` and by `classify`'s workers, which assemble the
/// lines of raw input blocks themselves so that the reading thread only cuts blocks.
public struct LineAssembler {
    let maxLineBytes: Int
    /// The line being gathered: at most `maxLineBytes + 2` bytes (the content, one byte to know
    /// it is over the limit, and a possible CR), leading blanks already skipped.
    private var line: [UInt8] = []
    /// Raw length of the current line, counted even past the window.
    private var rawLength = 0
    /// A byte that cannot be trailing white space was seen past the window: the line is long.
    private var overflow = false
    /// The last byte past the window was a CR (content, unless an LF follows).
    private var pendingCR = false
    /// Bytes arrived past the window (blanks and CRs only, or `overflow` is set): the window's
    /// own last byte is then not the line's, so a CR there is content, not the terminator's.
    private var pastWindow = false
    /// Blanks skipped before the line's first content byte.
    private var leadingBlanks = 0
    /// Blanks past the window since its last content byte (a CR followed by more is content).
    private var trailingBlanks = 0

    public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
        line.reserveCapacity(min(maxLineBytes + 2, 1 << 16))
    }

    /// Whether bytes of an unfinished line are pending.
    public var hasPartialLine: Bool { rawLength > 0 }

    public mutating func append(_ segment: UnsafeBufferPointer<UInt8>) {
        append(ByteView(segment))
    }

    /// As `append(_:)`, the segment lent as a view.
    mutating func append(_ segment: ByteView) {
        rawLength += segment.count
        var index = 0
        if line.isEmpty {
            while index < segment.count, URLLineReader.isBlank(segment[index]) { index += 1 }
            leadingBlanks += index
        }
        let window = maxLineBytes + 2
        let keep = min(segment.count - index, max(0, window - line.count))
        if keep > 0 {
            line.append(contentsOf: segment[index..<(index + keep)])
            index += keep
        }
        if index < segment.count { pastWindow = true }
        while index < segment.count {
            let byte = segment[index]
            if pendingCR {
                overflow = true
                trailingBlanks = 0
            }
            pendingCR = false
            if byte == UInt8(ascii: "\r") {
                pendingCR = true
            } else if URLLineReader.isBlank(byte) {
                trailingBlanks += 1
            } else {
                overflow = true
                trailingBlanks = 0
            }
            index += 1
        }
    }

    /// Judges the gathered line and starts the next. `terminated`: an LF ended it; the input's
    /// last line may end without one, and then a CR at its end is content, not half of a CRLF
    /// (SPEC 14: the terminator is LF or CRLF).
    public mutating func finish(terminated: Bool = true, _ body: (URLLineReader.Line) throws -> Void) rethrows {
        if pendingCR, !terminated {
            // The input's last line: its CR is content.
            overflow = true
            trailingBlanks = 0
            pendingCR = false
        }
        defer {
            line.removeAll(keepingCapacity: true)
            rawLength = 0
            overflow = false
            pendingCR = false
            pastWindow = false
            leadingBlanks = 0
            trailingBlanks = 0
        }
        if overflow {
            // The length the limit applies to: the line trimmed as `judge` trims it (leading
            // and trailing blanks, the terminator's CR), as a line within the window reports.
            let length = rawLength - leadingBlanks - trailingBlanks - (pendingCR ? 1 : 0)
            let shown = line.withView { $0.shownText(cut: true) }
            try body(.invalid(text: shown, error: .lineTooLong(length: length, limit: maxLineBytes)))
            return
        }
        // With bytes past the window, the terminator's CR (if any) was among them: a CR ending
        // the window is content (`url \r  ` is 22 bytes after trimming, not 20).
        try line.withView { try Self.judge($0, stripCR: !pastWindow && terminated, maxLineBytes: maxLineBytes, body) }
    }

    /// What `judgeWholeLine` found.
    public enum WholeLine {
        /// A record: the trimmed URL (pointing into the segment) or why the line is not one.
        case line(URLLineReader.Line)
        /// Nothing but blanks: no record.
        case blank
        /// Longer than the window: only `append` and `finish` can judge it.
        case tooLongForWindow
    }

    /// Judges a line that arrived whole (without its LF) in place: what `append` then `finish`
    /// would deliver, without copying the line.
    ///
    /// PERF: `classify`'s workers call this for every line, so that only lines longer than
    /// the window go through the assembler; copying each line into the assembler's buffer,
    /// and the closure around it, were a tenth of a classify run (callgrind, shared corpus).
    @inline(__always)
    public static func judgeWholeLine(_ segment: UnsafeBufferPointer<UInt8>, maxLineBytes: Int, terminated: Bool = true) -> WholeLine {
        judgeWholeLine(ByteView(segment), maxLineBytes: maxLineBytes, terminated: terminated)
    }

    /// As `judgeWholeLine(_:maxLineBytes:)`, the line lent as a view.
    @inline(__always)
    static func judgeWholeLine(_ segment: ByteView, maxLineBytes: Int, terminated: Bool = true) -> WholeLine {
        guard segment.count <= maxLineBytes + 2 else { return .tooLongForWindow }
        var start = 0
        while start < segment.count, URLLineReader.isBlank(segment[start]) { start += 1 }
        var judged = WholeLine.blank
        judge(segment[start..<segment.count], stripCR: terminated, maxLineBytes: maxLineBytes) { judged = .line($0) }
        return judged
    }

    /// The bytes kept of a line (leading blanks skipped, at most the window): drops the
    /// terminator's CR and trailing blanks, then delivers the URL or says why it is not one.
    @inline(__always)
    static func judge(
        _ kept: ByteView, stripCR: Bool, maxLineBytes: Int, _ body: (URLLineReader.Line) throws -> Void
    ) rethrows {
        var end = kept.count
        if stripCR, end > 0, kept[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        while end > 0, URLLineReader.isBlank(kept[end - 1]) { end -= 1 }
        if end == 0 { return }
        let bytes = kept[0..<end]
        if end > maxLineBytes {
            let shown = bytes.shownText()
            try body(.invalid(text: shown, error: .lineTooLong(length: end, limit: maxLineBytes)))
        } else {
            switch URLLineReader.examine(bytes) {
            case .plain: try body(.url(bytes.buffer, plain: true))
            case .utf8: try body(.url(bytes.buffer, plain: false))
            case .invalidUTF8: try body(.invalid(text: bytes.string(0..<end), error: .invalidUTF8))
            }
        }
    }
}
