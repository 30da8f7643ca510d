import AASAKit
import CAASA
import Foundation
import Synchronization

// The C ABI of include/aasa.h. Handles are retained Swift objects behind opaque pointers; every
// entry point checks its pointers before touching them and reports failures through a status
// and the calling thread's last error, so no input reaches a trap.

// MARK: Errors

/// The calling thread's last error: a `strdup`ed message, freed when replaced or at thread exit.
private let lastErrorKey: pthread_key_t = {
    var key = pthread_key_t()
    // SAFETY: the key's value is only ever NULL or a message `fail` `strdup`ed, freed here once at
    // thread exit.
    pthread_key_create(&key) { free($0) }
    return key
}()

private func fail(_ status: aasa_status, _ message: String) -> aasa_status {
    // SAFETY: the old value is NULL or the thread's last `strdup`ed message, freed once as it is
    // replaced (aasa.h: `aasa_last_error`'s pointer is valid until this next failure).
    free(pthread_getspecific(lastErrorKey))
    pthread_setspecific(lastErrorKey, strdup(message))
    return status
}

private let noError: StaticString = ""

@_cdecl("aasa_last_error")
public func aasa_last_error() -> UnsafePointer<CChar> {
    // SAFETY: a non-NULL value is the thread's `strdup`ed message, alive until its next failing
    // call (as aasa.h says); the literal below is stored NUL-terminated for the whole run.
    if let message = pthread_getspecific(lastErrorKey) { return UnsafePointer(message.assumingMemoryBound(to: CChar.self)) }
    return UnsafeRawPointer(noError.utf8Start).assumingMemoryBound(to: CChar.self)
}

// MARK: Options

final class Options {
    var configuration = Configuration()
}

@_cdecl("aasa_options_new")
public func aasa_options_new() -> OpaquePointer? {
    // SAFETY: the handle owns this reference; `aasa_options_free` gives it back, once (aasa.h).
    OpaquePointer(Unmanaged.passRetained(Options()).toOpaque())
}

@_cdecl("aasa_options_free")
public func aasa_options_free(_ options: OpaquePointer?) {
    guard let options else { return }
    // SAFETY: `options` is a handle `aasa_options_new` gave, freed once by the caller (aasa.h):
    // this drops the reference it held.
    Unmanaged<Options>.fromOpaque(UnsafeRawPointer(options)).release()
}

private func limit(named name: UnsafePointer<CChar>?) -> Result<Configuration.Limit, aasa_status> {
    guard let name else { return .failure(fail(AASA_ERROR_ARGUMENT, "the limit name is NULL")) }
    // SAFETY: the caller passes a NUL-terminated string (aasa.h), read only during the call.
    let text = String(decoding: UnsafeRawBufferPointer(start: name, count: strlen(name)), as: UTF8.self)
    guard let limit = Configuration.Limit(rawValue: text) else {
        let known = Configuration.Limit.allCases.map(\.rawValue).joined(separator: ", ")
        return .failure(fail(AASA_ERROR_LIMIT, "unknown limit '\(text)' (known: \(known))"))
    }
    return .success(limit)
}

@_cdecl("aasa_options_set_limit")
public func aasa_options_set_limit(_ pointer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UInt64) -> aasa_status {
    guard let options = CABI.options(pointer) else { return fail(AASA_ERROR_ARGUMENT, "the options are NULL") }
    switch limit(named: name) {
    case .failure(let status): return status
    case .success(let limit):
        guard value >= UInt64(limit.minimum), value <= UInt64(limit.maximum) else {
            return fail(AASA_ERROR_LIMIT, "the limit \(limit.rawValue) takes a value from \(limit.minimum) to \(limit.maximum), got \(value)")
        }
        options.configuration[limit] = Int(value)
        return AASA_OK
    }
}

@_cdecl("aasa_options_get_limit")
public func aasa_options_get_limit(_ pointer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<UInt64>?) -> aasa_status {
    guard let options = CABI.options(pointer), let value else { return fail(AASA_ERROR_ARGUMENT, "the options or the value pointer are NULL") }
    switch limit(named: name) {
    case .failure(let status): return status
    case .success(let limit):
        // SAFETY: `value` is non-NULL (checked above), a `uint64_t` the caller lends for the call
        // (aasa.h).
        value.pointee = UInt64(options.configuration[limit])
        return AASA_OK
    }
}

// MARK: Rules

/// Loaded rules, shared by every thread, and the per-thread workers they lend out.
///
/// A `Classifier` owns DFA caches and must be used by one thread at a time, as each of the
/// tool's workers owns one over the shared `ClassifierRules`. A call borrows an idle worker (or
/// makes one) and gives it back, so concurrent calls never share one and caches stay warm
/// from call to call.
final class Rules: @unchecked Sendable {
    // SAFETY (`@unchecked Sendable`): the `let`s are immutable, `spare` is atomic, and `idle`,
    // `domainTexts` and `appTexts` are touched only while `lock` is held.
    let rules: ClassifierRules
    let limits: Configuration.Input
    /// Set when the rules hold one domain with a compiled document (`aasa_rules_open_document`).
    let solo: Solo?
    /// One idle worker, taken and given back with an atomic exchange: a caller deciding URLs
    /// one by one on one thread takes no lock. Holds a retained `Worker` or 0.
    private let spare = Atomic<UInt>(0)
    private let lock = NSLock()
    /// Further idle workers, when several threads call at once. Guarded by `lock`.
    // SAFETY: its only accesses (`take`, `giveBack`) hold `lock`, so no two overlap.
    @exclusivity(unchecked) private var idle: [Worker] = []

    init(_ rules: ClassifierRules, limits: Configuration.Input) {
        self.rules = rules
        self.limits = limits
        solo = Solo(rules)
    }

    deinit {
        // SAFETY: a nonzero `spare` is the reference `giveBack` retained and no `take` took; no
        // call runs during `deinit`, so it is released once, here.
        if let worker = UnsafeRawPointer(bitPattern: spare.load(ordering: .acquiring)) {
            Unmanaged<Worker>.fromOpaque(worker).release()
        }
    }

