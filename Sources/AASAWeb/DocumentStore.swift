import AASAKit
import Foundation

/// A rules directory as `fetch` writes it: DIR/DOMAIN/.well-known/apple-app-site-association
/// (the slot `classify --rules` reads first) with its metadata beside it.
///
/// Every write goes to a hidden temporary file in the same folder, is flushed, and is renamed
/// over the old file, so a reader (a `classify` starting meanwhile) sees the old document or the
/// new one, never a part; and a failure leaves the last good document as it was. The document
/// is renamed before its metadata: metadata that describes a newer document than the one on
/// disk would make the next conditional request skip a document never stored.
public struct DocumentStore: Sendable {
    public let root: String

    public init(root: String) { self.root = root }

    public func folder(_ domain: String) -> String {
        PathName.join(PathName.join(root, domain), ".well-known")
    }

    public func documentPath(_ domain: String) -> String {
        PathName.join(folder(domain), "apple-app-site-association")
    }

    public func metadataPath(_ domain: String) -> String {
        PathName.join(folder(domain), FetchMetadata.fileName)
    }

    /// The metadata of the stored document, when both are there and the document is still the
    /// one the metadata describes (its size and SHA-256). A document damaged or edited since
    /// must not be kept by a 304 that validated another: then there are no validators, and the
    /// next fetch is a full one. Both files are read bounded, and only if they are regular files:
    /// the document up to `maxBytes` (the largest a fetch accepts), never up to the size the
    /// metadata claims, which is only a file's word (3 GB claimed beside a 3 GB file was read
    /// and hashed whole).
    public func metadata(_ domain: String, maxBytes: Int) -> FetchMetadata? {
        // Validators read through a link save() refuses would make a 304 keep nothing stored.
        guard linkedFolder(domain) == nil, let json = try? AASADocument.bytes(ofFile: metadataPath(domain), maxBytes: 64 << 10, regularFileOnly: true),
            let metadata = FetchMetadata(json: json), metadata.bytes >= 0, metadata.bytes <= maxBytes,
            let document = try? AASADocument.bytes(ofFile: documentPath(domain), maxBytes: metadata.bytes, regularFileOnly: true),
            SHA256.hex(document) == metadata.sha256
        else { return nil }
        return metadata
    }

    /// Why the domain's folders cannot be used: a symbolic link where one belongs would take the
    /// write elsewhere (a shared rules directory, a link left by someone else), so it is
    /// refused, not followed. Nil when they are real folders or not there yet.
    private func linkedFolder(_ domain: String) -> String? {
        for folder in [PathName.join(root, domain), folder(domain)] {
            var info = stat()
            if lstat(folder, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
                return "cannot write in \(folder): \(info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a directory")"
            }
        }
        return nil
    }

    /// Stores the document and then its metadata; returns why it could not, or `nil`.
    public func save(_ domain: String, document: [UInt8], metadata: FetchMetadata) -> String? {
        if let problem = linkedFolder(domain) { return problem }
        do {
            try FileManager.default.createDirectory(atPath: folder(domain), withIntermediateDirectories: true)
        } catch {
            return "cannot create \(folder(domain)): \(error.localizedDescription)"
        }
        if let problem = Self.writeAtomically(document, to: documentPath(domain)) { return problem }
        return Self.writeAtomically(Array(metadata.json.utf8), to: metadataPath(domain))
    }

    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) -> String? {
        let (directory, name) = PathName.split(path)
        var template = Array(PathName.join(directory, ".\(name).tmp-XXXXXX").utf8CString)
        // SAFETY (both uses of `template` below): the path's bytes and a NUL (`utf8CString`),
        // ending in `XXXXXX`, which `mkstemp` rewrites in place; it writes nothing else.
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { return "cannot write in \(directory): \(String(cString: strerror(errno)))" }
        let temporary = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { String(cString: $0) } ?? "" }
        var written = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while written < raw.count {
                // SAFETY: `write` reads `raw.count - written` bytes from `base + written`, inside
                // `bytes` (`written` only grows by what `write` reports: it stays `<= raw.count`).
                let count = Foundation.write(descriptor, base + written, raw.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                written += count
            }
        }
        if failure == 0, fchmod(descriptor, 0o644) != 0 { failure = errno }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            return "cannot write \(path): \(String(cString: strerror(failure)))"
        }
        return nil
    }
}
