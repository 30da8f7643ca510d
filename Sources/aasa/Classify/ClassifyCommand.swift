import AASAKit
import Foundation

/// `aasa classify --rules PATH …`: stream URLs across many domains, one record per URL, in order.
enum ClassifyCommand {
    static let spec = CommandSpec(
        name: "classify",
        abstract: "Classify a stream of URLs against the AASA files of many domains.",
        usage:
            "aasa classify (--rules <file|dir> [--domain <host>] | --compiled <file>) [--input <file|->] [-o <file>] [--format ndjson|tsv|csv] [--jobs <n>] [--strict] [--quiet] [--stats <file>]",
        options: [
            .init(name: "rules", valueName: "file|dir", help: "One AASA file (with --domain), or a directory of documents named after their domains."),
            .init(name: "compiled", valueName: "file", help: "A compiled artifact from 'aasa compile', instead of --rules."),
            .init(name: "domain", valueName: "host", help: "The host that serves a single --rules file (a host name, not a URL)."),
            .init(name: "input", valueName: "file|-", help: "Input (default: standard input)."),
            .init(name: "output", valueName: "file", help: "Write the records to this file (also -o; default: standard output)."),
            .init(name: "format", valueName: "ndjson|tsv|csv", help: "Output format (default ndjson)."),
            .init(name: "input-format", valueName: "lines|ndjson|csv", help: "Input format (default lines: one URL per line; ndjson and csv: one record per line, no line breaks inside quotes)."),
            .init(name: "url-field", valueName: "name", help: "With --input-format ndjson: the URL's field (default url)."),
            .init(name: "url-column", valueName: "n|name", help: "With --input-format csv: the URL's column, 1-based or by header name (default url)."),
            .init(name: "blank-lines", valueName: "skip|record", help: "skip (default): no record; record: an \"empty line\" error record, so output row n is input line n."),
            .init(name: "jobs", valueName: "n", help: "Worker threads (default: all cores). Output order is input order."),
            .init(name: "engine", valueName: "dfa|reference", help: "dfa (default) or reference."),
            .init(name: "summary", valueName: "text|json|none", help: "The end-of-run summary on stderr (default text; none with --quiet)."),
            .init(name: "stats", valueName: "file", help: "Also write the summary as JSON to this file, replaced whole at the end (also when the run stops early; a run refused before it starts, or killed by a signal, writes none)."),
        ] + CommandSupport.configurationOptions,
        flags: [
            .init(name: "strict", help: "Exit 1 when some records are errors (default: error records are data, exit 0)."),
            .init(name: "quiet", help: "No progress line and no summary on stderr (unless --summary asks for one)."),
            .init(name: "no-header", help: "With --format tsv or csv: no header row (e.g. one output per Spark partition)."),
        ],
        discussion: """
            Rules directory layout: DOMAIN.json, DOMAIN/apple-app-site-association or
            DOMAIN/.well-known/apple-app-site-association (the last wins); hidden files are
            skipped; a document that cannot be loaded (also: anything but a regular file, or a
            broken symbolic link, where a document belongs) is reported when its domain is first
            met (documents are read and compiled on first use), listed in the summary and --stats,
            and its URLs get error records. Each non-blank input line gives exactly one record, in input order,
            whatever --jobs is (every line with --blank-lines record). A leading UTF-8 byte order
            mark is dropped; compressed input (gzip, bzip2, zstd, xz) is refused with the command that
            decompresses it. NDJSON records are the `aasa match` record with "domain" after
            "url" ("domain": null and no decisions when no document serves the host). TSV/CSV
            have a header (unless --no-header) and the columns url, domain, apps (joined by |;
            an app ID's own | and % are written %7C and %25),
            rules (entry:rule per matched app), error. What the input carries besides the URL
            follows: with --input-format ndjson a "fields" object (the line's other members; a
            fields column in TSV/CSV), with csv the other columns under their header names (a
            name already taken gets .1, .2, ...). A TSV field holding a tab, a quote or a
            line break (a URL read from NDJSON or CSV input may) is quoted as CSV quotes it,
            which pandas and Python's csv read back. A summary goes to stderr (and a progress
            line on a terminal). Every file named on the command line is checked before the run:
            an output that is the input, the artifact, the rules or a document in them (by any
            name: a link, a hard link, /dev/stdin) is refused, as is standard output appending
            to the input, and an existing output keeps its contents until the run begins.

            EXIT STATUS: 0 every input line got its record, error records included; 1 with
            --strict, some records are errors; 2 usage error; 3 the rules or the artifact cannot
            be read; 5 the input cannot be read or an output cannot be written (the reason is on
            stderr). A standard output closed by its reader (| head) ends the run quietly with status 0, and
            --stats is still written ("complete": false). Output is written in whole records,
            so a run killed midway leaves a prefix of the full output: whole records in input
            order, and at most one cut record at the end.
            """)

