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
        ] + NetworkOptions.specOptions.filter { $0.name != "domains" && $0.name != "cdn-url" },
        flags: [.init(name: "fetch", help: "Fetch each domain's document from its origin instead (the options below apply).")],
        discussion: """
            FILE is an entitlements property list, XML or binary (as codesign -d --entitlements
            prints it). The app ID is application-identifier or
            com.apple.application-identifier (TEAMID.bundle.id), or --app-id. Each
            com.apple.developer.associated-domains entry applinks:DOMAIN[?mode=developer|managed]
            is listed with its mode; a wildcard *.DOMAIN is served by DOMAIN's document and
            covers DOMAIN's subdomains (DOMAIN itself needs an entry of its own). With --matrix,
            each URL is decided on the document of the most specific entry covering its host
            (the host's own entry, else the longest wildcard); a URL no entry covers fails if it
            should open the app (and holds if it should stay on the web). Hosts are compared as
            written, ASCII-lowercased, with no IDNA: an entry is ASCII (an international
            domain as its xn-- form), and a matrix URL's Unicode host is not converted, so write
            it as xn-- too. A port (DOMAIN:PORT) is fetched from that port; a rules directory holds
            one document a domain, whatever the port.

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
        guard (rulesPath != nil) != fetch else {
            return CommandSupport.usageError(spec, fetch ? "give --rules DIR or --fetch, not both" : "give --rules DIR or --fetch")
        }
        let format = parsed.value("format") ?? "text"
        guard ["text", "json"].contains(format) else { return CommandSupport.usageError(spec, "unknown format '\(format)'") }
        var expectations: [TestCommand.Expectation]?
        if let path = parsed.value("matrix") {
            switch TestCommand.loadMatrix(path) {
            case .success(let value): expectations = value
            case .failure(let message): return CommandSupport.usageError(spec, "cannot read the matrix \(VisibleText.escapedLine(path)): \(message)")
            }
        }
        let file = parsed.positionals[0]
        if CommandSupport.isNotUTF8(file) {
            printError("aasa entitlements: cannot read \(VisibleText.escapedLine(file)): \(CommandSupport.notUTF8Path)")
            return .unreadableDocument
        }
        let plist: [String: Any]
        switch readPlist(file) {
        case .success(let value): plist = value
        case .failure(let problem):
            printError("aasa entitlements: cannot read \(VisibleText.escapedLine(file)): \(problem)")
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
        let associated = applinks.compactMap { try? $0.parsed.get() }
        // A fetched document comes from the entry's port; a rules directory holds one document
        // a domain (as classify, which ignores ports, reads it).
        func documentKey(_ entry: AssociatedDomain) -> String {
            guard fetch, let port = entry.port else { return entry.domain }
            return "\(entry.domain):\(port)"
        }
        let coverage = EntitlementCoverage(associated, key: documentKey)
        var assigned: [EntitlementCoverage.Target: [TestCommand.Expectation]] = [:]
        if let expectations {
            let split = coverage.assign(expectations)
            assigned = split.byTarget
            fileFindings += uncoveredFindings(split.uncovered)
        }
        if applinks.isEmpty {
            fileFindings.append(
                .init(
                    code: "no-applinks", severity: .warning,
                    message: "com.apple.developer.associated-domains has no applinks: entry"))
        }
        var configuration: Configuration
        let documents: DocumentSource
        var networkOptions: NetworkOptions?
        defer { networkOptions?.cleanUp() }
        if fetch {
            var withDomains = parsed
            withDomains.positionals = []
            withDomains.options["domains"] = nil
            switch NetworkOptions.parse(withDomains, requireDomains: false) {
            case .success(let value): networkOptions = value
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
            configuration = networkOptions?.configuration ?? Configuration()
            documents = .fetched(DocumentFetcher(transfers: Transfers(options: networkOptions?.transfers ?? .init())))
        } else {
            // The network options mean nothing without --fetch: refused, not ignored.
            if let given = NetworkOptions.specOptions.first(where: { $0.name != "limit" && parsed.value($0.name) != nil }) {
                return CommandSupport.usageError(spec, "--\(given.name) is for --fetch")
            }
            switch NetworkOptions.limits(parsed) {
            case .success(let value): configuration = value
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
            switch rulesFiles(rulesPath ?? "") {
            case .success(let files): documents = .rules(path: rulesPath ?? "", files: files)
            case .failure(let failure):
                printError("aasa entitlements: \(failure)")
                return .unreadableDocument
            }
        }
        // Each document is read once, however many entries it serves, and a slice of them at a
        // time: 20 000 entries fetched at once held every body together (2 GB, then an abort).
        var targets: [EntitlementCoverage.Target] = []
        var seenTargets = Set<EntitlementCoverage.Target>()
        for entry in associated {
            let target = EntitlementCoverage.target(entry, key: documentKey)
            if seenTargets.insert(target).inserted { targets.append(target) }
        }
        let targetsByKey = Dictionary(grouping: targets, by: \.key)
        let keys = targetsByKey.keys.sorted()
        var findingsByTarget: [EntitlementCoverage.Target: [CheckCommand.Finding]] = [:]
        for start in stride(from: 0, to: keys.count, by: FetchCommand.sliceSize) {
            let slice = Array(keys[start..<min(start + FetchCommand.sliceSize, keys.count)])
            for (key, document) in zip(slice, documents.read(slice, configuration: configuration)) {
                for target in targetsByKey[key] ?? [] {
                    findingsByTarget[target] = documentFindings(
                        document, domain: target.domain, wildcard: target.wildcard, appID: appID,
                        mine: expectations == nil ? nil : assigned[target] ?? [], configuration: configuration)
                }
            }
        }
        var output = ""
        var anyError = fileFindings.contains { $0.severity == .error }
        if !fileFindings.isEmpty {
            if format == "json" {
                output +=
                    "{\"entry\": null, \"ok\": \(!anyError), \"findings\": [\(fileFindings.map(\.json).joined(separator: ", "))]}\n"
            } else {
                // One line a finding, as for the entries below: a matrix URL quoted in a message
                // must not print a line of its own.
                for finding in fileFindings {
                    output += "\(VisibleText.escapedLine(file)): \(finding.severity.rawValue) [\(finding.code)] \(VisibleText.escapedLine(finding.message))\n"
                    if let url = finding.url { output += "  \(VisibleText.escapedLine(url))\n" }
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
                findings += findingsByTarget[EntitlementCoverage.target(associated, key: documentKey)] ?? []
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
            return .failure(Problem(isDirectory.boolValue ? "it is a directory" : CommandSupport.reason(ENOENT)))
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

    /// Where the entries' documents come from: fetched from their origins, or read from a rules
    /// directory listed as `classify --rules` lists it (file names in any case, a broken link
    /// or a FIFO claiming its domain), so that both find the same document for a domain.
    enum DocumentSource {
        case fetched(DocumentFetcher)
        /// By domain, ASCII-lowercased.
        case rules(path: String, files: [[UInt8]: String])

        /// The documents of `keys`, in order, or why each could not be had.
        func read(_ keys: [String], configuration: Configuration) -> [Result<[UInt8], Problem>] {
            switch self {
            case .fetched(let fetcher):
                return fetcher.origin(keys).map { result in
                    result.body.map { .success($0) }
                        ?? .failure(Problem("\(result.record.url): \(result.record.error ?? "no document")"))
                }
            case .rules(let path, let files):
                return keys.map { key in
                    guard let file = files[CommandSupport.asciiLowered(key)] else {
                        return .failure(Problem("no document for \(key) in \(path)"))
                    }
                    do {
                        return .success(
                            try AASADocument.bytes(ofFile: file, maxBytes: configuration.document.maxBytes, regularFileOnly: true))
                    } catch {
                        return .failure(Problem("cannot read \(file): \(error)"))
                    }
                }
            }
        }
    }

    /// A rules directory's documents by domain (ASCII-lowercased); they are read as entries
    /// need them.
    static func rulesFiles(_ path: String) -> Result<[[UInt8]: String], DomainDocuments.LoadFailure> {
        let listing: DomainDocuments.Listing
        do {
            listing = try DomainDocuments.listing(path)
        } catch {
            return .failure(error)
        }
        for warning in listing.warnings { printError("aasa entitlements: \(warning)") }
        var files: [[UInt8]: String] = [:]
        for (domain, file) in listing.files { files[CommandSupport.asciiLowered(domain)] = file }
        return .success(files)
    }

    static let otherServices = ["webcredentials:", "appclips:", "activitycontinuation:"]

    /// Matrix URLs no entry is about: one that cannot be split fails, and so does one expected
    /// to open the app (no entry associates its host); one expected to stay on the web holds.
    static func uncoveredFindings(_ uncovered: [(TestCommand.Expectation, host: String?, error: String?)]) -> [CheckCommand.Finding] {
        uncovered.compactMap { expectation, host, error in
            if let error {
                return .init(code: "matrix-failed", severity: .error, message: "\(expectation.url): cannot be split: \(error)", url: expectation.url)
            }
            guard expectation.opensApp else { return nil }
            return .init(
                code: "matrix-failed", severity: .error,
                message: "\(expectation.url) should open the app: no applinks entry covers \(host ?? "its host")", url: expectation.url)
        }
    }

    /// What an entry's document says of the app: `mine` are the matrix's expectations this
    /// entry decides (nil without a matrix).
    static func documentFindings(
        _ document: Result<[UInt8], Problem>, domain: String, wildcard: Bool, appID: String?, mine: [TestCommand.Expectation]?,
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
        guard let mine else { return [] }
        let forApp = mine.map { expectation in
            var forApp = expectation
            forApp.app = expectation.app ?? appID
            return forApp
        }
        guard !forApp.isEmpty else { return [] }
        // A wildcard entry's document serves each subdomain: each URL is decided on its own host.
        switch TestCommand.evaluate(forApp, document: parsed, domain: wildcard ? nil : domain, engineName: "dfa", configuration: configuration) {
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
