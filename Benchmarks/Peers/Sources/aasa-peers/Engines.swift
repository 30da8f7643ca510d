import Foundation
import AASAKit
import CPeers

/// The engines under comparison. Each fills `results[i]` with the index of the first rule
/// matching path `i` (-1: none, -2: the engine failed), reading the same `PathStream`.
///
/// Our engine gets the whole URL (`https://example.com/…`) and does everything a real lookup
/// does: split the URL, check the host, drop the trailing `/` run, run the path DFA, pick the
/// first rule for the app. The peers get only the path and trim its trailing `/` run: their
/// share of that work is smaller.
protocol Engine: AnyObject {
    func run(_ stream: PathStream, into results: inout [Int32])
}

/// Removes the trailing run of `/` (SPEC 6), as our engine does before matching.
@inline(__always)
func trimmedLength(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
    var end = end
    while end > start, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
    return end - start
}

/// Ours: `CompiledDocument` + one `DFAMatcher`, the first deciding rule for the single app.
final class OurEngine: Engine {
    let compiled: CompiledDocument
    let matcher: DFAMatcher
    let document: AASADocument
    let documentBytes: Int

    /// `cacheCapacity`: the lazy DFA cache budget in bytes per automaton (nil: the library's
    /// default, `automata.cacheCapacity`). `raiseLimits`: lift the document size and pattern
    /// limits, for a stress size over Apple's 128 KB that the library's defaults refuse.
    init(json: [UInt8], cacheCapacity: Int? = nil, raiseLimits: Bool = false) throws {
        var configuration = Configuration()
        if raiseLimits {
            configuration.document.maxBytes = max(configuration.document.maxBytes, json.count)
            configuration.document.maxPatterns = .max
        }
        if let cacheCapacity { configuration.automata.cacheCapacity = cacheCapacity }
        document = try AASADocument(bytes: json, configuration: configuration)
        compiled = try CompiledDocument(document: document, domain: Workload.domain, configuration: configuration)
        matcher = DFAMatcher(compiled)
        documentBytes = json.count
        // One entry, so the rule id (evaluation order) is the rule's index in `components`.
        for (id, info) in compiled.rules.enumerated() {
            precondition(info.entryIndex == 0 && info.ruleIndex == id, "unexpected rule numbering")
        }
    }

    func run(_ stream: PathStream, into results: inout [Int32]) {
        let matcher = self.matcher
        stream.bytes.withUnsafeBufferPointer { bytes in
            results.withUnsafeMutableBufferPointer { out in
                for index in 0..<stream.count {
                    let url = UnsafeBufferPointer(rebasing: bytes[stream.urlStart[index]..<stream.end[index]])
                    do {
                        try matcher.decide(bytes: url, onlyApp: 0)
                        out[index] = matcher.decidingRule[0]
                    } catch {
                        out[index] = -2
                    }
                }
            }
        }
    }
}

/// Diagnostic only: our path automaton alone (`LazyDFA.search` on the trimmed path, first tag),
/// without URL splitting, host check or the decision step, with the same cache budget as RE2.
/// It shows how much of our time is the automaton and how much the matcher around it.
final class OurLazyDFAEngine: Engine {
    let dfa: LazyDFA
    let cache: LazyDFA.Cache

    init(rules: [Workload.Rule], cacheCapacity: Int) throws {
        var patterns: [(pattern: Pattern, tag: Int32)] = []
        for (index, rule) in rules.enumerated() {
            for alternative in PathNormalization.alternatives(of: Pattern(parsing: rule.glob)) {
                patterns.append((alternative, Int32(index)))
            }
        }
        let nfa = try NFACompiler.compile(
            patterns, mode: TextMode(decoded: false, folded: false), maxStates: 4_000_000, variables: { _ in nil })
        dfa = try Planner.automaton(nfa, configuration: LazyDFA.Configuration(cacheCapacity: cacheCapacity))
        cache = dfa.makeCache()
    }

    func run(_ stream: PathStream, into results: inout [Int32]) {
        let dfa = self.dfa
        let cache = self.cache
        stream.bytes.withUnsafeBufferPointer { bytes in
            results.withUnsafeMutableBufferPointer { out in
                for index in 0..<stream.count {
                    let start = stream.pathStart[index]
                    let length = trimmedLength(bytes, from: start, to: stream.end[index])
                    let tags = dfa.search(UnsafeBufferPointer(rebasing: bytes[start..<(start + length)]), cache: cache)
                    out[index] = tags.sorted.first ?? -1
                }
            }
        }
    }
}

