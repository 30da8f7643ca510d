import AASAKit
import Foundation

/// One memory-suite workload, run in a process of its own (`--probe NAME`) so that its peak
/// RSS is its own. Prints one line, `PROBE {json}`, with what the allocator can tell.
enum MemoryProbe {
    struct Figures: Codable {
        var workload: String
        var allocator: String
        /// RSS when the workload started (runtime, inputs already loaded).
        var residentBeforeBytes: UInt64
        /// Peak RSS during the workload (`VmHWM` after a reset; `ru_maxrss` when the mark
        /// cannot be reset, which then includes loading the inputs).
        var peakResidentBytes: UInt64
        var peakIsWorkloadOnly: Bool
        /// Bytes in use at the end (jemalloc `stats.allocated`, glibc `mallinfo2`).
        var heapInUseBytes: UInt64?
        /// Bytes allocated by the workload (jemalloc only).
        var allocatedBytes: UInt64?
        /// Bytes allocated by one warm lazy DFA pass, and the decisions it made (jemalloc only).
        var loopAllocatedBytes: UInt64?
        var loopDecisions: Int
        var nanoseconds: UInt64
    }

    /// The workloads, in table order, with what each covers.
    static let workloads: [(name: String, meaning: String)] = [
        ("match-1000", "match: 1 000 path rules, compile + lazy DFA on the stream + reference on a prefix"),
        ("match-128k", "match: path rules filling 128 KB (the largest document Apple accepts), compile + lazy DFA on the stream + reference on a prefix"),
        ("real", "real: 250 documents compiled, lazy DFA and reference on the real URLs"),
        ("multi-domain", "real: multi-domain routing table, lazy DFA on the real URLs"),
        ("compile", "compile: Apple's example, bundled scenarios and real corpus, with eager DFAs"),
    ]

    static func run(_ name: String, context: RunContext) -> Int32 {
        do {
            let figures = try measure(name, context: context)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print("PROBE " + String(decoding: try encoder.encode(figures), as: UTF8.self))
            return 0
        } catch {
            print("PROBE-ERROR \(error)")
            return 1
        }
    }

    static func measure(_ name: String, context: RunContext) throws -> Figures {
        let allocator = context.allocator
        let store = context.store
        let profile = context.profile
        // Inputs that are not part of the workload are loaded first.
        var loopBatch: URLBatch?
        var realDocuments: [NamedDocument] = []
        var mapping: [(domain: String, document: NamedDocument)] = []
        switch name {
        case "match-1000", "match-128k", "compile": break
        case "real":
            realDocuments = try store.realDocuments()
            loopBatch = URLBatch(try store.realURLs(rewrittenTo: RealSuite.domain, count: profile.realURLs))
        case "multi-domain":
            mapping = try store.domainMapping()
            loopBatch = URLBatch(Array(try store.realURLs().prefix(profile.multiDomainURLs)))
        default:
            throw BenchmarkError.probeFailed("unknown workload \(name)")
        }
        // The rule count of the largest document Apple accepts is found before the workload starts.
        let rules = name == "match-128k"
            ? SyntheticDocument.ruleCount(filling: SyntheticDocument.appleLimitBytes, kind: .paths, seed: context.options.seed) : 1_000
        let residentBefore = ProcessMemory.status("VmRSS") ?? ProcessMemory.peakResidentBytes()
        let peakReset = ProcessMemory.resetPeakResident()
        let start = Clock.now()
        var loopBytes: UInt64?
        var loopDecisions = 0
        let (_, allocated) = try allocator.allocated { () throws -> Void in
            switch name {
            case "match-1000", "match-128k":
                let document = SyntheticDocument(kind: .paths, ruleCount: rules, seed: context.options.seed)
                let parsed = try document.parsed()
                let compiled = try CompiledDocument(document: parsed, domain: document.domain)
                let urls = URLBatch(URLStream.generate(for: document, count: profile.syntheticURLs, seed: context.options.seed &+ 1))
                let matcher = DFAMatcher(compiled)
                blackHole(EngineLoops.dfaBytes(matcher, urls))
                loopBytes = allocator.allocated { blackHole(EngineLoops.dfaBytes(matcher, urls)) }.bytes
                loopDecisions = urls.count
                let reference = ReferenceMatcher(document: parsed, domain: document.domain)
                blackHole(EngineLoops.reference(reference, urls.prefix(rules > 1_000 ? 3 : 20)))
            case "real":
                guard let urls = loopBatch else { return }
                var notes: [String] = []
                let loaded = RealSuite.load(realDocuments, domain: { _ in RealSuite.domain }, notes: &notes)
                let matchers = loaded.map { DFAMatcher($0.compiled) }
                for matcher in matchers { blackHole(EngineLoops.dfaBytes(matcher, urls)) }
                loopBytes = allocator.allocated { for matcher in matchers { blackHole(EngineLoops.dfaBytes(matcher, urls)) } }.bytes
                loopDecisions = matchers.count * urls.count
                for document in loaded {
                    blackHole(EngineLoops.reference(ReferenceMatcher(document: document.parsed, domain: RealSuite.domain), urls))
                }
            case "multi-domain":
                guard let urls = loopBatch else { return }
                var notes: [String] = []
                var documents: [(domain: String, loaded: RealSuite.Loaded)] = []
                for (domain, document) in mapping {
                    if let loaded = RealSuite.load([document], domain: { _ in domain }, notes: &notes).first {
                        documents.append((domain.lowercased(), loaded))
                    }
                }
                let router = HostRouter(documents)
                blackHole(router.routeDFA(urls).checksum)
                loopBytes = allocator.allocated { blackHole(router.routeDFA(urls).checksum) }.bytes
                loopDecisions = urls.count
            default:
                var sources: [[UInt8]] = [Array(AppleExample.json.utf8)] + store.bundledScenarios().map(\.document)
                if store.sharedCorpusMissing(["aasa/real"]) == nil { sources += try store.realDocuments().map(\.bytes) }
                for bytes in sources {
                    guard let document = try? AASADocument(bytes: bytes),
                        let compiled = try? CompiledDocument(document: document, domain: AppleExample.domain)
                    else { continue }
                    blackHole(CompileSuite.eagerSize(compiled, limit: profile.eagerStateLimit).states)
                }
            }
        }
        let elapsed = Clock.now() - start
        let peak = peakReset ? ProcessMemory.status("VmHWM") : nil
        return Figures(
            workload: name, allocator: allocator.allocatorName, residentBeforeBytes: residentBefore,
            peakResidentBytes: peak ?? ProcessMemory.peakResidentBytes(), peakIsWorkloadOnly: peak != nil,
            heapInUseBytes: allocator.heapInUseBytes(),
            allocatedBytes: allocated, loopAllocatedBytes: loopBytes, loopDecisions: loopDecisions, nanoseconds: elapsed)
    }
}

