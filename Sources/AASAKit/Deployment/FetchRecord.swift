import Foundation

/// The outcome of fetching one domain's document from one source: the NDJSON record of
/// `aasa fetch`, and the `origin` / `cdn` objects of `aasa check --format json`.
///
/// The record says what happened on the wire (status, headers that matter, bytes) and, on
/// failure, a `FailureKind` whose raw value is the stable code `check` reports, so that alerting
/// can key on it without parsing the message.
public struct FetchRecord: Sendable, Equatable {
    public enum Source: String, Sendable {
        case origin
        case cdn
    }

    public enum Outcome: String, Sendable {
        case fetched
        case notModified = "not-modified"
        case failed
    }

    /// Why a fetch failed; the raw values are the finding codes of `aasa check`.
    public enum FailureKind: String, Sendable {
        /// No connection: the name does not resolve, the port refuses, the network is down.
        case connection
        /// The TLS handshake failed, most often an untrusted or mismatched certificate. Apple
        /// verifies the chain against the system store and never falls back to plain HTTP.
        case tls
        /// Connecting or the whole transfer took longer than allowed (a stalled body included).
        case timeout
        /// The server answered, but not with an HTTP response that can be read: a broken
        /// status line, header, length, chunk or content encoding. Not retried.
        case invalidResponse = "invalid-response"
        /// The server answered with a redirect, which Apple does not follow.
        case redirect
        /// Any status but 200 (and 304 to a conditional request).
        case httpStatus = "http-status"
        /// The body went past the size limit; it was cut off there and refused.
        case tooLarge = "too-large"
        /// The body is not a document (`fetch` refuses to replace a stored copy with it).
        case invalidDocument = "invalid-document"
        /// The document could not be stored locally.
        case storage
    }

    public var domain: String
    public var source: Source
    public var url: String
    public var outcome: Outcome
    public var status: Int?
    public var bytes: Int?
    public var contentType: String?
    public var location: String?
    public var failure: FailureKind?
    public var error: String?

    public init(
        domain: String, source: Source, url: String, outcome: Outcome, status: Int? = nil, bytes: Int? = nil,
        contentType: String? = nil, location: String? = nil, failure: FailureKind? = nil, error: String? = nil
    ) {
        self.domain = domain
        self.source = source
        self.url = url
        self.outcome = outcome
        self.status = status
        self.bytes = bytes
        self.contentType = contentType
        self.location = location
        self.failure = failure
        self.error = error
    }

    /// One JSON object on one line, keys in a fixed order; absent values are left out.
    public var json: String {
        var text = "{\"domain\": \(JSONWriter.escape(domain)), \"source\": \"\(source.rawValue)\", "
        text += "\"url\": \(JSONWriter.escape(url)), \"outcome\": \"\(outcome.rawValue)\""
        if let status { text += ", \"status\": \(status)" }
        if let bytes { text += ", \"bytes\": \(bytes)" }
        if let contentType { text += ", \"content_type\": \(JSONWriter.escape(contentType))" }
        if let location { text += ", \"location\": \(JSONWriter.escape(location))" }
        if let failure { text += ", \"failure\": \"\(failure.rawValue)\"" }
        if let error { text += ", \"error\": \(JSONWriter.escape(error))" }
        return text + "}"
    }

    /// Whether a `Content-Type` value names JSON (`application/json`, parameters allowed), as
    /// Apple asks; other types still work on current systems, so `check` only warns.
    public static func isJSONContentType(_ value: String?) -> Bool {
        guard let value else { return false }
        let type = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return type == "application/json"
    }
}