enum PeerError: Error, CustomStringConvertible {
    case compile(engine: String, message: String)
    var description: String {
        switch self {
        case .compile(let engine, let message): return "\(engine): \(message)"
        }
    }
}

/// Calls `body` with the patterns as an array of NUL-terminated C strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>]) -> R) -> R {
    let pointers = strings.map { string in
        guard let copy = strdup(string) else { preconditionFailure("out of memory copying a pattern") }
        return copy
    }
    defer { pointers.forEach { free($0) } }
    return body(pointers.map { UnsafePointer($0) })
}

/// The base address of a buffer the caller knows to be non-empty.
private func base<T>(_ buffer: UnsafeBufferPointer<T>) -> UnsafePointer<T> {
    guard let address = buffer.baseAddress else { preconditionFailure("empty buffer") }
    return address
}

/// RE2::Set, anchored at both ends, UTF-8, DOTALL, with a `maxMemory` budget.
final class RE2SetEngine: Engine {
    let handle: OpaquePointer
    let maxMemory: Int64

    init(rules: [Workload.Rule], maxMemory: Int64) throws {
        let patterns = rules.map { GlobTranslation.regex(for: $0.glob, dialect: .re2) }
        var error = [CChar](repeating: 0, count: 512)
        let created = withCStrings(patterns) { pointers in
            pointers.withUnsafeBufferPointer { array in
                peers_re2_set_create(base(array), array.count, maxMemory, &error, error.count)
            }
        }
        guard let created else {
            throw PeerError.compile(engine: "RE2::Set", message: cMessage(error))
        }
        handle = created
        self.maxMemory = maxMemory
    }

    deinit { peers_re2_set_destroy(handle) }

    func run(_ stream: PathStream, into results: inout [Int32]) {
        let handle = self.handle
        stream.bytes.withUnsafeBufferPointer { bytes in
            results.withUnsafeMutableBufferPointer { out in
                for index in 0..<stream.count {
                    let start = stream.pathStart[index]
                    let length = trimmedLength(bytes, from: start, to: stream.end[index])
                    out[index] = peers_re2_set_first_match(handle, base(bytes) + start, length)
                }
            }
        }
    }
}

/// Hyperscan, block mode, one database of all rules; `HS_FLAG_DOTALL` everywhere and
/// `HS_FLAG_UTF8` only on patterns with `?` (the one piece that must read a whole scalar).
final class HyperscanEngine: Engine {
    let handle: OpaquePointer
    let utf8Patterns: Int

    init(rules: [Workload.Rule]) throws {
        let patterns = rules.map { GlobTranslation.regex(for: $0.glob, dialect: .hyperscan) }
        let flags: [UInt32] = rules.map {
            peers_hs_flag_dotall | (GlobTranslation.needsUTF8($0.glob) ? peers_hs_flag_utf8 : 0)
        }
        utf8Patterns = rules.filter { GlobTranslation.needsUTF8($0.glob) }.count
        var error = [CChar](repeating: 0, count: 512)
        let created = withCStrings(patterns) { pointers in
            pointers.withUnsafeBufferPointer { array in
                flags.withUnsafeBufferPointer { flags in
                    peers_hs_create(base(array), base(flags), array.count, &error, error.count)
                }
            }
        }
        guard let created else {
            throw PeerError.compile(engine: "Hyperscan", message: cMessage(error))
        }
        handle = created
    }

    deinit { peers_hs_destroy(handle) }

    var databaseBytes: Int { peers_hs_database_size(handle) }
    var scratchBytes: Int { peers_hs_scratch_size(handle) }

    func run(_ stream: PathStream, into results: inout [Int32]) {
        let handle = self.handle
        stream.bytes.withUnsafeBufferPointer { bytes in
            results.withUnsafeMutableBufferPointer { out in
                for index in 0..<stream.count {
                    let start = stream.pathStart[index]
                    let length = trimmedLength(bytes, from: start, to: stream.end[index])
                    out[index] = peers_hs_first_match(handle, base(bytes) + start, length)
                }
            }
        }
    }
}

/// The NUL-terminated message a shim wrote into `buffer`.
private func cMessage(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
