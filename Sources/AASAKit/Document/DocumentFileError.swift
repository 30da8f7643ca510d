/// Why a document file could not be used: the file itself, or its contents.
public enum DocumentFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What stands where a regular file was required.
    public enum FileKind: String, Sendable, Equatable {
        case directory = "a directory"
        case fifo = "a FIFO"
        case socket = "a socket"
        case characterDevice = "a character device"
        case blockDevice = "a block device"
        case other = "not a regular file"
    }

    /// The file cannot be opened or read; `reason` is the system's (`No such file or directory`).
    case unreadable(reason: String)
    /// Only where regular files are required (a rules directory): opening a FIFO waits for a
    /// writer that may never come, and a device may never end, so they are refused unread.
    case notRegularFile(FileKind)
    /// A symbolic link whose target does not exist: reported as such, not as a missing file,
    /// because the listing showed something there.
    case brokenSymbolicLink
    /// A symbolic link that leads back to itself (`ELOOP`).
    case symbolicLinkLoop
    case document(DocumentError)

    public var description: String {
        switch self {
        case .unreadable(let reason): return reason
        case .notRegularFile(.other): return "it is not a regular file"
        case .notRegularFile(let kind): return "it is \(kind.rawValue), not a regular file"
        case .brokenSymbolicLink: return "it is a broken symbolic link (its target does not exist)"
        case .symbolicLinkLoop: return "it is a symbolic link loop (too many levels of symbolic links)"
        case .document(let error): return error.description
        }
    }
}
