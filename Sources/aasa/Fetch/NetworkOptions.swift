import AASAKit
import AASAWeb
import Foundation

/// The options `fetch` and `check` share: which domains, where to connect, how long to wait,
/// whom to trust, and the CDN's address.
struct NetworkOptions {
    var domains: [String] = []
    var transfers = Transfers.Options()
    var cdnTemplate = NetworkOptions.appleCDN
    /// The limits the documents are read under (`--limit NAME=N`); `document-bytes` is also the
    /// most a transfer accepts.
    var configuration = Configuration()
    /// The temporary CA bundle to delete when the command ends.
    var temporaryBundle: String?

    static let appleCDN = Deployment.appleCDNTemplate

    static let specOptions: [CommandSpec.Option] = [
        .init(name: "domains", valueName: "file", help: "Read domains from FILE, one a line (# comments; - for stdin)."),
        .init(name: "jobs", valueName: "n", help: "Connections at once (default 32, at most 256: domains go in slices of 256)."),
        .init(name: "connect-timeout", valueName: "seconds", help: "Time to connect (default 10)."),
        .init(name: "timeout", valueName: "seconds", help: "Time for a whole request, its retries included (default 30)."),
        .init(name: "retries", valueName: "n", help: "Retries of a transient failure: no connection, 5xx, 429 (default 2)."),
        .init(name: "retry-delay", valueName: "seconds", help: "First backoff before a retry, doubled each time (default 1)."),
        .init(
            name: "limit", valueName: "name=n|bytes",
            help: "Raise or lower a limit, as on every command (repeatable; see docs/limits.md); a bare byte count is document-bytes, the largest document a server may send (default 131072, Apple's limit; K, M suffixes).",
            repeatable: true),
        .init(name: "ca-file", valueName: "pem", help: "Trust these CA certificates too (added to the system store)."),
        .init(name: "cdn-url", valueName: "template", help: "The CDN URL, {domain} replaced (default Apple's CDN)."),
        .init(
            name: "connect-to", valueName: "host:port:addr:port",
            help: "Connect to addr:port for host:port, as curl --connect-to (repeatable; empty parts match any).",
            repeatable: true),
    ]

    /// Parses the shared options; a `UsageError` names what is wrong.
    /// `requireDomains`: false for commands whose domains come from elsewhere (entitlements).
    /// The largest `--domains` file read (`docs/limits.md`).
    static let maxDomainsFileBytes = 64 << 20