    func withWorker<Value>(_ body: (Worker) -> Value) -> Value {
        let worker = take()
        defer { giveBack(worker) }
        return body(worker)
    }

    func withClassifier<Value>(_ body: (Classifier) -> Value) -> Value {
        withWorker { body($0.classifier) }
    }

    func take() -> Worker {
        // SAFETY: a nonzero `spare` is a `Worker` `giveBack` retained; the exchange hands that
        // reference to this call alone, which takes it over.
        if let spare = UnsafeRawPointer(bitPattern: spare.exchange(0, ordering: .acquiring)) {
            return Unmanaged<Worker>.fromOpaque(spare).takeRetainedValue()
        }
        lock.lock()
        let borrowed = idle.popLast()
        lock.unlock()
        return borrowed ?? Worker(self)
    }

    func giveBack(_ worker: Worker) {
        // SAFETY: the retain is stored in `spare` (taken over by `take` or released by `deinit`),
        // or released at once when `spare` is full.
        let retained = Unmanaged.passRetained(worker)
        let bits = UInt(bitPattern: retained.toOpaque())
        if spare.compareExchange(expected: 0, desired: bits, ordering: .releasing).exchanged { return }
        retained.release()
        lock.lock()
        idle.append(worker)
        lock.unlock()
    }

    /// Domain names and app IDs as C strings, made when first asked for (a rules directory may
    /// hold 100 000 domains; a caller usually meets a few). Guarded by `lock`.
    private var domainTexts: [Int: CText] = [:]
    private var appTexts: [Int: [CText]] = [:]

    /// The index of a domain name `Classification` gave (one of the rules' own names).
    func index(ofDomain name: String) -> Int32 {
        var name = name
        let found = name.withUTF8 { rules.table.lookup($0) }
        return found.map { Int32(truncatingIfNeeded: $0) } ?? -1
    }

    func domainText(_ index: Int) -> CText {
        lock.lock()
        defer { lock.unlock() }
        if let known = domainTexts[index] { return known }
        let text = CText(rules.domains[index].name)
        domainTexts[index] = text
        return text
    }

    /// Loads the domain's document if no call has yet.
    func apps(ofDomain index: Int) -> [CText] {
        lock.lock()
        if let known = appTexts[index] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let texts = rules.domains[index].appIDs.map(CText.init)
        lock.lock()
        defer { lock.unlock() }
        if let known = appTexts[index] { return known }
        appTexts[index] = texts
        return texts
    }

}

/// What one call needs on its thread: the classifier (a matcher per domain met) and, for
/// single-domain rules, a matcher of that domain for `decideSolo`.
final class Worker {
    let classifier: Classifier
    let matcher: DFAMatcher?

    init(_ rules: Rules) {
        classifier = Classifier(rules: rules.rules, format: .ndjson)
        matcher = rules.solo.map { DFAMatcher($0.compiled) }
    }

    /// Decides `url` with `matcher` when `classify` would read it unchanged (`readsUnchanged`)
    /// and route it to the one domain, its host the domain. `https://DOMAIN` then `/`, `?`, `#` or the end goes to the
    /// matcher whole (its own prefix check and decision rows, as the Swift API's
    /// `DFAMatcher.decide(_:app:)`); any other URL is split first, as `Classifier` splits and
    /// routes it. The decision is then in `matcher.decidingRule`. `false`, nothing decided, for
    /// any other URL, one that cannot be split, or a work-limit error: the classifier then
    /// makes its result as `classify` does.
    ///
    /// PERF: `make bench-embed` (decide pairing): `aasa_decide` through the classifier took
    /// about 4 500 instructions a URL (callgrind) against 900 for `DFAMatcher.decide(_:app:)` on
    /// the same URLs.
    /// Whether `classify` reads `url`, given as a whole line, as these very bytes: no blank
    /// (space, tab) or line-end CR to trim at its ends, not a JSON object, within the length
    /// limits, valid UTF-8 (checked eight bytes at a time while they are ASCII).
    @inline(__always)
    static func readsUnchanged(_ url: UnsafeBufferPointer<UInt8>, limits: Configuration.Input) -> Bool {
        guard let base = url.baseAddress, let first = url.first, let last = url.last, url.count <= limits.maxURLBytes,
            url.count <= limits.maxLineBytes, first != 0x20, first != 0x09, first != UInt8(ascii: "{"), last != 0x20,
            last != 0x09, last != 0x0D
        else { return false }
        var index = 0
        // SAFETY (every read below): each load reads `index..<index + 8` with `index + 8 <= count`,
        // and each byte read has `index < count`.
        while url.count - index >= 8 {
            if UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return URLLineReader.isValidUTF8(url)
            }
            index += 8
        }
        while index < url.count {
            if url[index] >= 0x80 { return URLLineReader.isValidUTF8(url) }
            index += 1
        }
        return true
    }

    /// Whether `host` is the one domain, ASCII case-insensitively (as `DomainTable` compares;
    /// the domain is stored lowercased).
    @inline(__always)
    static func isDomain(_ host: UnsafeBufferPointer<UInt8>, _ solo: Solo) -> Bool {
        // SAFETY (every read below): `prefix` is `https://` (8 bytes) and the domain, so `8...`
        // lies within it; `index < host.count == domain.count`.
        let domain = UnsafeBufferPointer(rebasing: solo.prefix[8...])
        guard host.count == domain.count else { return false }
        for index in 0..<host.count {
            let byte = host[index]
            let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            if lower != domain[index] { return false }
        }
        return true
    }

    @inline(__always)
    static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    @inline(__always)
    func decideSolo(_ url: UnsafeBufferPointer<UInt8>, _ solo: Solo, limits: Configuration.Input) -> Bool {
        guard let matcher, let base = url.baseAddress, Self.readsUnchanged(url, limits: limits) else { return false }
        let prefix = solo.prefix
        // SAFETY (this line and the next, `&&` short-circuiting): `memcmp` reads `prefix.count`
        // bytes of each only when `url.count >= prefix.count`, and `url[prefix.count]` is read
        // only when `url.count > prefix.count`.
        let plain = url.count >= prefix.count && prefix.baseAddress.map { memcmp(base, $0, prefix.count) == 0 } ?? false
        if !plain || url.count > solo.prefix.count && !Self.endsAuthority(url[solo.prefix.count]) {
            // Split and routed as `Classifier` does; a URL it cannot split, or of another host,
            // goes to the classifier for its record.
            // SAFETY: `split` returns ranges within `url` (`hostStart < hostEnd <= url.count`).
            guard let parts = try? URLSplitter.split(url), Self.isDomain(UnsafeBufferPointer(rebasing: url[parts.host]), solo)
            else { return false }
            matcher.decide(bytes: url, parts: parts)
            return !matcher.workExceeded
        }
        do {
            try matcher.decide(bytes: url)
        } catch {
            return false
        }
        return true
    }
}

