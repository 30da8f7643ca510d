import AASAKit
import Foundation

/// Sizes of every suite, for the full run and for `--quick` (CI).
public struct Profile: Sendable {
    public var quick: Bool
    /// Generated URLs per synthetic document.
    public var syntheticURLs: Int
    /// Rule counts of the match suite's scaling table; the last, `appleLimit`, is the largest
    /// document Apple accepts.
    public var scalingSizes: [Int]
    /// The size that stands for "as many rules of the kind as fit in Apple's 128 KB"
    /// (`SyntheticDocument.appleLimitBytes`): the large case of the match and memory suites,
    /// resolved per kind when the workload is built (`SyntheticWorkload`).
    public static let appleLimit = -128
    /// Rule count of the workload-kind table and of claim (a).
    public var headlineRules = 1_000
    public var repetitions: Int
    public var minimumRepetitionNanoseconds: UInt64
    /// Real URLs decided per real document (both engines).
    public var realURLs: Int
    /// Real URLs routed in the multi-domain scenario.
    public var multiDomainURLs: Int
    /// Largest synthetic document of the compile suite.
    public var compileSizes: [Int]
    /// Eager DFA determinisation limit of the compile suite.
    public var eagerStateLimit: Int

    public init(quick: Bool) {
        self.quick = quick
        syntheticURLs = quick ? 2_000 : 20_000
        scalingSizes = [10, 100, 1_000, Profile.appleLimit]
        repetitions = quick ? 3 : 7
        minimumRepetitionNanoseconds = quick ? 20_000_000 : 100_000_000
        realURLs = quick ? 1_000 : 5_000
        multiDomainURLs = quick ? 40_000 : Int.max
        compileSizes = quick ? [10, 1_000, 10_000] : [10, 100, 1_000, 10_000, 100_000]
        eagerStateLimit = quick ? 20_000 : 200_000
        agreementBudgetNanoseconds = quick ? 1_500_000_000 : 30_000_000_000
    }

    /// URLs the reference matcher decides (a prefix of the stream): a fixed function of the
    /// workload, so that the sample, the title and the CI ratios do not depend on the machine's
    /// mood. Sized for one pass of about 0.2 s (quick) or 1.5 s (full) here; the reference
    /// costs microseconds per rule and app, and `$(lang)` rules forty times more.
    public func referenceURLs(_ kind: SyntheticDocument.Kind, rules: Int) -> Int {
        let budget = (quick ? 20_000 : 200_000) / (kind == .variables ? 40 : 1)
        return min(syntheticURLs, max(3, budget / max(1, rules)))
    }

    /// URLs the regex baseline decides (a prefix of the stream), on the same principle.
    public func regexURLs(_ kind: SyntheticDocument.Kind, rules: Int) -> Int {
        let budget = (quick ? 500_000 : 5_000_000) / (kind == .variables ? 20 : 1)
        return min(syntheticURLs, max(10, budget / max(1, rules)))
    }
    /// Reference time the agreement suite may spend per workload (beyond what other suites
    /// already checked), on every core; past it, the coverage is reported as a fraction.
    public var agreementBudgetNanoseconds: Double
}

/// A synthetic document, compiled once, with its URL stream.
public final class SyntheticWorkload: @unchecked Sendable {
    public let document: SyntheticDocument
    public let parsed: AASADocument
    public let compiled: CompiledDocument
    public let urls: URLBatch
    /// Another stream from the same document (another seed), to warm a matcher before it meets
    /// `urls` for the first time.
    public private(set) lazy var warmupURLs = URLBatch(URLStream.generate(for: document, count: urls.count, seed: seed &+ 2))
    let seed: UInt64
    public let parseNanoseconds: UInt64
    public let compileNanoseconds: UInt64
    public var reference: ReferenceMatcher { ReferenceMatcher(document: parsed, domain: document.domain) }

    /// Whether this is the largest document Apple accepts (`Profile.appleLimit`).
    public let fillsAppleLimit: Bool

    /// "paths-1000", or "paths-128k" for the largest document Apple accepts.
    public var label: String { "\(document.kind.rawValue)-\(fillsAppleLimit ? "128k" : String(document.ruleCount))" }

    /// `rules` is a rule count, or `Profile.appleLimit`.
    init(kind: SyntheticDocument.Kind, rules: Int, urlCount: Int, seed: UInt64) throws {
        fillsAppleLimit = rules == Profile.appleLimit
        let count = fillsAppleLimit ? SyntheticDocument.ruleCount(filling: SyntheticDocument.appleLimitBytes, kind: kind, seed: seed) : rules
        let document = SyntheticDocument(kind: kind, ruleCount: count, seed: seed)
        let (parsed, parse) = try Clock.measure { try document.parsed() }
        let (compiled, compile) = try Clock.measure { try CompiledDocument(document: parsed, domain: document.domain) }
        self.document = document
        self.parsed = parsed
        self.compiled = compiled
        self.parseNanoseconds = parse
        self.compileNanoseconds = compile
        self.seed = seed
        self.urls = URLBatch(URLStream.generate(for: document, count: urlCount, seed: seed &+ 1))
        keepForProfiling()
    }

