import AASAKit
import Foundation

/// The parallel pipeline: `jobs` workers (the calling thread and `jobs - 1` others), each of
/// which reads the next batch, classifies it into its own buffer, and writes whatever output
/// is next in input order.
///
/// Why no reader and no writer thread: cutting a batch (one `read`, one backwards newline
/// search) and writing one (one `write`) are small next to classifying it, but a dedicated
/// thread for each had to be scheduled for every batch; on a two-core machine shared with other
/// work those hand-offs left the workers waiting, and `--jobs 2` measured slower than `--jobs 1`
/// (classify suite of `aasa-bench`). Here a worker only waits for a lock held for that short
/// work.
///
/// Order is kept by sequence numbers: a batch's output waits in `pending` until every earlier
/// batch has been written, and whichever worker adds the next one writes it (and any that
/// follow). A worker does not read ahead while `2 × jobs` outputs are waiting, nor while
/// `maxInFlight` batches are in work or waiting, so memory stays bounded even when one worker
/// is descheduled, and however many jobs there are. A batch whose records outgrow
/// `BatchProcessor.spillBytes` (a document naming thousands of apps makes megabyte records)
/// is written as it goes once its turn comes, so no output waits whole in memory. When
/// standard output closes (`| head`), or a write or read fails, every worker stops after its
/// current batch.
final class Pipeline: @unchecked Sendable {
    struct Outcome {
        var statistics: ClassifyStatistics
        var readError: Error?
        var outputClosed: Bool
        var writeError: Int32?
    }

    // SAFETY (`@unchecked Sendable`): the reader's fields are touched only under `readLock`
    // (`readError` read once every worker has stopped), the rest under `state` (`workersLeft` set
    // before any worker starts); `output` is used only by the worker that set `writing`.
    private let readLock = NSLock()
    private var reader: RawBatchReader
    private var firstBatch: LineBatch?
    private var nextSequence = 0
    private var inputDone = false
    private var readError: Error?

    /// Guards everything below; workers wait on it for room to read ahead.
    private let state = NSCondition()
    private var pending: [Int: (records: RecordBuffer, count: Int)] = [:]
    /// Batches handed to workers and not yet delivered.
    private var working = 0
    private var nextToWrite = 0
    private var writing = false
    /// Written buffers, reused: a batch's output is megabytes, and allocating that afresh for
    /// every batch costs page faults.
    private var spare: [RecordBuffer] = []
    private var outputClosed = false
    private var writeError: Int32?
    private var statistics: [ClassifyStatistics] = []
    private var workersLeft = 0

    let rules: ClassifierRules
    let format: RecordFormat
    let processor: BatchProcessor
    let jobs: Int
    /// Batches in work or waiting their turn, at most: `3 × jobs` up to 10 jobs, then 32. Each
    /// holds up to `BatchProcessor.spillBytes` of records, and at `--jobs 256` three batches a
    /// job let an ordinary stream of kilobyte records take 1.2 GB (300 MB since); past 10 jobs
    /// the workers beyond 32 batches wait for their turn to read instead (output is written in
    /// order, so they could only have waited later, holding their records).
    var maxInFlight: Int { min(3 * jobs, 32) }
    let output: OutputStream
    let progress: Progress?

    init(
        reader: RawBatchReader, firstBatch: LineBatch?, rules: ClassifierRules, format: RecordFormat, processor: BatchProcessor,
        jobs: Int, output: OutputStream, progress: Progress?
    ) {
        self.reader = reader
        self.firstBatch = firstBatch
        self.rules = rules
        self.format = format
        self.processor = processor
        self.jobs = jobs
        self.output = output
        self.progress = progress
    }

    /// Classifies the whole input; returns when every worker has stopped and everything that
    /// could be written was written.
    func run() -> Outcome {
        workersLeft = jobs
        for _ in 1..<max(jobs, 1) {
            let thread = Thread { [self] in worker() }
            thread.stackSize = 4 << 20
            thread.start()
        }
        worker()
        state.lock()
        while workersLeft > 0 { state.wait() }
        var merged = ClassifyStatistics(rules: rules)
        for part in statistics { merged.merge(part) }
        let outcome = Outcome(statistics: merged, readError: readError, outputClosed: outputClosed, writeError: writeError)
        state.unlock()
        return outcome
    }

