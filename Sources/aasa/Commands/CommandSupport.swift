import AASAKit
import Foundation

/// Steps every command shares: parsing with help and usage errors, loading a document with the
/// documented exit status, building the chosen engine.
enum CommandSupport {
    /// Parses, with the configuration `--limit` asks for, printing help (exit 0) or a usage
    /// error (exit 2) when that is the outcome.
    static func parse(_ spec: CommandSpec, _ arguments: ArraySlice<String>) -> Result<(ParsedArguments, Configuration), ExitCode> {
        do {
            let parsed = try spec.parse(Array(arguments))
            if parsed.helpRequested { return .failure(printed(spec.helpText)) }
            if let name = notUTF8Option(parsed) { return .failure(usageError(spec, "the value of --\(name) is not UTF-8")) }
            switch configuration(parsed) {
            case .success(let configuration): return .success((parsed, configuration))
            case .failure(let error): return .failure(usageError(spec, error.message))
            }
        } catch {
            printError("aasa \(spec.name): \(error)\nUsage: \(spec.usage)\nSee 'aasa \(spec.name) --help'.")
            return .failure(.usage)
        }
    }

    /// The arguments parsed, for commands without `--limit`: `.failure(.success)` when help was
    /// printed, `.failure(.usage)` after a usage message.
    static func arguments(_ spec: CommandSpec, _ arguments: ArraySlice<String>) -> Result<ParsedArguments, ExitCode> {
        let parsed: ParsedArguments
        do {
            parsed = try spec.parse(Array(arguments))
        } catch {
            return .failure(usageError(spec, error.message))
        }
        if parsed.helpRequested { return .failure(printed(spec.helpText)) }
        if let name = notUTF8Option(parsed) { return .failure(usageError(spec, "the value of --\(name) is not UTF-8")) }
        return .success(parsed)
    }

    /// Writes `text` (help, the version) to standard output: 0, or 5 when it cannot be written
    /// (`> /dev/full`), as for every other output.
    static func printed(_ text: String) -> ExitCode {
        let stream = OutputStream(fileDescriptor: STDOUT_FILENO)
        do throws(OutputStream.WriteFailure) {
            try stream.write(text)
            try stream.flush()
            return .success
        } catch {
            // A reader that went away (`| head`) is not a failure, as for every command.
            if case .closed = error { return .success }
            printError("aasa: \(error)")
            return .inputOutput
        }
    }

    static func usageError(_ spec: CommandSpec, _ message: String) -> ExitCode {
        printError("aasa \(spec.name): \(message)\nUsage: \(spec.usage)\nSee 'aasa \(spec.name) --help'.")
        return .usage
    }

    /// The configuration, with the limits the command line raised or lowered (`--limit`).
    static func configuration(_ parsed: ParsedArguments) -> Result<Configuration, UsageError> {
        var configuration = Configuration()
        for assignment in parsed.values("limit") {
            do {
                try configuration.setLimit(assignment)
            } catch {
                return .failure(UsageError(message: error.message))
            }
        }
        return .success(configuration)
    }

    /// `--limit`, for every command that loads documents or reads URLs; its help lists every
    /// limit with its default, so the names in "raise it with --limit …" messages are found here.
    static let configurationOptions: [CommandSpec.Option] = [
        .init(name: "limit", valueName: "name=n", help: "Raise or lower a limit (repeatable; K, M, G suffixes). See LIMITS.", repeatable: true)
    ]

    /// The LIMITS section of `--help`.
    static var limitsHelp: String {
        let width = (Configuration.Limit.allCases.map(\.rawValue.count).max() ?? 0) + 2
        let rows = Configuration.Limit.allCases.map { limit in
            let name = limit.rawValue + String(repeating: " ", count: width - limit.rawValue.count)
            return "  \(name)\(limit.summary) (default \(Configuration.default[limit]))"
        }
        return "LIMITS (--limit NAME=N; docs/limits.md says what happens past each):\n" + rows.joined(separator: "\n")
    }

    /// Reads and decodes a document, reading no more of the file than the size limit allows;
    /// on failure prints "aasa COMMAND: cannot read FILE: reason" (the system's reason, as `cat`
    /// gives it, or what is wrong in the document) and returns exit status 3. FILE is shown as
    /// `VisibleText.escapedLine` shows it: a file name may hold an escape sequence or a line
    /// break, which the terminal would obey or show as a line of its own.
    static func loadDocument(_ path: String, command: String, configuration: Configuration) -> Result<AASADocument, ExitCode> {
        if isNotUTF8(path) {
            printError("aasa \(command): cannot read \(VisibleText.escapedLine(path)): \(notUTF8Path)")
            return .failure(.unreadableDocument)
        }
        do {
            return .success(try AASADocument(contentsOfFile: path, configuration: configuration))
        } catch {
            printError("aasa \(command): cannot read \(VisibleText.escapedLine(path)): \(error)")
            return .failure(.unreadableDocument)
        }
    }

    /// The longest host name in text form (RFC 1035: 255 bytes on the wire).
    static let maxDomainBytes = 253

