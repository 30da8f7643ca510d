import AASAKit
import AASAWeb
import Foundation

/// `aasa entitlements FILE [--rules DIR | --fetch]`: the app's side of universal links. Lists
/// the `applinks:` entries of an entitlements plist and checks that each domain's document
/// names the app.
enum EntitlementsCommand {
    static let spec = CommandSpec(
        name: "entitlements",
        abstract: "Check an app's associated domains: each applinks: domain's AASA file must name the app.",
        usage:
            "aasa entitlements <file> [--rules <dir> | --fetch] [--matrix <m.json>] [--app-id <id>] [--format text|json] [options]",
        options: [
            .init(
                name: "rules", valueName: "dir",
                help: "Read the documents from a rules directory (as classify and fetch --out use)."),
            .init(name: "app-id", valueName: "id", help: "The app ID (default: application-identifier in the file)."),
            .init(
                name: "matrix", valueName: "m.json",
                help: "Expectations as for aasa test, for this app, each URL on its domain's document."),
            .init(name: "format", valueName: "format", help: "text (default) or json (one object per applinks entry)."),
        ] + NetworkOptions.specOptions.filter { $0.name != "domains" },
        flags: [.init(name: "fetch", help: "Fetch each domain's document from its origin instead (the options below apply).")],
        discussion: """
            FILE is an entitlements property list, XML or binary (as codesign -d --entitlements
            prints it). The app ID is application-identifier or
            com.apple.application-identifier (TEAMID.bundle.id), or --app-id. Each
            com.apple.developer.associated-domains entry applinks:DOMAIN[?mode=developer|managed]
            is listed with its mode; a wildcard *.DOMAIN is served by DOMAIN's document and
            covers DOMAIN's subdomains (DOMAIN itself needs an entry of its own). With --matrix,
            each URL is decided on the document of the entry covering its host; a URL no entry
            covers fails if it should open the app (and holds if it should stay on the web).

            Codes (severity): no-app-id (error: for the file, and for each entry whose
            document it leaves unchecked), no-applinks (warning), invalid-entry (error:
            not SERVICE:DOMAIN[?mode=...], or not a string), no-document (error: no document for the domain, or
            the fetch failed, with its reason), invalid-document (error), app-not-listed
            (error: the document names other apps only), matrix-failed (error).

            json: one line per applinks entry:
              {"entry", "domain", "mode"?, "app_id", "ok", "findings": [{"code", "severity",
               "message", "url"?}]}
            and one line {"entry": null, ...} for findings about the file itself.

            EXIT STATUS: 0 no finding is an error; 1 some finding is an error; 2 usage error;
            3 the entitlements file or the rules directory cannot be read, or the file is not
            a property list; 5 the output cannot be written.
            """)