    static func parse(_ parsed: ParsedArguments, requireDomains: Bool = true) -> Result<NetworkOptions, UsageError> {
        var options = NetworkOptions()
        options.transfers.userAgent = "aasa/\(AASAVersion.current)"
        var seen = Set<String>()
        // Each name validated as it is read, so that a list of millions holds its domains once.
        func add(_ input: String) -> UsageError? {
            switch DomainName.validate(input) {
            case .success(let domain):
                if seen.insert(domain).inserted { options.domains.append(domain) }
                return nil
            case .failure(let error):
                return UsageError(message: VisibleText.escapedLine(error.message))
            }
        }
        for input in parsed.positionals {
            if let error = add(input) { return .failure(error) }
        }
        if let file = parsed.value("domains") {
            // Bounded like a document: a list of millions of domains fits, a runaway file or
            // an endless pipe is named rather than read into memory.
            let data: [UInt8]
            do {
                // `-` reads descriptor 0 where it stands (a socket cannot be reopened by name).
                data =
                    file == "-"
                    ? try AASADocument.bytes(ofDescriptor: STDIN_FILENO, maxBytes: maxDomainsFileBytes)
                    : try AASADocument.bytes(ofFile: file, maxBytes: maxDomainsFileBytes)
            } catch {
                let reason = if case .document(.tooLarge) = error { "larger than \(maxDomainsFileBytes >> 20) MiB" } else { error.description }
                return .failure(UsageError(message: "cannot read --domains \(VisibleText.excerpt(file)): \(reason)"))
            }
            // Bytes, not Characters: splitting and trimming through Foundation, then validating
            // the list whole, took 11 s and 756 MB for 64 MiB. A domain is ASCII, so nothing
            // else needs trimming (what remains is refused by name).
            // Room for a domain a line of about 24 bytes: growing the set rehashed every name.
            seen.reserveCapacity(data.count / 24)
            options.domains.reserveCapacity(data.count / 24)
            func blank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0B || byte == 0x0C }
            var start = 0
            while start < data.count {
                var end = start
                while end < data.count, data[end] != 0x0A, data[end] != 0x0D { end += 1 }
                var text = data[start..<end]
                start = end + 1
                if let hash = text.firstIndex(of: UInt8(ascii: "#")) { text = text[..<hash] }
                while let first = text.first, blank(first) { text = text.dropFirst() }
                while let last = text.last, blank(last) { text = text.dropLast() }
                if !text.isEmpty, let error = add(String(decoding: text, as: UTF8.self)) { return .failure(error) }
            }
        }
        func number(_ name: String, _ range: ClosedRange<Double>) -> Result<Double?, UsageError> {
            guard let text = parsed.value(name) else { return .success(nil) }
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                func shown(_ bound: Double) -> String { bound == bound.rounded() ? String(Int(bound)) : String(bound) }
                return .failure(UsageError(message: "--\(name) needs a number from \(shown(range.lowerBound)) to \(shown(range.upperBound))"))
            }
            return .success(value)
        }
        do {
            if let value = try number("jobs", 1...Double(FetchCommand.sliceSize)).get() {
                guard value == value.rounded() else { return .failure(UsageError(message: "--jobs needs a whole number")) }
                options.transfers.jobs = Int(value)
            }
            if let value = try number("retries", 0...10).get() {
                guard value == value.rounded() else { return .failure(UsageError(message: "--retries needs a whole number")) }
                options.transfers.retries = Int(value)
            }
            if let value = try number("connect-timeout", 0.001...600).get() { options.transfers.connectTimeout = value }
            if let value = try number("timeout", 0.001...3600).get() { options.transfers.timeout = value }
            if let value = try number("retry-delay", 0...600).get() { options.transfers.retryDelay = value }
        } catch {
            return .failure(error)
        }
        switch limits(parsed) {
        case .success(let configuration): options.configuration = configuration
        case .failure(let error): return .failure(error)
        }
        options.transfers.limit = options.configuration.document.maxBytes
        if let template = parsed.value("cdn-url") {
            guard template.contains("{domain}"), template.hasPrefix("https://") || template.hasPrefix("http://") else {
                return .failure(UsageError(message: "--cdn-url needs an http(s) URL containing {domain}"))
            }
            options.cdnTemplate = template
        }
        for entry in parsed.values("connect-to") {
            guard entry.split(separator: ":", omittingEmptySubsequences: false).count >= 4 else {
                return .failure(
                    UsageError(message: "--connect-to needs HOST:PORT:ADDR:PORT (parts may be empty), not '\(entry)'"))
            }
            options.transfers.connectTo.append(entry)
        }
        // After the options' own checks: a mistyped option is the mistake to name first.
        guard !options.domains.isEmpty || !requireDomains else {
            return .failure(UsageError(message: "no domains: give DOMAIN arguments or --domains FILE"))
        }
        if let caFile = parsed.value("ca-file") {
            switch TrustStore.bundle(adding: caFile) {
            case .success(let path):
                options.transfers.caBundle = path
                options.temporaryBundle = path
                RemovedOnSignal.register(path)
            case .failure(let error):
                return .failure(UsageError(message: "--ca-file \(error)"))
            }
        } else if let system = TrustStore.systemBundlePath(), FileManager.default.isReadableFile(atPath: system) {
            // The same store, named as one file: see `Transfers` on the parse cache.
            options.transfers.caBundle = system
        }
        return .success(options)
    }


    /// The configuration `--limit` makes: `NAME=N` as on every command, and a bare byte count
    /// as `document-bytes`, the form these commands took first.
    static func limits(_ parsed: ParsedArguments) -> Result<Configuration, UsageError> {
        var configuration = Configuration()
        for text in parsed.values("limit") {
            do {
                try configuration.setLimit(text.contains("=") ? text : "document-bytes=\(text)")
            } catch {
                return .failure(UsageError(message: error.message))
            }
        }
        return .success(configuration)
    }

    func cleanUp() {
        if let temporaryBundle { unlink(temporaryBundle) }
    }

}
