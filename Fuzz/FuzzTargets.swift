// libFuzzer entry points for the engine, built by `make fuzz` with
// `swiftc -sanitize=fuzzer,address` together with the library's sources.
// The target is chosen by AASA_FUZZ_TARGET: document, pattern, url or differential.
import Foundation

let target = ProcessInfo.processInfo.environment["AASA_FUZZ_TARGET"] ?? "document"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch target {
    case "document": fuzzDocument(bytes)
    case "pattern": fuzzPattern(bytes)
    case "url": fuzzURL(bytes)
    default: fuzzDifferential(bytes)
    }
    return 0
}

/// Any bytes as a document: decoding either throws a DocumentError or yields a model that
/// compiles and matches.
func fuzzDocument(_ bytes: [UInt8]) {
    guard let document = try? AASADocument(bytes: bytes) else { return }
    guard let compiled = try? CompiledDocument(document: document, domain: "example.com") else { return }
    let matcher = DFAMatcher(compiled)
    _ = try? matcher.decide("https://example.com/a/b?c=d#e", app: nil)
}

/// Any text as a path, query and fragment pattern, with a variable, through both engines.
func fuzzPattern(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let json = JSONValue.object(JSONObject(members: [("applinks", .object(JSONObject(members: [
        ("substitutionVariables", .object(JSONObject(members: [("v", .array([.string(text), .string("a*")]))]))),
        ("details", .array([.object(JSONObject(members: [
            ("appID", .string("T.a")),
            ("components", .array([.object(JSONObject(members: [("/", .string(text)), ("?", .string(text)), ("#", .string(text))]))])),
        ]))])),
    ])))]))
    compare(json, url: "https://example.com/" + text.filter { $0 != "#" && $0 != "?" })
}

/// Any bytes as a URL: splitting never crashes, and the pieces are in order and in bounds.
func fuzzURL(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { buffer in
        guard let parts = try? URLSplitter.split(buffer) else { return }
        let ranges = [parts.scheme, parts.host, parts.path] + [parts.query, parts.fragment].compactMap { $0 }
        for range in ranges where range.lowerBound < 0 || range.upperBound > buffer.count { abort() }
    }
}

/// A document and URL built from the bytes; the engines must agree.
func fuzzDifferential(_ bytes: [UInt8]) {
    guard bytes.count > 2 else { return }
    let fields = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    let flags = bytes[0]
    var rule: [(key: String, value: JSONValue)] = [("/", .string(fields.first ?? ""))]
    if fields.count > 2 { rule.append(("?", flags & 4 != 0 ? .object(JSONObject(members: [("a", .string(fields[2]))])) : .string(fields[2]))) }
    if flags & 1 != 0 { rule.append(("caseSensitive", .bool(false))) }
    if flags & 2 != 0 { rule.append(("percentEncoded", .bool(false))) }
    if flags & 8 != 0 { rule.append(("exclude", .bool(true))) }
    let values = fields.count > 3 ? Array(fields[3...]).map { JSONValue.string($0) } : []
    let json = JSONValue.object(JSONObject(members: [("applinks", .object(JSONObject(members: [
        ("substitutionVariables", .object(JSONObject(members: [("v", .array(values))]))),
        ("details", .array([.object(JSONObject(members: [
            ("appID", .string("T.a")), ("components", .array([.object(JSONObject(members: rule)), .object(JSONObject(members: [("/", .string("/$(v)*"))]))])),
        ]))])),
    ])))]))
    let url = "https://example.com" + (fields.count > 1 ? fields[1] : "/")
    compare(json, url: url)
}

func compare(_ json: JSONValue, url: String) {
    guard let document = try? AASADocument(json: json),
        let compiled = try? CompiledDocument(document: document, domain: "example.com")
    else { return }
    let fast = try? DFAMatcher(compiled).decide(url, app: nil)
    let slow = try? ReferenceMatcher(document: document, domain: "example.com").decide(url, app: nil)
    if fast != slow {
        FileHandle.standardError.write(Data("disagreement on \(url)\n\(json.serialized())\ndfa: \(String(describing: fast))\nreference: \(String(describing: slow))\n".utf8))
        abort()
    }
}
