import AASAKit
import Foundation

/// `aasa test FILE --matrix M.json [--domain D]`: check a document against a test matrix.
enum TestCommand {
    static let spec = CommandSpec(
        name: "test",
        abstract: "Check an AASA file against a matrix of URLs that must open the app or stay on the web.",
        usage: "aasa test <file> --matrix <matrix.json> [--domain <domain>] [--engine dfa|reference]",
        options: [
            .init(name: "matrix", valueName: "matrix.json", help: "The expectations (required)."),
            .init(name: "domain", valueName: "domain", help: "The domain serving the file (default: each URL's own host)."),
            .init(name: "engine", valueName: "engine", help: "dfa (default) or reference."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            The matrix is {"opens_app": [urls], "opens_web": [urls]}: a URL under opens_app must
            open at least one app (some app's decision is match), one under opens_web must open
            none. Keyed by app ID, {"opens_app": {"<app>": [urls]}, "opens_web": {"<app>": [urls]}},
            each URL is checked for that app alone; a URL listed for an app that no entry of
            applinks.details names fails, under opens_web too (it would pass whatever the rules
            say: a misspelt app ID). Other keys, a key given twice, URLs that are not strings and
            a matrix listing no URL at all are refused (a matrix that could check nothing by
            mistake), and so is a matrix over 64 MiB or 1048576 URLs. Every failure is listed, as
            it is found, with the decision and the rule that decided it (at most ten deciding
            apps a line), or why there is none (another host than --domain, a URL over the
            url-work limit); a URL is shown by its first 200 characters and its length.

            EXIT STATUS: 0 every expectation holds; 1 some failed; 2 usage error or unreadable
            matrix; 3 the document cannot be read; 5 the output cannot be written.
            """)

    struct Expectation {
        var url: String
        var app: String?
        var opensApp: Bool
    }

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard parsed.positionals.count == 1 else { return CommandSupport.usageError(spec, "expected one <file>") }
        guard let matrixPath = parsed.value("matrix") else { return CommandSupport.usageError(spec, "missing --matrix") }
        let engineName = parsed.value("engine") ?? "dfa"
        guard CommandSupport.engineNames.contains(engineName) else {
            return CommandSupport.usageError(spec, "unknown engine '\(engineName)' (choose \(CommandSupport.engineNames.joined(separator: ", ")))")
        }
        if let given = parsed.value("domain"), case .failure(let error) = CommandSupport.documentDomain(given, command: spec.name) {
            return CommandSupport.usageError(spec, error.message)
        }
        let expectations: [Expectation]
        switch loadMatrix(matrixPath) {
        case .success(let value): expectations = value
        case .failure(let message):
            printError("aasa test: cannot read the matrix \(VisibleText.escapedLine(matrixPath)): \(message)")
            return .usage
        }
        let document: AASADocument
        switch CommandSupport.loadDocument(parsed.positionals[0], command: spec.name, configuration: configuration) {
        case .success(let value): document = value
        case .failure(let code): return code
        }
        // Failures are written as they are found: a matrix of millions of failing URLs held
        // them all (4 GB, then a crash, for a 64 MB matrix).
        let output = OutputStream(fileDescriptor: STDOUT_FILENO)
        var writeFailure: OutputStream.WriteFailure?
        let failed: Int
        switch evaluate(
            expectations, document: document, domain: parsed.value("domain"), engineName: engineName, configuration: configuration,
            limitHint: true,
            onFailure: { failure in
                guard writeFailure == nil else { return }
                do throws(OutputStream.WriteFailure) { try output.write("FAIL \(VisibleText.escapedLine(failure.text))\n") } catch { writeFailure = error }
            })
        {
        case .success(let count): failed = count
        case .failure(let code): return code
        }
        do {
            if let writeFailure { throw writeFailure }
            try output.write("\(expectations.count - failed) passed, \(failed) failed\n")
            try output.flush()
            // A matrix listing other hosts as opening the web (`www.`, look-alikes) fails
            // without `--domain`, where each URL's own host serves the file: say so once.
            if failed > 0, parsed.value("domain") == nil {
                printError("aasa test: without --domain each URL's own host was taken to serve the file; give --domain to test it as one domain serves it")
            }
        } catch OutputStream.WriteFailure.closed {
        } catch {
            printError("aasa test: \(error)")
            return .inputOutput
        }
        return failed == 0 ? .success : .failure
    }

    /// One expectation that does not hold: the URL, and the line `aasa test` prints after FAIL.
    struct MatrixFailure {
        var url: String
        var text: String
    }

    /// Checks `expectations` against `document`, on `domain` or else each URL's own host (also
    /// for `aasa check --matrix`).
    static func evaluate(
        _ expectations: [Expectation], document: AASADocument, domain: String?, engineName: String, configuration: Configuration
    ) -> Result<[MatrixFailure], ExitCode> {
        var failures: [MatrixFailure] = []
        return evaluate(
            expectations, document: document, domain: domain, engineName: engineName, configuration: configuration,
            onFailure: { failures.append($0) }
        ).map { _ in failures }
    }

    /// As `evaluate(_:document:domain:engineName:configuration:)`, each failure handed to
    /// `onFailure` as it is found: the number of failures. `limitHint`: a URL over the work
    /// limit is reported with how to raise it (the command takes `--limit`).
    static func evaluate(
        _ expectations: [Expectation], document: AASADocument, domain: String?, engineName: String, configuration: Configuration,
        limitHint: Bool = false, onFailure: (MatrixFailure) -> Void
    ) -> Result<Int, ExitCode> {
        // One engine for every URL, made when a URL first needs it: only the host check depends
        // on the domain, and without one each URL is decided on its own host. An engine per
        // distinct host, each compiled and kept, took 2.9 GB for 80 000 hosts.
        var engine: (any DecisionEngine)?
        let host: ServingHost = domain == nil ? .urlHost : .domain
        let named = Set(document.appIDs.map(ExactString.init))
        var failed = 0
        func fail(_ failure: MatrixFailure) {
            failed += 1
            onFailure(failure)
        }
        for expectation in expectations {
            let shown = shownURL(expectation.url)
            if expectation.url.utf8.count > configuration.input.maxURLBytes {
                fail(MatrixFailure(url: expectation.url, text: "\(shown): \(URLSplitError.tooLong(length: expectation.url.utf8.count, limit: configuration.input.maxURLBytes))"))
                continue
            }
            let split: SplitURL
            do {
                split = try URLSplitter.split(expectation.url)
            } catch {
                fail(MatrixFailure(url: expectation.url, text: "\(shown): cannot be split: \(error)"))
                continue
            }
            let who = expectation.app.map { " for \(VisibleText.excerpt($0, limit: 100))" } ?? ""
            let wanted = expectation.opensApp ? "should open the app" : "should stay on the web"
            // Checked for no rule: under opens_web it would pass whatever the rules say, so a
            // misspelt app ID would make its whole list pass unchecked.
            if let app = expectation.app, !named.contains(ExactString(app)) {
                fail(MatrixFailure(url: expectation.url, text: "\(shown)\(who) \(wanted): no entry of applinks.details names \(VisibleText.excerpt(app, limit: 100))"))
                continue
            }
            if engine == nil {
                switch CommandSupport.engine(named: engineName, document: document, domain: domain ?? split.domainName, configuration: configuration, command: spec.name) {
                case .success(let made): engine = made
                case .failure(let code): return .failure(code)
                }
            }
            guard let engine else { continue }
            // Whether the URL opens an app first, and the decision values only for a failure.
            let decision: URLDecision
            do {
                guard try engine.opensApp(expectation.url, app: expectation.app, host: host) != expectation.opensApp else { continue }
                decision = try engine.decide(expectation.url, app: expectation.app, host: host)
            } catch .workLimitExceeded(let limit) {
                let hint = limitHint ? " (\(Configuration.Limit.urlWork.hint))" : ""
                fail(MatrixFailure(url: expectation.url, text: "\(shown): cannot be decided: \(URLSplitError.workLimitExceeded(limit: limit))\(hint)"))
                continue
            } catch {
                fail(MatrixFailure(url: expectation.url, text: "\(shown): cannot be split: \(error)"))
                continue
            }
            let deciding = decision.decisions.filter { $0.kind != .noMatch }
            // A failure line names at most `shownDecisions` deciding apps, each abbreviated: an
            // entry of thousands of apps, or of 64 KB app IDs, would otherwise fill every line.
            var reasons = deciding.prefix(shownDecisions).map {
                "\(VisibleText.excerpt($0.app, limit: 100)) \($0.kind.rawValue) by entry \($0.entry ?? -1) rule \($0.rule ?? -1)"
            }
            if deciding.count > shownDecisions { reasons.append("and \(deciding.count - shownDecisions) more apps") }
            let reason: String
            if !reasons.isEmpty {
                reason = reasons.joined(separator: "; ")
            } else if let domain, CommandSupport.asciiLowered(split.host) != CommandSupport.asciiLowered(domain) {
                reason = "its host \(VisibleText.excerpt(split.host, limit: 100)) is not the domain \(VisibleText.excerpt(domain, limit: 100)), so no rule applies"
            } else {
                reason = "no rule matched"
            }
            fail(MatrixFailure(url: expectation.url, text: "\(shown)\(who) \(wanted): \(reason)"))
        }
        return .success(failed)
    }

    /// A matrix URL as a failure line shows it: its first `shownURLCharacters`, then "…" and its
    /// length, so that a 64 KB URL over the work limit is named rather than printed.
    static func shownURL(_ url: String) -> String {
        VisibleText.cut(url, limit: shownURLCharacters)
    }

    /// The most characters of a URL a failure line shows.
    static let shownURLCharacters = 200

    /// The most deciding apps one failure line names.
    static let shownDecisions = 10

    /// The largest matrix read: a million URLs of typical length.
    static let maxMatrixBytes = 64 << 20
    /// The most URLs a matrix may list (a 64 MiB matrix of empty strings has 22 million).
    static let maxMatrixURLs = 1 << 20

    /// The expectations of the matrix at `path`. A matrix that could check nothing by mistake
    /// (a misspelt key, a URL that is not a string) is refused rather than passed.
    static func loadMatrix(_ path: String) -> Result<[Expectation], MatrixError> {
        let bytes: [UInt8]
        do {
            bytes = try AASADocument.bytes(ofFile: path, maxBytes: maxMatrixBytes)
        } catch .document(.tooLarge) {
            return .failure(MatrixError("it is over \(maxMatrixBytes >> 20) MiB"))
        } catch {
            return .failure(MatrixError("\(error)"))
        }
        // Counted before parsing, whose tree costs about 50 bytes a string: a matrix has at most
        // a URL and an app key per URL it lists, and 64 MiB of `""` is 22 million strings.
        if stringCount(bytes) > 2 * maxMatrixURLs { return .failure(MatrixError("it lists more than \(maxMatrixURLs) URLs")) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return .failure(MatrixError("not JSON: \(error)"))
        }
        guard case .object(let root) = value else { return .failure(MatrixError("not a JSON object")) }
        let keys = ["opens_app", "opens_web"]
        if let unknown = root.members.first(where: { member in !keys.contains { member.key.utf8.elementsEqual($0.utf8) } }) {
            return .failure(MatrixError("unknown key \(JSONWriter.escape(unknown.key)) (a matrix has opens_app and opens_web)"))
        }
        guard keys.contains(where: { root[$0] != nil }) else { return .failure(MatrixError("neither opens_app nor opens_web is given")) }
        // A key written twice: one of its lists would be passed over unchecked. (Under the keyed
        // form an app named twice keeps both lists: nothing is lost.)
        for key in keys where root.members.filter({ $0.key.utf8.elementsEqual(key.utf8) }).count > 1 {
            return .failure(MatrixError("\(key) is given twice (one of its lists would not be checked)"))
        }
        var expectations: [Expectation] = []
        func append(_ urls: [JSONValue], app: String?, opens: Bool, at path: String) -> MatrixError? {
            for (index, url) in urls.enumerated() {
                guard case .string(let text) = url else { return MatrixError("\(path)[\(index)] is not a string") }
                guard expectations.count < maxMatrixURLs else { return MatrixError("it lists more than \(maxMatrixURLs) URLs") }
                expectations.append(Expectation(url: text, app: app, opensApp: opens))
            }
            return nil
        }
        for (key, opens) in [("opens_app", true), ("opens_web", false)] {
            switch root[key] {
            case nil:
                continue
            case .array(let urls)?:
                if let error = append(urls, app: nil, opens: opens, at: key) { return .failure(error) }
            case .object(let byApp)?:
                for member in byApp.members {
                    let path = "\(key).\(VisibleText.escapedLine(member.key))"
                    guard case .array(let urls) = member.value else { return .failure(MatrixError("\(path) is not an array")) }
                    if let error = append(urls, app: member.key, opens: opens, at: path) { return .failure(error) }
                }
            default:
                return .failure(MatrixError("\(key) must be an array or an object keyed by app ID"))
            }
        }
        // Keys and lists that are all empty check nothing; the summary would read "0 passed".
        guard !expectations.isEmpty else { return .failure(MatrixError("it lists no URL, so it would check nothing")) }
        return .success(expectations)
    }

    /// The JSON strings of `bytes` (its unescaped quotes, halved), whatever else it holds.
    static func stringCount(_ bytes: [UInt8]) -> Int {
        var quotes = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 1
            case UInt8(ascii: "\""): quotes += 1
            default: break
            }
            index += 1
        }
        return quotes / 2
    }

    struct MatrixError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