    /// The host of the example URLs that lint, diff and cover print (`--domain`, default
    /// `example.com`): a bare host, since a port, user info, path or space would make every
    /// example URL fail the host check (SPEC 3, 4).
    static func witnessDomain(_ parsed: ParsedArguments) -> Result<String, UsageError> {
        let domain = parsed.value("domain") ?? "example.com"
        let forbidden = Set("/:@?#%[] \t\\".unicodeScalars)
        // A bracketed IPv6 literal is a host (docs/semantics.md), as `match` takes it.
        let literal = domain.count > 2 && domain.hasPrefix("[") && domain.hasSuffix("]")
            && DomainName.documentDomainProblem(domain) == nil
        guard literal || !domain.isEmpty && !domain.unicodeScalars.contains(where: { forbidden.contains($0) || $0.value < 0x20 }) else {
            return .failure(UsageError(message: "--domain needs a host name such as example.com"))
        }
        // Every witness URL starts with it: a 120 000-byte name made cover print 456 MB of URLs
        // no matcher would take (they are over url-bytes). A DNS name has at most 253 bytes.
        guard domain.utf8.count <= maxDomainBytes else {
            return .failure(UsageError(message: "--domain is \(domain.utf8.count) bytes; a host name has at most \(maxDomainBytes)"))
        }
        return .success(domain)
    }

    /// `--domain` of a single document: the host that serves it. A URL or a path given there
    /// would be accepted as a host no URL ever has, and every URL would then quietly get
    /// "no document", so it is refused with the host it probably meant.
    static func documentDomain(_ value: String, command: String) -> Result<String, UsageError> {
        switch DomainName.documentDomainProblem(value) {
        case nil:
            // Taken as given (SPEC 3 compares hosts as text), but said: with a final dot or a
            // `*.` label, URLs of the host meant get no_match, and every record says nothing
            // of why.
            if value.hasSuffix(".") {
                printError("aasa \(command): warning: --domain \(VisibleText.excerpt(value)) ends in '.': only URLs whose host ends in '.' are on it (hosts compare as text)")
            } else if value.hasPrefix("*.") {
                printError("aasa \(command): warning: --domain \(VisibleText.excerpt(value)) is matched as text, not as a wildcard: give the host itself")
            }
            return .success(value)
        case .urlOrPath(let host)?:
            let hint = host.map { ": try --domain \(VisibleText.excerpt($0))" } ?? ""
            return .failure(UsageError(message: "--domain takes a host name such as example.com, not a URL or a path\(hint)"))
        case .notAHost(let port)?:
            return .failure(UsageError(message: "--domain takes a host name such as example.com\(port ? " (no port)" : ""), not '\(VisibleText.excerpt(value))'"))
        }
    }

    /// Whether the file at `path` starts with a compiled artifact's magic bytes, so that a
    /// command given an artifact where documents belong can point to `--compiled` instead of
    /// reporting invalid JSON.
    static func isCompiledArtifact(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var head = [UInt8](repeating: 0, count: CompiledArtifact.magic.count)
        // SAFETY: `read` writes at most `raw.count` bytes, the size of `head`.
        let count = head.withUnsafeMutableBytes { raw in raw.baseAddress.map { read(descriptor, $0, raw.count) } ?? -1 }
        return count == head.count && head == CompiledArtifact.magic
    }

    /// A URL given as an argument, read as a line of standard input is (SPEC 14): surrounding
    /// spaces, tabs, CR and LF dropped. `match` and `explain` must decide the same text; `explain`
    /// once kept the blanks and explained another URL than `match` decided.
    static func urlArgument(_ argument: String) -> String {
        argument.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n"))
    }

    /// The command-line arguments that are not valid UTF-8, as `CommandLine.arguments` shows
    /// them (each bad sequence replaced by U+FFFD), so that a command can tell such an argument
    /// from one that holds U+FFFD itself.
    static let notUTF8Arguments: Set<String> = {
        var found: Set<String> = []
        for index in 0..<Int(CommandLine.argc) {
            // SAFETY: `argv` holds `argc` pointers (then a NULL), and `index < argc`.
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            // SAFETY: `argv[index]` is a NUL-terminated C string of `strlen` bytes, alive for
            // the whole process.
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
            if String(validating: bytes, as: UTF8.self) == nil { found.insert(String(decoding: bytes, as: UTF8.self)) }
        }
        return found
    }()

    /// Whether `argument` (or the value inside `--name=value`) came from a command-line argument
    /// that is not UTF-8. Such a file name reaches the command with U+FFFD in place of its
    /// bytes, so opening it would find nothing, or another file; it is named instead.
    static func isNotUTF8(_ argument: String) -> Bool {
        argument.unicodeScalars.contains("\u{FFFD}") && notUTF8Arguments.contains { $0 == argument || $0.hasSuffix("=" + argument) }
    }

    static let notUTF8Path = "the name is not UTF-8 (aasa reads file names as UTF-8; rename it)"

    /// The first option whose value is not UTF-8, checked before any is used as a path.
    static func notUTF8Option(_ parsed: ParsedArguments) -> String? {
        guard !notUTF8Arguments.isEmpty else { return nil }
        return parsed.options.first { $0.value.contains(where: isNotUTF8) }?.key
    }

    /// The reason for `errno`, as a person reads it ("Permission denied").
    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// A host's or domain's bytes with ASCII letters lowered, as the engines compare hosts
    /// (SPEC 3: case-insensitive, and only in ASCII).
    static func asciiLowered(_ host: String) -> [UInt8] { host.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } }

    static let engineNames = ["dfa", "reference"]

    /// Builds the named engine; a document the compiler cannot handle within its limits is
    /// reported (exit 3), never silently matched as "no match".
    static func engine(
        named name: String, document: AASADocument, domain: String, configuration: Configuration, command: String
    ) -> Result<any DecisionEngine, ExitCode> {
        switch name {
        case "reference":
            return .success(ReferenceMatcher(document: document, domain: domain, workLimit: configuration.automata.maxURLWork))
        default:
            do {
                return .success(DFAMatcher(try CompiledDocument(document: document, domain: domain, configuration: configuration)))
            } catch {
                printError("aasa \(command): cannot compile the document: \(error)")
                return .failure(.unreadableDocument)
            }
        }
    }
}
