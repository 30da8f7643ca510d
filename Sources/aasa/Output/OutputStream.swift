import AASAKit
import Foundation

/// Buffered writing to a file descriptor in large blocks, with the failure modes a pipeline
/// tool needs: a closed pipe (`| head`) ends the run quietly, any other write error is reported.
final class OutputStream {
    enum WriteFailure: Error, CustomStringConvertible {
        /// The reader went away (EPIPE): stop quietly, nothing more can be delivered.
        case closed
        case failed(errno: Int32)

        var description: String {
            switch self {
            case .closed: return "cannot write the output: the reader closed it"
            case .failed(let code): return "cannot write the output: \(String(cString: strerror(code)))"
            }
        }
    }

    private let fileDescriptor: Int32
    private(set) var buffer: [UInt8] = []
    private let flushThreshold: Int
    /// Bytes handed to the output so far, written or still buffered: whether a failure left
    /// anything incomplete.
    var bytesGiven: Int { written + buffer.count }
    private var written = 0

    init(fileDescriptor: Int32, flushThreshold: Int = 1 << 16) {
        self.fileDescriptor = fileDescriptor
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    func write(_ text: String) throws(WriteFailure) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Appends through a closure that writes straight into the buffer (no intermediate String).
    func append(_ body: (inout [UInt8]) -> Void) throws(WriteFailure) {
        body(&buffer)
        if buffer.count >= flushThreshold { try flush() }
    }

    func flush() throws(WriteFailure) {
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBufferPointer { bytes throws(WriteFailure) in try writeAll(bytes) }
    }

    /// Writes `records` after whatever is buffered, straight from its memory: a batch of
    /// records is already one large block, so copying it into the buffer first would only
    /// double the bytes moved.
    func write(_ records: RecordBuffer) throws(WriteFailure) {
        try flush()
        try records.withBytes { bytes throws(WriteFailure) in try writeAll(bytes) }
    }

    private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) throws(WriteFailure) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            // SAFETY: `write` reads `bytes.count - offset` bytes from `base + offset`, inside
            // `bytes`: `offset` only grows by what `write` reports, so it stays `<= bytes.count`.
            let written = Foundation.write(fileDescriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw code == EPIPE ? .closed : .failed(errno: code)
            }
            offset += written
            self.written += written
        }
    }
}

/// Writes a command's whole text to standard output: `nil` when written (or when the reader
/// went away, `| head`, which is not an error), `.inputOutput` with the reason on standard
/// error when it could not be (a full disk), so that no command reports success over a cut
/// output.
func writeStandardOutput(_ text: String, command: String) -> ExitCode? {
    writeStandardOutput(command: command) { output throws(OutputStream.WriteFailure) in try output.write(text) }
}

/// As `writeStandardOutput(_:command:)`, the text written piece by piece by `body`, so that a
/// long output is never held whole.
func writeStandardOutput(command: String, _ body: (OutputStream) throws(OutputStream.WriteFailure) -> Void) -> ExitCode? {
    var closed = false
    return write(to: OutputStream(fileDescriptor: STDOUT_FILENO), closed: &closed, command: command, body)
}

/// One part of an output written in parts (`fetch` and `check` write a slice of domains at a
/// time), as `writeStandardOutput`: once the reader has gone, `closed` is set and the later
/// parts are not written, which is not an error.
func write(
    to output: OutputStream, closed: inout Bool, command: String, _ body: (OutputStream) throws(OutputStream.WriteFailure) -> Void
) -> ExitCode? {
    guard !closed else { return nil }
    do {
        try body(output)
        try output.flush()
    } catch OutputStream.WriteFailure.closed {
        closed = true
    } catch {
        printError("aasa \(command): \(error)")
        return .inputOutput
    }
    return nil
}

/// Writes a line to standard error, unbuffered (diagnostics must not wait for the output).
func printError(_ message: String) {
    StandardError.write(message.hasSuffix("\n") ? message : message + "\n")
}
