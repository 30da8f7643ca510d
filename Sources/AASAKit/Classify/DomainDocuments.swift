import Foundation

/// The documents of a rules directory, one per domain (SPEC 14).
///
/// A directory holds documents named after their domain: `DOMAIN.json`,
/// `DOMAIN/apple-app-site-association` or `DOMAIN/.well-known/apple-app-site-association`; the
/// `.well-known` file wins over the plain one, which wins over `DOMAIN.json`. Hidden files are
/// skipped and other files ignored. When two files claim one domain at the rank that wins it
/// (names differing only in case), the first by sorted file name wins and the other is
/// reported; files of a lower rank lose to the layout, as documented, without a word.
///
/// A slot is taken by whatever stands there, not only by a readable file: a FIFO or a directory
/// named `DOMAIN.json`, a broken or looping symbolic link, a FIFO, socket or device standing as
/// `DOMAIN`, and anything but a folder as `DOMAIN/.well-known` all claim their domain, and
/// loading it fails with the reason. Skipping them would let the domain fall back to a
/// lower-ranked file nobody meant to publish, or turn its URLs into "no document" without a
/// word; and only regular files are read, since opening a FIFO would wait for a writer forever.
/// A regular file named `DOMAIN` without `.json` is no layout at all and is ignored, as a
/// `README` is.
public struct DomainDocuments: Sendable {
    public struct Source: Sendable {
        /// The domain, ASCII-lowercased.
        public var domain: String
        public var file: String
        /// The decoded document, or why it could not be loaded.
        public var document: Result<AASADocument, LoadFailure>
    }

    public struct LoadFailure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Sorted by domain.
    public var sources: [Source]
    /// Shadowed or conflicting files, for stderr.
    public var warnings: [String]

    /// One document for one domain.
    public static func single(file: String, domain: String, configuration: Configuration) -> DomainDocuments {
        single(load(file, configuration, regularFileOnly: false), file, domain)
    }

    /// One document handed over as bytes (libaasa); `name` stands for the file in messages.
    /// Bytes over `document-bytes` are refused before they are copied: a caller handing over
    /// a 4 GiB buffer by mistake must not make this copy it first.
    public static func single(bytes: UnsafeBufferPointer<UInt8>, name: String, domain: String, configuration: Configuration)
        -> DomainDocuments
    {
        let maxBytes = configuration.document.maxBytes
        guard bytes.count <= maxBytes else {
            return single(.failure(LoadFailure(description: "\(name): \(DocumentError.tooLarge(size: bytes.count, limit: maxBytes))")), name, domain)
        }
        return single(bytes: Array(bytes), name: name, domain: domain, configuration: configuration)
    }

    public static func single(bytes: [UInt8], name: String, domain: String, configuration: Configuration) -> DomainDocuments {
        single(parse(bytes, file: name, configuration), name, domain)
    }

    private static func single(_ document: Result<AASADocument, LoadFailure>, _ name: String, _ domain: String) -> DomainDocuments {
        DomainDocuments(sources: [Source(domain: asciiLowercase(domain), file: name, document: document)], warnings: [])
    }

    /// Every document of a rules directory.
    /// `threads` > 1 reads and parses several documents at once (`ParallelMap`).
    public static func directory(_ path: String, configuration: Configuration, threads: Int = 1) throws(LoadFailure) -> DomainDocuments {
        let listing = try Self.listing(path)
        let files = listing.files
        let sources = ParallelMap.map(files.count, threads: threads) { index in
            Source(
                domain: files[index].domain, file: files[index].file,
                document: load(files[index].file, configuration, regularFileOnly: true))
        }
        return DomainDocuments(sources: sources, warnings: listing.warnings)
    }

    /// Which file serves which domain in a rules directory, before any is read.
    public struct Listing: Sendable {
        /// Sorted by domain (ASCII-lowercased).
        public var files: [(domain: String, file: String)]
        /// Shadowed or conflicting files, for stderr.
        public var warnings: [String]
    }

