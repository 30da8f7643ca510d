// libFuzzer entry points for the engine, built by `make fuzz` with
// `swiftc -sanitize=fuzzer,address` together with the library's sources.
// The target is chosen by AASA_FUZZ_TARGET: document, pattern, url, artifact or differential.
import Foundation

let target = ProcessInfo.processInfo.environment["AASA_FUZZ_TARGET"] ?? "document"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch target {
    case "document": fuzzDocument(bytes)
    case "pattern": fuzzPattern(bytes)
    case "url": fuzzURL(bytes)
    case "artifact": fuzzArtifact(bytes)
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

/// Valid artifacts to mutate: with and without prebuilt tables, with variables (the predefined
/// `$(lang)` too), query groups, a fragment, an exclusion, suffix-split paths, a failed domain
/// and bodies shared by two domains, so that every part of the format is there to be damaged.
let artifactBases: [[UInt8]] = {
    let variables = #"""
        {"applinks": {"substitutionVariables": {"v": ["red", "green", "blue*"], "w": ["?x", "y*z"]},
         "details": [{"appIDs": ["T.a", "T.b"], "components": [
           {"/": "/a/$(v)", "?": {"q": "$(w)"}, "#": "f*"},
           {"/": "/b/*/$(v)/c", "exclude": true},
           {"/": "/c/$(lang)_*/*", "caseSensitive": false},
           {"/": "/d/?*", "?": "x=*", "percentEncoded": false}]}]}}
        """#
    let splits = (0..<40).map { #"{"/": "/s\#($0 % 7)/*/end\#($0)"}"# }.joined(separator: ",")
    let split = #"{"applinks": {"details": [{"appID": "T.s", "components": [\#(splits)]}]}}"#
    var splitAll = Configuration.default
    splitAll.automata.suffixSplitMinimum = 0
    func domain(_ json: String, _ name: String, _ configuration: Configuration = .default) -> CompiledArtifact.Domain {
        let state: ClassifierRules.State
        do {
            let document = try AASADocument(bytes: Array(json.utf8))
            state = .compiled(try CompiledDocument(document: document, domain: name, configuration: configuration))
        } catch {
            state = .failed("\(error)")
        }
        return CompiledArtifact.Domain(name: name, file: "\(name).json", state: state)
    }
    // Small enough that most offsets land in an NFA rather than in `$(lang)` or a table.
    let small = #"""
        {"applinks": {"substitutionVariables": {"v": ["red", "b*"]}, "details": [{"appID": "T.a",
         "components": [{"/": "/a/$(v)", "?": {"q": "$(v)"}}, {"/": "/b/$(v)/$(v)?", "exclude": true}]}]}}
        """#
    let tables = ClassifierRules(artifact: [domain(variables, "v.example")])
    let smallRules = ClassifierRules(artifact: [domain(small, "v.example"), domain(small, "w.example")])
    // In byte order, as `aasa compile` writes names and the decoder requires.
    let mixed = ClassifierRules(artifact: [
        domain("{", "bad.example"), domain(split, "s.example", splitAll), domain(variables, "v.example"), domain(variables, "w.example"),
    ])
    let noTables = LazyDFA.Prebuilt.Budget(maxTableBytes: 0, maxStates: 0)
    return [
        CompiledArtifact.encode(tables), CompiledArtifact.encode(tables, budget: noTables),
        CompiledArtifact.encode(mixed), CompiledArtifact.encode(mixed, budget: noTables),
        CompiledArtifact.encode(smallRules), CompiledArtifact.encode(smallRules, budget: noTables),
    ]
}()

/// A valid artifact (the first byte picks one), its payload mutated field by field as the
/// rest of the bytes say, re-signed so that the checksums pass: decoding must refuse it or
/// yield documents that decide URLs without crashing, within libFuzzer's time and memory
/// limits (`run.sh`), under the default configuration.
///
/// Each mutation is six bytes: an operation, a 24-bit offset into the payload, two values.
/// Widths 1, 2 and 8 are those of the format's flags, kinds, varint bytes and narrow table
/// cells, its wide cells and automata masks, and its checksums.
func fuzzArtifact(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let base = artifactBases[Int(first) % artifactBases.count]
    var payload = Array(base[CompiledArtifact.headerSize...])
    let interesting: [UInt64] = [0, 1, 2, 3, 255, 256, 65_536, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt64.max, 1 << 40]
    func add(_ delta: Int8, width: Int, at offset: Int) {
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(payload[offset + index]) << UInt64(8 * index) }
        value = value &+ UInt64(bitPattern: Int64(delta))
        set(value, width: width, at: offset)
    }
    func set(_ value: UInt64, width: Int, at offset: Int) {
        for index in 0..<width { payload[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * index)) }
    }
    var rest = bytes.dropFirst()
    for _ in 0..<16 {
        guard rest.count >= 6, !payload.isEmpty else { break }
        let field = Array(rest.prefix(6))
        rest = rest.dropFirst(6)
        let offset = (Int(field[1]) | Int(field[2]) << 8 | Int(field[3]) << 16) % payload.count
        let width = [1, 2, 8][Int(field[0] >> 3) % 3]
        let fits = offset + width <= payload.count
        switch field[0] & 7 {
        case 0: payload[offset] = field[4]
        case 1: payload[offset] ^= field[4] | 1
        case 2 where fits: add(Int8(bitPattern: field[4]), width: width, at: offset)
        case 3 where fits: set(interesting[Int(field[4]) % interesting.count], width: width, at: offset)
        case 4 where fits: set(UInt64(payload.count) &+ UInt64(bitPattern: Int64(Int8(bitPattern: field[5]))), width: width, at: offset)
        case 5: payload.insert(contentsOf: repeatElement(field[5], count: Int(field[4] % 16) + 1), at: offset)
        case 6: payload.removeSubrange(offset..<min(payload.count, offset + Int(field[4] % 16) + 1))
        default: payload[offset] = payload[(offset + Int(field[4])) % payload.count]
        }
    }
    // Re-signed: the index checksum and every body checksum the index still locates.
    let artifact = CompiledArtifact.resigned(Array(base[..<CompiledArtifact.headerSize]) + payload)
    guard let decoded = try? artifact.withUnsafeBytes({ raw in try CompiledArtifact.decode(raw) }) else {
        // What `aasa compile` wrote must load: a decoder that refuses everything passes the rest.
        if bytes.count < 7 {
            FileHandle.standardError.write(Data("artifact base \(Int(first) % artifactBases.count) does not decode\n".utf8))
            abort()
        }
        return
    }
    let paths = ["/a/red?q=ax#f1", "/b/q/green/c", "/c/EN_us/x", "/d/é/?x=1", "/s3/mid/end10", "/"]
    for domain in decoded {
        guard case .compiled(let document) = domain.state else { continue }
        let matcher = DFAMatcher(document)
        for path in paths { _ = try? matcher.decide("https://\(domain.name)\(path)", app: nil) }
    }
}
