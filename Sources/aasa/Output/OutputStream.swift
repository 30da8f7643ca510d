import Foundation

/// Buffered writing to a file descriptor in large blocks, with the failure modes a pipeline
/// tool needs: a closed pipe (`| head`) ends the run quietly, any other write error is reported.
final class OutputStream {
    enum WriteFailure: Error {
        /// The reader went away (EPIPE): stop quietly, nothing more can be delivered.
        case closed
        case failed(errno: Int32)
    }

    private let fileDescriptor: Int32
    private(set) var buffer: [UInt8] = []
    private let flushThreshold: Int

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
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Foundation.write(fileDescriptor, base + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                buffer.removeAll(keepingCapacity: true)
                throw code == EPIPE ? .closed : .failed(errno: code)
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes a line to standard error, unbuffered (diagnostics must not wait for the output).
func printError(_ message: String) {
    let line = message.hasSuffix("\n") ? message : message + "\n"
    var bytes = Array(line.utf8)
    bytes.withUnsafeMutableBytes { raw in
        guard let base = raw.baseAddress else { return }
        _ = Foundation.write(STDERR_FILENO, base, raw.count)
    }
}
