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
        ((root as NSString).appendingPathComponent(domain) as NSString).appendingPathComponent(".well-known")
    }

    public func documentPath(_ domain: String) -> String {
        (folder(domain) as NSString).appendingPathComponent("apple-app-site-association")
    }

    public func metadataPath(_ domain: String) -> String {
        (folder(domain) as NSString).appendingPathComponent(FetchMetadata.fileName)
    }

    /// The metadata of the stored document, when both are there.
    public func metadata(_ domain: String) -> FetchMetadata? {
        guard FileManager.default.fileExists(atPath: documentPath(domain)),
            let data = FileManager.default.contents(atPath: metadataPath(domain))
        else { return nil }
        return FetchMetadata(json: [UInt8](data))
    }

    /// Stores the document and then its metadata; returns why it could not, or `nil`.
    public func save(_ domain: String, document: [UInt8], metadata: FetchMetadata) -> String? {
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
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var template = Array((directory as NSString).appendingPathComponent(".\(name).tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { return "cannot write in \(directory): \(String(cString: strerror(errno)))" }
        let temporary = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { String(cString: $0) } ?? "" }
        var written = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while written < raw.count {
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
