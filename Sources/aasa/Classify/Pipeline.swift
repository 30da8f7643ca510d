import AASAKit
import Foundation

/// A run of whole input lines, as the reader cut them from the input.
struct LineBatch: Sendable {
    enum Preassembled: Sendable, Equatable {
        case url([UInt8])
        case invalid(String, String)
    }

    var sequence = 0
    /// The bytes of whole lines (each ends in a newline, except the input's last line).
    var raw: [UInt8]
    /// For a batch holding one over-long line assembled by the reader: its verdict (the raw
    /// bytes are then a single placeholder newline).
    var preassembled: Preassembled?

    init(raw: [UInt8]) {
        self.raw = raw
    }
}

/// Runs the lines of one batch through a classifier, appending records in input order.
struct BatchProcessor {
    let parser: InputRecordParser
    let limits: Configuration.Input

    func process(_ batch: LineBatch, with classifier: Classifier, into out: inout [UInt8]) {
        if let preassembled = batch.preassembled {
            switch preassembled {
            case .url(var bytes): bytes.withUnsafeMutableBufferPointer { handle(.url(UnsafeBufferPointer($0)), classifier, &out) }
            case .invalid(let text, let message): classifier.appendUnreadable(text: text, message: message, into: &out)
            }
            return
        }
        var assembler = LineAssembler(maxLineBytes: limits.maxLineBytes)
        batch.raw.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var start = 0
            while start < all.count {
                var end = all.count
                if let found = memchr(base + start, 0x0A, all.count - start) {
                    end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                assembler.append(UnsafeBufferPointer(rebasing: all[start..<end]))
                // The closure never throws; `finish` only rethrows what its body throws.
                try? assembler.finish { handle($0, classifier, &out) }
                start = end + 1
            }
        }
    }

    func handle(_ line: URLLineReader.Line, _ classifier: Classifier, _ out: inout [UInt8]) {
        switch line {
        case .invalid(let text, let error):
            classifier.appendUnreadable(text: text, message: error.description, into: &out)
        case .url(let bytes):
            if parser.format == .lines {
                if bytes.count > limits.maxURLBytes {
                    appendTooLong(bytes, extra: .none, classifier, &out)
                } else {
                    classifier.classify(bytes, into: &out)
                }
                return
            }
            switch parser.parse(bytes) {
            case .url(var url, let extra):
                url.withUnsafeMutableBufferPointer { url in
                    let view = UnsafeBufferPointer(url)
                    if view.count > limits.maxURLBytes {
                        appendTooLong(view, extra: extra, classifier, &out)
                    } else if URLLineReader.isValidUTF8(view) {
                        classifier.classify(view, extra: extra, into: &out)
                    } else {
                        classifier.appendUnreadable(text: String(decoding: view, as: UTF8.self), message: URLSplitError.invalidUTF8.description, extra: extra, into: &out)
                    }
                }
            case .invalid(let message, let extra):
                classifier.appendUnreadable(text: String(decoding: bytes, as: UTF8.self), message: message, extra: extra, into: &out)
            }
        }
    }
}

extension BatchProcessor {
    /// A URL over `maxURLBytes` (shorter than its line): an error record showing its start,
    /// as the line reader shows an over-long line.
    func appendTooLong(_ url: UnsafeBufferPointer<UInt8>, extra: Classifier.Extra, _ classifier: Classifier, _ out: inout [UInt8]) {
        let shown = String(decoding: url.prefix(200), as: UTF8.self) + "…"
        let error = URLSplitError.tooLong(length: url.count, limit: limits.maxURLBytes)
        classifier.appendUnreadable(text: shown, message: error.description, extra: extra, into: &out)
    }
}

