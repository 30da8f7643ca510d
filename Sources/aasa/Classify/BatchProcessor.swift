import AASAKit
import Foundation

/// A run of whole input lines, as the reader cut them from the input.
struct LineBatch: Sendable {
    enum Preassembled: Sendable, Equatable {
        case url([UInt8])
        case invalid(String, String)
    }

    /// The bytes of whole lines (each ends in a newline, except the input's last line).
    var raw: [UInt8]
    /// For a batch holding one over-long line assembled by the reader: its verdict (the raw
    /// bytes are then a single placeholder newline).
    var preassembled: Preassembled?

    init(raw: [UInt8]) {
        self.raw = raw
    }
}

extension LineBatch {
    /// One line of a batch, as SPEC 14 judges it.
    enum Line {
        case url(UnsafeBufferPointer<UInt8>)
        case invalid(text: String, error: String)
        case blank
    }

    /// Calls `body` for every line of the batch, in order, blank lines included.
    ///
    /// For `match`, which reads a line at a time; `BatchProcessor` has its own loop, without
    /// the closure per line, because it is the classify hot path.
    func forEachLine(maxLineBytes: Int, _ body: (Line) throws -> Void) throws {
        if let preassembled {
            switch preassembled {
            // SAFETY: the pointer is used only inside the closure that lends it; `body` copies what
            // it keeps.
            case .url(var bytes): try bytes.withUnsafeMutableBufferPointer { try body(.url(UnsafeBufferPointer($0))) }
            case .invalid(let text, let message): try body(.invalid(text: text, error: message))
            }
            return
        }
        func deliver(_ line: URLLineReader.Line) throws {
            switch line {
            case .url(let bytes, _): try body(.url(bytes))
            case .invalid(let text, let error): try body(.invalid(text: text, error: error.description))
            }
        }
        try raw.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var start = 0
            while start < all.count {
                // SAFETY (the search and the slice below): `start < all.count`, so `memchr` reads
                // the `all.count - start` bytes from `base + start`, all inside `all`; a newline it
                // finds lies there, so `start <= end <= all.count`.
                var end = all.count
                if let found = memchr(base + start, 0x0A, all.count - start) {
                    end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                let segment = UnsafeBufferPointer(rebasing: all[start..<end])
                // Only the input's last line can end without its LF.
                let terminated = end < all.count
                switch LineAssembler.judgeWholeLine(segment, maxLineBytes: maxLineBytes, terminated: terminated) {
                case .line(let line): try deliver(line)
                case .blank: try body(.blank)
                case .tooLongForWindow:
                    var assembler = LineAssembler(maxLineBytes: maxLineBytes)
                    assembler.append(segment)
                    var delivered = false
                    try assembler.finish(terminated: terminated) {
                        delivered = true
                        try deliver($0)
                    }
                    if !delivered { try body(.blank) }
                }
                start = end + 1
            }
        }
    }
}

/// Runs the lines of one batch through a classifier, appending records in input order.
struct BatchProcessor {
    let parser: InputRecordParser
    let limits: Configuration.Input
    /// `--blank-lines record`: a blank line gets an "empty line" error record, so that row n
    /// of the output is line n of the input (Spark zips them back by position).
    var recordBlankLines = false

    /// Records a batch may hold before they are handed to `spill`: a record is about a
    /// hundred bytes, but one of a document naming 19 000 apps is 1.3 MB, and 16 384 of those
    /// would be 21 GB.
    static let spillBytes = 4 << 20

    /// Classifies every line of `batch` into `out`, in order. When `out` passes `spillBytes`,
    /// `spill` gets it (to write what it holds and empty it) before the next line.
    func process(_ batch: LineBatch, with classifier: Classifier, into out: RecordBuffer, spill: (RecordBuffer) -> Void = { _ in }) {
        if let preassembled = batch.preassembled {
            switch preassembled {
            // SAFETY: the pointer is used only inside the closure that lends it; `handle` copies
            // what it keeps.
            case .url(var bytes): bytes.withUnsafeMutableBufferPointer { handle(.url(UnsafeBufferPointer($0), plain: false), classifier, out) }
            case .invalid(let text, let message): classifier.appendUnreadable(text: text, message: message, extra: parser.blankExtra, into: out)
            }
            return
        }
        batch.raw.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var start = 0
            while start < all.count {
                // SAFETY (the search and the slice below): `start < all.count`, so `memchr` reads
                // the `all.count - start` bytes from `base + start`, all inside `all`; a newline it
                // finds lies there, so `start <= end <= all.count`.
                var end = all.count
                if let found = memchr(base + start, 0x0A, all.count - start) {
                    end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                // Lines are judged where they lie in the batch, with no copy.
                let segment = UnsafeBufferPointer(rebasing: all[start..<end])
                // Only the input's last line can end without its LF.
                let delivered = Classifier.judge(wholeLine: segment, maxLineBytes: limits.maxLineBytes, terminated: end < all.count) {
                    handle($0, classifier, out)
                }
                if !delivered, recordBlankLines { classifier.appendEmptyLine(extra: parser.blankExtra, into: out) }
                if out.count > Self.spillBytes { spill(out) }
                start = end + 1
            }
        }
    }

    @inline(__always)
    func handle(_ line: URLLineReader.Line, _ classifier: Classifier, _ out: RecordBuffer) {
        if parser.format == .lines { return classifier.classify(line: line, limits: limits, into: out) }
        switch line {
        case .invalid(let text, let error):
            // Every record has the output's columns, pass-through ones included (empty here).
            classifier.appendUnreadable(text: text, message: error.description, extra: parser.blankExtra, into: out)
        case .url(let bytes, _):
            switch parser.parse(bytes) {
            case .url(var url, let extra):
                // SAFETY: `view` is used only inside the closure that lends it.
                url.withUnsafeMutableBufferPointer { url in
                    let view = UnsafeBufferPointer(url)
                    if view.count > limits.maxURLBytes {
                        classifier.appendTooLong(view, limit: limits.maxURLBytes, extra: extra, into: out)
                    } else if URLLineReader.isValidUTF8(view) {
                        classifier.classify(view, extra: extra, into: out)
                    } else {
                        classifier.appendUnreadable(text: String(decoding: view, as: UTF8.self), message: URLSplitError.invalidUTF8.description, extra: extra, into: out)
                    }
                }
            case .invalid(let message, let extra):
                classifier.appendUnreadable(text: String(decoding: bytes, as: UTF8.self), message: message, extra: extra, into: out)
            case .emptyURL(let extra):
                classifier.appendUnreadable(text: "", message: InputRecordParser.emptyURL, extra: extra, into: out)
            }
        }
    }
}
