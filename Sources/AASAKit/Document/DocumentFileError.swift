import Foundation

/// Why a document file could not be used: the file itself, or its contents.
public enum DocumentFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read; `reason` is the system's (`No such file or directory`).
    case unreadable(reason: String)
    case document(DocumentError)

    public var description: String {
        switch self {
        case .unreadable(let reason): return reason
        case .document(let error): return error.description
        }
    }

}

extension AASADocument {
    /// The file's bytes, or `tooLarge` after reading at most `maxBytes + 1` of them.
    ///
    /// The size check comes before the allocation: documents come from other people's servers,
    /// and a loader that reads first and checks later lets a 100 MB (or endless) file cost
    /// 100 MB (or everything). A regular file's size is known up front; a pipe or device is read
    /// until one byte past the limit, and its size is then reported as that.
    public static func bytes(ofFile path: String, maxBytes: Int) throws(DocumentFileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > maxBytes {
            throw .document(.tooLarge(size: Int(status.st_size), limit: maxBytes))
        }
        let capacity = maxBytes < Int.max ? maxBytes + 1 : Int.max
        var bytes = [UInt8](repeating: 0, count: min(capacity, 1 << 16))
        var count = 0
        while count < capacity {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, capacity - count))) }
            let got = bytes.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Foundation.read(descriptor, base + count, raw.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .unreadable(reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            count += got
        }
        if count > maxBytes { throw .document(.tooLarge(size: count, limit: maxBytes)) }
        bytes.removeSubrange(count...)
        return bytes
    }
}
