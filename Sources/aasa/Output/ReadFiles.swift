import AASAKit
import Foundation

/// The files a run reads, by identity (device and inode) rather than by name, so that an output
/// named on the same command line is checked against them before it is opened and truncated,
/// whatever path names it (`./in.txt`, a symbolic link, a hard link). A rules directory counts
/// as everything in it: its documents are read when their domains are first met, long after the
/// outputs were opened, and a new file there would be listed as a document.
///
/// What it will not do: follow what a document later reads, or stop another process from
/// writing the files meanwhile.
struct ReadFiles {
    private var files: [(device: UInt64, inode: UInt64, name: String)] = []
    private var directories: [(path: String, name: String)] = []
    /// The exit status of the refusal, once `clash` found one.
    private(set) var refusal: ExitCode?

    /// Adds the regular file or pipe open as `descriptor` (a terminal or a device is written in
    /// place, and a socket, which no path opens, may carry both input and output). A pipe
    /// counts by its identity too: `--stats /dev/stdin` opened a writer of the run's own input,
    /// which then never ended (a hang), and `--stats /dev/stdout` put the summary among the
    /// records downstream.
    mutating func add(descriptor: Int32, as name: String) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, [S_IFREG, S_IFIFO].contains(info.st_mode & S_IFMT) else { return }
        files.append((UInt64(info.st_dev), UInt64(info.st_ino), name))
    }

    /// Whether `path` names the regular file or pipe open as `descriptor`: a document read from
    /// `/dev/stdin` while the URLs are read from standard input too. A redirected file was read
    /// twice, the document's lines then classified as URLs (exit 0), and a pipe was read to its
    /// end as the document, leaving no URL.
    static func same(path: String, as descriptor: Int32) -> Bool {
        var files = ReadFiles()
        files.add(descriptor: descriptor, as: "")
        var info = stat()
        return stat(path, &info) == 0 && files.file(info) != nil
    }

    /// Which of the files added the one open as `descriptor` is (standard output appending to
    /// the input), or nil. By identity only: the shell has already made the file, so a place
    /// inside the rules directory is no reason to refuse it, as it is for `-o`.
    func clash(descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return file(info)?.name
    }

    /// The file added that `info` describes (the same device and inode), if any.
    private func file(_ info: stat) -> (device: UInt64, inode: UInt64, name: String)? {
        files.first { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }
    }

    /// Adds the regular file or directory at `path`, if there is one.
    mutating func add(path: String, as name: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: files.append((UInt64(info.st_dev), UInt64(info.st_ino), name))
        case S_IFDIR: if let real = Self.realPath(path) { directories.append((real, name)) }
        default: break
        }
    }

    /// What writing `path` would overwrite ("the input", "inside the rules directory"), or nil.
    mutating func clash(_ path: String) -> String? {
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists, let file = file(info) {
            refusal = .usage
            return file.name
        }
        // Where the write lands: the file a symbolic link leads to, or the folder a new file
        // goes in, each with every link on the way resolved.
        let parent = PathName.split(path).directory
        let landing = exists ? Self.realPath(path) : Self.realPath(parent.isEmpty ? "." : parent)
        if let real = landing, let directory = directories.first(where: { Self.isInside(real, $0.path) }) {
            refusal = .usage
            return "inside \(directory.name) directory"
        }
        // A hard link elsewhere to a document: the same file under another name.
        if exists, info.st_mode & S_IFMT == S_IFREG, info.st_nlink > 1,
            let directory = directories.first(where: { Self.holds($0.path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) })
        {
            refusal = .usage
            return "a document of \(directory.name) directory (a hard link to it)"
        }
        return nil
    }

    private static func isInside(_ path: String, _ directory: String) -> Bool {
        path == directory || path.hasPrefix(directory == "/" ? "/" : directory + "/")
    }

    /// Whether a document the rules directory lists (`DOMAIN.json`, `DOMAIN/apple-app-site-association`,
    /// `DOMAIN/.well-known/apple-app-site-association`) is the file (device, inode). Walked only
    /// for an output with more than one name, which is rare.
    private static func holds(_ directory: String, device: UInt64, inode: UInt64) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        for name in names {
            let entry = PathName.join(directory, name)
            for candidate in [entry, PathName.join(entry, "apple-app-site-association"), PathName.join(entry, ".well-known/apple-app-site-association")] {
                var info = stat()
                if stat(candidate, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode { return true }
            }
        }
        return false
    }

    /// `path` with every symbolic link and `.`/`..` resolved; nil when it leads nowhere.
    static func realPath(_ path: String) -> String? {
        // SAFETY: with no buffer `realpath` returns a `malloc`ed NUL-terminated path, copied before
        // the `defer` frees it, once.
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
