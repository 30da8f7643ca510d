import Synchronization

/// Everything `classify` needs to know about its documents, built once and shared by every
/// worker thread: the host table, each domain's compiled document (or reference matcher, or
/// load failure), and pre-rendered output fragments so that writing a record is mostly copying.
///
/// A rules directory is loaded lazily: at start only its listing is read (the host table), and
/// a domain's document is read and compiled the first time a URL of that host arrives. A fleet
/// of 100 000 domains then starts in the time it takes to list them, and memory grows with the
/// domains the stream touches, not the domains on disk, up to `loaded-bytes` (`DocumentBudget`:
/// past it every document is let go, and loaded again when its domain next comes). A document
/// that cannot be used is reported when its domain is first met (`onLoadFailure`), and its URLs
/// get error records.
/// Domains serving one document (the same file, the same file but for its app IDs, or one body
/// of an artifact) share what the first of them loaded: its compiled automata, its rules, and
/// a copy of its record pieces with the names rewritten (`Loaded(sharing:domain:appIDs:)`).
public final class ClassifierRules: Sendable {
    public enum Engine: String, Sendable {
        case dfa
        case reference
    }

    public enum State: Sendable {
        case compiled(CompiledDocument)
        /// Indirect: the matcher is a large value (176 bytes), which held inline made every
        /// domain's `Loaded` that large, compiled or not.
        // PERF: a `Loaded` of 224 → 64 bytes; the kept 10 000-domain fleet stream
        // (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, `aasa classify --compiled --jobs
        // 1`): peak RSS 75.6 → 73.3 MB, the pass's instructions 479.6 → 474.7 million (callgrind).
        indirect case reference(ReferenceMatcher)
        /// The document could not be loaded or compiled: its URLs get error records.
        case failed(String)
    }

    /// A domain's document once loaded, with the output fragments its records use.
    public final class Loaded: Sendable {
        public let state: State
        public let appIDs: [String]
        /// Per rule id: its entry and rule index (`Classification`'s decisions), and whether it
        /// excludes.
        let rules: [(entry: Int, rule: Int, exclude: Bool)]
        /// The record pieces of the domain (`RecordFragments`), written once and read by every
        /// thread's `DomainSlot`; freed with this object.
        let fragments: RecordFragments
        /// The app IDs as the TSV/CSV apps column writes them, when one holds `|` (which joins
        /// them there) or `%`: those two written `%7C` and `%25`, so that the column splits back
        /// into the document's IDs. Nil when none does: no valid app ID does.
        let columnAppIDs: [[UInt8]]?
        /// What holding this costs the fleet's `DocumentBudget`: the compiled automata
        /// (`CompiledDocument.memoryUsage`) unless shared with another domain's, the record
        /// pieces and the rule table; for the reference engine, the JSON it was read from.
        let heldBytes: Int

        /// What an automaton holds beyond `LazyDFA.memoryUsage`, which counts its tables'
        /// elements only: the object and its configuration, its arrays' headers and the
        /// allocator's rounding, its query item's name and predicates. Measured: documents of
        /// 1 500 query items calling `$(lang)` took about 2 KB an automaton more than their
        /// `memoryUsage` (peak resident memory of `aasa classify` on one of them, less an empty
        /// run's).
        static let automatonOverhead = 2_048

        /// `sourceBytes`: the size of the JSON a reference-engine document was read from.
        init(state: State, domain: String, appIDs apps: [String], rules: [(entry: Int, rule: Int, exclude: Bool)], sourceBytes: Int = 0) {
            if let fragments = RecordFragments(domain: domain, apps: apps, rules: rules) {
                self.state = state
                self.appIDs = apps
                self.rules = rules
                self.fragments = fragments
            } else {
                // Only a crafted artifact gets here: no document within `document-bytes` names
                // enough apps for its no-match record to pass 2 GiB.
                self.state = .failed("its records would pass 2 GiB (\(apps.count) app IDs, \(rules.count) rules)")
                self.appIDs = []
                self.rules = []
                self.fragments = RecordFragments.withoutDocument(domain: domain)
            }
            columnAppIDs = Self.columnTexts(self.appIDs)
            var automata = 0
            switch state {
            case .compiled(let compiled): automata = compiled.memoryUsage + compiled.automatonCount * Self.automatonOverhead
            case .reference: automata = sourceBytes
            case .failed: break
            }
            heldBytes = automata + fragments.byteCount + self.rules.count * MemoryLayout<(Int, Int, Bool)>.stride
        }

