import Foundation

/// A temporary file (the CA bundle `--ca-file` makes) removed when the process is stopped by
/// SIGINT, SIGTERM or SIGHUP, as `timeout` and cron stop a run, and not only when a command
/// returns: one file would otherwise be left in the temporary directory per stopped run.
/// SIGKILL cannot be caught; the file's name says what it was.
///
/// What it will not do: handle more than one file, or survive `exec`.
enum RemovedOnSignal {
    /// The path as a C string, written once before the handlers are installed and only read
    /// in them (`unlink` is async-signal-safe; nothing else is done there).
    // SAFETY: written once, by `register` on the main thread (command setup) before the handlers
    // that read it are installed; never changed or freed after (the `nil` check).
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?

    static func register(_ file: String) {
        guard path == nil else { return }
        path = strdup(file)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            Foundation.signal(signal) { received in
                if let path = RemovedOnSignal.path { unlink(path) }
                // Then stop as the signal would have: the status says which one.
                Foundation.signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
