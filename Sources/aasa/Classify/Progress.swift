import Foundation

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