    /// With `AASA_BENCH_KEEP_MATCH=DIR`, writes `DIR/LABEL.json` (the document) and
    /// `DIR/LABEL.urls` (its stream, one URL a line), so that a run of `aasa match LABEL.json
    /// --domain bench.example < LABEL.urls` can be profiled by hand on exactly the suite's
    /// workload.
    private func keepForProfiling() {
        guard let directory = ProcessInfo.processInfo.environment["AASA_BENCH_KEEP_MATCH"], !directory.isEmpty else { return }
        let base = URL(fileURLWithPath: directory).appendingPathComponent(label)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(document.text.utf8).write(to: base.appendingPathExtension("json"))
            try Data((urls.urls.joined(separator: "\n") + "\n").utf8).write(to: base.appendingPathExtension("urls"))
        } catch {
            FileHandle.standardError.write(Data("aasa-bench: cannot keep \(label) in \(directory): \(error)\n".utf8))
        }
    }
}

/// A real document with its file name.
public struct NamedDocument: Sendable {
    public var name: String
    public var bytes: [UInt8]
}

/// Workloads shared between suites, built on first use.
public final class WorkloadStore: @unchecked Sendable {
    let options: Options
    let profile: Profile
    private var synthetic: [String: SyntheticWorkload] = [:]
    private var realURLCache: [String]?
    private var realDocumentsCache: [NamedDocument]?

    init(options: Options, profile: Profile) {
        self.options = options
        self.profile = profile
    }

    /// `rules` is a rule count, or `Profile.appleLimit`.
    public func synthetic(_ kind: SyntheticDocument.Kind, rules: Int) throws -> SyntheticWorkload {
        let key = "\(kind.rawValue)-\(rules)"
        if let known = synthetic[key] { return known }
        let workload = try SyntheticWorkload(kind: kind, rules: rules, urlCount: profile.syntheticURLs, seed: options.seed)
        synthetic[key] = workload
        return workload
    }

    // MARK: Shared corpus

    public var sharedCorpus: String { options.sharedDirectory + "/corpus" }

    /// Why the shared corpus cannot be used, or `nil` when it is there.
    public func sharedCorpusMissing(_ parts: [String]) -> String? {
        for part in parts where !FileManager.default.fileExists(atPath: sharedCorpus + "/" + part) {
            return "\(sharedCorpus)/\(part) not found (pass --shared DIR, the folder holding corpus/)"
        }
        return nil
    }

    /// The documents of `corpus/aasa/real/`, sorted by name.
    public func realDocuments() throws -> [NamedDocument] {
        if let known = realDocumentsCache { return known }
        let directory = sharedCorpus + "/aasa/real"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }.sorted()
        let documents = try names.map { name in
            NamedDocument(name: name, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))))
        }
        realDocumentsCache = documents
        return documents
    }

    /// Every line of `corpus/urls/combined_http_dedup.txt` (trimmed, blank lines dropped).
    public func realURLs() throws -> [String] {
        if let known = realURLCache { return known }
        let text = try String(contentsOfFile: sharedCorpus + "/urls/combined_http_dedup.txt", encoding: .utf8)
        let urls = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        realURLCache = urls
        return urls
    }

    /// `count` real URLs, evenly spaced over the file, with the host rewritten to `domain`
    /// (scheme, path, query and fragment kept byte for byte). URLs that cannot be split are
    /// left out.
    public func realURLs(rewrittenTo domain: String, count: Int) throws -> [String] {
        let all = try realURLs()
        let step = max(1, all.count / max(1, count))
        var result: [String] = []
        result.reserveCapacity(min(count, all.count))
        var index = 0
        while result.count < count, index < all.count {
            if let rewritten = Self.rewrite(all[index], host: domain) { result.append(rewritten) }
            index += step
        }
        return result
    }

    static func rewrite(_ url: String, host: String) -> String? {
        var url = url
        return url.withUTF8 { bytes -> String? in
            guard let parts = try? URLSplitter.split(bytes) else { return nil }
            let scheme = String(decoding: UnsafeBufferPointer(rebasing: bytes[parts.scheme]), as: UTF8.self)
            let rest = String(decoding: UnsafeBufferPointer(rebasing: bytes[parts.path.lowerBound...]), as: UTF8.self)
            return scheme + "://" + host + rest
        }
    }

    /// The multi-domain scenario: `corpus/domains/MAPPING.tsv` rows (domain, document file).
    public func domainMapping() throws -> [(domain: String, document: NamedDocument)] {
        let directory = sharedCorpus + "/domains"
        let mapping = try String(contentsOfFile: directory + "/MAPPING.tsv", encoding: .utf8)
        var result: [(String, NamedDocument)] = []
        for line in mapping.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count >= 2 else { continue }
            let domain = fields[0]
            var path = directory + "/" + domain + ".json"
            if !FileManager.default.fileExists(atPath: path) { path = sharedCorpus + "/aasa/real/" + fields[1] }
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            result.append((domain, NamedDocument(name: fields[1], bytes: Array(data))))
        }
        return result
    }

    // MARK: Bundled corpus

    /// The scenarios of `corpus/<domain>/`: domain, document bytes, URLs.
    public func bundledScenarios() -> [(domain: String, document: [UInt8], urls: [String])] {
        let directory = options.corpusDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var result: [(String, [UInt8], [String])] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let base = directory + "/" + name
            guard let document = FileManager.default.contents(atPath: base + "/apple-app-site-association") else { continue }
            let urls = (try? String(contentsOfFile: base + "/urls.txt", encoding: .utf8))?
                .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
            result.append((name, Array(document), urls))
        }
        return result
    }
}
