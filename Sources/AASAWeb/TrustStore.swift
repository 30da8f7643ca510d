import AASAKit
import CCurl
import Foundation

/// Which certificate authorities the transfers trust: the system store, plus any the caller
/// adds (a staging CA beside the public ones).
public enum TrustStore {
    /// A temporary CA bundle holding the system store and `file`: libcurl's CAINFO replaces the
    /// store, and `--ca-file` is meant to add to it (a staging CA next to the public ones). A
    /// file, rather than an in-memory blob, lets libcurl parse the bundle once and share it
    /// between connections.
    public static func bundle(adding file: String) -> Result<String, TrustStoreError> {
        // Read bounded, and only a regular file: the whole public store is a few hundred
        // kilobytes, and a 300 MB file took twice that in memory.
        guard let bytes = try? AASADocument.bytes(ofFile: file, maxBytes: maxCAFileBytes, regularFileOnly: true),
            String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----")
        else {
            return .failure(
                TrustStoreError(description: "\(file) cannot be read, is over \(maxCAFileBytes >> 20) MiB or holds no PEM certificate"))
        }
        let added = Data(bytes)
        var bundle = Data()
        if let system = systemBundlePath(), let contents = FileManager.default.contents(atPath: system) {
            bundle.append(contents)
            bundle.append(Data("\n".utf8))
        }
        bundle.append(added)
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("aasa-ca-XXXXXX").utf8CString)
        // SAFETY (both uses of `template` below): the path's bytes and a NUL (`utf8CString`),
        // ending in `XXXXXX`, which `mkstemp` rewrites in place; it writes nothing else.
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { return .failure(TrustStoreError(description: "cannot create a temporary CA bundle")) }
        let path = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { String(cString: $0) } ?? "" }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: bundle)
            try handle.close()
        } catch {
            unlink(path)
            return .failure(TrustStoreError(description: "cannot write a temporary CA bundle: \(error)"))
        }
        return .success(path)
    }

    /// The largest `--ca-file` read.
    public static let maxCAFileBytes = 16 << 20

    /// The CA bundle libcurl was built to use, else Debian's.
    public static func systemBundlePath() -> String? {
        _ = curl_global_init(Int(CURL_GLOBAL_SSL))
        if let handle = curl_easy_init() {
            defer { curl_easy_cleanup(handle) }
            var path: UnsafeMutablePointer<CChar>?
            // SAFETY: the string libcurl hands out belongs to `handle` and stays valid until the
            // `defer` cleans the handle up, after it is copied.
            if aasa_easy_getinfo_string(handle, CURLINFO_CAINFO, &path) == CURLE_OK, let path {
                return String(cString: path)
            }
        }
        let debian = "/etc/ssl/certs/ca-certificates.crt"
        return FileManager.default.fileExists(atPath: debian) ? debian : nil
    }

}

/// Why an added CA file cannot be used.
public struct TrustStoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
}