        static func columnTexts(_ apps: [String]) -> [[UInt8]]? {
            func special(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "|") || byte == UInt8(ascii: "%") }
            // PERF: over each ID's contiguous bytes: a search through `String.UTF8View` cost
            // 1 350 instructions a domain, 390 since (quick fleet kept by `AASA_BENCH_KEEP_FLEET=1
            // aasa-bench --quick --suite fleet`, `aasa classify --compiled --jobs 1`, cachegrind).
            guard apps.contains(where: { app in
                var app = app
                return app.withUTF8 { $0.contains(where: special) }
            }) else { return nil }
            return apps.map { app in
                var bytes: [UInt8] = []
                for byte in app.utf8 {
                    if special(byte) { bytes += Array((byte == UInt8(ascii: "|") ? "%7C" : "%25").utf8) } else { bytes.append(byte) }
                }
                return bytes
            }
        }

        /// The domain `domain` serving `first`'s compiled document, with `first`'s app IDs or
        /// (`appIDs`) as many others standing where they stood: the document shared under the
        /// new name, `first`'s rules, and record pieces whose rule pieces are copied from
        /// `first`'s (`RecordFragments(domain:apps:as:)`). Nil unless `first` is compiled and
        /// names as many apps.
        // PERF: 10 000-domain fleet stream (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`,
        // `aasa classify --jobs 1`, callgrind, stream − empty input): a URL with first use
        // 2 132 → 1 989 instructions with `--compiled` (with `ArtifactLoader`), 4 340 → 4 207
        // with `--rules`, records identical.
        convenience init?(sharing first: Loaded, domain: String, appIDs: [String]? = nil) {
            guard case .compiled(let document) = first.state, appIDs.map({ $0.count == first.appIDs.count }) ?? true else { return nil }
            let apps = appIDs ?? first.appIDs
            let compiled = CompiledDocument(sharing: document, domain: domain, appIDs: apps)
            let rewritten =
                appIDs == nil
                ? RecordFragments(domain: domain, as: first.fragments) : RecordFragments(domain: domain, apps: apps, as: first.fragments)
            guard let fragments = rewritten else {
                self.init(state: .compiled(compiled), domain: domain, appIDs: apps, rules: first.rules)
                return
            }
            let columnAppIDs = appIDs == nil ? first.columnAppIDs : Self.columnTexts(apps)
            self.init(state: .compiled(compiled), appIDs: apps, rules: first.rules, fragments: fragments, columnAppIDs: columnAppIDs)
        }

        /// A domain sharing another's automata and rule table: only its record pieces are its own.
        private init(
            state: State, appIDs: [String], rules: [(entry: Int, rule: Int, exclude: Bool)], fragments: RecordFragments,
            columnAppIDs: [[UInt8]]?
        ) {
            self.state = state
            self.appIDs = appIDs
            self.rules = rules
            self.fragments = fragments
            self.columnAppIDs = columnAppIDs
            heldBytes = fragments.byteCount
        }

        deinit { fragments.deallocate() }

