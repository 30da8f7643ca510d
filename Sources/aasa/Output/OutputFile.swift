import Foundation

/// An output file named on the command line (`classify -o`, `--stats`), opened before any work,
/// so that a path that cannot be written is reported at once rather than after a long run.
final class OutputFile {
    let path: String
    let fileDescriptor: Int32
    /// Whether this run created the file, so that a run refused before writing it leaves no
    /// empty file behind that a later step would take for a result.
    private let created: Bool
    private var closed = false

    private init(path: String, fileDescriptor: Int32, created: Bool) {
        self.path = path
        self.fileDescriptor = fileDescriptor
        self.created = created
    }

    /// Opens (creating or truncating) `path`; on failure, the message to print.
    static func open(_ path: String) -> Result<OutputFile, OutputFileError> {
        var info = stat()
        let existed = stat(path, &info) == 0
        if existed, info.st_mode & S_IFMT == S_IFDIR { return .failure(OutputFileError(path: path, code: EISDIR)) }
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return .failure(OutputFileError(path: path, code: errno)) }
        return .success(OutputFile(path: path, fileDescriptor: descriptor, created: !existed))
    }

    /// Writes all of `bytes`; the errno of a failed write.
    func write(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fileDescriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        _ = Foundation.close(fileDescriptor)
    }

    /// Closes the file and removes it if this run created it.
    func discard() {
        close()
        if created { unlink(path) }
    }
}

/// "cannot write stats.json: Permission denied", never a Foundation error dump.
struct OutputFileError: Error, CustomStringConvertible {
    let path: String
    let code: Int32

    var description: String { "cannot write \(path): \(String(cString: strerror(code)))" }
}

/// A file written whole or not at all (`aasa compile -o`): the bytes go to a temporary file in
/// the same directory, renamed over the target at the end. The temporary file is created
/// before any work, so an unwritable directory is reported before compiling.
final class AtomicOutputFile {
    let path: String
    private let temporary: OutputFile

    private init(path: String, temporary: OutputFile) {
        self.path = path
        self.temporary = temporary
    }

    static func open(_ path: String) -> Result<AtomicOutputFile, OutputFileError> {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return .failure(OutputFileError(path: path, code: EISDIR)) }
        let directory = (path as NSString).deletingLastPathComponent
        let name = "." + (path as NSString).lastPathComponent + ".\(getpid()).tmp"
        let temporaryPath = directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
        switch OutputFile.open(temporaryPath) {
        case .success(let file): return .success(AtomicOutputFile(path: path, temporary: file))
        case .failure(let error): return .failure(OutputFileError(path: path, code: error.code))
        }
    }

    /// Writes `bytes` and moves them into place; nil when done.
    func commit(_ bytes: [UInt8]) -> OutputFileError? {
        if let code = temporary.write(bytes) {
            temporary.discard()
            return OutputFileError(path: path, code: code)
        }
        temporary.close()
        guard rename(temporary.path, path) == 0 else {
            let code = errno
            unlink(temporary.path)
            return OutputFileError(path: path, code: code)
        }
        return nil
    }

    func discard() { temporary.discard() }
}
