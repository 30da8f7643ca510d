import AASAKit
import Foundation

/// Cuts the input into batches of whole lines for the workers, doing no per-line work itself.
///
/// A worker calls it under the pipeline's read lock, so it only reads a block and finds its last
/// newline: the other workers never wait long for their next batch; each worker judges its
/// batch's lines itself (`LineAssembler.judgeWholeLine`). A line longer than the window (`maxLineBytes` plus slack) is assembled here
/// instead, so that memory stays bounded, and travels in its batch as a pre-judged record.
struct RawBatchReader {
    private let fileDescriptor: Int32
    private let maxLineBytes: Int
    private let batchBytes: Int
    /// About this many lines a batch (`lineCap`). A batch's output, not its input, is what
    /// stays in memory while it waits its turn, and a record is about 100 bytes however short
    /// its line: a megabyte of `x` lines gave 50 MB of records a batch, times the batches in
    /// flight. Real logs (lines of 64 bytes or more) fill the byte budget first and are not cut.
    private let batchLines: Int
    /// What the next read asks for: `batchBytes`, or less once short lines were seen, so that
    /// a batch ends near its `batchLines`-th line instead of being cut there with the rest of a
    /// megabyte carried over (copied at every batch).
    private var readBytes: Int
    private var carry: [UInt8] = []
    private var atEOF = false

    init(fileDescriptor: Int32, maxLineBytes: Int, batchBytes: Int = 1 << 20, batchLines: Int = 16_384) {
        self.fileDescriptor = fileDescriptor
        self.maxLineBytes = maxLineBytes
        self.batchBytes = batchBytes
        self.batchLines = batchLines
        self.readBytes = batchBytes
    }

    /// Reads the first bytes and tells what they are; a byte order mark is dropped here, before
    /// any line is cut (the CSV header row included). Call once, before `next()`.
    mutating func examineStart() throws(InputReadError) -> InputStart {
        while InputStart.needsMore(carry[...]) {
            if try readMore(into: &carry, upTo: 8) == 0 {
                atEOF = true
                break
            }
        }
        let (start, length) = InputStart.of(carry[...])
        if start == .byteOrderMark { carry.removeFirst(length) }
        return start
    }

    /// The next batch, or `nil` at the end of the input.
    mutating func next() throws(InputReadError) -> LineBatch? {
        if atEOF && carry.isEmpty { return nil }
        var buffer = carry
        carry = []
        // What is left over may already hold a whole batch of lines: no read until it is used.
        if let cut = lineCap(in: buffer) { return split(&buffer, after: cut) }
        if atEOF { return LineBatch(raw: buffer) }
        buffer.reserveCapacity(buffer.count + readBytes)
        // Where a newline may still be: anywhere at first (what was carried after a cut at
        // `batchLines` holds whole lines), then only in what each read added.
        var unsearched = 0
        while true {
            // First what the carried lines leave of `readBytes` (a little at least, to find a
            // newline); then, inside a long line, the whole budget at a time.
            let want = unsearched == 0 ? max(4096, readBytes - buffer.count) : batchBytes
            let count = try readMore(into: &buffer, upTo: want)
            if count == 0 {
                atEOF = true
                if let cut = lineCap(in: buffer) { return split(&buffer, after: cut) }
                return buffer.isEmpty ? nil : LineBatch(raw: buffer)
            }
            if let newline = lineCap(in: buffer) ?? lastNewline(in: buffer, from: unsearched) {
                return split(&buffer, after: newline)
            }
            unsearched = buffer.count
            if buffer.count > maxLineBytes + 2 + batchBytes {
                return try assembleLongLine(buffer)
            }
        }
    }

    /// The batch up to and including the newline at `newline`; the rest is carried.
    private mutating func split(_ buffer: inout [UInt8], after newline: Int) -> LineBatch {
        // With room for the next read: the carried bytes are copied once, not again to grow.
        carry = []
        carry.reserveCapacity(buffer.count - newline - 1 + readBytes)
        carry.append(contentsOf: buffer[(newline + 1)...])
        buffer.removeSubrange((newline + 1)...)
        return LineBatch(raw: buffer)
    }

