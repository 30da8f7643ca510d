import AASAKit
import Foundation

/// `aasa lint FILE... [--domain D] [--format text|json|sarif|github]`: what is wrong with AASA
/// files, with stable codes, JSON paths, fix hints and, for claims about URLs, witness URLs.
enum LintCommand {
    static let spec = CommandSpec(
        name: "lint",
        abstract: "Report what is wrong or suspicious in AASA files, with codes, JSON paths and fix hints.",
        usage: "aasa lint <file> ... [--domain <domain>] [--format text|json|sarif|github]",
        options: [
            .init(name: "domain", valueName: "domain", help: "The host in witness URLs (default example.com)."),
            .init(name: "format", valueName: "format", help: "text (default), json, sarif or github."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            Each finding has a stable code, a severity (error: the file does not do what it
            says; warning: probably a mistake; note: worth knowing), the JSON path of the piece
            it is about, a message, usually a fix hint, and for claims about URLs a witness URL
            https://<domain>/... that shows it. Files are reported in the order given, findings
            in the order their paths appear in the file.

            FORMATS:
              text    FILE: severity [code] path: message (hint), a witness line, a summary line
              json    one object per line: {"file", "code", "severity", "path", "line"?,
                      "message", "hint"?, "witness"?}
              sarif   one SARIF 2.1.0 log (tool driver "aasa", one rule per code used)
              github  GitHub Actions commands: ::error file=FILE,line=N,title=CODE::path: message

            A file that is not JSON, whose root is not an object, or that is over the size
            or another document limit is a finding (invalid-json, root-not-object, too-large,
            over-limit), not a read error. A file over the size limit is not read past it.

            EXIT STATUS: 0 no finding of severity error (warnings and notes allowed); 1 some
            finding is an error; 2 usage error; 3 a file cannot be read at all (missing, a
            directory, no permission), which wins over 1; the other files are still linted;
            5 the output cannot be written.
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, arguments) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard !parsed.positionals.isEmpty else { return CommandSupport.usageError(spec, "missing <file>") }
        let formatName = parsed.value("format") ?? LintFormat.text.rawValue
        guard let format = LintFormat(rawValue: formatName) else {
            let names = LintFormat.allCases.map(\.rawValue).joined(separator: ", ")
            return CommandSupport.usageError(spec, "unknown format '\(formatName)' (choose \(names))")
        }
        let domain: String
        switch CommandSupport.witnessDomain(parsed) {
        case .success(let value): domain = value
        case .failure(let error): return CommandSupport.usageError(spec, error.message)
        }
        let report = LintReport.make(files: parsed.positionals, domain: domain, configuration: configuration)
        for file in report.files {
            // Escaped: a name is any bytes but NUL and `/`, and stderr is a terminal too (a name
            // holding ESC [2J or a line break could clear it or print a line of its own).
            if let reason = file.unreadable { printError("aasa lint: cannot read \(VisibleText.escapedLine(file.name)): \(reason)") }
        }
        let output = OutputStream(fileDescriptor: STDOUT_FILENO)
        do {
            try output.write(format.render(report))
            try output.flush()
        } catch OutputStream.WriteFailure.closed {
            // The reader went away (`| head`): the exit status still tells the outcome.
        } catch {
            printError("aasa lint: \(error)")
            return .inputOutput
        }
        if report.unreadableCount > 0 { return .unreadableDocument }
        return report.count(.error) > 0 ? .failure : .success
    }
}
