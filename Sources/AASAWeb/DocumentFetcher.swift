import AASAKit
import Foundation

/// Turns domains into fetch records the way Apple looks for the file: the origin's
/// `.well-known` path first, the root path only when `.well-known` served no document, and the
/// CDN's copy at its own URL. Nothing is stored here; `fetch` stores, `check` inspects.
public struct DocumentFetcher {
    /// One domain's outcome, with the document when one was served.
    public struct Fetched: Sendable {
        public var record: FetchRecord
        /// The served document: a 200 read completely within the limit.
        public var body: [UInt8]?
        public var etag: String?
        public var lastModified: String?
    }

    public let transfers: Transfers
    /// The CDN's URL with `{domain}` to replace (`Deployment.appleCDNTemplate` by default).
    public let cdnTemplate: String

    public init(transfers: Transfers, cdnTemplate: String = Deployment.appleCDNTemplate) {
        self.transfers = transfers
        self.cdnTemplate = cdnTemplate
    }

    public static func wellKnownURL(_ domain: String) -> String { "https://\(domain)\(Deployment.wellKnownPath)" }
    public static func rootURL(_ domain: String) -> String { "https://\(domain)\(Deployment.rootPath)" }

    /// The origin copies; `validators` (by domain) make the request for the URL they name
    /// conditional.
    public func origin(_ domains: [String], validators: [String: FetchMetadata] = [:]) -> [Fetched] {
        let first = transfers.run(
            domains.map { request(Self.wellKnownURL($0), validators[$0]) }, label: "origin")
        var results = zip(domains, first).map { domain, response in
            fetched(domain, .origin, response, conditional: Self.isConditional(validators[domain], response.url))
        }
        // The root path is asked only when `.well-known` answered without a document; a host
        // that cannot be reached or trusted will not do better on another path.
        let retry = results.indices.filter { index in
            let record = results[index].record
            return record.outcome == .failed && (record.failure == .httpStatus || record.failure == .redirect)
        }
        guard !retry.isEmpty else { return results }
        let second = transfers.run(
            retry.map { request(Self.rootURL(domains[$0]), validators[domains[$0]]) }, label: "origin root")
        for (index, response) in zip(retry, second) {
            let domain = domains[index]
            var root = fetched(domain, .origin, response, conditional: Self.isConditional(validators[domain], response.url))
            if root.record.outcome != .failed {
                results[index] = root
            } else if root.record.failure == .httpStatus || root.record.failure == .redirect {
                // Neither path serves it: the `.well-known` answer leads, the root's follows.
                let reason = root.record.error ?? "no document"
                results[index].record.error = (results[index].record.error ?? "no document") + "; \(root.record.url): \(reason)"
            } else {
                // The root path answered and failed for its own reason (too large, a broken
                // response, a timeout): that is the news, and the `.well-known` answer follows.
                let first = results[index].record
                root.record.error = (root.record.error ?? "no document") + "; \(first.url): \(first.error ?? "no document")"
                results[index] = root
            }
        }
        return results
    }

    /// The CDN's copies, at `cdnTemplate`.
    public func cdn(_ domains: [String], validators: [String: FetchMetadata] = [:]) -> [Fetched] {
        let responses = transfers.run(domains.map { request(cdnTemplate.replacingOccurrences(of: "{domain}", with: $0), validators[$0]) }, label: "cdn")
        return zip(domains, responses).map { domain, response in
            fetched(domain, .cdn, response, conditional: Self.isConditional(validators[domain], response.url))
        }
    }

    /// Whether the request for `url` carried a validator: only then is a 304 an answer (a copy
    /// stored without an ETag or Last-Modified makes a plain GET, and a 304 to that validated
    /// nothing).
    private static func isConditional(_ validator: FetchMetadata?, _ url: String) -> Bool {
        guard let validator, validator.url == url else { return false }
        return validator.etag != nil || validator.lastModified != nil
    }

    private func request(_ url: String, _ validator: FetchMetadata?) -> Transfers.Request {
        var request = Transfers.Request(url: url)
        guard let validator, Self.isConditional(validator, url) else { return request }
        if let etag = validator.etag { request.headers.append("If-None-Match: \(etag)") }
        if let lastModified = validator.lastModified { request.headers.append("If-Modified-Since: \(lastModified)") }
        return request
    }

    private func fetched(_ domain: String, _ source: FetchRecord.Source, _ response: Transfers.Response, conditional: Bool)
        -> Fetched
    {
        var record = FetchRecord(domain: domain, source: source, url: response.url, outcome: .failed, status: response.status)
        record.contentType = response.header("content-type")
        if let failure = response.failure {
            record.failure = failure
            record.error = response.error
            // A transfer that broke off has no response to describe, except a body too large.
            if failure != .tooLarge { record.contentType = nil }
            return Fetched(record: record)
        }
        let status = response.status ?? 0
        // No Accept-Encoding is sent, so an encoded body is one the server imposed: its bytes
        // are not the document, and "invalid JSON at U+001F" would hide why.
        // An empty Content-Encoding names no coding at all.
        if status == 200, let encoding = response.header("content-encoding"), !["", "identity"].contains(encoding.lowercased()) {
            record.failure = .invalidResponse
            record.error = "the body is sent with Content-Encoding: \(encoding), which was not asked for; serve the file unencoded"
            return Fetched(record: record)
        }
        switch status {
        case 200:
            record.outcome = .fetched
            record.bytes = response.body.count
            return Fetched(
                record: record, body: response.body, etag: response.header("etag"), lastModified: response.header("last-modified")
            )
        case 304 where conditional:
            record.outcome = .notModified
            record.contentType = nil
            return Fetched(record: record)
        case 300...399 where status != 304:
            record.failure = .redirect
            record.location = response.header("location")
            record.error = "redirect (\(status)) to \(record.location ?? "no Location"); Apple does not follow redirects"
        default:
            record.failure = .httpStatus
            let tries = response.attempts > 1 ? " after \(response.attempts) attempts" : ""
            let unasked = status == 304 ? " to a request that was not conditional" : ""
            record.error = "HTTP \(status)\(unasked)\(tries); only 200 serves the document"
        }
        return Fetched(record: record)
    }
}
