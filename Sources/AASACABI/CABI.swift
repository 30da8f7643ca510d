import AASAKit
import CAASA
import Foundation

// The C ABI of include/aasa.h. Handles are retained Swift objects behind opaque pointers; every
// entry point checks its pointers before touching them and reports failures through a status
// and the calling thread's last error, so no input reaches a trap.

// MARK: Errors

/// The calling thread's last error: a `strdup`ed message, freed when replaced or at thread exit.
private let lastErrorKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { free($0) }
    return key
}()

private func fail(_ status: aasa_status, _ message: String) -> aasa_status {
    free(pthread_getspecific(lastErrorKey))
    pthread_setspecific(lastErrorKey, strdup(message))
    return status
}

private let noError: StaticString = ""

@_cdecl("aasa_last_error")
public func aasa_last_error() -> UnsafePointer<CChar> {
    if let message = pthread_getspecific(lastErrorKey) { return UnsafePointer(message.assumingMemoryBound(to: CChar.self)) }
    return UnsafeRawPointer(noError.utf8Start).assumingMemoryBound(to: CChar.self)
}

// MARK: Options

final class Options {
    var configuration = Configuration()
}

@_cdecl("aasa_options_new")
public func aasa_options_new() -> OpaquePointer? {
    OpaquePointer(Unmanaged.passRetained(Options()).toOpaque())
}

@_cdecl("aasa_options_free")
public func aasa_options_free(_ options: OpaquePointer?) {
    guard let options else { return }
    Unmanaged<Options>.fromOpaque(UnsafeRawPointer(options)).release()
}

private func limit(named name: UnsafePointer<CChar>?) -> Result<Configuration.Limit, aasa_status> {
    guard let name else { return .failure(fail(AASA_ERROR_ARGUMENT, "the limit name is NULL")) }
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
        value.pointee = UInt64(options.configuration[limit])
        return AASA_OK
    }
}

// MARK: Rules

/// Loaded rules, shared by every thread, and the per-thread matchers they lend out.
///
/// A `Classifier` owns DFA caches and must be used by one thread at a time, as each of the
/// tool's workers owns one over the shared `ClassifierRules`. A call borrows an idle one (or
/// makes one) and gives it back, so concurrent calls never share one and caches stay warm
/// from call to call.
final class Rules: @unchecked Sendable {
    let rules: ClassifierRules
    let limits: Configuration.Input
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var idle: [Classifier] = []

    init(_ rules: ClassifierRules, limits: Configuration.Input) {
        self.rules = rules
        self.limits = limits
    }

    func withClassifier<Value>(_ body: (Classifier) -> Value) -> Value {
        lock.lock()
        let borrowed = idle.popLast()
        lock.unlock()
        let classifier = borrowed ?? Classifier(rules: rules, format: .ndjson)
        defer {
            lock.lock()
            idle.append(classifier)
            lock.unlock()
        }
        return body(classifier)
    }
}

private func handOut(_ rules: ClassifierRules, _ configuration: Configuration, into out: UnsafeMutablePointer<OpaquePointer?>) -> aasa_status {
    out.pointee = OpaquePointer(Unmanaged.passRetained(Rules(rules, limits: configuration.input)).toOpaque())
    return AASA_OK
}