private func handOut(_ rules: ClassifierRules, _ configuration: Configuration, into out: UnsafeMutablePointer<OpaquePointer?>) -> aasa_status {
    // SAFETY: every caller checked `out` is non-NULL; the caller lends it to write (aasa.h). The
    // handle owns this reference until `aasa_rules_free`.
    out.pointee = OpaquePointer(Unmanaged.passRetained(Rules(rules, limits: configuration.input)).toOpaque())
    return AASA_OK
}

/// The C string as text, or nil when it is not UTF-8: decoding it with replacement characters
/// would name another file (`rules-\xE9` read as `rules-\u{FFFD}`, which may exist) or another
/// domain.
private func string(_ pointer: UnsafePointer<CChar>) -> String? {
    // SAFETY: the caller passes a NUL-terminated string (aasa.h), read only during the call.
    String(validating: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

@_cdecl("aasa_rules_open_directory")
public func aasa_rules_open_directory(
    _ path: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let path, let out else { return fail(AASA_ERROR_ARGUMENT, "the path or the rules pointer is NULL") }
    let configuration = CABI.options(options)?.configuration ?? .default
    guard let directory = string(path) else { return fail(AASA_ERROR_ARGUMENT, "the path is not UTF-8") }
    // Listed now, each document read and compiled when a URL of its domain first arrives, as
    // `aasa classify --rules` does: compiling every document at open took 450 documents of
    // 11 000 query item names 42 s and 5.3 GB, where the tool met one in 0.05 s.
    let listing: DomainDocuments.Listing
    do {
        listing = try DomainDocuments.listing(directory)
    } catch {
        return fail(AASA_ERROR_RULES, error.description)
    }
    if listing.files.isEmpty {
        return fail(
            AASA_ERROR_RULES,
            "no documents in \(directory) (expected DOMAIN.json, DOMAIN/apple-app-site-association or DOMAIN/.well-known/apple-app-site-association)"
        )
    }
    return handOut(ClassifierRules(listing: listing, engine: .dfa, configuration: configuration), configuration, into: out)
}

@_cdecl("aasa_rules_open_artifact")
public func aasa_rules_open_artifact(
    _ path: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let path, let out else { return fail(AASA_ERROR_ARGUMENT, "the path or the rules pointer is NULL") }
    let configuration = CABI.options(options)?.configuration ?? .default
    guard let file = string(path) else { return fail(AASA_ERROR_ARGUMENT, "the path is not UTF-8") }
    // Mapped, each domain's body checked and decoded when a URL of its host first arrives, as
    // `aasa classify --compiled` does: a damaged body or an automaton over a limit then makes
    // that domain's URLs error results instead of failing the call.
    do {
        let rules = ClassifierRules(artifact: try CompiledArtifact.open(path: file, configuration: configuration))
        return handOut(rules, configuration, into: out)
    } catch {
        return fail(AASA_ERROR_RULES, "cannot load \(file): \(error)")
    }
}

@_cdecl("aasa_rules_open_document")
public func aasa_rules_open_document(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ domain: UnsafePointer<CChar>?, _ options: OpaquePointer?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let domain, let out else { return fail(AASA_ERROR_ARGUMENT, "the domain or the rules pointer is NULL") }
    guard let document = bytesArgument(bytes, length) else { return fail(AASA_ERROR_ARGUMENT, bytesRefusal("the document", length)) }
    let configuration = CABI.options(options)?.configuration ?? .default
    guard let name = string(domain) else { return fail(AASA_ERROR_ARGUMENT, "the domain is not UTF-8") }
    // A domain no URL's host can equal would make every URL quietly get no document.
    if let problem = DomainName.documentDomainProblem(name) { return fail(AASA_ERROR_ARGUMENT, "\(problem), not '\(name)'") }
    let documents = DomainDocuments.single(bytes: document, name: "the document of \(name)", domain: name, configuration: configuration)
    let rules = ClassifierRules(documents: documents, engine: .dfa, configuration: configuration)
    if let failure = rules.failures.first { return fail(AASA_ERROR_RULES, failure.reason) }
    return handOut(rules, configuration, into: out)
}

@_cdecl("aasa_rules_free")
public func aasa_rules_free(_ rules: OpaquePointer?) {
    guard let rules else { return }
    // SAFETY: a handle an open call gave, freed once by the caller when no call on it runs
    // (aasa.h): this drops the reference it held.
    Unmanaged<Rules>.fromOpaque(UnsafeRawPointer(rules)).release()
}

private func rules(_ pointer: OpaquePointer?) -> Rules? {
    // SAFETY: a handle an open call gave, which the caller keeps alive for the whole call (aasa.h);
    // the reference returned holds it meanwhile.
    pointer.map { Unmanaged<Rules>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

/// Why `bytesArgument` refused `what`: a length past `SSIZE_MAX` (negative as `Int`) is named
/// as such, whatever the pointer, rather than blamed on a pointer that may not be NULL.
private func bytesRefusal(_ what: String, _ length: Int) -> String {
    length < 0 ? "the length of \(what) is past SSIZE_MAX" : "\(what) is NULL with a length above 0"
}

/// `length` bytes at `pointer` as a buffer; `nil` for a NULL pointer with a length above 0 (or
/// a length that is negative as `Int`, a `size_t` past `Int.max`).
private func bytesArgument(_ pointer: UnsafeRawPointer?, _ length: Int) -> UnsafeBufferPointer<UInt8>? {
    guard length >= 0 else { return nil }
    guard let pointer else { return length == 0 ? UnsafeBufferPointer(start: nil, count: 0) : nil }
    // SAFETY: the caller promises `length` readable bytes at `pointer` (aasa.h); they are only
    // read, as bytes, during the call.
    return UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: length)
}

/// How many URLs a batch call reserves room for before it has read them: the caller's count
/// is only a promise.
private let reservedPieces = 65_536

/// The URLs of a batch call, checked before any is classified.
private func batch(
    _ urls: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int>?, _ count: Int
) -> Result<[UnsafeBufferPointer<UInt8>], aasa_status> {
    guard count >= 0 else { return .failure(fail(AASA_ERROR_ARGUMENT, "the count is too large")) }
    if count == 0 { return .success([]) }
    guard let urls, let lengths else { return .failure(fail(AASA_ERROR_ARGUMENT, "the URLs or their lengths are NULL")) }
    var buffers: [UnsafeBufferPointer<UInt8>] = []
    // Not `count` itself: a wrong count must give the argument error below, not an allocation
    // that aborts first.
    buffers.reserveCapacity(min(count, reservedPieces))
    for index in 0..<count {
        // SAFETY: the caller promises `count` pointers and `count` lengths (aasa.h).
        guard let url = bytesArgument(urls[index].map(UnsafeRawPointer.init), lengths[index]) else {
            return .failure(fail(AASA_ERROR_ARGUMENT, bytesRefusal("URL \(index)", lengths[index])))
        }
        buffers.append(url)
    }
    return .success(buffers)
}

// MARK: Results as values

/// Rules of one domain with a compiled document, and what a result of it copies. A class: a
/// call copies one reference, not its arrays; its bytes in buffers of its own, read without a
/// closure (a closure capturing the result being built cost an exclusivity check per call).
final class Solo: @unchecked Sendable {
    // SAFETY (`@unchecked Sendable`): nothing changes after `init`; the buffers are only read.
    let compiled: CompiledDocument
    /// `https://` and the domain.
    let prefix: UnsafeMutableBufferPointer<UInt8>
    /// The strings of a result: the domain, then each app, each with its NUL.
    let text: UnsafeMutableBufferPointer<UInt8>
    /// Per app: its offset in `text` and length.
    let apps: [(offset: Int, length: Int)]
    let domainLength: Int
    /// Per rule id: its entry and rule index and whether it excludes.
    let positions: [(entry: Int64, rule: Int64, exclude: Bool)]

    init?(_ rules: ClassifierRules) {
        guard rules.domains.count == 1, let only = rules.domains.first, case .compiled(let compiled) = only.state,
            only.appIDs.count == compiled.appIDs.count
        else { return nil }
        self.compiled = compiled
        var text = Array(only.name.utf8) + [0]
        domainLength = text.count - 1
        var apps: [(Int, Int)] = []
        for app in only.appIDs {
            apps.append((text.count, app.utf8.count))
            text += Array(app.utf8) + [0]
        }
        self.text = heapCopy(text)
        self.prefix = heapCopy(Array("https://".utf8) + Array(only.name.utf8))
        self.apps = apps
        positions = compiled.rules.map { (Int64($0.entryIndex), Int64($0.ruleIndex), $0.exclude) }
    }

    deinit {
        // SAFETY: both were allocated in `init` (`heapCopy`) and are freed once, here.
        prefix.deallocate()
        text.deallocate()
    }
}

/// `aasa_results`: one `malloc` block, freed by one `free`: the count, the `aasa_result`s,
/// their `aasa_app_decision`s, then every string they point to.
///
/// PERF: one allocation per call instead of a class instance and three buffers; with
/// `decideSolo`, `aasa_decide` went to within 10% of the Swift API (`make bench-embed`).
struct ResultsBlock {
    static let header = 16
    let base: UnsafeMutableRawPointer
    let results: UnsafeMutablePointer<aasa_result>
    let apps: UnsafeMutablePointer<aasa_app_decision>
    private var text: UnsafeMutablePointer<UInt8>
    private var textLeft: Int

    init?(count: Int, apps appCount: Int, textBytes: Int) {
        let resultBytes = count * MemoryLayout<aasa_result>.stride
        let appBytes = appCount * MemoryLayout<aasa_app_decision>.stride
        guard let base = malloc(Self.header + resultBytes + appBytes + max(textBytes, 1)) else { return nil }
        // SAFETY: `malloc` aligns for any type; the header's 16 bytes and the strides keep each
        // part aligned for its type, and the block holds all three parts.
        base.storeBytes(of: count, as: Int.self)
        results = (base + Self.header).bindMemory(to: aasa_result.self, capacity: count)
        apps = (base + Self.header + resultBytes).bindMemory(to: aasa_app_decision.self, capacity: appCount)
        text = (base + Self.header + resultBytes + appBytes).bindMemory(to: UInt8.self, capacity: max(textBytes, 1))
        textLeft = textBytes
        self.base = base
    }

    /// Copies `bytes` and a NUL into the text part.
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        assert(bytes.count < textLeft, "the text part was sized for every string")
        // Clamped, so that a wrong sizing would cut the string short rather than copy past the
        // block (its NUL would still need `textLeft >= 1`, which the sizing gives).
        let count = min(bytes.count, max(textLeft - 1, 0))
        // SAFETY (the copy, the NUL and `start`): `make` sizes the text part for every string and
        // its NUL, so `textLeft > bytes.count >= count` (asserted above): `count` bytes and a NUL
        // fit in what is left. The bytes are `UInt8`, read by C as `char`.
        if let source = bytes.baseAddress, count > 0 { text.update(from: source, count: count) }
        text[count] = 0
        let start = UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self)
        let used = min(count + 1, textLeft)
        text += used
        textLeft -= used
        return start
    }

    mutating func put(_ string: String?) -> (UnsafePointer<CChar>?, Int) {
        guard var string else { return (nil, 0) }
        return string.withUTF8 { (put($0), $0.count) }
    }

    /// The bytes `make` takes for `item`: its result, its decisions, and its strings with their
    /// NULs (every app ID is copied into every result that names it).
    static func bytes(of item: Classification) -> Int {
        var text = (item.domain?.utf8.count ?? 0) + (item.error?.utf8.count ?? 0) + 2
        for decision in item.decisions { text += decision.app.utf8.count + 1 }
        return MemoryLayout<aasa_result>.stride + item.decisions.count * MemoryLayout<aasa_app_decision>.stride + text
    }

    /// The values of `classifications`, in order.
    static func make(_ classifications: [Classification]) -> ResultsBlock? {
        var appCount = 0
        var textBytes = 0
        for item in classifications {
            appCount += item.decisions.count
            textBytes += (item.domain?.utf8.count ?? 0) + (item.error?.utf8.count ?? 0) + 2
            for decision in item.decisions { textBytes += decision.app.utf8.count + 1 }
        }
        guard var block = ResultsBlock(count: classifications.count, apps: appCount, textBytes: textBytes) else { return nil }
        var appsUsed = 0
        for (index, item) in classifications.enumerated() {
            let (domain, domainLength) = block.put(item.domain)
            let (error, errorLength) = block.put(item.error)
            let first = appsUsed
            var opened = 0
            for decision in item.decisions {
                let (app, appLength) = block.put(decision.app)
                let kind: aasa_decision
                switch decision.kind {
                case .match:
                    kind = AASA_MATCH
                    opened += 1
                case .exclude: kind = AASA_EXCLUDE
                case .noMatch: kind = AASA_NO_MATCH
                }
                // SAFETY: `appCount` is the sum of every result's decisions, so `appsUsed` stays
                // below it.
                (block.apps + appsUsed).initialize(
                    to: aasa_app_decision(
                        app: app, app_length: appLength, decision: kind, entry: Int64(decision.entry ?? -1),
                        rule: Int64(decision.rule ?? -1)))
                appsUsed += 1
            }
            // SAFETY: `index` < `classifications.count`, the block's result count.
            (block.results + index).initialize(
                to: aasa_result(
                    domain: domain, domain_length: domainLength, error: error, error_length: errorLength,
                    apps: UnsafePointer(block.apps + first), app_count: item.decisions.count, opened: opened))
        }
        return block
    }

    /// One result from `matcher.decidingRule` after `Worker.decideSolo`.
    static func make(solo: Solo, matcher: DFAMatcher) -> ResultsBlock? {
        let decided = matcher.decidingRule
        guard decided.count == solo.apps.count, var block = ResultsBlock(count: 1, apps: decided.count, textBytes: solo.text.count)
        else { return nil }
        // The strings in one copy, NULs included; the last NUL is `put`'s own.
        // SAFETY: `solo.text` holds at least the domain's NUL, so the range lies within it; the
        // text part has its `count` bytes. The copy then holds all of `solo.text`, so each app's
        // `offset` below points into it.
        let text = block.put(UnsafeBufferPointer(rebasing: solo.text[0..<(solo.text.count - 1)]))
        var opened = 0
        for index in 0..<decided.count {
            let rule = Int(decided[index])
            var decision = aasa_app_decision(
                app: text + solo.apps[index].offset, app_length: solo.apps[index].length, decision: AASA_NO_MATCH, entry: -1,
                rule: -1)
            if rule >= 0, rule < solo.positions.count {
                let position = solo.positions[rule]
                decision.decision = position.exclude ? AASA_EXCLUDE : AASA_MATCH
                decision.entry = position.entry
                decision.rule = position.rule
                if !position.exclude { opened += 1 }
            }
            // SAFETY: the block holds `decided.count` app decisions.
            (block.apps + index).initialize(to: decision)
        }
        // SAFETY: the block holds one result.
        block.results.initialize(
            to: aasa_result(
                domain: text, domain_length: solo.domainLength, error: nil, error_length: 0, apps: UnsafePointer(block.apps),
                app_count: decided.count, opened: opened))
        return block
    }
}

private func handOut(_ block: ResultsBlock?, into out: UnsafeMutablePointer<OpaquePointer?>) -> aasa_status {
    guard let block else { return fail(AASA_ERROR_MEMORY, "out of memory for the results") }
    // SAFETY: every caller checked `out` is non-NULL; the caller lends it to write (aasa.h).
    out.pointee = OpaquePointer(block.base)
    return AASA_OK
}

/// Held to `CABI.maxBatchBytes` by the block's whole size, strings included: counting the
/// decisions alone let 21 000 URLs of a document of 1 250 hundred-letter app IDs return a
/// 3.45 GiB block (an audit's finding).
private func classify(_ rules: Rules, _ urls: [UnsafeBufferPointer<UInt8>], into out: UnsafeMutablePointer<OpaquePointer?>) -> aasa_status {
    var bytes = 0
    let classifications = rules.withClassifier { classifier in
        var classifications: [Classification] = []
        for url in urls {
            guard bytes <= CABI.maxBatchBytes else { break }
            let classification = classifier.classification(ofWholeLine: url, limits: rules.limits)
            bytes += ResultsBlock.bytes(of: classification)
            classifications.append(classification)
        }
        return classifications
    }
    if bytes > CABI.maxBatchBytes {
        return CABI.batchTooLarge(done: classifications.count, of: urls.count)
    }
    return handOut(ResultsBlock.make(classifications), into: out)
}

@_cdecl("aasa_decide")
public func aasa_decide(
    _ pointer: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ length: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let pointer, let out else { return fail(AASA_ERROR_ARGUMENT, "the rules or the results pointer is NULL") }
    guard let bytes = bytesArgument(url.map(UnsafeRawPointer.init), length) else {
        return fail(AASA_ERROR_ARGUMENT, bytesRefusal("the URL", length))
    }
    // PERF: the handle borrowed, not retained, for the call (the caller keeps it alive, aasa.h),
    // and the worker taken and given back by hand: fewer reference-count operations per URL
    // (decide_bench under callgrind, `make bench-embed`).
    // SAFETY: `pointer` is a handle an open call gave, which the caller keeps alive for the whole
    // call (aasa.h).
    return Unmanaged<Rules>.fromOpaque(UnsafeRawPointer(pointer))._withUnsafeGuaranteedRef { rules in
        let worker = rules.take()
        defer { rules.giveBack(worker) }
        if let solo = rules.solo, let matcher = worker.matcher, worker.decideSolo(bytes, solo, limits: rules.limits) {
            return handOut(ResultsBlock.make(solo: solo, matcher: matcher), into: out)
        }
        return handOut(ResultsBlock.make([worker.classifier.classification(ofWholeLine: bytes, limits: rules.limits)]), into: out)
    }
}

@_cdecl("aasa_classify")
public func aasa_classify(
    _ pointer: OpaquePointer?, _ urls: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int>?, _ count: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let rules = rules(pointer), let out else { return fail(AASA_ERROR_ARGUMENT, "the rules or the results pointer is NULL") }
    switch batch(urls, lengths, count) {
    case .failure(let status): return status
    case .success(let buffers): return classify(rules, buffers, into: out)
    }
}

@_cdecl("aasa_results_count")
public func aasa_results_count(_ pointer: OpaquePointer?) -> Int {
    guard let pointer else { return 0 }
    // SAFETY: a block `aasa_decide` or `aasa_classify` gave and the caller has not freed (aasa.h);
    // its first word is the count `ResultsBlock.init` stored.
    return UnsafeRawPointer(pointer).load(as: Int.self)
}

@_cdecl("aasa_results_at")
public func aasa_results_at(_ pointer: OpaquePointer?, _ index: Int) -> UnsafePointer<aasa_result>? {
    guard let pointer, index >= 0, index < aasa_results_count(pointer) else { return nil }
    // SAFETY: a block of `ResultsBlock`, whose results follow the header; `index` is in range.
    return (UnsafeRawPointer(pointer) + ResultsBlock.header).assumingMemoryBound(to: aasa_result.self) + index
}

@_cdecl("aasa_results_free")
public func aasa_results_free(_ pointer: OpaquePointer?) {
    // SAFETY: NULL, or a block `ResultsBlock.init` `malloc`ed, freed once by the caller (aasa.h).
    free(UnsafeMutableRawPointer(pointer))
}

// MARK: Results as columns

/// A batch's results as flat arrays (`aasa_columns`), for bindings that read a whole batch
/// back at once: per URL a domain index into the rules and an error index, per decision its
/// kind, entry and rule; no string is copied but the error texts.
///
/// PERF: `make bench-embed`: Python's `Rules.classify` on 425 425 real URLs went from 0.1 M
/// URLs/s (a `ctypes` struct read per URL, a `Result` made per URL) to 1.5–2 M URLs/s on a
/// loaded machine with this layout and one joined input buffer.
/// Each URL goes through `Classifier.withOutcome`, the routing `classify` uses, its answer
/// copied from the lent outcome: 900 instructions a URL in `aasa_classify_columns` on those
/// URLs, warm (callgrind, the batch twice − once).
final class Columns {
    /// Allocated, so that the pointer handed out stays put.
    let header: UnsafeMutablePointer<aasa_columns>
    private let domain: UnsafeMutableBufferPointer<Int32>
    private let error: UnsafeMutableBufferPointer<Int32>
    private let first: UnsafeMutableBufferPointer<UInt32>
    private let decision: UnsafeMutableBufferPointer<UInt8>
    private let entry: UnsafeMutableBufferPointer<Int32>
    private let rule: UnsafeMutableBufferPointer<Int32>
    private let errorText: UnsafeMutableBufferPointer<UInt8>
    private let errorEnds: UnsafeMutableBufferPointer<Int>

    /// `urls(index)` is URL `index`'s bytes, for `index` in `0..<count`.
    /// `nil` when the decisions pass `CABI.maxBatchBytes`; `done` then says how many URLs it took.
    init?(rules: Rules, count: Int, done: inout Int, urls: (Int) -> UnsafeBufferPointer<UInt8>) {
        // SAFETY: each freed once: in `deinit`, or below when the batch is too large (a failed
        // `init` runs no `deinit`).
        let domain = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(count, 1))
        let error = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(count, 1))
        let first = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count + 1)
        (self.domain, self.error, self.first) = (domain, error, first)
        var kinds: [UInt8] = []
        var entries: [Int32] = []
        var ruleIndices: [Int32] = []
        var texts: [UInt8] = []
        var ends: [Int] = []
        // A decision takes 9 bytes (kind, entry, rule).
        var tooLarge: Bool { kinds.count * 9 + texts.count > CABI.maxBatchBytes }
        rules.withWorker { worker in
            for index in 0..<count {
                guard !tooLarge else { return }
                done = index + 1
                let url = urls(index)
                // SAFETY (this store and those in the closure below): `index` < `count`, the
                // capacity of `domain`, `error` and `first`.
                first[index] = UInt32(truncatingIfNeeded: kinds.count)
                worker.classifier.withOutcome(ofWholeLine: url, limits: rules.limits) { outcome in
                    domain[index] = outcome.domain.map { Int32(truncatingIfNeeded: $0) } ?? -1
                    if let message = outcome.error {
                        error[index] = Int32(truncatingIfNeeded: ends.count)
                        texts.append(contentsOf: message.utf8)
                        ends.append(texts.count)
                    } else {
                        error[index] = -1
                    }
                    for id in outcome.decisions {
                        if id < 0 {
                            kinds.append(UInt8(AASA_NO_MATCH.rawValue))
                            entries.append(-1)
                            ruleIndices.append(-1)
                        } else {
                            let rule = outcome.rule(id)
                            kinds.append(UInt8(rule.exclude ? AASA_EXCLUDE.rawValue : AASA_MATCH.rawValue))
                            entries.append(Int32(truncatingIfNeeded: rule.entry))
                            ruleIndices.append(Int32(truncatingIfNeeded: rule.rule))
                        }
                    }
                }
            }
        }
        if tooLarge {
            domain.deallocate()
            error.deallocate()
            first.deallocate()
            return nil
        }
        done = count
        // SAFETY: `first` holds `count + 1` elements.
        first[count] = UInt32(truncatingIfNeeded: kinds.count)
        let decision = heapCopy(kinds)
        let entry = heapCopy(entries)
        let rule = heapCopy(ruleIndices)
        let errorText = heapCopy(texts)
        let errorEnds = heapCopy(ends)
        (self.decision, self.entry, self.rule, self.errorText, self.errorEnds) = (decision, entry, rule, errorText, errorEnds)
        // SAFETY: allocated and initialized here, freed once in `deinit`; the arrays it points to
        // live as long as this object, and `errorText` holds `UInt8`s read by C as `char`.
        header = .allocate(capacity: 1)
        header.initialize(to: aasa_columns(
            count: count, domain: UnsafePointer(domain.baseAddress), error: UnsafePointer(error.baseAddress),
            first: UnsafePointer(first.baseAddress), decision_count: kinds.count, decision: UnsafePointer(decision.baseAddress),
            entry: UnsafePointer(entry.baseAddress), rule: UnsafePointer(rule.baseAddress),
            error_count: ends.count, error_text: UnsafeRawPointer(errorText.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) },
            error_ends: UnsafePointer(errorEnds.baseAddress)))
    }

    deinit {
        // SAFETY: `deinit` runs only after a complete `init`, which allocated each buffer; each is
        // freed once, here.
        header.deallocate()
        domain.deallocate()
        error.deallocate()
        first.deallocate()
        decision.deallocate()
        entry.deallocate()
        rule.deallocate()
        errorText.deallocate()
        errorEnds.deallocate()
    }
}

