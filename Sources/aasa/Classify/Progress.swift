import Foundation

/// A progress line on a terminal's stderr, redrawn by its own thread a few times a second.
///
/// On a timer rather than when records arrive: a slow producer (`tail -f`, a stalled pipe) or
/// a long first batch would otherwise freeze the line, and a frozen line looks like a hang.
final class Progress: @unchecked Sendable {
    // SAFETY (`@unchecked Sendable`): `records`, `stopped` and `finished` are read and written only
    // while `condition` is locked; the rest is immutable.
    private let condition = NSCondition()
    private let start = Date()
    private var records = 0
    private var stopped = false
    private var finished = false
    static let interval = 0.25

    /// Starts the redrawing thread.
    func begin() {
        let thread = Thread { [self] in loop() }
        thread.start()
    }

    func add(records count: Int) {
        condition.lock()
        records += count
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while !stopped {
            let snapshot = records
            condition.unlock()
            redraw(snapshot, Date())
            condition.lock()
            _ = condition.wait(until: Date().addingTimeInterval(Self.interval))
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func redraw(_ records: Int, _ now: Date) {
        let elapsed = now.timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(records) / elapsed : 0
        StandardError.drawProgress(String(format: "\r%ld records, %.0f records/s, %.1f s elapsed\u{1B}[K", records, rate, elapsed))
    }

    /// Stops the thread and clears the line, so that what follows on stderr starts clean; once
    /// only, so that early returns may call it too.
    func end() {
        condition.lock()
        if stopped {
            condition.unlock()
            return
        }
        stopped = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        StandardError.clearProgress()
    }
}

/// Standard error shared by messages and the progress line: a message first clears the line,
/// so that it never lands in the middle of it, and the next redraw comes below the message.
enum StandardError {
    private static let lock = NSLock()
    // SAFETY: read and written only while `lock` is held.
    nonisolated(unsafe) private static var progressShown = false

    static func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        if progressShown {
            raw("\r\u{1B}[K")
            progressShown = false
        }
        raw(text)
    }

    static func drawProgress(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        raw(line)
        progressShown = true
    }

    static func clearProgress() {
        lock.lock()
        defer { lock.unlock() }
        if progressShown { raw("\r\u{1B}[K") }
        progressShown = false
    }

    private static func raw(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            // SAFETY: `write` reads the `raw.count` bytes of `bytes` from `base`.
            _ = Foundation.write(STDERR_FILENO, base, raw.count)
        }
    }
}
