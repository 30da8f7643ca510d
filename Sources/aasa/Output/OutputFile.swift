import AASAKit
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
        if path.hasSuffix("/") || (existed && info.st_mode & S_IFMT == S_IFDIR) { return .failure(OutputFileError(path: path, code: EISDIR)) }
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
    /// Said instead of `strerror(code)` when the refusal is ours, not the system's.
    var reason: String?

    init(path: String, code: Int32) {
        self.path = path
        self.code = code
    }

    init(path: String, reason: String) {
        self.path = path
        self.code = 0
        self.reason = reason
    }

    var description: String { "cannot write \(path): \(reason ?? String(cString: strerror(code)))" }
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

    /// A symbolic link is followed: the file it names is replaced and the link stays. Anything
    /// but a regular file (a device, a FIFO, a socket) is refused: renaming over it would put
    /// the artifact where the device was, and writing into it would not be whole or nothing.
    static func open(_ path: String) -> Result<AtomicOutputFile, OutputFileError> {
        if path.hasSuffix("/") { return .failure(OutputFileError(path: path, code: EISDIR)) }
        var target = path
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realpath(path, nil) else { return .failure(OutputFileError(path: path, code: errno)) }
            target = String(cString: resolved)
            free(resolved)
        }
        if stat(target, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: return .failure(OutputFileError(path: path, code: EISDIR))
            default: return .failure(OutputFileError(path: path, reason: "not a regular file (an artifact replaces a file whole)"))
            }
        }
        let (directory, name) = PathName.split(target)
        let temporaryPath = PathName.join(directory, "." + name + ".\(getpid()).tmp")
        switch OutputFile.open(temporaryPath) {
        case .success(let file): return .success(AtomicOutputFile(path: target, temporary: file))
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