/// The URLs of `aasa_classify_columns`: `count` pieces of one buffer, cut at line feeds or at
/// the given ends; `nil` (with the error set) when they do not fit the buffer.
private func pieces(
    _ bytes: UnsafeBufferPointer<UInt8>, ends: UnsafePointer<Int>?, count: Int
) -> Result<[Range<Int>], aasa_status> {
    guard count >= 0 else { return .failure(fail(AASA_ERROR_ARGUMENT, "the count is too large")) }
    var ranges: [Range<Int>] = []
    // Not `count` itself, nor `bytes.count + 1` (the most pieces line feeds can cut): both come
    // from the caller, and a wrong one must be an argument error, not an allocation that aborts
    // (or, for a length of `SSIZE_MAX`, an overflow). The array grows past this as pieces come.
    ranges.reserveCapacity(min(count, reservedPieces))
    if let ends {
        var start = 0
        for index in 0..<count {
            // SAFETY: the caller promises `count` ends (aasa.h).
            let end = ends[index]
            guard end >= start, end <= bytes.count else {
                return .failure(fail(AASA_ERROR_ARGUMENT, "end \(index) (\(end)) is before the previous one or past the buffer"))
            }
            ranges.append(start..<end)
            start = end
        }
        return .success(ranges)
    }
    if count == 0 {
        guard bytes.isEmpty else { return .failure(fail(AASA_ERROR_ARGUMENT, "no URLs, but \(bytes.count) bytes")) }
        return .success([])
    }
    guard let base = bytes.baseAddress else {
        guard count == 1 else { return .failure(fail(AASA_ERROR_ARGUMENT, "\(count) URLs, but no bytes")) }
        return .success([0..<0])
    }
    var start = 0
    while true {
        // SAFETY: `start` <= `bytes.count`, so the search stays inside the buffer.
        guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { break }
        let newline = UnsafeRawPointer(found) - UnsafeRawPointer(base)
        guard ranges.count < count - 1 else { return .failure(fail(AASA_ERROR_ARGUMENT, lineFeedMismatch(count))) }
        ranges.append(start..<newline)
        start = newline + 1
    }
    ranges.append(start..<bytes.count)
    guard ranges.count == count else { return .failure(fail(AASA_ERROR_ARGUMENT, lineFeedMismatch(count))) }
    return .success(ranges)
}

