import AASAKit
import Foundation

/// `aasa match FILE --domain D [--app A] [--engine E] [URL...]`: one JSON record per URL.
enum MatchCommand {
    static let spec = CommandSpec(
        name: "match",
        abstract: "Decide, for each URL, which apps of one AASA file it opens.",
        usage: "aasa match <file> --domain <domain> [--app <app-id>] [--engine dfa|reference] [--blank-lines skip|record] [<url> ...]",
        options: [
            .init(name: "domain", valueName: "domain", help: "The host that serves the file (required)."),
            .init(name: "app", valueName: "app-id", help: "Decide for this app only."),
            .init(name: "engine", valueName: "engine", help: "dfa (the compiled engine, default) or reference (the oracle)."),
            .init(name: "blank-lines", valueName: "skip|record", help: "A blank input line or empty argument: skip (default) or an \"empty line\" error record, so output row n is input n."),
        ] + CommandSupport.configurationOptions,
        flags: [.init(name: "strict", help: "Exit 1 when some records are errors (default: error records are data, exit 0).")],
        discussion: """
            URLs come from the arguments, or one per line on standard input when none are given
            (a leading UTF-8 byte order mark, LF or CRLF and surrounding spaces and tabs
            removed; blank lines skipped, or given an "empty line" error record with
            --blank-lines record). An argument is read as such a line: '' or ' ' is skipped
            too unless --blank-lines record. Compressed input (gzip, bzip2, zstd, xz) is refused with the command
            that decompresses it, status 5, as by classify.
            Each URL gives one line of JSON, keys in this order:
              {"url": …, "apps": [apps whose decision is match], "decisions": [{"app": …,
               "decision": "match"|"exclude"|"no_match", "entry": i, "rule": j}, …]}
            "entry" and "rule" (the deciding rule, in the document's own numbering) appear for
            match and exclude. A URL that cannot be split gives {"url": …, "error": …}.

            EXIT STATUS: 0 every URL got its record, error records included; 1 with --strict,
            some records are errors; 2 usage error; 3 the document cannot be read; 5 standard
            input cannot be read or the output cannot be written (a closed pipe, as with
            | head, is not an error: status 0).
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard let file = parsed.positionals.first else { return CommandSupport.usageError(spec, "missing <file>") }
        guard let given = parsed.value("domain") else { return CommandSupport.usageError(spec, "missing --domain") }
        let domain: String
        switch CommandSupport.documentDomain(given, command: spec.name) {
        case .success(let host): domain = host
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        let engineName = parsed.value("engine") ?? "dfa"
        guard CommandSupport.engineNames.contains(engineName) else {
            return CommandSupport.usageError(spec, "unknown engine '\(engineName)' (choose \(CommandSupport.engineNames.joined(separator: ", ")))")
        }
        if parsed.positionals.count == 1, ReadFiles.same(path: file, as: STDIN_FILENO) {
            return CommandSupport.usageError(spec, "\(VisibleText.escapedLine(file)) is standard input, which the URLs are read from; give the document as a file, or the URLs as arguments")
        }
        let document: AASADocument
        switch CommandSupport.loadDocument(file, command: spec.name, configuration: configuration) {
        case .success(let value): document = value
        case .failure(let code): return code
        }
        let engine: any DecisionEngine
        switch CommandSupport.engine(named: engineName, document: document, domain: domain, configuration: configuration, command: spec.name) {
        case .success(let value): engine = value
        case .failure(let code): return code
        }
        let blankLines = parsed.value("blank-lines") ?? "skip"
        guard ["skip", "record"].contains(blankLines) else {
            return CommandSupport.usageError(spec, "--blank-lines must be skip or record")
        }
        let app = parsed.value("app")
        // Every record would say no_match for it, as if the URLs stayed on the web by rule: a
        // misspelt app ID is said once, as explain says it (the records stay what SPEC makes them).
        if let app, !document.appIDs.contains(app) {
            printError("aasa match: warning: no entry of applinks.details names \(VisibleText.escaped(app)), so it is no_match for every URL")
        }
        let output = OutputStream(fileDescriptor: STDOUT_FILENO)
        var errors = 0

        func emit(_ url: String) throws(OutputStream.WriteFailure) {
            try output.append { buffer in
                if url.utf8.count > configuration.input.maxURLBytes {
                    let error = URLSplitError.tooLong(length: url.utf8.count, limit: configuration.input.maxURLBytes)
                    RecordWriter.appendError(url: url, error: error.description, to: &buffer)
                    errors += 1
                    return
                }
                do throws(URLSplitError) {
                    RecordWriter.appendMatch(url: url, decision: try engine.decide(url, app: app), to: &buffer)
                } catch {
                    RecordWriter.appendError(url: url, error: error.description, to: &buffer)
                    errors += 1
                }
            }
        }

        do {
            let urls = Array(parsed.positionals.dropFirst())
            if !urls.isEmpty {
                // Each argument is a line, judged as the lines of standard input are (SPEC 14):
                // blank ones give no record unless asked, and bytes that are not UTF-8 an error
                // record rather than a decision on the replacement characters shown for them.
                for url in urls {
                    let trimmed = CommandSupport.urlArgument(url)
                    if trimmed.isEmpty {
                        guard blankLines == "record" else { continue }
                        errors += 1
                        try output.append { RecordWriter.appendError(url: "", error: Classifier.emptyLineMessage, to: &$0) }
                    } else if trimmed.utf8.count > configuration.input.maxLineBytes {
                        errors += 1
                        let error = URLSplitError.lineTooLong(length: trimmed.utf8.count, limit: configuration.input.maxLineBytes)
                        try output.append { RecordWriter.appendError(url: VisibleText.overlongLine(trimmed, maxLineBytes: configuration.input.maxLineBytes), error: error.description, to: &$0) }
                    } else if CommandSupport.notUTF8Arguments.contains(url) {
                        errors += 1
                        try output.append { RecordWriter.appendError(url: trimmed, error: URLSplitError.invalidUTF8.description, to: &$0) }
                    } else {
                        try emit(trimmed)
                    }
                }
            } else {
                // classify's reader: the same byte order mark, compression and blank-line rules.
                var reader = RawBatchReader(fileDescriptor: STDIN_FILENO, maxLineBytes: configuration.input.maxLineBytes)
                if case .compressed(let name, let command) = try reader.examineStart() {
                    printError("aasa match: the input is \(name)-compressed; decompress it first: \(command) FILE | aasa match ...")
                    return .inputOutput
                }
                while let batch = try reader.next() {
                    try batch.forEachLine(maxLineBytes: configuration.input.maxLineBytes) { line in
                        switch line {
                        case .url(let bytes):
                            try emit(String(decoding: bytes, as: UTF8.self))
                        case .invalid(let text, let error):
                            errors += 1
                            try output.append { RecordWriter.appendError(url: text, error: error, to: &$0) }
                        case .blank:
                            guard blankLines == "record" else { return }
                            errors += 1
                            try output.append { RecordWriter.appendError(url: "", error: Classifier.emptyLineMessage, to: &$0) }
                        }
                    }
                }
            }
            try output.flush()
        } catch OutputStream.WriteFailure.closed {
            return .success
        } catch OutputStream.WriteFailure.failed(let code) {
            printError("aasa match: cannot write the output: \(CommandSupport.reason(code)); the output is incomplete")
            return .inputOutput
        } catch {
            // What was read before the failure was written; flushing it is all that is left.
            try? output.flush()
            // "Incomplete" only when some record was written: a directory as input fails first.
            printError("aasa match: cannot read the input: \(error)\(output.bytesGiven > 0 ? "; the output is incomplete" : "")")
            return .inputOutput
        }
        if parsed.has("strict"), errors > 0 {
            printError("aasa match: \(counted(errors, "record")) \(errors == 1 ? "is an error" : "are errors") (--strict)")
            return .failure
        }
        return .success
    }
}
