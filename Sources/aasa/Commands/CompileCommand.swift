import AASAKit
import Foundation

/// `aasa compile PATH [--domain D] -o FILE`: compile documents once, ship the artifact.
enum CompileCommand {
    static let spec = CommandSpec(
        name: "compile",
        abstract: "Compile AASA documents into one versioned, checksummed artifact for 'classify --compiled'.",
        usage: "aasa compile <file|dir> [--domain <domain>] --output <file>",
        options: [
            .init(name: "output", valueName: "file", help: "Where to write the artifact (required; also -o)."),
            .init(name: "domain", valueName: "host", help: "The host that serves a single file (a host name, not a URL)."),
        ] + CommandSupport.configurationOptions,
        discussion: """
            PATH is what 'classify --rules' takes: one file (with --domain) or a directory of
            documents named after their domains. The artifact holds every domain's compiled
            automata and rule tables; 'aasa classify --compiled FILE' maps it and starts
            without parsing or compiling JSON. Each automaton whose whole DFA is small (at most
            65 536 states and 1 MiB, and at most 16 times its NFA's bytes in the file) is stored
            determinised and minimised, so workers search it without warming a cache; larger
            ones are stored as NFAs for the lazy DFA. Domains
            whose documents compile to the same automata and rule tables (the same rules, app
            IDs aside) share one copy of them. Documents that cannot be loaded are recorded as
            such, and their URLs get error records, as with --rules. A corrupt, truncated or
            other-version artifact is refused with a message.

            OUTPUT: a regular file, replaced whole or not at all (a symbolic link is followed
            and stays); a device, a FIFO or a path ending in '/' cannot be written (status 5),
            and the input itself or a path inside the input directory is refused (usage error).

            EXIT STATUS: 0 written; 2 usage error; 3 the documents cannot be read; 5 the
            artifact cannot be written (checked before compiling).
            """)

    static func run(_ arguments: ArraySlice<String>) -> ExitCode {
        // `-o` is the conventional short form.
        let normalized = arguments.map { $0 == "-o" ? "--output" : $0 }
        let parsed: ParsedArguments
        let configuration: Configuration
        switch CommandSupport.parse(spec, ArraySlice(normalized)) {
        case .success(let value): (parsed, configuration) = value
        case .failure(let code): return code
        }
        guard parsed.positionals.count == 1 else { return CommandSupport.usageError(spec, "expected one <file|dir>") }
        guard let output = parsed.value("output") else { return CommandSupport.usageError(spec, "missing --output") }
        // `classify -o -` means standard output; an artifact is a file that is mapped, renamed
        // into place whole, so `-` would otherwise quietly name a file called "-".
        guard output != "-" else {
            return CommandSupport.usageError(spec, "--output - : an artifact is written to a file (it is mapped, and renamed into place whole), not to standard output")
        }
        var domain: String?
        if let given = parsed.value("domain") {
            switch CommandSupport.documentDomain(given, command: spec.name) {
            case .success(let host): domain = host
            case .failure(let error): return CommandSupport.usageError(spec, error.message)
            }
        }
        let source = parsed.positionals[0]
        var isDirectory: ObjCBool = false
        if domain != nil, FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue {
            return CommandSupport.usageError(spec, "--domain names a single file's domain; a directory's documents are named by their files")
        }
        if CommandSupport.isCompiledArtifact(source) {
            return CommandSupport.usageError(spec, "\(source) is already a compiled artifact: give it to 'aasa classify --compiled'")
        }
        // An artifact renamed over its own documents (`compile doc.json -o doc.json`) would
        // destroy them; one inside a rules directory would be read as a document next time.
        var readFiles = ReadFiles()
        readFiles.add(path: source, as: "the input")
        if let clash = readFiles.clash(output) {
            return CommandSupport.usageError(spec, "\(output) is \(clash); refusing to write over it")
        }
        // Before compiling, which can take seconds: a path that cannot be written is known now.
        let file: AtomicOutputFile
        switch AtomicOutputFile.open(output) {
        case .success(let opened): file = opened
        case .failure(let error):
            printError("aasa compile: \(error)")
            return .inputOutput
        }
        let rules: ClassifierRules
        let unusable = UnusableCount()
        // A directory's documents are compiled and encoded one at a time, each let go once its
        // body is written: the memory is the artifact's and one document's, not the fleet's.
        switch RulesLoader.load(
            source, domain: domain, engine: .dfa, configuration: configuration, command: "compile", lazy: true, retainsDocuments: false,
            unusable: unusable)
        {
        case .success(let loaded): rules = loaded
        case .failure(let code):
            file.discard()
            return code == .usage ? CommandSupport.usageError(spec, "a single file needs --domain") : code
        }
        var counts = CompiledArtifact.Counts()
        // `eager-dfa-states` bounds the stored tables as it bounds the ones a process builds:
        // 0 writes none, as docs/limits.md says.
        let budget = LazyDFA.Prebuilt.Budget(
            maxStates: min(LazyDFA.Prebuilt.Budget().maxStates, configuration.automata.eagerMaxStates),
            maxDocumentWork: configuration.automata.eagerMaxWork)
        let parts = CompiledArtifact.encodedParts(rules, budget: budget, counts: &counts)
        if let error = file.commit(parts: parts) {
            printError("aasa compile: \(error)")
            return .inputOutput
        }
        // The documents that could not be used were named as they were reached; the summary
        // counts them, since their domains are in the artifact and get error records.
        printError(
            "aasa compile: \(counted(rules.domains.count, "domain"))\(unusable.value == 0 ? "" : " (\(unusable.value) could not be used: their URLs get error records)"), \(parts.map(\.count).reduce(0, +)) bytes written to \(output) (automata: \(counted(counts.prebuilt, "prebuilt DFA table")), \(counts.lazy) lazy; \(counts.bodies) distinct \(counts.bodies == 1 ? "body" : "bodies"))")
        return .success
    }
}