private func lineFeedMismatch(_ count: Int) -> String {
    "the buffer does not hold \(count) URLs separated by \(count - 1) line feeds"
}

@_cdecl("aasa_classify_columns")
public func aasa_classify_columns(
    _ pointer: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ length: Int, _ ends: UnsafePointer<Int>?, _ count: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let rules = rules(pointer), let out else { return fail(AASA_ERROR_ARGUMENT, "the rules or the columns pointer is NULL") }
    guard let buffer = bytesArgument(bytes, length) else { return fail(AASA_ERROR_ARGUMENT, bytesRefusal("the URLs", length)) }
    switch pieces(buffer, ends: ends, count: count) {
    case .failure(let status): return status
    case .success(let ranges):
        var done = 0
        // SAFETY: `pieces` kept every range within `0...buffer.count`.
        guard let columns = Columns(rules: rules, count: ranges.count, done: &done, urls: { UnsafeBufferPointer(rebasing: buffer[ranges[$0]]) })
        else { return CABI.batchTooLarge(done: done, of: ranges.count) }
        // SAFETY: `out` is non-NULL (checked above), lent by the caller to write (aasa.h); the
        // batch handle owns this reference until `aasa_batch_free`.
        out.pointee = OpaquePointer(Unmanaged.passRetained(columns).toOpaque())
        return AASA_OK
    }
}

