import AASAKit
import AASAWeb
import Foundation

/// `aasa fetch DOMAIN... --out DIR [--source origin|cdn]`: download each domain's document into
/// a rules directory that `aasa classify --rules DIR` reads, refreshing it on later runs.
enum FetchCommand {
    static let spec = CommandSpec(
        name: "fetch",
        abstract: "Download domains' AASA files into a rules directory (for classify), refreshing them on later runs.",
        usage: "aasa fetch [<domain> ...] [--domains <file>] --out <dir> [--source origin|cdn] [options]",
        options: [
            .init(
                name: "out", valueName: "dir",
                help: "The rules directory (required): DIR/DOMAIN/.well-known/apple-app-site-association."),
            .init(name: "source", valueName: "source", help: "origin (default: the domain's own server) or cdn (Apple's CDN)."),
        ] + NetworkOptions.specOptions,
        discussion: """
            origin asks https://DOMAIN/.well-known/apple-app-site-association, then
            https://DOMAIN/apple-app-site-association when the first served no document. As
            Apple does, only a 200 counts, a redirect is never followed (the record names its
            Location), a body past --limit is refused, and TLS is verified. cdn asks Apple's CDN
            (https://app-site-association.cdn-apple.com/a/v1/DOMAIN, or --cdn-url), which is
            what devices read.

            Beside each document, apple-app-site-association.meta.json keeps its URL, status,
            content type, ETag, Last-Modified, size, SHA-256 and fetch time; the next run sends
            If-None-Match / If-Modified-Since, and a 304 leaves the file alone. A body that is
            not JSON, whose root is not an object, or that passes the size limit is refused
            (invalid-document); any other JSON object is stored as devices would take it, one
            that names no app included (it opens nothing). A failure never removes or truncates the last
            good document: new files are written beside it and renamed over it.

            Output: one JSON line per domain, in input order:
              {"domain", "source", "url", "outcome": "fetched"|"not-modified"|"failed",
               "status"?, "bytes"?, "content_type"?, "location"?, "failure"?, "error"?}
            failure is a stable code: connection, tls, timeout, invalid-response, redirect,
            http-status, too-large, invalid-document, storage. A progress line goes to standard error when
            it is a terminal.

            EXIT STATUS: 0 every domain was fetched or not modified; 1 some failed (a document
            that could not be stored included); 2 usage error (a URL given as a domain, a bad
            option); 5 the --out folder cannot be created or the records cannot be written.
            """)

    /// Domains fetched per batch.
    static let sliceSize = 256

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        switch CommandSupport.arguments(spec, arguments) {
        case .success(let value): parsed = value
        case .failure(let code): return code
        }
        guard let out = parsed.value("out") else { return CommandSupport.usageError(spec, "missing --out <dir>") }
        let sourceName = parsed.value("source") ?? "origin"
        guard let source = FetchRecord.Source(rawValue: sourceName) else {
            return CommandSupport.usageError(spec, "unknown source '\(sourceName)' (choose origin or cdn)")
        }
        var options: NetworkOptions
        switch NetworkOptions.parse(parsed) {
        case .success(let value): options = value
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        defer { options.cleanUp() }
        options.transfers.progress = true
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            printError("aasa fetch: cannot create \(out): \(error.localizedDescription)")
            return .inputOutput
        }
        let store = DocumentStore(root: out)
        let transfers = Transfers(options: options.transfers)
        let fetcher = DocumentFetcher(transfers: transfers, cdnTemplate: options.cdnTemplate)
        let configuration = options.configuration
        let stream = OutputStream(fileDescriptor: STDOUT_FILENO)
        var failed = 0
        var outputClosed = false
        // Slices bound the bodies held at once (slice × --limit) and let records flow out
        // while later domains are fetched; the connections stay open across slices.
        for start in stride(from: 0, to: options.domains.count, by: sliceSize) {
            let domains = Array(options.domains[start..<min(start + sliceSize, options.domains.count)])
            if options.domains.count > sliceSize {
                transfers.progressNote = " (domains \(start + 1)-\(start + domains.count) of \(options.domains.count))"
            }
            var validators: [String: FetchMetadata] = [:]
            for domain in domains { validators[domain] = store.metadata(domain, maxBytes: options.transfers.limit) }
            let results =
                source == .origin ? fetcher.origin(domains, validators: validators) : fetcher.cdn(domains, validators: validators)
            let fetchedAt = ISO8601DateFormatter().string(from: Date())
            var output = ""
            for result in results {
                let record = keep(result, in: store, fetchedAt: fetchedAt, configuration: configuration)
                if record.outcome == .failed { failed += 1 }
                output += record.json + "\n"
            }
            // A closed output (`| head`) stops the records, not the fetch: documents are still stored.
            if let failure = write(to: stream, closed: &outputClosed, command: "fetch", { part throws(OutputStream.WriteFailure) in try part.write(output) }) { return failure }
        }
        return failed == 0 ? .success : .failure
    }

    /// The record of a fetched copy once its body is read as a document: a body that is not a
    /// usable AASA document is a failure (`invalid-document`), in `fetch` and in `check`'s
    /// records alike.
    static func validated(_ result: DocumentFetcher.Fetched, configuration: Configuration) -> FetchRecord {
        var record = result.record
        guard record.outcome == .fetched, let body = result.body else { return record }
        do {
            _ = try AASADocument(bytes: body, configuration: configuration)
        } catch {
            record.outcome = .failed
            record.failure = .invalidDocument
            record.error = "not a usable AASA document (\(error))"
        }
        return record
    }

    /// Validates a fetched document and stores it; the record says what became of it.
    static func keep(
        _ result: DocumentFetcher.Fetched, in store: DocumentStore, fetchedAt: String, configuration: Configuration
    ) -> FetchRecord {
        var record = validated(result, configuration: configuration)
        if record.failure == .invalidDocument {
            // Said only when there is one: a first fetch has nothing to keep.
            if FileManager.default.fileExists(atPath: store.documentPath(record.domain)) { record.error? += "; the stored copy is kept" }
            return record
        }
        guard record.outcome == .fetched, let body = result.body else { return record }
        let metadata = FetchMetadata(
            url: record.url, status: record.status ?? 200, contentType: record.contentType, etag: result.etag,
            lastModified: result.lastModified, bytes: body.count, sha256: SHA256.hex(body), fetchedAt: fetchedAt)
        if let problem = store.save(record.domain, document: body, metadata: metadata) {
            record.outcome = .failed
            record.failure = .storage
            record.error = problem
        }
        return record
    }
}
