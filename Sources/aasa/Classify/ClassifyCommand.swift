import AASAKit
import Foundation

/// `aasa classify --rules PATH …`: stream URLs across many domains, one record per URL, in order.
enum ClassifyCommand {
    static let spec = CommandSpec(
        name: "classify",
        abstract: "Classify a stream of URLs against the AASA files of many domains.",
        usage:
            "aasa classify (--rules <file|dir> [--domain <d>] | --compiled <file>) [--input <file|->] [--format ndjson|tsv|csv] [--jobs <n>] [--engine dfa|reference] [--stats <file>]",
        options: [
            .init(name: "rules", valueName: "file|dir", help: "One AASA file (with --domain), or a directory of documents named after their domains."),
            .init(name: "compiled", valueName: "file", help: "A compiled artifact from 'aasa compile', instead of --rules."),
            .init(name: "domain", valueName: "domain", help: "The domain of a single --rules file."),
            .init(name: "input", valueName: "file|-", help: "Input (default: standard input)."),
            .init(name: "format", valueName: "ndjson|tsv|csv", help: "Output format (default ndjson)."),
            .init(name: "input-format", valueName: "lines|ndjson|csv", help: "Input format (default lines: one URL per line)."),
            .init(name: "url-field", valueName: "name", help: "With --input-format ndjson: the URL's field (default url)."),
            .init(name: "url-column", valueName: "n|name", help: "With --input-format csv: the URL's column, 1-based or by header name (default url)."),
            .init(name: "jobs", valueName: "n", help: "Worker threads (default: all cores). Output order is input order."),
            .init(name: "engine", valueName: "dfa|reference", help: "dfa (default) or reference."),
            .init(name: "stats", valueName: "file", help: "Also write the summary as JSON to this file."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            Rules directory layout: DOMAIN.json, DOMAIN/apple-app-site-association or
            DOMAIN/.well-known/apple-app-site-association (the last wins); hidden files are
            skipped; a document that cannot be loaded (also: anything but a regular file, or
            a broken symbolic link, where a document belongs) is reported at start and its
            URLs get error records. Each input line gives exactly one record, in input order, whatever
            --jobs is. NDJSON records are the `aasa match` record with "domain" after "url"
            ("domain": null and no decisions when no document serves the host). TSV/CSV have
            a header and the columns url, domain, apps (joined by |), rules (entry:rule per
            matched app), error. A summary goes to stderr (and a progress line on a terminal).

            EXIT STATUS: 0 every record written and none is an error; 1 some records are errors
            (their count is on stderr), or the output could not be written (the reason is on
            stderr); 2 usage error; 3 the rules cannot be loaded. A closed standard output
            (| head) ends the run quietly with status 0. Output is written in whole records, so
            a run killed midway leaves a prefix of the full output: whole records in input
            order, and at most one cut record at the end.
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard parsed.positionals.isEmpty else { return CommandSupport.usageError(spec, "unexpected argument '\(parsed.positionals[0])'") }
        guard let format = RecordFormat(rawValue: parsed.value("format") ?? "ndjson") else {
            return CommandSupport.usageError(spec, "--format must be ndjson, tsv or csv")
        }
        guard let inputFormat = InputFormat(rawValue: parsed.value("input-format") ?? "lines") else {
            return CommandSupport.usageError(spec, "--input-format must be lines, ndjson or csv")
        }
        guard let engine = ClassifierRules.Engine(rawValue: parsed.value("engine") ?? "dfa") else {
            return CommandSupport.usageError(spec, "--engine must be dfa or reference")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard let jobs = parsed.value("jobs").map({ Int($0) }) ?? cores, jobs >= 1, jobs <= 256 else {
            return CommandSupport.usageError(spec, "--jobs needs a whole number from 1 to 256")
        }

        // Rules: a compiled artifact, or documents to load and compile now.
        let rules: ClassifierRules
        if let artifact = parsed.value("compiled") {
            guard parsed.value("rules") == nil else { return CommandSupport.usageError(spec, "give --rules or --compiled, not both") }
            guard engine == .dfa else { return CommandSupport.usageError(spec, "--compiled holds automata: it needs --engine dfa") }
            do {
                rules = ClassifierRules(artifact: try CompiledArtifact.load(path: artifact, configuration: configuration))
            } catch {
                printError("aasa classify: cannot load \(artifact): \(error)")
                return .unreadableDocument
            }
            for failure in rules.failures {
                printError("aasa classify: cannot use the document of \(failure.domain): \(failure.reason)")
            }
        } else {
            guard let rulesPath = parsed.value("rules") else { return CommandSupport.usageError(spec, "missing --rules (or --compiled)") }
            switch RulesLoader.load(rulesPath, domain: parsed.value("domain"), engine: engine, configuration: configuration, command: "classify", threads: jobs) {
            case .success(let loaded): rules = loaded
            case .failure(let code): return code == .usage ? CommandSupport.usageError(spec, "a single --rules file needs --domain") : code
            }
        }

        // Input.
        let inputPath = parsed.value("input") ?? "-"
        let input: Int32 = inputPath == "-" ? STDIN_FILENO : open(inputPath, O_RDONLY)
        guard input >= 0 else {
            printError("aasa classify: cannot open the input \(inputPath): \(String(cString: strerror(errno)))")
            return .usage
        }
        defer { if input != STDIN_FILENO { close(input) } }
        var reader = RawBatchReader(fileDescriptor: input, maxLineBytes: configuration.input.maxLineBytes)

        var parser = InputRecordParser(format: inputFormat, urlField: parsed.value("url-field") ?? "url", outputFormat: format)
        let output = OutputStream(fileDescriptor: STDOUT_FILENO, flushThreshold: 1 << 18)
        let started = Date()
        let progress = isatty(STDERR_FILENO) != 0 ? Progress() : nil

        var firstBatch: LineBatch?
        var extraColumnNames: [String] = []
        do {
            firstBatch = try reader.next()
            if inputFormat == .csv {
                // The header row names the columns; it is the first line of the first batch.
                guard var batch = firstBatch, batch.preassembled == nil,
                    let newline = batch.raw.firstIndex(of: UInt8(ascii: "\n")) ?? (batch.raw.isEmpty ? nil : batch.raw.count)
                else {
                    printError("aasa classify: the CSV input has no header row")
                    return .usage
                }
                var headerLine = Array(batch.raw[..<newline])
                if headerLine.last == UInt8(ascii: "\r") { headerLine.removeLast() }
                batch.raw.removeSubrange(..<min(newline + 1, batch.raw.count))
                firstBatch = batch
                let names = headerLine.withUnsafeBufferPointer { InputRecordParser.csvFields($0) }.map {
                    InputRecordParser.trimmed(String(decoding: $0, as: UTF8.self))
                }
                let wanted = parsed.value("url-column") ?? "url"
                if let number = Int(wanted) {
                    guard number >= 1, number <= names.count else {
                        return CommandSupport.usageError(spec, "--url-column \(number) is not a column of the header (\(names.count) columns)")
                    }
                    parser.urlColumn = number - 1
                } else if let index = names.firstIndex(of: wanted) {
                    parser.urlColumn = index
                } else {
                    return CommandSupport.usageError(spec, "--url-column '\(wanted)' is not in the header: \(names.joined(separator: ", "))")
                }
                parser.otherColumnNames = names.enumerated().filter { $0.offset != parser.urlColumn }.map(\.element)
                extraColumnNames = format == .ndjson ? [] : parser.otherColumnNames
            } else if inputFormat == .ndjson {
                extraColumnNames = format == .ndjson ? [] : ["fields"]
            }
            try output.append { $0.append(contentsOf: format.header(extraColumns: extraColumnNames)) }
            // Now, not with the first records: the pipeline's writer only flushes what the
            // workers produce, so an empty input would otherwise lose its TSV/CSV header.
            try output.flush()
        } catch let failure as OutputStream.WriteFailure {
            switch failure {
            case .closed: return .success
            case .failed(let code): return writeFailed(code)
            }
        } catch {
            printError("aasa classify: cannot read the input: \(error)")
            return .failure
        }

        let processor = BatchProcessor(parser: parser, limits: configuration.input)
        let pipeline = Pipeline(
            reader: reader, firstBatch: firstBatch, rules: rules, format: format, processor: processor, jobs: jobs, output: output,
            progress: progress)
        let outcome = pipeline.run()
        let statistics = outcome.statistics
        let readError = outcome.readError
        if let code = outcome.writeError { return writeFailed(code) }
        let outputClosed = outcome.outputClosed
        progress?.clear()
        if outputClosed { return .success }
        let elapsed = Date().timeIntervalSince(started)
        let summary = Summary(rules: rules, statistics: statistics, elapsed: elapsed, jobs: jobs)
        printError(summary.text)
        if let statsPath = parsed.value("stats") {
            do {
                try Data(summary.json.utf8).write(to: URL(fileURLWithPath: statsPath))
            } catch {
                printError("aasa classify: cannot write --stats \(statsPath): \(error)")
                return .failure
            }
        }
        if let readError {
            printError("aasa classify: reading the input failed: \(readError)")
            return .failure
        }
        if statistics.errors > 0 {
            printError("aasa classify: \(statistics.errors) records are errors")
            return .failure
        }
        return .success
    }

    /// A failed write (a full disk, `/dev/full`, an I/O error) ends the run at once: the records
    /// after it could not be delivered either, and the exit status must not claim they were.
    private static func writeFailed(_ code: Int32) -> ExitCode {
        printError("aasa classify: cannot write the output: \(String(cString: strerror(code))); the output is incomplete")
        return .failure
    }
}
