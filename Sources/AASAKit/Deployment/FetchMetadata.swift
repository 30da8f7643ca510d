/// What `aasa fetch` keeps beside a stored document (`apple-app-site-association.meta.json`).
///
/// The validators (`ETag`, `Last-Modified`) make the next fetch a conditional request, so a
/// scheduled refresh of thousands of domains moves only what changed; the URL, status, size and
/// digest let an operator see where a rules directory's file came from without refetching it.
/// The metadata describes the stored document only: it is written after the document, and a
/// failed fetch touches neither.
public struct FetchMetadata: Sendable, Equatable {
    /// The file name beside the document.
    public static let fileName = "apple-app-site-association.meta.json"

    public var url: String
    public var status: Int
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var bytes: Int
    public var sha256: String
    /// When the document was fetched, as ISO 8601 UTC text.
    public var fetchedAt: String

    public init(
        url: String, status: Int, contentType: String?, etag: String?, lastModified: String?, bytes: Int, sha256: String,
        fetchedAt: String
    ) {
        self.url = url
        self.status = status
        self.contentType = contentType
        self.etag = Self.replayable(etag)
        self.lastModified = Self.replayable(lastModified)
        self.bytes = bytes
        self.sha256 = sha256
        self.fetchedAt = fetchedAt
    }

    /// A validator the next request may send back as it came: at most 1 024 bytes of visible
    /// ASCII and inner spaces. Anything else (a CR or LF that would start a header of the
    /// server's choosing, bytes that are not text, a value cut short) is dropped, and the next
    /// fetch is unconditional: one full transfer, never a forged request.
    static func replayable(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 1024,
            value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), value.first != " ", value.last != " "
        else { return nil }
        return value
    }

    /// Pretty, stable JSON (a person may read it).
    public var json: String {
        var lines = ["  \"url\": \(JSONWriter.escape(url))", "  \"status\": \(status)"]
        if let contentType { lines.append("  \"content_type\": \(JSONWriter.escape(contentType))") }
        if let etag { lines.append("  \"etag\": \(JSONWriter.escape(etag))") }
        if let lastModified { lines.append("  \"last_modified\": \(JSONWriter.escape(lastModified))") }
        lines.append("  \"bytes\": \(bytes)")
        lines.append("  \"sha256\": \(JSONWriter.escape(sha256))")
        lines.append("  \"fetched_at\": \(JSONWriter.escape(fetchedAt))")
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    /// Reads metadata back; `nil` when it is missing a field or is not ours, in which case the
    /// next fetch is simply unconditional.
    public init?(json bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONParser.parse(bytes, maxDepth: 4),
            case .string(let url)? = object["url"], case .number(let status)? = object["status"],
            case .number(let size)? = object["bytes"], case .string(let digest)? = object["sha256"],
            case .string(let fetchedAt)? = object["fetched_at"], let statusValue = Int(status), let sizeValue = Int(size)
        else { return nil }
        func text(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        self.init(
            url: url, status: statusValue, contentType: text("content_type"), etag: text("etag"),
            lastModified: text("last_modified"), bytes: sizeValue, sha256: digest, fetchedAt: fetchedAt)
    }
}