private func string(_ pointer: UnsafePointer<CChar>) -> String {
    String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

@_cdecl("aasa_rules_open_directory")
public func aasa_rules_open_directory(
    _ path: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let path, let out else { return fail(AASA_ERROR_ARGUMENT, "the path or the rules pointer is NULL") }
    let configuration = CABI.options(options)?.configuration ?? .default
    let directory = string(path)
    let documents: DomainDocuments
    do {
        documents = try DomainDocuments.directory(directory, configuration: configuration)
    } catch {
        return fail(AASA_ERROR_RULES, error.description)
    }
    if documents.sources.isEmpty {
        return fail(
            AASA_ERROR_RULES,
            "no documents in \(directory) (expected DOMAIN.json, DOMAIN/apple-app-site-association or DOMAIN/.well-known/apple-app-site-association)"
        )
    }
    return handOut(ClassifierRules(documents: documents, engine: .dfa, configuration: configuration), configuration, into: out)
}

@_cdecl("aasa_rules_open_artifact")
public func aasa_rules_open_artifact(
    _ path: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let path, let out else { return fail(AASA_ERROR_ARGUMENT, "the path or the rules pointer is NULL") }
    let configuration = CABI.options(options)?.configuration ?? .default
    let file = string(path)
    do {
        let rules = ClassifierRules(artifact: try CompiledArtifact.load(path: file, configuration: configuration))
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
    guard let document = bytesArgument(bytes, length) else { return fail(AASA_ERROR_ARGUMENT, "the document is NULL with a length above 0") }
    let configuration = CABI.options(options)?.configuration ?? .default
    let name = string(domain)
    let documents = DomainDocuments.single(bytes: Array(document), name: "the document of \(name)", domain: name, configuration: configuration)
    let rules = ClassifierRules(documents: documents, engine: .dfa, configuration: configuration)
    if let failure = rules.failures.first { return fail(AASA_ERROR_RULES, failure.reason) }
    return handOut(rules, configuration, into: out)
}

@_cdecl("aasa_rules_free")
public func aasa_rules_free(_ rules: OpaquePointer?) {
    guard let rules else { return }
    Unmanaged<Rules>.fromOpaque(UnsafeRawPointer(rules)).release()
}

private func rules(_ pointer: OpaquePointer?) -> Rules? {
    pointer.map { Unmanaged<Rules>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
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

/// The URLs of a batch call, checked before any is classified.
private func batch(
    _ urls: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int>?, _ count: Int
) -> Result<[UnsafeBufferPointer<UInt8>], aasa_status> {
    guard count >= 0 else { return .failure(fail(AASA_ERROR_ARGUMENT, "the count is too large")) }
    if count == 0 { return .success([]) }
    guard let urls, let lengths else { return .failure(fail(AASA_ERROR_ARGUMENT, "the URLs or their lengths are NULL")) }
    var buffers: [UnsafeBufferPointer<UInt8>] = []
    buffers.reserveCapacity(count)
    for index in 0..<count {
        // SAFETY: the caller promises `count` pointers and `count` lengths (aasa.h).
        guard let url = bytesArgument(urls[index].map(UnsafeRawPointer.init), lengths[index]) else {
            return .failure(fail(AASA_ERROR_ARGUMENT, "URL \(index) is NULL with a length above 0"))
        }
        buffers.append(url)
    }
    return .success(buffers)
}

// MARK: Results as values

/// The results of one call, laid out as the C structs, with every string they point to.
final class Results {
    let results: UnsafeMutableBufferPointer<aasa_result>
    private let apps: UnsafeMutableBufferPointer<aasa_app_decision>
    private let text: UnsafeMutableBufferPointer<UInt8>

    init(_ classifications: [Classification]) {
        var appCount = 0
        var textBytes = 0
        for item in classifications {
            appCount += item.decisions.count
            textBytes += (item.domain?.utf8.count ?? 0) + (item.error?.utf8.count ?? 0) + 2
            for decision in item.decisions { textBytes += decision.app.utf8.count + 1 }
        }
        count = classifications.count
        let results = UnsafeMutableBufferPointer<aasa_result>.allocate(capacity: max(classifications.count, 1))
        let apps = UnsafeMutableBufferPointer<aasa_app_decision>.allocate(capacity: max(appCount, 1))
        let text = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(textBytes, 1))
        (self.results, self.apps, self.text) = (results, apps, text)
        var textUsed = 0
        var appsUsed = 0
        func put(_ string: String?) -> (UnsafePointer<CChar>?, Int) {
            guard let string else { return (nil, 0) }
            let start = textUsed
            let (_, end) = UnsafeMutableBufferPointer(rebasing: text[start...]).initialize(from: string.utf8)
            // SAFETY: `textBytes` counted every string's UTF-8 bytes plus its NUL, so the NUL
            // after the `end` bytes just written is inside `text`.
            text[start + end] = 0
            textUsed = start + end + 1
            return (UnsafeRawPointer(text.baseAddress.map { $0 + start }).map { $0.assumingMemoryBound(to: CChar.self) }, end)
        }
        for (index, item) in classifications.enumerated() {
            let (domain, domainLength) = put(item.domain)
            let (error, errorLength) = put(item.error)
            let first = appsUsed
            var opened = 0
            for decision in item.decisions {
                let (app, appLength) = put(decision.app)
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
                apps.initializeElement(
                    at: appsUsed,
                    to: aasa_app_decision(
                        app: app, app_length: appLength, decision: kind, entry: Int64(decision.entry ?? -1),
                        rule: Int64(decision.rule ?? -1)))
                appsUsed += 1
            }
            // SAFETY: `index` < `classifications.count`, the capacity of `results`.
            results.initializeElement(
                at: index,
                to: aasa_result(
                    domain: domain, domain_length: domainLength, error: error, error_length: errorLength,
                    apps: UnsafePointer(apps.baseAddress.map { $0 + first }), app_count: item.decisions.count, opened: opened))
        }
    }

    let count: Int

    deinit {
        results.deallocate()
        apps.deallocate()
        text.deallocate()
    }
}

private func classify(_ rules: Rules, _ urls: [UnsafeBufferPointer<UInt8>], into out: UnsafeMutablePointer<OpaquePointer?>) -> aasa_status {
    let classifications = rules.withClassifier { classifier in
        urls.map { classifier.classification(ofWholeLine: $0, limits: rules.limits) }
    }
    out.pointee = OpaquePointer(Unmanaged.passRetained(Results(classifications)).toOpaque())
    return AASA_OK
}

@_cdecl("aasa_decide")
public func aasa_decide(
    _ pointer: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ length: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> aasa_status {
    guard let rules = rules(pointer), let out else { return fail(AASA_ERROR_ARGUMENT, "the rules or the results pointer is NULL") }
    guard let bytes = bytesArgument(url.map(UnsafeRawPointer.init), length) else {
        return fail(AASA_ERROR_ARGUMENT, "the URL is NULL with a length above 0")
    }
    return classify(rules, [bytes], into: out)
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

private func results(_ pointer: OpaquePointer?) -> Results? {
    pointer.map { Unmanaged<Results>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

@_cdecl("aasa_results_count")
public func aasa_results_count(_ pointer: OpaquePointer?) -> Int {
    results(pointer)?.count ?? 0
}

@_cdecl("aasa_results_at")
public func aasa_results_at(_ pointer: OpaquePointer?, _ index: Int) -> UnsafePointer<aasa_result>? {
    guard let results = results(pointer), index >= 0, index < results.count, let base = results.results.baseAddress else { return nil }
    return UnsafePointer(base + index)
}

@_cdecl("aasa_results_free")
public func aasa_results_free(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    Unmanaged<Results>.fromOpaque(UnsafeRawPointer(pointer)).release()
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
        rules.withClassifier { classifier in
            for url in buffers { classifier.classify(wholeLine: url, limits: rules.limits, into: records) }
        }
        let copy = records.withBytes { bytes -> UnsafeMutableRawPointer? in
            guard let copy = malloc(max(bytes.count, 1)) else { return nil }
            if let base = bytes.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
            return copy
        }
        guard let copy else { return fail(AASA_ERROR_MEMORY, "out of memory for \(records.count) bytes of records") }
        output.pointee = copy.assumingMemoryBound(to: CChar.self)
        outputLength.pointee = records.count
        return AASA_OK
    }
}

@_cdecl("aasa_free")
public func aasa_free(_ bytes: UnsafeMutableRawPointer?) {
    free(bytes)
}

/// Names the module's free functions where a parameter shadows them.
enum CABI {
    static func options(_ pointer: OpaquePointer?) -> Options? {
        pointer.map { Unmanaged<Options>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}

/// A failed call's status, carried through `Result` by the helpers that check arguments.
extension aasa_status: @retroactive Error {}