    /// Why a file or a document could not be had, as a person reads it.
    struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        switch CommandSupport.arguments(spec, arguments) {
        case .success(let value): parsed = value
        case .failure(let code): return code
        }
        guard parsed.positionals.count == 1 else { return CommandSupport.usageError(spec, "expected one entitlements <file>") }
        let rulesPath = parsed.value("rules")
        let fetch = parsed.has("fetch")
        guard (rulesPath != nil) != fetch else { return CommandSupport.usageError(spec, "give --rules DIR or --fetch") }
        let format = parsed.value("format") ?? "text"
        guard ["text", "json"].contains(format) else { return CommandSupport.usageError(spec, "unknown format '\(format)'") }
        var expectations: [TestCommand.Expectation]?
        if let path = parsed.value("matrix") {
            switch TestCommand.loadMatrix(path) {
            case .success(let value): expectations = value
            case .failure(let message): return CommandSupport.usageError(spec, "cannot read the matrix \(path): \(message)")
            }
        }
        let file = parsed.positionals[0]
        if CommandSupport.isNotUTF8(file) {
            printError("aasa entitlements: cannot read \(file): \(CommandSupport.notUTF8Path)")
            return .unreadableDocument
        }
        let plist: [String: Any]
        switch readPlist(file) {
        case .success(let value): plist = value
        case .failure(let problem):
            printError("aasa entitlements: cannot read \(file): \(problem)")
            return .unreadableDocument
        }
        var fileFindings: [CheckCommand.Finding] = []
        let appID =
            parsed.value("app-id") ?? (plist["application-identifier"] as? String)
            ?? (plist["com.apple.application-identifier"] as? String)
        if appID == nil {
            fileFindings.append(
                .init(
                    code: "no-app-id", severity: .error,
                    message: "no application-identifier in the file; give --app-id TEAMID.bundle.id"))
        }
        let key = "com.apple.developer.associated-domains"
        var entries: [String] = []
        switch plist[key] {
        case nil: break
        case let list as [Any]:
            for (index, element) in list.enumerated() {
                guard let entry = element as? String else {
                    fileFindings.append(.init(code: "invalid-entry", severity: .error, message: "\(key)[\(index)] is not a string"))
                    continue
                }
                entries.append(entry)
            }
        default:
            fileFindings.append(.init(code: "invalid-entry", severity: .error, message: "\(key) is not an array of strings"))
        }
        var applinks: [(entry: String, parsed: Result<AssociatedDomain, DomainNameError>)] = []
        for entry in entries {
            // Other services (webcredentials:, appclips:, activitycontinuation:) are not ours to
            // check, but an entry of no known service is a typo that silently drops a domain.
            if entry.hasPrefix("applinks:") {
                applinks.append((entry, AssociatedDomain.parse(entry)))
            } else if !Self.otherServices.contains(where: { entry.hasPrefix($0) }) {
                fileFindings.append(
                    .init(code: "invalid-entry", severity: .error, message: "\(JSONWriter.escape(entry)) is not SERVICE:DOMAIN (applinks:, webcredentials:, appclips:, activitycontinuation:)"))
            }
        }
        if let expectations { fileFindings += uncoveredExpectations(expectations, applinks: applinks.compactMap { try? $0.parsed.get() }) }
        if applinks.isEmpty {
            fileFindings.append(
                .init(
                    code: "no-applinks", severity: .warning,
                    message: "com.apple.developer.associated-domains has no applinks: entry"))
        }
        var configuration: Configuration
        let documents: [String: Result<[UInt8], Problem>]
        let domains = applinks.compactMap { try? $0.parsed.get() }.map { associated in
            associated.port.map { "\(associated.domain):\($0)" } ?? associated.domain
        }
        if fetch {
            var options: NetworkOptions
            var withDomains = parsed
            withDomains.positionals = []
            withDomains.options["domains"] = nil
            switch NetworkOptions.parse(withDomains, requireDomains: false) {
            case .success(let value): options = value
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
            defer { options.cleanUp() }
            configuration = options.configuration
            let unique = Array(Set(domains)).sorted()
            let fetched = DocumentFetcher(transfers: Transfers(options: options.transfers)).origin(unique)
            var byDomain: [String: Result<[UInt8], Problem>] = [:]
            for (domain, result) in zip(unique, fetched) {
                byDomain[domain] =
                    result.body.map { .success($0) }
                    ?? .failure(Problem("\(result.record.url): \(result.record.error ?? "no document")"))
            }
            documents = byDomain
        } else {
            // The network options mean nothing without --fetch: refused, not ignored.
            if let given = NetworkOptions.specOptions.first(where: { $0.name != "limit" && parsed.value($0.name) != nil }) {
                return CommandSupport.usageError(spec, "--\(given.name) is for --fetch")
            }
            switch NetworkOptions.limits(parsed) {
            case .success(let value): configuration = value
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
            switch loadRules(rulesPath ?? "", domains: domains, configuration: configuration) {
            case .success(let found): documents = found
            case .failure(let failure):
                printError("aasa entitlements: \(failure)")
                return .unreadableDocument
            }
        }
        var output = ""
        var anyError = fileFindings.contains { $0.severity == .error }
        if !fileFindings.isEmpty {
            if format == "json" {
                output +=
                    "{\"entry\": null, \"ok\": \(!anyError), \"findings\": [\(fileFindings.map(\.json).joined(separator: ", "))]}\n"
            } else {
                for finding in fileFindings {
                    output += "\(file): \(finding.severity.rawValue) [\(finding.code)] \(finding.message)\n"
                }
            }
        }
        for (entry, parsedEntry) in applinks {
            var findings: [CheckCommand.Finding] = []
            var domainName: String?
            var mode: String?
            switch parsedEntry {
            case .failure(let error):
                findings.append(.init(code: "invalid-entry", severity: .error, message: error.message))
            case .success(let associated):
                domainName = associated.domain
                mode = associated.mode
                let key = associated.port.map { "\(associated.domain):\($0)" } ?? associated.domain
                findings += documentFindings(
                    documents[key] ?? .failure(Problem("no document")), domain: associated.domain, wildcard: associated.wildcard, appID: appID,
                    expectations: expectations,
                    configuration: configuration)
            }
            let ok = !findings.contains { $0.severity == .error }
            if !ok { anyError = true }
            if format == "json" {
                var line = "{\"entry\": \(JSONWriter.escape(entry)), \"domain\": \(domainName.map(JSONWriter.escape) ?? "null")"
                if let mode { line += ", \"mode\": \(JSONWriter.escape(mode))" }
                line += ", \"app_id\": \(appID.map(JSONWriter.escape) ?? "null"), \"ok\": \(ok), \"findings\": ["
                output += line + findings.map(\.json).joined(separator: ", ") + "]}\n"
            } else {
                let modeText = VisibleText.escapedLine(mode.map { " (mode \($0))" } ?? "")
                let entry = VisibleText.escapedLine(entry)
                if findings.isEmpty { output += "\(entry)\(modeText): ok, the document names \(appID.map(VisibleText.escapedLine) ?? "the app")\n" }
                for finding in findings {
                    output += "\(entry)\(modeText): \(finding.severity.rawValue) [\(finding.code)] \(VisibleText.escapedLine(finding.message))\n"
                    if let url = finding.url { output += "  \(VisibleText.escapedLine(url))\n" }
                }
            }
        }
        if let failure = writeStandardOutput(format == "json" ? output : VisibleText.escaped(output), command: "entitlements") { return failure }
        return anyError ? .failure : .success
    }

    /// The plist's top-level dictionary. The size is bounded before parsing: an entitlements
    /// file is a few kilobytes.
    static func readPlist(_ file: String) -> Result<[String: Any], Problem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .failure(Problem("no such file"))
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file),
            let size = (attributes[.size] as? NSNumber)?.intValue, size <= 1 << 20,
            let data = FileManager.default.contents(atPath: file)
        else { return .failure(Problem("it cannot be read, or it is over 1 MiB")) }
        switch BinaryPlistSize.check(Array(data)) {
        case .notBinary, .within: break
        case .malformed: return .failure(Problem("not a property list (XML or binary)"))
        case .tooMany:
            return .failure(
                Problem("the binary property list reads as more than \(BinaryPlistSize.maxObjects) objects (its containers refer to shared objects over and over)"))
        }
        guard let value = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else {
            return .failure(Problem("not a property list (XML or binary)"))
        }
        guard let dictionary = value as? [String: Any] else { return .failure(Problem("the property list is not a dictionary")) }
        return .success(dictionary)
    }

    /// The documents of `domains` in a rules directory, or why there is none: the directory is
    /// listed as `classify --rules` lists it (file names in any case, a broken link or a FIFO
    /// claiming its domain), so that both find the same document for a domain.
    static func loadRules(_ path: String, domains: [String], configuration: Configuration)
        -> Result<[String: Result<[UInt8], Problem>], DomainDocuments.LoadFailure>
    {
        let listing: DomainDocuments.Listing
        do {
            listing = try DomainDocuments.listing(path)
        } catch {
            return .failure(error)
        }
        for warning in listing.warnings { printError("aasa entitlements: \(warning)") }
        func key(_ domain: String) -> [UInt8] { domain.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } }
        var files: [[UInt8]: String] = [:]
        for (domain, file) in listing.files { files[key(domain)] = file }
        var result: [String: Result<[UInt8], Problem>] = [:]
        for domain in domains {
            guard let file = files[key(domain)] else {
                result[domain] = .failure(Problem("no document for \(domain) in \(path)"))
                continue
            }
            do {
                result[domain] = .success(
                    try AASADocument.bytes(ofFile: file, maxBytes: configuration.document.maxBytes, regularFileOnly: true))
            } catch {
                result[domain] = .failure(Problem("cannot read \(file): \(error)"))
            }
        }
        return .success(result)
    }

    static let otherServices = ["webcredentials:", "appclips:", "activitycontinuation:"]

    /// Whether `host` is one an applinks entry is about: its domain, or a subdomain of it for a
    /// wildcard entry (`*.example.com` covers `www.example.com`, not `example.com`, which
    /// needs an entry of its own).
    static func covers(domain: String, wildcard: Bool, host: String) -> Bool {
        wildcard ? host.hasSuffix("." + domain) : host == domain
    }

    /// Matrix URLs no entry is about: one that cannot be split fails, and so does one expected
    /// to open the app (no entry associates its host); one expected to stay on the web holds.
    static func uncoveredExpectations(_ expectations: [TestCommand.Expectation], applinks: [AssociatedDomain]) -> [CheckCommand.Finding] {
        var findings: [CheckCommand.Finding] = []
        for expectation in expectations {
            let host: String
            do {
                host = try URLSplitter.split(expectation.url).host.lowercased()
            } catch {
                findings.append(.init(code: "matrix-failed", severity: .error, message: "\(expectation.url): cannot be split: \(error)", url: expectation.url))
                continue
            }
            if expectation.opensApp && !applinks.contains(where: { covers(domain: $0.domain, wildcard: $0.wildcard, host: host) }) {
                findings.append(
                    .init(
                        code: "matrix-failed", severity: .error,
                        message: "\(expectation.url) should open the app: no applinks entry covers \(host)", url: expectation.url))
            }
        }
        return findings
    }

    static func documentFindings(
        _ document: Result<[UInt8], Problem>, domain: String, wildcard: Bool, appID: String?, expectations: [TestCommand.Expectation]?,
        configuration: Configuration
    ) -> [CheckCommand.Finding] {
        let bytes: [UInt8]
        switch document {
        case .failure(let reason): return [.init(code: "no-document", severity: .error, message: reason.description)]
        case .success(let value): bytes = value
        }
        let parsed: AASADocument
        do {
            parsed = try AASADocument(bytes: bytes, configuration: configuration)
        } catch {
            return [
                .init(code: "invalid-document", severity: .error, message: "the document of \(domain) is not usable: \(error)")
            ]
        }
        // Without an app ID the document was read but not checked: saying "ok" would claim it
        // names the app.
        guard let appID else {
            return [
                .init(
                    code: "no-app-id", severity: .error,
                    message: "the document of \(domain) loads, but there is no app ID to look for in it; give --app-id")
            ]
        }
        guard parsed.appIDs.contains(where: { $0.utf8.elementsEqual(appID.utf8) }) else {
            let named = parsed.appIDs.prefix(5).joined(separator: ", ")
            return [
                .init(
                    code: "app-not-listed", severity: .error,
                    message:
                        "the document of \(domain) does not name \(appID) in applinks.details (it names \(named.isEmpty ? "no app" : named))"
                )
            ]
        }
        guard let expectations else { return [] }
        let mine = expectations.filter { expectation in
            (try? URLSplitter.split(expectation.url).host.lowercased()).map { covers(domain: domain, wildcard: wildcard, host: $0) } ?? false
        }.map { expectation in
            var forApp = expectation
            forApp.app = expectation.app ?? appID
            return forApp
        }
        guard !mine.isEmpty else { return [] }
        // A wildcard entry's document serves each subdomain: each URL is decided on its own host.
        switch TestCommand.evaluate(mine, document: parsed, domain: wildcard ? nil : domain, engineName: "dfa", configuration: configuration) {
        case .success(let failures):
            return failures.map { .init(code: "matrix-failed", severity: .error, message: $0.text, url: $0.url) }
        case .failure:
            return [
                .init(
                    code: "matrix-failed", severity: .error,
                    message: "the document of \(domain) cannot be compiled for the matrix")
            ]
        }
    }
}
