import Foundation

/// The documents of a rules directory, one per domain (SPEC 14).
///
/// A directory holds documents named after their domain: `DOMAIN.json`,
/// `DOMAIN/apple-app-site-association` or `DOMAIN/.well-known/apple-app-site-association`; the
/// `.well-known` file wins over the plain one, which wins over `DOMAIN.json`. Hidden files are
/// skipped and other files ignored. When two files claim one domain at the same rank (names
/// differing only in case), the first by sorted file name wins and the other is reported.
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
        DomainDocuments(
            sources: [Source(domain: asciiLowercase(domain), file: file, document: load(file, configuration))],
            warnings: [])
    }

    /// Every document of a rules directory.
    /// `threads` > 1 reads and parses several documents at once (`ParallelMap`).
    public static func directory(_ path: String, configuration: Configuration, threads: Int = 1) throws(LoadFailure) -> DomainDocuments {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: path) else {
            throw LoadFailure(description: "cannot list the rules directory \(path)")
        }
        var candidates: [(domain: String, rank: Int, file: String, name: String)] = []
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !name.hasPrefix(".") {
            let full = (path as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: full, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let wellKnown = (full as NSString).appendingPathComponent(".well-known/apple-app-site-association")
                let plain = (full as NSString).appendingPathComponent("apple-app-site-association")
                if manager.fileExists(atPath: wellKnown) {
                    candidates.append((asciiLowercase(name), 0, wellKnown, name))
                } else if manager.fileExists(atPath: plain) {
                    candidates.append((asciiLowercase(name), 1, plain, name))
                }
            } else if name.hasSuffix(".json") {
                candidates.append((asciiLowercase(String(name.dropLast(5))), 2, full, name))
            }
        }
        var chosen: [ExactString: (rank: Int, file: String, name: String)] = [:]
        var warnings: [String] = []
        for candidate in candidates {
            let key = ExactString(candidate.domain)
            if let existing = chosen[key] {
                if candidate.rank < existing.rank {
                    chosen[key] = (candidate.rank, candidate.file, candidate.name)
                } else if candidate.rank == existing.rank {
                    warnings.append(
                        "two files claim \(candidate.domain): using \(existing.file), ignoring \(candidate.file)")
                }
            } else {
                chosen[key] = (candidate.rank, candidate.file, candidate.name)
            }
        }
        let files = chosen.sorted { $0.key.string.utf8.lexicographicallyPrecedes($1.key.string.utf8) }.map {
            (domain: $0.key.string, file: $0.value.file)
        }
        let sources = ParallelMap.map(files.count, threads: threads) { index in
            Source(domain: files[index].domain, file: files[index].file, document: load(files[index].file, configuration))
        }
        return DomainDocuments(sources: sources, warnings: warnings)
    }

    static func load(_ file: String, _ configuration: Configuration) -> Result<AASADocument, LoadFailure> {
        do {
            return .success(try AASADocument(contentsOfFile: file, configuration: configuration))
        } catch {
            if case .unreadable(let reason) = error { return .failure(LoadFailure(description: "cannot read \(file): \(reason)")) }
            return .failure(LoadFailure(description: "\(file): \(error)"))
        }
    }

    static func asciiLowercase(_ text: String) -> String {
        String(decoding: text.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