    /// A line with no newline within the window: assembled here, byte for byte as a worker
    /// would, keeping only the window.
    private mutating func assembleLongLine(_ start: [UInt8]) throws(InputReadError) -> LineBatch {
        var assembler = LineAssembler(maxLineBytes: maxLineBytes)
        var pending = start
        while true {
            // SAFETY (both closures): `memchr` reads the `all.count` bytes of `pending`, so a
            // newline it finds is below `pending.count`, and `0..<end` lies within the buffer.
            let newline = pending.withUnsafeBufferPointer { all -> Int? in
                guard let base = all.baseAddress, let found = memchr(base, 0x0A, all.count) else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            let end = newline ?? pending.count
            pending.withUnsafeBufferPointer { assembler.append(UnsafeBufferPointer(rebasing: $0[0..<end])) }
            if let newline {
                carry = Array(pending[(newline + 1)...])
                break
            }
            pending.removeAll(keepingCapacity: true)
            if try readMore(into: &pending, upTo: batchBytes) == 0 {
                atEOF = true
                break
            }
        }
        var batch = LineBatch(raw: [UInt8(ascii: "\n")])
        assembler.finish(terminated: !atEOF) { line in
            switch line {
            case .url(let bytes, _): batch.preassembled = .url(Array(bytes))
            case .invalid(let text, let error): batch.preassembled = .invalid(text, error.description)
            }
        }
        // A long line of nothing but blanks stays one blank line: `--blank-lines record`
        // gives it its record like any other blank line.
        return batch
    }

    private func readMore(into buffer: inout [UInt8], upTo limit: Int) throws(InputReadError) -> Int {
        let before = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: limit))
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            while true {
                // SAFETY: `buffer` was just grown by `limit` bytes after `before`, so `read` writes
                // within it.
                let n = read(fileDescriptor, base + before, limit)
                if n < 0, errno == EINTR { continue }
                return n < 0 ? -Int(errno) : n
            }
        }
        buffer.removeSubrange((before + max(count, 0))...)
        if count < 0 { throw InputReadError(code: Int32(-count)) }
        return count
    }

    /// Where the lines of `batchLines` are counted, from the start of a batch.
    private static let sampleBytes = 64 << 10

    /// Where to end a batch of about `batchLines` lines, when `buffer` holds more: lines short
    /// enough for `batchLines` of them to end in the first `sampleBytes` are counted there and
    /// cut exactly; longer ones are cut at the last newline before the byte that the sample's
    /// average line length gives for `batchLines` lines. Nil when the byte budget comes first.
    ///
    /// Why estimated past the sample: counting every newline was a `memchr` call a line, as
    /// much again as cutting the lines; a batch's memory is bounded anyway
    /// (`BatchProcessor.spillBytes`), and the cap only keeps most batches' records small.
    // PERF: with the count sampled and the reads sized to the cap (`readBytes`), so that no
    // batch carries a quarter megabyte into the next: a warm URL of the 10 000-domain fleet
    // stream kept by `AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet` 1 526 → 1 423
    // instructions (`aasa classify --compiled --jobs 1`, callgrind, stream twice − once), records
    // identical.
    private mutating func lineCap(in buffer: [UInt8]) -> Int? {
        guard buffer.count > batchLines else { return nil }
        let (cut, linesEnd) = buffer.withUnsafeBufferPointer { all -> (Int?, Int?) in
            guard let base = all.baseAddress else { return (nil, nil) }
            let sample = min(all.count, Self.sampleBytes)
            var offset = 0
            var seen = 0
            // SAFETY: `offset < sample <= all.count` when `memchr` is called, and it reads at
            // most the `sample - offset` bytes from `base + offset`, all inside the buffer.
            while offset < sample, let found = memchr(base + offset, 0x0A, sample - offset) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                seen += 1
                if seen == batchLines { return (index + 1 < all.count ? index : nil, index + 1) }
                offset = index + 1
            }
            guard seen > 0 else { return (nil, nil) }
            let estimate = offset * batchLines / seen
            guard estimate < all.count - 1 else { return (nil, estimate) }
            var index = estimate
            // SAFETY (the read below): `0 < offset <= index <= estimate < all.count - 1`.
            while index >= offset {
                if all[index] == 0x0A { return (index, estimate) }
                index -= 1
            }
            return (offset - 1, estimate)
        }
        // The next batch is read to about where its lines reach the cap (a sample without a
        // newline, of long lines, asks for the whole budget again).
        readBytes = min(batchBytes, max(Self.sampleBytes, linesEnd ?? batchBytes))
        return cut
    }

    private func lastNewline(in buffer: [UInt8], from start: Int) -> Int? {
        // Backwards from the end: the last newline is usually within one line of it.
        var index = buffer.count
        while index > start {
            index -= 1
            if buffer[index] == 0x0A { return index }
        }
        return nil
    }
}