/// The parallel pipeline: the calling thread reads batches, `jobs` worker threads classify
/// them, and a writer thread writes their output strictly in input order.
///
/// Order is kept by sequence numbers: a batch's output waits in `pending` until every earlier
/// batch has been written. At most `2 × jobs` batches are in flight, so memory stays bounded
/// however fast the input arrives. When standard output closes (`| head`), the writer stops
/// and the reader stops reading.
final class Pipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [LineBatch] = []
    private var inputDone = false
    private var pending: [Int: [UInt8]] = [:]
    private var nextToWrite = 0
    private var batchesSubmitted = 0
    private var inFlight = 0
    private(set) var outputClosed = false
    private(set) var writeError: Int32?
    private var statistics: [ClassifyStatistics] = []
    private var workersLeft = 0

    let rules: ClassifierRules
    let format: RecordFormat
    let processor: BatchProcessor
    let jobs: Int
    let output: OutputStream
    let progress: Progress?

    init(rules: ClassifierRules, format: RecordFormat, processor: BatchProcessor, jobs: Int, output: OutputStream, progress: Progress?) {
        self.rules = rules
        self.format = format
        self.processor = processor
        self.jobs = jobs
        self.output = output
        self.progress = progress
    }

    /// Starts the workers and the writer.
    func start() {
        workersLeft = jobs
        for _ in 0..<jobs {
            let thread = Thread { [self] in worker() }
            thread.stackSize = 4 << 20
            thread.start()
        }
        let writer = Thread { [self] in writerLoop() }
        writer.start()
    }

    /// Hands a batch to the workers; blocks while too many are in flight. Returns false once
    /// the output has closed (the caller should stop reading).
    func submit(_ batch: LineBatch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while inFlight >= 2 * jobs && !outputClosed && writeError == nil { condition.wait() }
        if outputClosed || writeError != nil { return false }
        var batch = batch
        batch.sequence = batchesSubmitted
        batchesSubmitted += 1
        inFlight += 1
        queue.append(batch)
        condition.broadcast()
        return true
    }

    /// Signals the end of input and waits until everything is written; returns the merged
    /// statistics.
    func finish() -> ClassifyStatistics {
        condition.lock()
        inputDone = true
        condition.broadcast()
        while workersLeft > 0 || (nextToWrite < batchesSubmitted && !outputClosed && writeError == nil) {
            condition.wait()
        }
        condition.unlock()
        var merged = ClassifyStatistics(rules: rules)
        for part in statistics { merged.merge(part) }
        return merged
    }

    private func worker() {
        let classifier = Classifier(rules: rules, format: format)
        while true {
            condition.lock()
            while queue.isEmpty && !inputDone && !outputClosed { condition.wait() }
            if queue.isEmpty || outputClosed {
                statistics.append(classifier.statistics)
                workersLeft -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = queue.removeFirst()
            condition.unlock()

            var out: [UInt8] = []
            out.reserveCapacity(batch.raw.count * 3)
            processor.process(batch, with: classifier, into: &out)

            condition.lock()
            pending[batch.sequence] = out
            condition.broadcast()
            condition.unlock()
        }
    }

    private func writerLoop() {
        while true {
            condition.lock()
            while pending[nextToWrite] == nil && !(inputDone && workersLeft == 0 && nextToWrite >= batchesSubmitted) {
                condition.wait()
            }
            guard let chunk = pending.removeValue(forKey: nextToWrite) else {
                condition.unlock()
                return
            }
            condition.unlock()
            var closed = false
            var failure: Int32?
            do throws(OutputStream.WriteFailure) {
                try output.append { $0.append(contentsOf: chunk) }
                try output.flush()
            } catch {
                switch error {
                case .closed: closed = true
                case .failed(let code): failure = code
                }
            }
            condition.lock()
            nextToWrite += 1
            inFlight -= 1
            if closed { outputClosed = true }
            if let failure { writeError = failure }
            progress?.add(records: chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
            condition.broadcast()
            condition.unlock()
            if closed || failure != nil { return }
        }
    }
}

/// A progress line on a terminal's stderr, refreshed a few times a second.
final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var records = 0

    /// Adds `count` records, or sets the total when `total` is given.
    func add(records count: Int, total: Int? = nil) {
        lock.lock()
        records = total ?? (records + count)
        let now = Date()
        let draw = now.timeIntervalSince(lastDraw) > 0.25
        if draw { lastDraw = now }
        let snapshot = records
        lock.unlock()
        if draw { redraw(snapshot, now) }
    }

    private func redraw(_ records: Int, _ now: Date) {
        let elapsed = now.timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(records) / elapsed : 0
        let line = String(format: "\r%ld records, %.0f records/s, %.1f s elapsed", records, rate, elapsed)
        printErrorRaw(line)
    }

    func clear() {
        printErrorRaw("\r\u{1B}[K")
    }
}

/// Writes to stderr without a newline (for the progress line).
func printErrorRaw(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { raw in
        guard let base = raw.baseAddress else { return }
        _ = Foundation.write(STDERR_FILENO, base, raw.count)
    }
}