@_cdecl("aasa_batch_columns")
public func aasa_batch_columns(_ pointer: OpaquePointer?) -> UnsafePointer<aasa_columns>? {
    guard let pointer else { return nil }
    // SAFETY: a batch handle the caller has not freed (aasa.h); `header` lives as long as it.
    return UnsafePointer(Unmanaged<Columns>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue().header)
}

@_cdecl("aasa_batch_free")
public func aasa_batch_free(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    // SAFETY: a batch handle `aasa_classify_columns` gave, freed once by the caller (aasa.h).
    Unmanaged<Columns>.fromOpaque(UnsafeRawPointer(pointer)).release()
}

// MARK: Domains and apps by index

/// A NUL-terminated copy of a string, alive as long as the handle that keeps it.
final class CText: @unchecked Sendable {
    // SAFETY (`@unchecked Sendable`): `bytes` is written in `init` only, then only read.
    private let bytes: UnsafeMutableBufferPointer<CChar>

    init(_ string: String) {
        let utf8 = Array(string.utf8CString)
        // SAFETY: exactly `utf8.count` elements, all initialized here, freed once in `deinit`.
        bytes = .allocate(capacity: utf8.count)
        _ = bytes.initialize(from: utf8)
    }

    func text(_ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
        // SAFETY: `length` is NULL or a `size_t` the caller lends for the call (aasa.h).
        length?.pointee = bytes.count - 1
        return UnsafePointer(bytes.baseAddress)
    }