    /// Lists a rules directory without reading its documents (`ClassifierRules(listing:)`
    /// reads each on first use).
    public static func listing(_ path: String) throws(LoadFailure) -> Listing {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: path) else {
            // The reason as the system gives it ("Permission denied"): the message named none,
            // and a directory that exists but cannot be read looked like a wrong path.
            let directory = opendir(path)
            let reason = directory == nil ? String(cString: strerror(errno)) : "it cannot be read"
            if let directory { closedir(directory) }
            throw LoadFailure(description: "cannot list the rules directory \(path): \(reason)")
        }
        var candidates: [(domain: String, rank: Int, file: String, name: String)] = []
        var warnings: [String] = []
        // Sorted by bytes, compared as arrays: a fleet's names share long prefixes, and
        // comparing `String.UTF8View`s was most of the cost of listing them.
        // PERF: `aasa-bench --quick --suite fleet`, `--rules` start-up (empty input, callgrind):
        // 26.0 M → 23.0 M instructions for 300 domains (−11%).
        let sortedNames = names.map { (bytes: Array($0.utf8), name: $0) }.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        for name in sortedNames.map(\.name) where !name.hasPrefix(".") {
            // A name that is not UTF-8 is listed with U+FFFD in its place: it names no domain
            // (a URL is UTF-8 text), and reading it by that name would open nothing, or another file.
            if name.unicodeScalars.contains("\u{FFFD}") {
                warnings.append("\(name) is skipped: its name is not UTF-8, so no URL's host can equal it")
                continue
            }
            let full = (path as NSString).appendingPathComponent(name)
            if name.hasSuffix(".json") {
                candidates.append((asciiLowercase(String(name.dropLast(5))), 2, full, name))
                continue
            }
            switch EntryKind(full) {
            case .directory:
                if let slot = documentSlot(inDomainFolder: full) {
                    candidates.append((asciiLowercase(name), slot.rank, slot.file, name))
                }
            case .unresolvableLink, .special:
                // It may have been the domain's folder: its domain gets the loader's reason
                // (a FIFO, a socket or a device is never opened: only regular files are read).
                candidates.append((asciiLowercase(name), 0, full, name))
            case .absent, .regularFile:
                continue
            }
        }
        var chosen: [ExactString: (rank: Int, file: String, name: String)] = [:]
        for candidate in candidates {
            let key = ExactString(candidate.domain)
            if let existing = chosen[key], candidate.rank >= existing.rank { continue }
            chosen[key] = (candidate.rank, candidate.file, candidate.name)
        }
        // Reported once every domain's file is known: a file of the winning rank that lost only
        // by its name. Judged as the names came, two `.json` files and a folder sorting after
        // them named the first `.json` as used while the folder's file was.
        for candidate in candidates {
            guard let winner = chosen[ExactString(candidate.domain)], candidate.rank == winner.rank, candidate.file != winner.file
            else { continue }
            warnings.append("two files claim \(candidate.domain): using \(winner.file), ignoring \(candidate.file)")
        }
        let files = chosen.map { (key: Array($0.key.string.utf8), domain: $0.key.string, file: $0.value.file) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { (domain: $0.domain, file: $0.file) }
        return Listing(files: files, warnings: warnings)
    }

    /// `regularFileOnly` for files found by listing a directory; a file named by the user may be
    /// a pipe.
    public static func load(_ file: String, _ configuration: Configuration, regularFileOnly: Bool) -> Result<AASADocument, LoadFailure> {
        read(file, configuration, regularFileOnly: regularFileOnly).flatMap { parse($0, file: file, configuration) }
    }

    /// The bytes of `file` (`load`'s first half), within the document size limit.
    static func read(_ file: String, _ configuration: Configuration, regularFileOnly: Bool) -> Result<[UInt8], LoadFailure> {
        do {
            return .success(try AASADocument.bytes(ofFile: file, maxBytes: configuration.document.maxBytes, regularFileOnly: regularFileOnly))
        } catch {
            if case .document = error { return .failure(LoadFailure(description: "\(file): \(error)")) }
            return .failure(LoadFailure(description: "cannot read \(file): \(error)"))
        }
    }

    /// The document in the bytes of `file` (`load`'s second half); `file` names it in the failure.
    static func parse(_ bytes: [UInt8], file: String, _ configuration: Configuration) -> Result<AASADocument, LoadFailure> {
        do {
            return .success(try AASADocument(bytes: bytes, configuration: configuration))
        } catch {
            return .failure(LoadFailure(description: "\(file): \(error)"))
        }
    }

    /// The document slot of `DOMAIN/` that is taken, `.well-known` first, with its rank.
    /// `.well-known` stands aside only when it is a folder without the file, or nothing at all;
    /// a link to nowhere, or anything but a folder, keeps the slot, so the domain fails instead
    /// of falling back (its document path then fails to load: "not a directory").
    static func documentSlot(inDomainFolder folder: String) -> (rank: Int, file: String)? {
        let wellKnownFolder = (folder as NSString).appendingPathComponent(".well-known")
        let wellKnown = (wellKnownFolder as NSString).appendingPathComponent("apple-app-site-association")
        if isTaken(wellKnown) { return (0, wellKnown) }
        switch EntryKind(wellKnownFolder) {
        case .unresolvableLink: return (0, wellKnownFolder)
        case .special, .regularFile: return (0, wellKnown)
        case .absent, .directory: break
        }
        let plain = (folder as NSString).appendingPathComponent("apple-app-site-association")
        if isTaken(plain) { return (1, plain) }
        return nil
    }

    /// Whether something stands at `path` (a link counts, wherever it leads), or whether what
    /// is on the way cannot be looked at (no permission, a link loop): only plain absence frees
    /// a slot.
    static func isTaken(_ path: String) -> Bool {
        var status = stat()
        if lstat(path, &status) == 0 { return true }
        return errno != ENOENT && errno != ENOTDIR
    }

    /// What a directory entry is, through its links.
    enum EntryKind {
        case absent
        case directory
        case regularFile
        /// A FIFO, a socket or a device.
        case special
        /// A symbolic link whose target is missing or leads back to itself (or that cannot be
        /// looked through).
        case unresolvableLink

        init(_ path: String) {
            var status = stat()
            if stat(path, &status) == 0 {
                switch status.st_mode & S_IFMT {
                case S_IFDIR: self = .directory
                case S_IFREG: self = .regularFile
                default: self = .special
                }
            } else if lstat(path, &status) == 0 {
                self = (status.st_mode & S_IFMT) == S_IFLNK ? .unresolvableLink : .special
            } else {
                self = .absent
            }
        }
    }

    static func asciiLowercase(_ text: String) -> String {
        String(decoding: text.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
