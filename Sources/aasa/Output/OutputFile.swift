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

    fileprivate init(path: String, fileDescriptor: Int32, created: Bool) {
        self.path = path
        self.fileDescriptor = fileDescriptor
        self.created = created
    }

    /// Opens (creating) `path`, without truncating it: a run refused before it starts leaves
    /// an existing file as it was (`truncate()` empties it when the run begins). On failure,
    /// the message to print. A symbolic link to nothing is refused: writing through it would
    /// create a file elsewhere, and removing it on a refusal would remove the link.
    static func open(_ path: String) -> Result<OutputFile, OutputFileError> {
        let existing: stat?
        switch target(path) {
        case .success(let info): existing = info
        case .failure(let error): return .failure(error)
        }
        let existed = existing != nil
        if path.hasSuffix("/") || (existing.map { $0.st_mode & S_IFMT == S_IFDIR } ?? false) { return .failure(OutputFileError(path: path, code: EISDIR)) }
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return .failure(OutputFileError(path: path, code: errno)) }
        return .success(OutputFile(path: path, fileDescriptor: descriptor, created: !existed))
    }

    /// What `path` leads to (nil: nothing yet), or the refusal of a symbolic link to nothing.
    static func target(_ path: String) -> Result<stat?, OutputFileError> {
        var info = stat()
        let named = lstat(path, &info) == 0
        let existed = stat(path, &info) == 0
        if named, !existed { return .failure(OutputFileError(path: path, reason: "a symbolic link to nothing")) }
        return .success(existed ? info : nil)
    }

    /// Empties a regular file before the first write (a pipe or a device has nothing to empty);
    /// the errno when it cannot be.
    func truncate() -> Int32? {
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return ftruncate(fileDescriptor, 0) == 0 && lseek(fileDescriptor, 0, SEEK_SET) == 0 ? nil : errno
    }

    /// Writes all of `bytes`; the errno of a failed write.
    func write(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                // SAFETY: `write` reads `raw.count - offset` bytes from `base + offset`, inside
                // `bytes`: `offset` only grows by what `write` reports, so it stays `<= raw.count`.
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

/// A file written whole or not at all (`aasa compile -o`, `--stats`): the bytes go to a
/// temporary file in the same directory, renamed over the target at the end. The temporary file
/// is created before any work, so an unwritable directory is reported before compiling.
///
/// Why an unnamed temporary file (`O_TMPFILE`) where the file system has them: a run killed by
/// SIGKILL (the OOM killer, `timeout -s KILL`, a cancelled CI job) cannot remove a named one,
/// and each such run left an empty `.aasa-XXXXXX` beside the target. An unnamed file vanishes
/// with the process; it gets a name only once whole, for the instant before the rename.
final class AtomicOutputFile {
    let path: String
    private let temporary: OutputFile
    /// The temporary file has no name yet (`O_TMPFILE`): `commit` links it into the directory.
    private let unnamed: Bool

    private init(path: String, temporary: OutputFile, unnamed: Bool) {
        self.path = path
        self.temporary = temporary
        self.unnamed = unnamed
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift does not import: a file in the
    /// directory given to `open`, without a name. `__O_TMPFILE` is 020000000 on Linux for x86-64
    /// and arm64.
    private static let unnamedFileFlag: Int32 = 0o20000000 | O_DIRECTORY

    /// A symbolic link is followed: the file it names is replaced and the link stays. Anything
    /// but a regular file (a device, a FIFO, a socket) is refused: renaming over it would put
    /// the artifact where the device was, and writing into it would not be whole or nothing.
    /// The temporary file is made by `mkstemp` (a fresh name, created exclusively, so nothing
    /// planted at a predictable name is written through; short, so any legal name has room)
    /// and removed if the run is stopped by a signal.
    static func open(_ path: String) -> Result<AtomicOutputFile, OutputFileError> {
        if path.hasSuffix("/") { return .failure(OutputFileError(path: path, code: EISDIR)) }
        // What the path leads to is judged before its links are resolved by name: a link that
        // leads to a pipe (`/dev/stdout` in `| cat`) has no name to resolve to.
        var info = stat()
        if stat(path, &info) == 0, let refusal = refusal(path, info) { return .failure(refusal) }
        guard let target = resolved(path) else { return .failure(OutputFileError(path: path, code: errno)) }
        if stat(target, &info) == 0, let refusal = refusal(path, info) { return .failure(refusal) }
        let directory = PathName.split(target).directory
        // Naming an unnamed file goes through /proc/self/fd; without /proc, a named one.
        if access("/proc/self/fd", X_OK) == 0 {
            let descriptor = Foundation.open(directory.isEmpty ? "." : directory, unnamedFileFlag | O_WRONLY | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                // As below: readable by the workers that map an artifact, whatever the umask.
                _ = fchmod(descriptor, 0o644)
                return .success(
                    AtomicOutputFile(path: target, temporary: OutputFile(path: target, fileDescriptor: descriptor, created: false), unnamed: true))
            }
            // A file system without unnamed files (EOPNOTSUPP, EISDIR on older kernels) gets a
            // named one; a directory that cannot be written fails again below, with its reason.
        }
        var template = Array(PathName.join(directory, ".aasa-XXXXXX").utf8CString)
        // SAFETY (both uses of `template` below): the path's bytes and a NUL (`utf8CString`),
        // ending in `XXXXXX`, which `mkstemp` rewrites in place; it writes nothing else.
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { return .failure(OutputFileError(path: path, code: errno)) }
        let temporary = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { String(cString: $0) } ?? "" }
        // mkstemp makes the file 0600; an artifact is read by the workers that map it.
        _ = fchmod(descriptor, 0o644)
        RemovedOnSignal.register(temporary)
        return .success(
            AtomicOutputFile(path: target, temporary: OutputFile(path: temporary, fileDescriptor: descriptor, created: true), unnamed: false))
    }

    /// Why an existing `path` whose file is `info` cannot be replaced: nil for a regular file.
    private static func refusal(_ path: String, _ info: stat) -> OutputFileError? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return OutputFileError(path: path, code: EISDIR)
        default: return OutputFileError(path: path, reason: "not a regular file (an artifact replaces a file whole)")
        }
    }

    /// Links the unnamed temporary file into the target's directory under a fresh hidden name
    /// (`linkat` fails rather than replace a file that holds the name); the name, or nil with
    /// `errno`.
    private func nameTemporary() -> String? {
        let directory = PathName.split(path).directory
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for _ in 0..<100 {
            let name = PathName.join(directory, ".aasa-" + String((0..<6).map { _ in letters.randomElement() ?? "x" }))
            if linkat(AT_FDCWD, "/proc/self/fd/\(temporary.fileDescriptor)", AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 { return name }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }

    /// `path`, or the file its symbolic links lead to; nil (with `errno`) for a dangling link.
    private static func resolved(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
        return ReadFiles.realPath(path)
    }

    /// Writes `parts` one after the other and moves them into place; nil when done.
    func commit(parts: [[UInt8]]) -> OutputFileError? {
        for bytes in parts {
            if let code = temporary.write(bytes) {
                temporary.discard()
                return OutputFileError(path: path, code: code)
            }
        }
        let named: String
        if unnamed {
            guard let name = nameTemporary() else {
                let code = errno
                temporary.close()
                return OutputFileError(path: path, code: code)
            }
            named = name
        } else {
            named = temporary.path
        }
        temporary.close()
        guard rename(named, path) == 0 else {
            let code = errno
            unlink(named)
            return OutputFileError(path: path, code: code)
        }
        return nil
    }

    func discard() { temporary.discard() }
}

/// The `--stats` file. A regular file, or a name not yet taken, is replaced whole when the run
/// ends (`AtomicOutputFile`), so that a run stopped by a signal leaves neither an empty file
/// nor half a summary, and an existing file keeps its old summary until the new one is whole.
/// A FIFO or a device (`/dev/stderr`) is written in place, as it cannot be replaced.
final class SummaryFile {
    let path: String
    private let whole: AtomicOutputFile?
    private let inPlace: OutputFile?
    private var done = false

    private init(path: String, whole: AtomicOutputFile?, inPlace: OutputFile?) {
        self.path = path
        self.whole = whole
        self.inPlace = inPlace
    }

    static func open(_ path: String) -> Result<SummaryFile, OutputFileError> {
        switch OutputFile.target(path) {
        case .failure(let error):
            return .failure(error)
        case .success(let info?) where info.st_mode & S_IFMT != S_IFREG && info.st_mode & S_IFMT != S_IFDIR:
            return OutputFile.open(path).map { SummaryFile(path: path, whole: nil, inPlace: $0) }
        case .success:
            break
        }
        return AtomicOutputFile.open(path).map { SummaryFile(path: path, whole: $0, inPlace: nil) }
    }

    /// Writes the summary; called once. The error of a failed write or move.
    func write(_ bytes: [UInt8]) -> OutputFileError? {
        guard !done else { return nil }
        done = true
        if let whole { return whole.commit(parts: [bytes]) }
        guard let inPlace else { return nil }
        defer { inPlace.close() }
        if let code = inPlace.write(bytes) { return OutputFileError(path: path, code: code) }
        return nil
    }

    /// Drops what was prepared when no summary is written (a run refused before it began).
    func discard() {
        guard !done else { return }
        done = true
        whole?.discard()
        inPlace?.discard()
    }
}
