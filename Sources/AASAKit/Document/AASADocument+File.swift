import Foundation

extension AASADocument {
    /// The file's bytes, or `tooLarge` after reading at most `maxBytes + 1` of them.
    ///
    /// The size check comes before the allocation: documents come from other people's servers,
    /// and a loader that reads first and checks later lets a 100 MB (or endless) file cost
    /// 100 MB (or everything). A regular file's size is known up front; a pipe or device is read
    /// until one byte past the limit, and its size is then reported as that.
    ///
    /// `regularFileOnly` is for documents found by listing a directory, where nobody chose to
    /// hand over a pipe: a FIFO would block the open until some writer came, a device might
    /// never end, so anything but a regular file (through its links) is refused without being
    /// read. A document named explicitly may be `/dev/stdin` or a pipe, hence the default.
    ///
    /// - Throws: `.unreadable`, `.notRegularFile`, `.brokenSymbolicLink`, `.symbolicLinkLoop`,
    ///   or `.document(.tooLarge)`.
    public static func bytes(ofFile path: String, maxBytes: Int, regularFileOnly: Bool = false) throws(DocumentFileError) -> [UInt8] {
        if regularFileOnly { try checkRegularFile(path) }
        // O_NONBLOCK: should a FIFO replace the file after the check, the open returns at once
        // and the fstat below refuses it. It changes nothing for a regular file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (regularFileOnly ? O_NONBLOCK : 0))
        guard descriptor >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        return try bytes(ofDescriptor: descriptor, maxBytes: maxBytes, regularFileOnly: regularFileOnly)
    }

    /// As `bytes(ofFile:maxBytes:regularFileOnly:)`, from a descriptor already open (standard
    /// input, which reopening by name would read from its start again, or fail for a socket),
    /// read from where it stands. The descriptor stays open.
    public static func bytes(ofDescriptor descriptor: Int32, maxBytes: Int, regularFileOnly: Bool = false) throws(DocumentFileError) -> [UInt8] {
        var status = stat()
        let known = fstat(descriptor, &status) == 0
        let isRegular = known && (status.st_mode & S_IFMT) == S_IFREG
        if regularFileOnly, !isRegular { throw .notRegularFile(known ? DocumentFileError.FileKind(mode: status.st_mode) : .other) }
        if isRegular, Int(status.st_size) > maxBytes {
            throw .document(.tooLarge(size: Int(status.st_size), limit: maxBytes))
        }
        let capacity = maxBytes < Int.max ? maxBytes + 1 : Int.max
        // A regular file's size, plus the byte that shows the end, rather than a fixed 64 KB:
        // zeroing 64 KB for a 300-byte document was most of the cost of loading a fleet's
        // documents (fleet suite, callgrind). The buffer still grows should the file grow.
        // PERF: 10 000-domain fleet, `aasa classify --rules`: 633 M of 4 687 M instructions.
        let first = isRegular ? max(Int(status.st_size), 0) + 1 : 1 << 16
        var bytes = [UInt8](repeating: 0, count: min(capacity, first))
        var count = 0
        while count < capacity {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, capacity - count))) }
            let got = FileDescriptorRead.read(descriptor, into: &bytes, at: count)
            if got < 0 {
                if got == -Int(EINTR) { continue }
                throw .unreadable(reason: String(cString: strerror(Int32(-got))))
            }
            if got == 0 { break }
            count += got
        }
        if count > maxBytes { throw .document(.tooLarge(size: count, limit: maxBytes)) }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Refuses `path` unless it leads (through any links) to a regular file, naming what is
    /// there instead; `stat` only, so nothing is opened.
    static func checkRegularFile(_ path: String) throws(DocumentFileError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFREG else { throw .notRegularFile(DocumentFileError.FileKind(mode: status.st_mode)) }
            return
        }
        let code = errno
        if code == ELOOP { throw .symbolicLinkLoop }
        var link = stat()
        if code == ENOENT, lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK { throw .brokenSymbolicLink }
        throw .unreadable(reason: String(cString: strerror(code)))
    }
}

extension DocumentFileError.FileKind {
    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
    }
}