        var failure: String? {
            if case .failed(let reason) = state { return reason }
            return nil
        }
    }

    /// A class, so the hot path copies one reference per URL instead of several arrays.
    public final class Domain: Sendable {
        public let name: String
        public let file: String
        /// The domain's UTF-8 bytes, for the TSV/CSV domain column.
        let nameBytes: [UInt8]
        private let load: @Sendable () -> Loaded
        /// Why a lock rather than an atomic: two threads meeting a new domain at once must not
        /// both compile it; each worker keeps its own reference once loaded, so the lock is
        /// taken once per domain and thread, never per URL. `appIDs` outlives a document let go
        /// (`letGo`), for the summary.
        private let slot: Mutex<(loaded: Loaded?, appIDs: [String]?)>
        /// False when each use loads the document again and nothing keeps it (`aasa compile`
        /// visits every domain once).
        private let keepsLoaded: Bool

        init(name: String, file: String, loaded: Loaded?, keepsLoaded: Bool = true, load: @escaping @Sendable () -> Loaded) {
            self.name = name
            self.nameBytes = Array(name.utf8)
            self.file = file
            self.load = load
            self.slot = Mutex((loaded, loaded?.appIDs))
            self.keepsLoaded = keepsLoaded
        }

        /// The document, read and compiled now if this is its first use (or its first since
        /// the fleet's budget let it go).
        public var loaded: Loaded { loadedNoting().loaded }

        /// `loaded`, and whether this call loaded it (and keeps it): what `Classifier` charges
        /// to the fleet's `DocumentBudget`.
        func loadedNoting() -> (loaded: Loaded, kept: Bool) {
            slot.withLock { slot in
                if let loaded = slot.loaded { return (loaded, false) }
                let loaded = load()
                if keepsLoaded { slot = (loaded, loaded.appIDs) }
                return (loaded, keepsLoaded)
            }
        }

        /// The document if some thread has loaded it (and it was not let go since); never loads.
        public var loadedIfReady: Loaded? { slot.withLock { $0.loaded } }

        /// The app IDs of the document last loaded, even if let go since; nil before any load.
        public var appIDsIfLoaded: [String]? { slot.withLock { $0.appIDs } }

        /// Forgets the document unless it failed (`DocumentBudget`): the next use loads it again.
        func letGo() {
            slot.withLock { slot in
                if slot.loaded?.failure == nil { slot.loaded = nil }
            }
        }

        public var state: State { loaded.state }
        public var appIDs: [String] { loaded.appIDs }
    }

    public let engine: Engine
    public let domains: [Domain]
    public let table: DomainTable
    /// What the loaded documents hold together (`loaded-bytes`); never passed by rules loaded
    /// eagerly.
    let budget: DocumentBudget
    /// Empties the caches that share one domain's load with others (`LoadedByContent`,
    /// `ArtifactLoader`), when every document is let go.
    private let forgetShared: (@Sendable () -> Void)?

    /// Compiles every document now; `threads` > 1 compiles several at once (`ParallelMap`).
    public init(documents: DomainDocuments, engine: Engine, configuration: Configuration = .default, threads: Int = 1) {
        self.engine = engine
        let sources = documents.sources
        let domains = ParallelMap.map(sources.count, threads: threads) { index in
            let source = sources[index]
            let loaded = Self.build(source.document, domain: source.domain, file: source.file, engine: engine, configuration: configuration)
            return Domain(name: source.domain, file: source.file, loaded: loaded, load: { loaded })
        }
        self.domains = domains
        self.table = DomainTable(domains: domains.map(\.name))
        budget = DocumentBudget(limit: .max)
        forgetShared = nil
    }

    /// The documents of a listed rules directory, each read and compiled on first use;
    /// `onLoadFailure(domain, reason)` is called once for a document that cannot be used, from
    /// the thread that first met its domain.
    ///
    /// With `retainsDocuments` false nothing keeps a document once its caller lets it go, and
    /// each use reads and compiles it again (and reports a failure again): `aasa compile` visits
    /// every domain once, so its memory is one document's at a time (issue 19's 100 000-domain
    /// directory took 850 MB when every document was held), however many it compiles.
    /// Otherwise the documents kept are let go when together they pass `loaded-bytes`
    /// (`DocumentBudget`), and read again from their files when next needed.
    public init(
        listing: DomainDocuments.Listing, engine: Engine, configuration: Configuration = .default,
        retainsDocuments: Bool = true, onLoadFailure: (@Sendable (String, String) -> Void)? = nil
    ) {
        self.engine = engine
        let loadedByContent = retainsDocuments ? LoadedByContent() : nil
        let loadedByShape = retainsDocuments ? LoadedByContent() : nil
        domains = listing.files.map { entry in
            Domain(name: entry.domain, file: entry.file, loaded: nil, keepsLoaded: retainsDocuments) {
                let loaded: Loaded
                switch DomainDocuments.read(entry.file, configuration, regularFileOnly: true) {
                case .failure(let failure):
                    loaded = Self.build(.failure(failure), domain: entry.domain, file: entry.file, engine: engine, configuration: configuration)
                case .success(let bytes):
                    if engine == .dfa, let first = loadedByContent?[bytes], let shared = Loaded(sharing: first, domain: entry.domain) {
                        loaded = shared
                    } else {
                        let document = DomainDocuments.parse(bytes, file: entry.file, configuration)
                        let shape =
                            engine == .dfa && retainsDocuments ? (try? document.get()).flatMap { Self.shape(of: bytes, $0) } : nil
                        if let shape, let first = loadedByShape?[shape], let shared = Loaded(sharing: first, domain: entry.domain, appIDs: shape.appIDs) {
                            loaded = shared
                        } else {
                            loaded = Self.build(
                                document, domain: entry.domain, file: entry.file, engine: engine, configuration: configuration,
                                sourceBytes: bytes.count)
                            if case .compiled = loaded.state, let shape { loadedByShape?[shape] = loaded }
                        }
                        if engine == .dfa, case .compiled = loaded.state { loadedByContent?[bytes] = loaded }
                    }
                }
                if let reason = loaded.failure { onLoadFailure?(entry.domain, reason) }
                return loaded
            }
        }
        table = DomainTable(domains: domains.map(\.name))
        budget = DocumentBudget(limit: retainsDocuments ? configuration.automata.maxLoadedBytes : .max)
        forgetShared = {
            loadedByContent?.removeAll()
            loadedByShape?.removeAll()
        }
    }

    /// A document's bytes with each of its app IDs' string literals replaced by a number
    /// (`appIDs` order), when that replacement is exact: documents with the same shape differ
    /// only in which app IDs they name, so they compile to the same automata and plan, app `i`
    /// of one standing where app `i` of the other does (`CompiledDocument(sharing:domain:appIDs:)`).
    /// A white-label fleet serves one set of rules under each customer's own app IDs.
    ///
    /// `nil` (no sharing) unless every occurrence of an app ID's literal in the file is one of
    /// its appearances in `details` (so no pattern, key or other service's list equal to an app
    /// ID is replaced), every app ID is written plainly (no escapes), and `details` is an array:
    /// the legacy dictionary is evaluated in the sorted order of the app IDs themselves.
    // PERF: the 10 000-domain fleet (2 200 distinct files, 320 distinct shapes): a URL with first
    // use 7 294 → 4 372 instructions with `--rules` (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite
    // fleet`, `aasa classify --jobs 1`, callgrind, stream − empty input), records identical; a
    // search of the file per app ID was 4 306, but unbounded in the number of app IDs.
    struct Shape {
        let bytes: [UInt8]
        let appIDs: [String]
    }

    static func shape(of bytes: [UInt8], _ document: AASADocument) -> Shape? {
        guard let applinks = document.applinks, !applinks.detailsAreKeyedByApp else { return nil }
        let appIDs = document.appIDs
        guard !appIDs.isEmpty else { return nil }
        var appearances = [Int](repeating: 0, count: appIDs.count)
        var numbers: [BytesKey: Int] = [:]
        // Spans of another length are no app ID: most strings of a document are skipped unhashed.
        var lengths = Set<Int>()
        for (number, app) in appIDs.enumerated() {
            // An escaped app ID may be written several ways: only its plain form would be found.
            var literal: [UInt8] = []
            JSONWriter.appendEscaped(app, to: &literal)
            guard literal.count == app.utf8.count + 2 else { return nil }
            numbers[BytesKey(bytes: Array(app.utf8))] = number
            lengths.insert(app.utf8.count)
        }
        for entry in applinks.details {
            for app in entry.appIDs {
                if let number = numbers[BytesKey(bytes: Array(app.utf8))] { appearances[number] += 1 }
            }
        }
        // Every span between two consecutive quotes, once: a plain app ID holds no quote, so
        // each occurrence of its literal is such a span (and so is the text between two strings,
        // which only counts against the check below). Linear in the file, whatever the number
        // of app IDs: a hostile document cannot make first use slow here.
        var found = [Int](repeating: 0, count: appIDs.count)
        var shaped: [UInt8] = []
        shaped.reserveCapacity(bytes.count)
        var copied = 0
        var previousQuote = -1
        var replacedUpTo = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\"") {
            defer { previousQuote = index }
            guard previousQuote >= 0, lengths.contains(index - previousQuote - 1),
                let number = numbers[BytesKey(bytes: Array(bytes[(previousQuote + 1)..<index]))]
            else { continue }
            found[number] += 1
            // Two literals sharing a quote are no JSON strings of app IDs.
            guard previousQuote >= replacedUpTo else { return nil }
            shaped.append(contentsOf: bytes[copied..<previousQuote])
            shaped.append(contentsOf: Array("\u{0}\(number)\u{0}".utf8))
            copied = index + 1
            replacedUpTo = index + 1
        }
        guard found == appearances else { return nil }
        shaped.append(contentsOf: bytes[copied...])
        return Shape(bytes: shaped, appIDs: appIDs)
    }

    /// The documents loaded so far, by the bytes of their file, so that domains serving the
    /// same file compile it once and share its automata (and, per thread, its matcher) and its
    /// record pieces but for the domain: link shorteners serve one document under many names.
    /// Only successful compiles are kept (a failure's message names its own file), and only
    /// while the rules live. A second instance keeps them by `Shape`.
    private final class LoadedByContent: Sendable {
        // PERF: keyed by `BytesKey` rather than `[UInt8]`: a URL with first use on the 10 000-domain
        // fleet stream 14 380 → 13 540 instructions (`aasa classify --rules --jobs 1`,
        // callgrind, stream − empty input).
        private let known = Mutex<[BytesKey: Loaded]>([:])

        func removeAll() { known.withLock { $0 = [:] } }

        subscript(bytes: [UInt8]) -> Loaded? {
            get { known.withLock { $0[BytesKey(bytes: bytes)] } }
            set { known.withLock { $0[BytesKey(bytes: bytes)] = newValue } }
        }

        /// What was loaded for a `Shape`, whose app IDs are its first load's.
        subscript(shape: Shape) -> Loaded? {
            get { self[shape.bytes] }
            set { self[shape.bytes] = newValue }
        }
    }

    private static func build(
        _ document: Result<AASADocument, DomainDocuments.LoadFailure>, domain: String, file: String, engine: Engine,
        configuration: Configuration, sourceBytes: Int = 0
    ) -> Loaded {
        switch document {
        case .failure(let failure):
            return Loaded(state: .failed(failure.description), domain: domain, appIDs: [], rules: [])
        case .success(let document):
            switch engine {
            case .reference:
                return Loaded(
                    state: .reference(ReferenceMatcher(document: document, domain: domain, workLimit: configuration.automata.maxURLWork)), domain: domain,
                    appIDs: document.appIDs, rules: EffectiveRule.resolve(document).map { ($0.entryIndex, $0.ruleIndex, $0.exclude) },
                    sourceBytes: sourceBytes)
            case .dfa:
                do {
                    let compiled = try CompiledDocument(document: document, domain: domain, configuration: configuration)
                    // `compiled.appIDs` is `document.appIDs`, which the getter would build again.
                    return Loaded(
                        state: .compiled(compiled), domain: domain, appIDs: compiled.appIDs,
                        rules: compiled.rules.map { ($0.entryIndex, $0.ruleIndex, $0.exclude) })
                } catch {
                    return Loaded(state: .failed("\(file): \(error)"), domain: domain, appIDs: document.appIDs, rules: [])
                }
            }
        }
    }

    /// Rules loaded from a compiled artifact (`CompiledArtifact.load`).
    public init(artifact: [CompiledArtifact.Domain]) {
        engine = .dfa
        domains = artifact.map { domain in
            var apps: [String] = []
            var rules: [(entry: Int, rule: Int, exclude: Bool)] = []
            if case .compiled(let compiled) = domain.state {
                apps = compiled.appIDs
                rules = compiled.rules.map { ($0.entryIndex, $0.ruleIndex, $0.exclude) }
            }
            let loaded = Loaded(state: domain.state, domain: domain.name, appIDs: apps, rules: rules)
            return Domain(name: domain.name, file: domain.file, loaded: loaded, load: { loaded })
        }
        table = DomainTable(domains: domains.map(\.name))
        budget = DocumentBudget(limit: .max)
        forgetShared = nil
    }

    /// Rules over a mapped artifact: each domain decoded the first time a URL of its host
    /// arrives; `onLoadFailure(domain, reason)` is called once for one that cannot be used (it
    /// failed when compiled, or its entry is damaged). The documents decoded are let go when
    /// together they pass `loaded-bytes` (`DocumentBudget`, the configuration the artifact was
    /// opened with), and decoded again when next needed.
    public init(artifact mapped: CompiledArtifact.Mapped, onLoadFailure: (@Sendable (String, String) -> Void)? = nil) {
        engine = .dfa
        let loader = ArtifactLoader(mapped: mapped, onLoadFailure: onLoadFailure)
        domains = mapped.entries.indices.map { index in
            let entry = mapped.entries[index]
            return Domain(name: entry.name, file: entry.file, loaded: nil) { loader.load(index) }
        }
        table = DomainTable(domains: domains.map(\.name))
        budget = DocumentBudget(limit: mapped.configuration.automata.maxLoadedBytes)
        forgetShared = { loader.forgetFirsts() }
    }

    /// Loads the domains of a mapped artifact, one at a time as they are first met. Domains of
    /// one body share what the first of them loaded (`Loaded(sharing:domain:appIDs:)`), under
    /// their own name and app IDs.
    // PERF: one object every domain's closure holds, rather than what it reads captured in
    // each: start-up with an empty input 85.6 → 81.9 million instructions on the 10 000-domain
    // fleet (`aasa classify --compiled`, callgrind).
    private final class ArtifactLoader: Sendable {
        let mapped: CompiledArtifact.Mapped
        let onLoadFailure: (@Sendable (String, String) -> Void)?
        /// Per body, the first domain loaded with it: its index and what it loaded.
        private let firstByBody = Mutex<[Int: (index: Int, loaded: Loaded)]>([:])

        init(mapped: CompiledArtifact.Mapped, onLoadFailure: (@Sendable (String, String) -> Void)?) {
            self.mapped = mapped
            self.onLoadFailure = onLoadFailure
        }

        /// Forgets what each body's first domain loaded, here and in the artifact (every document
        /// is let go).
        func forgetFirsts() {
            firstByBody.withLock { $0 = [:] }
            mapped.forgetDecoded()
        }

        func load(_ index: Int) -> Loaded {
            let entry = mapped.entries[index]
            let body: Int? = if case .compiled(let body, _) = entry.kind { body } else { nil }
            if let body, let first = firstByBody.withLock({ $0[body] }) {
                if mapped.sameAppIDs(index, first.index) {
                    if let shared = Loaded(sharing: first.loaded, domain: entry.name) { return shared }
                } else if case .success(let apps) = mapped.appIDs(index), let shared = Loaded(sharing: first.loaded, domain: entry.name, appIDs: apps) {
                    return shared
                }
            }
            let loaded: Loaded
            switch (entry.kind, mapped.document(index)) {
            case (.failed(let reason), _):
                loaded = Loaded(state: .failed(reason), domain: entry.name, appIDs: [], rules: [])
            case (_, .success(let compiled)):
                loaded = Loaded(
                    state: .compiled(compiled), domain: entry.name, appIDs: compiled.appIDs,
                    rules: compiled.rules.map { ($0.entryIndex, $0.ruleIndex, $0.exclude) })
                if let body, loaded.failure == nil {
                    firstByBody.withLock { known in
                        if known[body] == nil { known[body] = (index, loaded) }
                    }
                }
            case (_, .failure(let error)):
                loaded = Loaded(
                    state: .failed("its entry in the artifact cannot be used: \(error)"), domain: entry.name, appIDs: [], rules: [])
            }
            if let reason = loaded.failure { onLoadFailure?(entry.name, reason) }
            return loaded
        }
    }

    /// The document of domain `index` for a thread meeting it, charged to the fleet's budget
    /// when this call loaded it (a failure holds only its message, and is never let go); then
    /// every document is let go if together they pass `loaded-bytes` (`DocumentBudget`), each
    /// thread's `Classifier` dropping its own references before its next URL.
    func loadCharging(_ index: Int) -> Loaded {
        let (loaded, kept) = domains[index].loadedNoting()
        if kept, loaded.failure == nil { budget.charge(loaded.heldBytes, domain: index) }
        releaseDocumentsIfOverBudget()
        return loaded
    }

    /// Lets go of every document loaded when together they pass `loaded-bytes`. Called outside
    /// every domain's lock: letting go takes each one's.
    private func releaseDocumentsIfOverBudget() {
        budget.releaseIfOver { indices in
            for index in indices { domains[index].letGo() }
            forgetShared?()
        }
    }

    /// Times every loaded document was let go to stay within `loaded-bytes`.
    public var documentReleases: Int { budget.releases.load(ordering: .relaxed) }

    /// The domains whose document could not be used, with the reason (loading every document).
    public var failures: [(domain: String, reason: String)] {
        domains.compactMap { domain in domain.loaded.failure.map { (domain.name, $0) } }
    }

    /// `failures` among the documents loaded so far.
    public var failuresSoFar: [(domain: String, reason: String)] {
        domains.compactMap { domain in domain.loadedIfReady?.failure.map { (domain.name, $0) } }
    }
}