    enum SummaryMode: String {
        case text, json, none
    }

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        // `-o` is the conventional short form.
        switch CommandSupport.parse(spec, ArraySlice(arguments.map { $0 == "-o" ? "--output" : $0 })) {
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
            let engineName = VisibleText.escapedLine(parsed.value("engine") ?? "")
            return CommandSupport.usageError(spec, "unknown engine '\(engineName)' (choose \(CommandSupport.engineNames.joined(separator: ", ")))")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard let jobs = parsed.value("jobs").map({ Int($0) }) ?? cores, jobs >= 1, jobs <= 256 else {
            return CommandSupport.usageError(spec, "--jobs needs a whole number from 1 to 256")
        }
        let blankLines = parsed.value("blank-lines") ?? "skip"
        guard ["skip", "record"].contains(blankLines) else {
            return CommandSupport.usageError(spec, "--blank-lines must be skip or record")
        }
        let quiet = parsed.has("quiet")
        guard let summaryMode = SummaryMode(rawValue: parsed.value("summary") ?? (quiet ? "none" : "text")) else {
            return CommandSupport.usageError(spec, "--summary must be text, json or none")
        }
        let domain: String?
        if let given = parsed.value("domain") {
            switch CommandSupport.documentDomain(given, command: spec.name) {
            case .success(let host): domain = host
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
        } else {
            domain = nil
        }
        let rulesPath = parsed.value("rules")
        let artifactPath = parsed.value("compiled")
        if artifactPath != nil {
            guard rulesPath == nil else { return CommandSupport.usageError(spec, "give --rules or --compiled, not both") }
            guard engine == .dfa else { return CommandSupport.usageError(spec, "--compiled holds automata: it needs --engine dfa") }
        } else {
            guard let rulesPath else { return CommandSupport.usageError(spec, "missing --rules (or --compiled)") }
            if CommandSupport.isCompiledArtifact(rulesPath) {
                return CommandSupport.usageError(spec, "\(rulesPath) is a compiled artifact, not AASA documents: use --compiled \(rulesPath)")
            }
        }
        // Options that would otherwise be ignored without a word, leaving the user to wonder why
        // every URL got "no document" or why the URL column was not the one named.
        if domain != nil {
            var info = stat()
            if artifactPath != nil {
                return CommandSupport.usageError(spec, "--domain names a single --rules file's domain; an artifact names its own")
            } else if let rulesPath, stat(rulesPath, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                return CommandSupport.usageError(spec, "--domain names a single --rules file's domain; a directory's documents are named by their files")
            }
        }
        if parsed.value("url-field") != nil, inputFormat != .ndjson {
            return CommandSupport.usageError(spec, "--url-field needs --input-format ndjson")
        }
        if parsed.has("no-header"), format == .ndjson {
            return CommandSupport.usageError(spec, "--no-header needs --format tsv or csv (NDJSON has no header)")
        }
        if parsed.value("url-column") != nil, inputFormat != .csv {
            return CommandSupport.usageError(spec, "--url-column needs --input-format csv")
        }
        if parsed.value("stats") == "-" {
            return CommandSupport.usageError(spec, "--stats needs a file name: standard output carries the records")
        }

        // Every file named on the command line is checked before the work starts: a typo in
        // --stats must not cost a whole run.
        let inputPath = parsed.value("input") ?? "-"
        let input: Int32
        if inputPath == "-" {
            input = STDIN_FILENO
        } else {
            input = open(inputPath, O_RDONLY | O_CLOEXEC)
            var info = stat()
            let problem = input < 0 ? errno : fstat(input, &info) != 0 ? errno : info.st_mode & S_IFMT == S_IFDIR ? EISDIR : 0
            if problem != 0 {
                if input >= 0 { close(input) }
                printError("aasa classify: cannot read the input \(VisibleText.escapedLine(inputPath)): \(CommandSupport.reason(problem))")
                return .inputOutput
            }
        }
        defer { if input != STDIN_FILENO { close(input) } }
        // What the run reads, so that an output naming one of them is refused before it is
        // truncated: `-o in.txt --input in.txt` would otherwise destroy the input and exit 0.
        // (An artifact is mapped: one on a pipe is refused as not a regular file.)
        if let rulesPath, ReadFiles.same(path: rulesPath, as: input) {
            return CommandSupport.usageError(
                spec, "--rules \(VisibleText.escapedLine(rulesPath)) is the input the URLs are read from; give the rules and the URLs as two files")
        }
        var readFiles = ReadFiles()
        readFiles.add(descriptor: input, as: "the input")
        if let artifactPath { readFiles.add(path: artifactPath, as: "the compiled artifact") }
        if let rulesPath { readFiles.add(path: rulesPath, as: "the rules") }
        var sideFiles: [OutputFile] = []
        func openOutput(_ path: String) -> OutputFile? {
            if let clash = readFiles.clash(path) {
                _ = CommandSupport.usageError(spec, "\(path) is \(clash); refusing to write over it")
                return nil
            }
            switch OutputFile.open(path) {
            case .success(let file):
                sideFiles.append(file)
                return file
            case .failure(let error):
                printError("aasa classify: \(error)")
                return nil
            }
        }
        var statsFile: SummaryFile?
        /// Before any record is written: files this run created go again.
        func refused(_ code: ExitCode) -> ExitCode {
            for file in sideFiles { file.discard() }
            statsFile?.discard()
            return code
        }
        let outputPath = parsed.value("output").flatMap { $0 == "-" ? nil : $0 }
        var outputFile: OutputFile?
        if let outputPath {
            guard let file = openOutput(outputPath) else { return refused(readFiles.refusal ?? .inputOutput) }
            outputFile = file
            readFiles.add(descriptor: file.fileDescriptor, as: "the output (-o)")
        } else {
            // Standard output appending to a file the run reads (`< urls.txt >> urls.txt`): the
            // run read its own records back as input without end (4 GB in 10 s).
            if let clash = readFiles.clash(descriptor: STDOUT_FILENO) {
                return refused(CommandSupport.usageError(spec, "standard output is \(clash); refusing to write into it"))
            }
            // Standard output redirected to a file (`> out.ndjson --stats out.ndjson`): the
            // stats would be written over the records' start.
            readFiles.add(descriptor: STDOUT_FILENO, as: "standard output")
        }
        if let statsPath = parsed.value("stats") {
            if let clash = readFiles.clash(statsPath) {
                return refused(CommandSupport.usageError(spec, "\(statsPath) is \(clash); refusing to write over it"))
            }
            switch SummaryFile.open(statsPath) {
            case .success(let file): statsFile = file
            case .failure(let error):
                printError("aasa classify: \(error)")
                return refused(.inputOutput)
            }
        }
        defer {
            for file in sideFiles { file.close() }
            statsFile?.discard()
        }

        // Rules: a compiled artifact, or a rules directory; either way each domain is decoded or
        // compiled when a URL of its host first arrives.
        let rules: ClassifierRules
        if let artifactPath {
            do {
                rules = ClassifierRules(artifact: try CompiledArtifact.open(path: artifactPath, configuration: configuration)) {
                    domain, reason in printError(VisibleText.escapedLine("aasa classify: cannot use the document of \(domain): \(reason)"))
                }
            } catch {
                let hint = error == .notAnArtifact ? " (AASA documents go to --rules)" : ""
                printError("aasa classify: cannot load \(artifactPath): \(error)\(hint)")
                return refused(.unreadableDocument)
            }
        } else {
            switch RulesLoader.load(rulesPath ?? "", domain: domain, engine: engine, configuration: configuration, command: "classify", threads: jobs, lazy: true) {
            case .success(let loaded): rules = loaded
            case .failure(let code):
                return refused(code == .usage ? CommandSupport.usageError(spec, "a single --rules file needs --domain (or give a directory of documents)") : code)
            }
        }

        UntilExit.keep(rules)

        // Before the first read: a slow producer is exactly when the line must move.
        let progress = !quiet && isatty(STDERR_FILENO) != 0 ? Progress() : nil
        progress?.begin()
        defer { progress?.end() }

        // Input.
        var reader = RawBatchReader(fileDescriptor: input, maxLineBytes: configuration.input.maxLineBytes)
        do throws(InputReadError) {
            if case .compressed(let name, let command) = try reader.examineStart() {
                let source = inputPath == "-" ? "FILE" : inputPath
                printError(
                    "aasa classify: the input is \(name)-compressed; decompress it first: \(command) \(source) | aasa classify ...")
                return refused(.inputOutput)
            }
        } catch {
            printError("aasa classify: cannot read the input: \(error)")
            return refused(.inputOutput)
        }

        var parser = InputRecordParser(
            format: inputFormat, urlField: parsed.value("url-field") ?? "url", maxJSONDepth: configuration.document.maxJSONDepth,
            outputFormat: format)
        let output = OutputStream(fileDescriptor: outputFile?.fileDescriptor ?? STDOUT_FILENO, flushThreshold: 1 << 18)
        let started = Date()
        // The stats file is written however the run ends once it has begun, so that a job
        // stopped by `| head` still leaves its counts; "complete" says whether they cover the
        // whole input. False when the file cannot be written (the message is printed).
        func writeStats(_ summary: Summary) -> Bool {
            guard let error = statsFile?.write(Array(summary.json.utf8)) else { return true }
            printError("aasa classify: \(error)")
            return false
        }
        func stoppedBeforeTheRecords(_ code: ExitCode) -> ExitCode {
            var summary = Summary(rules: rules, statistics: ClassifyStatistics(rules: rules), elapsed: Date().timeIntervalSince(started), jobs: jobs)
            summary.complete = false
            if !writeStats(summary), code == .success { return .inputOutput }
            return code
        }

        var firstBatch: LineBatch?
        var extraColumnNames: [String] = []
        do {
            firstBatch = try reader.next()
            // Blank lines before the header row are skipped, as blank lines are anywhere (SPEC
            // 14). With --blank-lines record each would owe a record, and a row before the
            // header has no columns: the header must then be the first line (refused below).
            if inputFormat == .csv, blankLines == "skip" {
                while var batch = firstBatch, batch.preassembled == nil, let end = Self.leadingBlankLine(batch.raw) {
                    batch.raw.removeSubrange(..<end)
                    firstBatch = batch.raw.isEmpty ? try reader.next() : batch
                }
            }
            // An empty input (an empty Spark partition) has no header row and needs none.
            if inputFormat == .csv, firstBatch != nil {
                // The header row names the columns; it is the first line of the first batch. A
                // header longer than a line may be (assembled apart, or cut here) is refused.
                func headerTooLong() -> ExitCode {
                    printError("aasa classify: the CSV header row is over the line-bytes limit (\(Configuration.Limit.lineBytes.hint))")
                    return refused(.usage)
                }
                if firstBatch?.preassembled != nil { return headerTooLong() }
                guard var batch = firstBatch, batch.preassembled == nil,
                    let newline = batch.raw.firstIndex(of: UInt8(ascii: "\n")) ?? (batch.raw.isEmpty ? nil : batch.raw.count)
                else {
                    printError("aasa classify: the CSV input has no header row")
                    return refused(.usage)
                }
                var headerLine = Array(batch.raw[..<newline])
                if headerLine.last == UInt8(ascii: "\r") { headerLine.removeLast() }
                guard headerLine.count <= configuration.input.maxLineBytes else { return headerTooLong() }
                batch.raw.removeSubrange(..<min(newline + 1, batch.raw.count))
                firstBatch = batch
                guard let header = headerLine.withUnsafeBufferPointer({ InputRecordParser.csvFields($0) }) else {
                    printError("aasa classify: the CSV header row has an unterminated quote (a CSV record is one line)")
                    return refused(.usage)
                }
                if Self.leadingBlankLine(headerLine) != nil {
                    printError("aasa classify: the CSV header row is blank (with --blank-lines record it must be the first line)")
                    return refused(.usage)
                }
                let names = header.map { InputRecordParser.trimmed(String(decoding: $0, as: UTF8.self)) }
                let wanted = parsed.value("url-column") ?? "url"
                if let number = Int(wanted) {
                    guard number >= 1, number <= names.count else {
                        return refused(CommandSupport.usageError(spec, "--url-column \(number) is not a column of the header (\(names.count) columns)"))
                    }
                    parser.urlColumn = number - 1
                } else if let index = names.firstIndex(of: wanted) ?? InputRecordParser.uniqueNames(names, besides: []).firstIndex(of: wanted) {
                    // A repeated name's later column by the name it is written under (`a.1`).
                    parser.urlColumn = index
                } else {
                    return refused(CommandSupport.usageError(spec, "--url-column '\(VisibleText.excerpt(wanted))' is not in the header: \(VisibleText.excerpt(names.joined(separator: ", "), limit: 300))"))
                }
                // Each name once: a repeated input name, or one of the record's own columns in
                // a TSV/CSV output, would make two columns (or two JSON keys) of one name. A
                // repeat is named as `--url-column` names it (`url.1`), the URL's column among
                // the header's names.
                let others = InputRecordParser.uniqueNames(names, besides: []).enumerated()
                    .filter { $0.offset != parser.urlColumn }.map(\.element)
                parser.otherColumnNames = InputRecordParser.uniqueNames(others, besides: format == .ndjson ? [] : RecordFormat.columns)
                extraColumnNames = format == .ndjson ? [] : parser.otherColumnNames
            } else if inputFormat == .ndjson {
                extraColumnNames = format == .ndjson ? [] : ["fields"]
            }
            // The run begins: nothing refuses it past here, so the output's old contents go.
            if let outputFile, let code = outputFile.truncate() {
                printError("aasa classify: \(OutputFileError(path: outputFile.path, code: code))")
                return refused(.inputOutput)
            }
            if !parsed.has("no-header") {
                try output.append { $0.append(contentsOf: format.header(extraColumns: extraColumnNames)) }
            }
            // Now, not with the first records: the pipeline's writer only flushes what the
            // workers produce, so an empty input would otherwise lose its TSV/CSV header.
            try output.flush()
        } catch let failure as OutputStream.WriteFailure {
            switch failure {
            case .closed: return stoppedBeforeTheRecords(.success)
            case .failed(let code): return stoppedBeforeTheRecords(writeFailed(code, outputPath))
            }
        } catch {
            printError("aasa classify: cannot read the input: \(error)")
            return stoppedBeforeTheRecords(.inputOutput)
        }

        var processor = BatchProcessor(parser: parser, limits: configuration.input)
        processor.recordBlankLines = blankLines == "record"
        let pipeline = Pipeline(
            reader: reader, firstBatch: firstBatch, rules: rules, format: format, processor: processor, jobs: jobs, output: output,
            progress: progress)
        let outcome = pipeline.run()
        progress?.end()
        let statistics = outcome.statistics
        let stoppedEarly = outcome.outputClosed || outcome.writeError != nil || outcome.readError != nil
        var summary = Summary(rules: rules, statistics: statistics, elapsed: Date().timeIntervalSince(started), jobs: jobs)
        summary.complete = !stoppedEarly

        let statsFailed = !writeStats(summary)
        if let code = outcome.writeError { return writeFailed(code, outputPath) }
        // A closed output ends the run quietly: the reader went away on purpose.
        if outcome.outputClosed { return statsFailed ? .inputOutput : .success }
        switch summaryMode {
        case .text: printError(summary.text)
        case .json: printError(summary.json)
        case .none: break
        }
        if let readError = outcome.readError {
            printError("aasa classify: cannot read the input: \(readError); the output is incomplete")
            return .inputOutput
        }
        if statsFailed { return .inputOutput }
        if parsed.has("strict"), statistics.errors > 0 {
            printError("aasa classify: \(counted(statistics.errors, "record")) \(statistics.errors == 1 ? "is an error" : "are errors") (--strict)")
            return .failure
        }
        return .success
    }

    /// Where the first line of `raw` ends (past its LF) when it is blank as SPEC 14 reads a
    /// line (spaces and tabs, a CR only right before the LF); nil when it holds anything else.
    static func leadingBlankLine(_ raw: [UInt8]) -> Int? {
        let newline = raw.firstIndex(of: UInt8(ascii: "\n"))
        var end = newline ?? raw.count
        if newline != nil, end > 0, raw[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard raw[..<end].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { return nil }
        return newline.map { $0 + 1 } ?? raw.count
    }

    /// A failed write (a full disk, `/dev/full`, an I/O error) ends the run at once: the records
    /// after it could not be delivered either, and the exit status must not claim they were.
    private static func writeFailed(_ code: Int32, _ path: String?) -> ExitCode {
        printError("aasa classify: cannot write \(path ?? "the output"): \(CommandSupport.reason(code)); the output is incomplete")
        return .inputOutput
    }
}