    private func worker() {
        let classifier = Classifier(rules: rules, format: format)
        while let (batch, sequence, out) = nextBatch() {
            let before = classifier.records
            processor.process(batch, with: classifier, into: out) { spill(sequence, $0) }
            deliver(sequence, out, records: classifier.records - before)
        }
        UntilExit.keep(classifier)
        state.lock()
        statistics.append(classifier.statistics)
        workersLeft -= 1
        state.broadcast()
        state.unlock()
    }

    /// The next batch to classify, its sequence number and a buffer for its output; nil when
    /// the input is done or the run is stopping.
    private func nextBatch() -> (LineBatch, Int, RecordBuffer)? {
        state.lock()
        while (pending.count >= 2 * jobs || pending.count + working >= maxInFlight) && !stopping { state.wait() }
        let out = stopping ? nil : (spare.popLast() ?? RecordBuffer(capacity: 1 << 22))
        if out != nil { working += 1 }
        state.unlock()
        guard let out else { return nil }
        func noBatch() -> (LineBatch, Int, RecordBuffer)? {
            state.lock()
            working -= 1
            spare.append(out)
            state.broadcast()
            state.unlock()
            return nil
        }

        readLock.lock()
        defer { readLock.unlock() }
        if inputDone { return noBatch() }
        var batch: LineBatch?
        if let first = firstBatch {
            batch = first
            firstBatch = nil
        } else {
            do {
                batch = try reader.next()
            } catch {
                readError = error
            }
        }
        guard let batch else {
            inputDone = true
            return noBatch()
        }
        defer { nextSequence += 1 }
        return (batch, nextSequence, out)
    }

    private var stopping: Bool { outputClosed || writeError != nil }

    /// Hands over a batch's output; the worker that completes the run of outputs waiting to
    /// be written writes them, in order, outside the lock.
    private func deliver(_ sequence: Int, _ out: RecordBuffer, records: Int) {
        state.lock()
        defer { state.unlock() }
        working -= 1
        pending[sequence] = (out, records)
        if writing { return }
        writing = true
        while let chunk = pending.removeValue(forKey: nextToWrite) {
            let skip = stopping
            state.unlock()
            let failure = skip ? nil : write(chunk.records)
            progress?.add(records: chunk.count)
            chunk.records.removeAll()
            state.lock()
            note(failure)
            // A buffer a few huge records grew is let go: spares keep what batches usually need.
            if chunk.records.capacity <= 2 * BatchProcessor.spillBytes { spare.append(chunk.records) }
            nextToWrite += 1
            state.broadcast()
        }
        writing = false
        state.broadcast()
    }

    /// Writes what batch `sequence` has recorded so far, once every earlier batch is written,
    /// and empties `out`; the batch keeps its turn (`nextToWrite` stays), so its later records
    /// follow these. Run when its records outgrow `BatchProcessor.spillBytes`.
    private func spill(_ sequence: Int, _ out: RecordBuffer) {
        state.lock()
        // Earlier batches are written by the workers that deliver them; none waits on this one.
        while (nextToWrite != sequence || writing) && !stopping { state.wait() }
        if stopping {
            state.unlock()
            out.removeAll()
            return
        }
        writing = true
        state.unlock()
        let failure = write(out)
        out.removeAll()
        state.lock()
        note(failure)
        writing = false
        state.broadcast()
        state.unlock()
    }

    /// Writes `records` (outside the lock: only the worker holding `writing` writes).
    private func write(_ records: RecordBuffer) -> OutputStream.WriteFailure? {
        do throws(OutputStream.WriteFailure) {
            try output.write(records)
            return nil
        } catch {
            return error
        }
    }

    /// Keeps what a write ran into, under the lock: every worker stops after its batch.
    private func note(_ failure: OutputStream.WriteFailure?) {
        switch failure {
        case .closed?: outputClosed = true
        case .failed(let code)?: writeError = code
        case nil: break
        }
    }
}