    deinit { bytes.deallocate() }
}

@_cdecl("aasa_rules_domain_count")
public func aasa_rules_domain_count(_ pointer: OpaquePointer?) -> Int {
    rules(pointer)?.rules.domains.count ?? 0
}

@_cdecl("aasa_rules_domain")
public func aasa_rules_domain(_ pointer: OpaquePointer?, _ index: Int, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let rules = rules(pointer), index >= 0, index < rules.rules.domains.count else { return nil }
    return rules.domainText(index).text(length)
}

@_cdecl("aasa_rules_app_count")
public func aasa_rules_app_count(_ pointer: OpaquePointer?, _ domain: Int) -> Int {
    guard let rules = rules(pointer), domain >= 0, domain < rules.rules.domains.count else { return 0 }
    return rules.apps(ofDomain: domain).count
}

@_cdecl("aasa_rules_app")
public func aasa_rules_app(_ pointer: OpaquePointer?, _ domain: Int, _ app: Int, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    guard let rules = rules(pointer), domain >= 0, domain < rules.rules.domains.count else { return nil }
    let apps = rules.apps(ofDomain: domain)
    guard app >= 0, app < apps.count else { return nil }
    return apps[app].text(length)
}

// MARK: Results as bytes

@_cdecl("aasa_classify_ndjson")
public func aasa_classify_ndjson(
    _ pointer: OpaquePointer?, _ urls: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int>?, _ count: Int,
    _ output: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outputLength: UnsafeMutablePointer<Int>?
) -> aasa_status {
    guard let rules = rules(pointer), let output, let outputLength else {
        return fail(AASA_ERROR_ARGUMENT, "the rules or an output pointer is NULL")
    }
    switch batch(urls, lengths, count) {
    case .failure(let status): return status
    case .success(let buffers):
        let records = RecordBuffer()
        var done = 0
        rules.withClassifier { classifier in
            for url in buffers {
                guard records.count <= CABI.maxBatchBytes else { return }
                classifier.classify(wholeLine: url, limits: rules.limits, into: records)
                done += 1
            }
        }
        if records.count > CABI.maxBatchBytes { return CABI.batchTooLarge(done: done, of: buffers.count) }
        let copy = records.withBytes { bytes -> UnsafeMutableRawPointer? in
            // SAFETY: the copy has room for the `bytes.count` bytes read from `base`.
            guard let copy = malloc(max(bytes.count, 1)) else { return nil }
            if let base = bytes.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
            return copy
        }
        guard let copy else { return fail(AASA_ERROR_MEMORY, "out of memory for \(records.count) bytes of records") }
        // SAFETY: both are non-NULL (checked above), lent by the caller to write (aasa.h).
        output.pointee = copy.assumingMemoryBound(to: CChar.self)
        outputLength.pointee = records.count
        return AASA_OK
    }
}

