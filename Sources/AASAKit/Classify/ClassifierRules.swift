/// Everything `classify` needs to know about its documents, built once and shared by every
/// worker thread: the host table, each domain's compiled document (or reference matcher, or
/// load failure), and pre-rendered output fragments so that writing a record is mostly copying.
public final class ClassifierRules: Sendable {
    public enum Engine: String, Sendable {
        case dfa
        case reference
    }

    public enum State: Sendable {
        case compiled(CompiledDocument)
        case reference(ReferenceMatcher)
        /// The document could not be loaded or compiled: its URLs get error records.
        case failed(String)
    }

    /// A class, so the hot path copies one reference per URL instead of six arrays.
    public final class Domain: Sendable {
        public let name: String
        public let file: String
        public let state: State
        public let appIDs: [String]
        /// `"domain"` as a JSON string literal.
        let json: [UInt8]
        /// The domain's UTF-8 bytes, for the TSV/CSV domain column.
        let nameBytes: [UInt8]
        /// Each app ID as a JSON string literal.
        let appJSON: [[UInt8]]
        /// Per rule id: `", "entry": E, "rule": R}` and `E:R`.
        let ruleJSONSuffix: [[UInt8]]
        let ruleText: [[UInt8]]
        /// Per rule id: its entry and rule index (`Classification`'s decisions).
        let rulePositions: [(entry: Int, rule: Int)]

        init(
            name: String, file: String, state: State, appIDs: [String], json: [UInt8], appJSON: [[UInt8]],
            ruleJSONSuffix: [[UInt8]], ruleText: [[UInt8]], rulePositions: [(entry: Int, rule: Int)]
        ) {
            self.rulePositions = rulePositions
            self.name = name
            self.nameBytes = Array(name.utf8)
            self.file = file
            self.state = state
            self.appIDs = appIDs
            self.json = json
            self.appJSON = appJSON
            self.ruleJSONSuffix = ruleJSONSuffix
            self.ruleText = ruleText
        }
    }

    public let engine: Engine
    public let domains: [Domain]
    public let table: DomainTable

    /// Compiles every document; `threads` > 1 compiles several at once (`ParallelMap`).
    public init(documents: DomainDocuments, engine: Engine, configuration: Configuration = .default, threads: Int = 1) {
        self.engine = engine
        let sources = documents.sources
        let domains = ParallelMap.map(sources.count, threads: threads) { index in
            Self.build(sources[index], engine: engine, configuration: configuration)
        }
        self.domains = domains
        self.table = DomainTable(domains: domains.map(\.name))
    }

    private static func build(_ source: DomainDocuments.Source, engine: Engine, configuration: Configuration) -> Domain {
        var state: State
        var apps: [String] = []
        var rules: [(entry: Int, rule: Int)] = []
        switch source.document {
        case .failure(let failure):
            state = .failed(failure.description)
        case .success(let document):
            apps = document.appIDs
            switch engine {
            case .reference:
                state = .reference(ReferenceMatcher(document: document, domain: source.domain))
                rules = EffectiveRule.resolve(document).map { ($0.entryIndex, $0.ruleIndex) }
            case .dfa:
                do {
                    let compiled = try CompiledDocument(document: document, domain: source.domain, configuration: configuration)
                    state = .compiled(compiled)
                    rules = compiled.rules.map { ($0.entryIndex, $0.ruleIndex) }
                } catch {
                    state = .failed("\(source.file): \(error)")
                }
            }
        }
        return Self.domain(source.domain, file: source.file, state: state, appIDs: apps, rules: rules)
    }

    /// Rules loaded from a compiled artifact (`CompiledArtifact.load`).
    public init(artifact: [CompiledArtifact.Domain]) {
        engine = .dfa
        domains = artifact.map { domain in
            var apps: [String] = []
            var rules: [(entry: Int, rule: Int)] = []
            if case .compiled(let compiled) = domain.state {
                apps = compiled.appIDs
                rules = compiled.rules.map { ($0.entryIndex, $0.ruleIndex) }
            }
            return Self.domain(domain.name, file: domain.file, state: domain.state, appIDs: apps, rules: rules)
        }
        table = DomainTable(domains: domains.map(\.name))
    }

    private static func domain(_ name: String, file: String, state: State, appIDs apps: [String], rules: [(entry: Int, rule: Int)])
        -> Domain
    {
        Domain(
            name: name, file: file, state: state, appIDs: apps, json: Array(JSONWriter.escape(name).utf8),
            appJSON: apps.map { Array(JSONWriter.escape($0).utf8) },
            ruleJSONSuffix: rules.map { Array(", \"entry\": \($0.entry), \"rule\": \($0.rule)}".utf8) },
            ruleText: rules.map { Array("\($0.entry):\($0.rule)".utf8) }, rulePositions: rules)
    }

    /// The domains whose document could not be used, with the reason.
    public var failures: [(domain: String, reason: String)] {
        domains.compactMap {
            if case .failed(let reason) = $0.state { return ($0.name, reason) }
            return nil
        }
    }
}
