import AASAKit
import AASAWeb
import Foundation

/// `aasa check DOMAIN...`: is each domain's deployment what devices need? The origin's answer
/// (TLS, status, redirects, size, content type), the document's lint findings, the CDN copy
/// compared by meaning, and optionally a test matrix; each finding with a stable code.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Check domains' AASA deployment: origin, TLS, content type, lint, the CDN copy by meaning, a test matrix.",
        usage:
            "aasa check [<domain> ...] [--domains <file>] [--matrix <m.json>] [--format text|json] [--state <file>] [--alert-after <duration>] [options]",
        options: [
            .init(
                name: "matrix", valueName: "m.json",
                help: "Expectations as for aasa test; URLs of each domain are checked on its origin copy."),
            .init(name: "format", valueName: "format", help: "text (default) or json (one object per domain)."),
            .init(name: "state", valueName: "file", help: "Remember CDN differences across runs in FILE (for cron)."),
            .init(
                name: "alert-after", valueName: "duration",
                help: "With --state: a difference older than this is an error (default 24h; s, m, h, d)."),
        ] + NetworkOptions.specOptions,
        discussion: """
            Codes (severity): origin: connection, tls, timeout, invalid-response, redirect,
            http-status, too-large (error), root-path (warning: only the root path serves the
            document, not the .well-known path Apple documents), content-type (warning: not
            application/json); then the origin document's lint findings (aasa lint's codes and
            severities); CDN: cdn-missing (error: the CDN has no copy, HTTP 404 or 410),
            cdn-unavailable (warning: the CDN could not be asked, or answered another error such
            as 429), cdn-differs (warning: some URLs are decided differently, with an example URL
            per class; or the CDN copy is not a usable document, with the reason), cdn-unproven (warning: no difference found but equivalence not proven), and with
            --state, cdn-differs-persistent (error) once the same pair of copies has differed
            for longer than --alert-after; the state forgets a domain when its copies agree.
            --matrix: matrix-failed (error) for each URL of the domain whose expectation fails,
            and for a URL that cannot be split; matrix-unchecked for a host of the matrix that
            is none of the domains checked (error when one of its URLs should open the app,
            else warning), one per host. These two come first, on a line of their own
            (json: {"domain": null, "ok", "findings"}).

            json: one line per domain:
              {"domain", "ok", "findings": [{"code", "severity", "message", "url"?}],
               "origin": {fetch record}, "cdn": {fetch record},
               "equivalence": "equivalent"|"differs"|"unproven"|"unavailable"}
            (fetch records as aasa fetch prints them).

            EXIT STATUS: 0 no finding is an error; 1 some finding is an error; 2 usage error
            (an unreadable --state or --matrix included); 5 the report or the --state file
            cannot be written.
            """)

    struct Finding {
        var code: String
        var severity: Diagnostic.Severity
        var message: String
        var url: String?

        var json: String {
            var text =
                "{\"code\": \(JSONWriter.escape(code)), \"severity\": \"\(severity.rawValue)\", \"message\": \(JSONWriter.escape(message))"
            if let url { text += ", \"url\": \(JSONWriter.escape(url))" }
            return text + "}"
        }
    }

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        switch CommandSupport.arguments(spec, arguments) {
        case .success(let value): parsed = value
        case .failure(let code): return code
        }
        let format = parsed.value("format") ?? "text"
        guard ["text", "json"].contains(format) else { return CommandSupport.usageError(spec, "unknown format '\(format)'") }
        var alertAfter = 86_400.0
        if let text = parsed.value("alert-after") {
            guard let seconds = duration(text) else {
                return CommandSupport.usageError(spec, "--alert-after needs a duration such as 90s, 30m, 24h or 2d")
            }
            alertAfter = seconds
        }
        var options: NetworkOptions
        switch NetworkOptions.parse(parsed) {
        case .success(let value): options = value
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        defer { options.cleanUp() }
        options.transfers.progress = true
        // By host, split once: each domain answers for its own URLs, and a matrix of many
        // domains' URLs is not searched again for every domain checked.
        var expectations: [String: [TestCommand.Expectation]]?
        var unclaimed: [Finding] = []
        if let path = parsed.value("matrix") {
            switch TestCommand.loadMatrix(path) {
            case .success(let value):
                let grouped = unclaimedExpectations(value, checked: Set(options.domains))
                expectations = grouped.byDomain
                unclaimed = grouped.findings
            case .failure(let message): return CommandSupport.usageError(spec, "cannot read the matrix \(VisibleText.escapedLine(path)): \(message)")
            }
        }
        var state: DifferenceState?
        // A link is followed: the file it names is the state, and it is replaced there.
        var statePath = parsed.value("state")
        if let given = statePath {
            switch stateFile(given) {
            case .success(let path): statePath = path
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
        }
        if let statePath {
            var info = stat()
            if lstat(statePath, &info) != 0, errno == ENOENT {
                state = DifferenceState()
            } else {
                let bytes: [UInt8]
                do {
                    bytes = try AASADocument.bytes(ofFile: statePath, maxBytes: maxStateBytes, regularFileOnly: true)
                } catch {
                    let reason = if case .document(.tooLarge) = error { "larger than \(maxStateBytes >> 20) MiB" } else { error.description }
                    return CommandSupport.usageError(spec, "cannot read --state \(VisibleText.excerpt(statePath)): \(reason)")
                }
                guard let value = DifferenceState(json: bytes) else {
                    return CommandSupport.usageError(spec, "--state \(VisibleText.excerpt(statePath)) is not a state file aasa check wrote")
                }
                state = value
            }
        }
        let configuration = options.configuration
        let transfers = Transfers(options: options.transfers)
        let fetcher = DocumentFetcher(transfers: transfers, cdnTemplate: options.cdnTemplate)
        let now = clock()
        let stream = OutputStream(fileDescriptor: STDOUT_FILENO)
        var outputClosed = false
        var anyError = false
        var counts = (errors: 0, warnings: 0)
        // What the matrix asks of no checked domain comes first, as the file's own findings.
        if !unclaimed.isEmpty {
            let ok = !unclaimed.contains { $0.severity == .error }
            if !ok { anyError = true }
            counts.errors += unclaimed.count { $0.severity == .error }
            counts.warnings += unclaimed.count { $0.severity == .warning }
            var output = ""
            if format == "json" {
                output = "{\"domain\": null, \"ok\": \(ok), \"findings\": [\(unclaimed.map(\.json).joined(separator: ", "))]}\n"
            } else {
                for finding in unclaimed {
                    output += "matrix: \(finding.severity.rawValue) [\(finding.code)] \(VisibleText.escapedLine(finding.message))\n"
                    if let url = finding.url { output += "  \(VisibleText.escapedLine(url))\n" }
                }
            }
            if let failure = write(to: stream, closed: &outputClosed, command: "check", { part throws(OutputStream.WriteFailure) in try part.write(output) }) { return failure }
        }
        // In slices, as in fetch: bounded memory, and records flow out as slices finish.
        for start in stride(from: 0, to: options.domains.count, by: FetchCommand.sliceSize) {
            let domains = Array(options.domains[start..<min(start + FetchCommand.sliceSize, options.domains.count)])
            if options.domains.count > FetchCommand.sliceSize {
                transfers.progressNote = " (domains \(start + 1)-\(start + domains.count) of \(options.domains.count))"
            }
            let origins = fetcher.origin(domains)
            let cdns = fetcher.cdn(domains)
            var output = ""
            for (index, domain) in domains.enumerated() {
                let origin = origins[index]
                let cdn = cdns[index]
                var findings = originFindings(origin, domain: domain, configuration: configuration)
                if let mine = expectations?[domain], let body = origin.body {
                    findings += matrixFindings(mine, body: body, domain: domain, configuration: configuration)
                }
                let comparison = CopyComparison.compare(
                    origin: origin.body, cdn: cdn.body, domain: domain, configuration: configuration)
                findings += cdnFindings(
                    cdn, origin: origin.body, comparison: comparison, domain: domain, state: &state, now: now,
                    alertAfter: alertAfter)
                let ok = !findings.contains { $0.severity == .error }
                if !ok { anyError = true }
                counts.errors += findings.count { $0.severity == .error }
                counts.warnings += findings.count { $0.severity == .warning }
                if format == "json" {
                    output += "{\"domain\": \(JSONWriter.escape(domain)), \"ok\": \(ok), \"findings\": ["
                    output += findings.map(\.json).joined(separator: ", ")
                    // The records as `aasa fetch` prints them: a body that is no usable document
                    // is a failed fetch there, and here.
                    let originRecord = FetchCommand.validated(origin, configuration: configuration)
                    let cdnRecord = FetchCommand.validated(cdn, configuration: configuration)
                    output += "], \"origin\": \(originRecord.json), \"cdn\": \(cdnRecord.json), \"equivalence\": \"\(comparison.name)\"}\n"
                } else {
                    if findings.isEmpty {
                        output +=
                            "\(domain): ok (\(VisibleText.escapedLine(origin.record.url)), \(origin.record.bytes ?? 0) bytes; CDN copy \(comparison.name))\n"
                    }
                    for finding in findings {
                        // One line each, whatever the server's text holds: a line break in a
                        // URL or a message would print a line that looks like the tool's own.
                        output += "\(domain): \(finding.severity.rawValue) [\(finding.code)] \(VisibleText.escapedLine(finding.message))\n"
                        if let url = finding.url { output += "  \(VisibleText.escapedLine(url))\n" }
                    }
                }
            }
            if format == "text", start + domains.count == options.domains.count {
                output += "\(counted(options.domains.count, "domain")) checked: \(counted(counts.errors, "error")), "
                output += "\(counted(counts.warnings, "warning"))\n"
            }
            if let failure = write(to: stream, closed: &outputClosed, command: "check", { part throws(OutputStream.WriteFailure) in try part.write(output) }) { return failure }
        }
        if let statePath, let state, let problem = saveState(state, checked: options.domains, to: statePath) {
            printError("aasa check: \(problem)")
            return .inputOutput
        }
        return anyError ? .failure : .success
    }

    /// The largest state file read: it holds a line per differing domain, and 64 MiB is far
    /// past any fleet (`docs/limits.md`).
    static let maxStateBytes = 64 << 20

    /// The state file `path` names (through its symbolic links), checked before any request: a
    /// folder that cannot be written would otherwise lose what a whole run learned.
    static func stateFile(_ path: String) -> Result<String, UsageError> {
        let shown = VisibleText.excerpt(path)
        if path.hasSuffix("/") { return .failure(UsageError(message: "--state \(shown) names a folder, not a file")) }
        var info = stat()
        var target = path
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            if let real = ReadFiles.realPath(path) {
                target = real
            } else {
                // A link to a state file not written yet: the file it names, made there.
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let length = readlink(path, &buffer, buffer.count - 1)
                guard length > 0 else { return .failure(UsageError(message: "--state \(shown) is a symbolic link that cannot be read")) }
                let destination = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                target = destination.hasPrefix("/") ? destination : PathName.join(PathName.split(path).directory, destination)
            }
        }
        let folder = PathName.split(target).directory
        guard access(folder.isEmpty ? "." : folder, W_OK) == 0 else {
            return .failure(UsageError(message: "cannot write --state \(shown): \(String(cString: strerror(errno)))"))
        }
        return .success(target)
    }

    /// Writes what this run learned of the domains it checked into the state file as it is now,
    /// under a lock on the file's folder: runs over parts of one fleet (or a cron job that
    /// overlaps the next) share one file without one run's write dropping another's domains.
    static func saveState(_ state: DifferenceState, checked: [String], to path: String) -> String? {
        let folder = PathName.split(path).directory
        let lock = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0 else { return "cannot write \(path): \(String(cString: strerror(errno)))" }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { return "cannot lock the folder of \(path): \(String(cString: strerror(errno)))" }
        }
        var merged = state
        if let bytes = try? AASADocument.bytes(ofFile: path, maxBytes: maxStateBytes, regularFileOnly: true),
            let current = DifferenceState(json: bytes)
        {
            merged = current
            merged.adopt(state, for: checked)
        }
        return DocumentStore.writeAtomically(Array(merged.json.utf8), to: path)
    }

    /// What a Content-Type value says, in words: absent and empty are not a type.
    static func served(_ contentType: String?) -> String {
        guard let contentType else { return "served without a Content-Type" }
        return contentType.isEmpty ? "served with an empty Content-Type" : "served as \(contentType)"
    }

    static func originFindings(_ origin: DocumentFetcher.Fetched, domain: String, configuration: Configuration) -> [Finding] {
        guard let body = origin.body else {
            let code = origin.record.failure?.rawValue ?? "http-status"
            return [
                Finding(code: code, severity: .error, message: "\(origin.record.url): \(origin.record.error ?? "no document")")
            ]
        }
        var findings: [Finding] = []
        // `fetch` falls back to the root path, as devices long did; a deployment checked for
        // what Apple documents today should hear that only the root serves it.
        if origin.record.url == DocumentFetcher.rootURL(domain) {
            findings.append(
                Finding(
                    code: "root-path", severity: .warning,
                    message:
                        "only \(origin.record.url) serves the document; \(DocumentFetcher.wellKnownURL(domain)) does not, and it is the one path Apple documents"
                ))
        }
        if !FetchRecord.isJSONContentType(origin.record.contentType) {
            findings.append(
                Finding(
                    code: "content-type", severity: .warning,
                    message: "\(served(origin.record.contentType)); Apple asks for application/json"))
        }
        for finding in Linter.lint(bytes: body, domain: domain, configuration: configuration) {
            var message = "\(finding.path): \(finding.message)"
            if let hint = finding.hint { message += " (\(hint))" }
            findings.append(Finding(code: finding.code, severity: finding.severity, message: message, url: finding.witness))
        }
        return findings
    }

    /// The matrix's expectations by the checked domain that answers for them (their URL's host,
    /// ASCII-lowercased), and findings for the rest, which no check decides: a URL that cannot
    /// be split fails; a host no checked domain is (another domain, `www.` or a trailing dot
    /// left out) is `matrix-unchecked`, an error when one of its URLs should open the app (that
    /// cannot have held) and a warning when all should stay on the web. One finding a host, with
    /// its first URL and its count: a matrix of a million URLs of other domains is not a million
    /// lines.
    static func unclaimedExpectations(_ expectations: [TestCommand.Expectation], checked: Set<String>)
        -> (byDomain: [String: [TestCommand.Expectation]], findings: [Finding])
    {
        var byDomain: [String: [TestCommand.Expectation]] = [:]
        var findings: [Finding] = []
        var unchecked: [String: (first: String, count: Int, opensApp: Bool)] = [:]
        var uncheckedOrder: [String] = []
        for expectation in expectations {
            let host: String
            do {
                host = try URLSplitter.split(expectation.url).domainName
            } catch {
                findings.append(
                    Finding(code: "matrix-failed", severity: .error, message: "\(expectation.url): cannot be split: \(error)", url: expectation.url))
                continue
            }
            if checked.contains(host) {
                byDomain[host, default: []].append(expectation)
            } else if var seen = unchecked[host] {
                seen.count += 1
                seen.opensApp = seen.opensApp || expectation.opensApp
                unchecked[host] = seen
            } else {
                unchecked[host] = (expectation.url, 1, expectation.opensApp)
                uncheckedOrder.append(host)
            }
        }
        for host in uncheckedOrder {
            guard let seen = unchecked[host] else { continue }
            let urls = seen.count == 1 ? "1 URL" : "\(seen.count) URLs"
            findings.append(
                Finding(
                    code: "matrix-unchecked", severity: seen.opensApp ? .error : .warning,
                    message: "\(urls) of the matrix on \(host), which is not among the domains checked\(seen.opensApp ? " (some should open the app)" : ""); first:",
                    url: seen.first))
        }
        return (byDomain, findings)
    }

    /// `mine`: the matrix's expectations whose URL's host is `domain`.
    static func matrixFindings(
        _ mine: [TestCommand.Expectation], body: [UInt8], domain: String, configuration: Configuration
    ) -> [Finding] {
        guard !mine.isEmpty, let document = try? AASADocument(bytes: body, configuration: configuration) else { return [] }
        switch TestCommand.evaluate(mine, document: document, domain: domain, engineName: "dfa", configuration: configuration) {
        case .success(let failures):
            return failures.map { Finding(code: "matrix-failed", severity: .error, message: $0.text, url: $0.url) }
        case .failure:
            return [
                Finding(code: "matrix-failed", severity: .error, message: "the origin document cannot be compiled for the matrix")
            ]
        }
    }

    static func cdnFindings(
        _ cdn: DocumentFetcher.Fetched, origin: [UInt8]?, comparison: CopyComparison, domain: String,
        state: inout DifferenceState?, now: Double,
        alertAfter: Double
    ) -> [Finding] {
        if cdn.body == nil {
            // Only "not found" says there is no copy: a 429 (rate limited, retried as transient)
            // or a 403 says nothing about the copy, and is the CDN not answering the question.
            if cdn.record.failure == .httpStatus, let status = cdn.record.status, status == 404 || status == 410 {
                return [
                    Finding(
                        code: "cdn-missing", severity: .error, message: "the CDN has no copy (\(cdn.record.url): HTTP \(status))")
                ]
            }
            return [
                Finding(
                    code: "cdn-unavailable", severity: .warning,
                    message: "\(cdn.record.url): \(cdn.record.error ?? "no document")")
            ]
        }
        switch comparison {
        case .equivalent:
            state?.observeAgreement(domain: domain)
            return []
        case .unavailable:
            return []
        case .unproven(let reason):
            return [
                Finding(
                    code: "cdn-unproven", severity: .warning,
                    message: "no difference from the origin found, but not proven: \(reason)")
            ]
        case .differs, .cdnUnusable:
            // A CDN copy that differs, or cannot be read, is usually one the CDN has not yet
            // refreshed: a warning, and with --state an error once it has lasted.
            var code = "cdn-differs"
            var severity = Diagnostic.Severity.warning
            var since = ""
            if state != nil, let origin, let copy = cdn.body {
                let fingerprint = DifferenceState.fingerprint(origin: origin, cdn: copy)
                let lasted = state?.observeDifference(domain: domain, fingerprint: fingerprint, now: now) ?? 0
                since = " for \(describe(lasted))"
                if lasted > alertAfter {
                    code = "cdn-differs-persistent"
                    severity = .error
                }
            }
            guard case .differs(let examples) = comparison else {
                let reason = if case .cdnUnusable(let reason) = comparison { reason } else { "" }
                return [Finding(code: code, severity: severity, message: "the CDN copy is not a usable document\(since): \(reason)")]
            }
            guard !examples.isEmpty else {
                return [Finding(code: code, severity: severity, message: "the CDN copy differs, but no example URL was found\(since)")]
            }
            return examples.prefix(5).map { example in
                Finding(
                    code: code, severity: severity,
                    message: "the CDN copy\(since.isEmpty ? "" : " (differing\(since))") decides this URL differently for "
                        + "\(example.app): \(example.origin.rawValue) at the origin, \(example.cdn.rawValue) on the CDN",
                    url: example.url)
            }
        }
    }

    /// Seconds since 1970; `AASA_CHECK_NOW` overrides it so that tests can move time forward
    /// without sleeping (a value that is not a plausible time is ignored).
    static func clock() -> Double {
        if let text = ProcessInfo.processInfo.environment["AASA_CHECK_NOW"], let value = Double(text),
            DifferenceState.plausible(value)
        {
            return value
        }
        return Date().timeIntervalSince1970
    }

    /// "90s", "30m", "24h", "2d", or plain seconds.
    static func duration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let value = units[last] {
            unit = value
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value >= 0, (value * unit).isFinite else { return nil }
        return value * unit
    }

    static func describe(_ given: Double) -> String {
        // Times come from a state file and the clock: kept where `Int` can hold them.
        let seconds = given.isFinite ? min(max(given, 0), 1e15) : 0
        if seconds >= 7200 { return "\(Int(seconds / 3600))h" }
        if seconds >= 120 { return "\(Int(seconds / 60))m" }
        return "\(Int(seconds))s"
    }
}