@_cdecl("aasa_free")
public func aasa_free(_ bytes: UnsafeMutableRawPointer?) {
    // SAFETY: NULL, or what `aasa_classify_ndjson` `malloc`ed, freed once by the caller (aasa.h).
    free(bytes)
}

/// Names the module's free functions where a parameter shadows them.
enum CABI {
    /// The most bytes one batch call's results may take (records, decisions): a batch returns
    /// its results whole, and a record lists every app of its document, so 12 000 URLs of a
    /// document naming 10 000 apps asked for 8 GB and the allocation aborted the caller's
    /// process. Past it the call fails with `AASA_ERROR_MEMORY`, naming how many URLs fitted.
    static let maxBatchBytes = 1 << 30

    /// The failure of a batch whose results passed `maxBatchBytes` after `done` of `count` URLs.
    static func batchTooLarge(done: Int, of count: Int) -> aasa_status {
        fail(
            AASA_ERROR_MEMORY,
            "the results of this batch pass \(maxBatchBytes >> 20) MiB after \(done) of its \(count) URLs (a result lists every app of its document): classify fewer URLs per call")
    }

    static func options(_ pointer: OpaquePointer?) -> Options? {
        // SAFETY: a handle `aasa_options_new` gave, which the caller keeps alive for the call
        // (aasa.h).
        pointer.map { Unmanaged<Options>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}

/// A failed call's status, carried through `Result` by the helpers that check arguments.
extension aasa_status: @retroactive Error {}

/// `array` in memory the caller owns and frees with `deallocate()` (at least one element, so
/// the pointer handed to C is never NULL).
private func heapCopy<Element>(_ array: [Element]) -> UnsafeMutableBufferPointer<Element> {
    // SAFETY: the first `array.count` slots are initialized; readers read only those (a spare slot
    // for an empty array is never read), and the owner frees it once.
    let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(array.count, 1))
    _ = buffer.initialize(from: array)
    return buffer
}
