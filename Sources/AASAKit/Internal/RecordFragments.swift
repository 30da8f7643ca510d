/// A domain's pre-rendered record pieces in memory it owns outright: the domain as JSON, each app
/// ID as JSON, each rule's `", "entry": E, "rule": R}` suffix, the text of a record that decides
/// nothing, each rule's `E:R` (the TSV and CSV rules column), and whether each rule excludes.
///
/// Why raw memory: the classify hot path writes several of these per URL, and reading an array
/// stored in a class retains and releases it each time (about a tenth of a URL's instructions
/// in the fleet profile); this value holds only pointers, so copying it out of its owner is
/// free. The owner (`ClassifierRules.Loaded`, one per domain) calls `deallocate()` exactly once,
/// in its `deinit`; every copy (each thread's `DomainSlot`) keeps that owner alive as long as
/// itself.
///
/// Why `@unchecked Sendable`: the memory is written only by `init` and never changes after it,
/// so threads may read it at once; it is freed only by the owner's `deinit`, after every copy's
/// holder has let the owner go.
struct RecordFragments: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// Piece `i` is `bytes[offsets[i]..<offsets[i + 1]]`: piece 0 the domain, then the apps,
    /// then the rules' JSON suffixes, then the no-match tail, then the rules' texts.
    private let offsets: UnsafeMutableBufferPointer<Int32>
    private let excludes: UnsafeMutableBufferPointer<Bool>
    let appCount: Int
    let ruleCount: Int

    /// The pieces of `domain`'s records, its document naming `apps` and having `rules` (by rule
    /// id).
    init(domain: String, apps: [String], rules: [(entry: Int, rule: Int, exclude: Bool)]) {
        var text: [UInt8] = []
        text.reserveCapacity(64 + 48 * apps.count + 40 * rules.count)
        var ends: [Int32] = []
        ends.reserveCapacity(3 + apps.count + 2 * rules.count)
        ends.append(0)
        JSONWriter.appendEscaped(domain, to: &text)
        ends.append(Int32(text.count))
        for app in apps {
            JSONWriter.appendEscaped(app, to: &text)
            ends.append(Int32(text.count))
        }
        for rule in rules {
            Self.append(#", "entry": "#, to: &text)
            Self.appendDecimal(rule.entry, to: &text)
            Self.append(#", "rule": "#, to: &text)
            Self.appendDecimal(rule.rule, to: &text)
            text.append(UInt8(ascii: "}"))
            ends.append(Int32(text.count))
        }
        // The no-match tail: `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`.
        Self.append(#", "domain": "#, to: &text)
        JSONWriter.appendEscaped(domain, to: &text)
        Self.append(#", "apps": [], "decisions": ["#, to: &text)
        for (index, app) in apps.enumerated() {
            if index > 0 { Self.append(", ", to: &text) }
            Self.append(#"{"app": "#, to: &text)
            JSONWriter.appendEscaped(app, to: &text)
            Self.append(#", "decision": "no_match"}"#, to: &text)
        }
        text.append(UInt8(ascii: "]"))
        ends.append(Int32(text.count))
        for rule in rules {
            Self.appendDecimal(rule.entry, to: &text)
            text.append(UInt8(ascii: ":"))
            Self.appendDecimal(rule.rule, to: &text)
            ends.append(Int32(text.count))
        }
        bytes = .allocate(capacity: max(text.count, 1))
        _ = bytes.initialize(from: text)
        offsets = .allocate(capacity: ends.count)
        _ = offsets.initialize(from: ends)
        excludes = .allocate(capacity: max(rules.count, 1))
        for (index, rule) in rules.enumerated() { excludes[index] = rule.exclude }
        appCount = apps.count
        ruleCount = rules.count
    }

    // PERF: the pieces are written for every domain a stream meets: through `String` and its
    // UTF-8 view they cost 511 instructions a URL of first use on the 10 000-domain fleet
    // stream, 316 with digits and literals copied directly (first use 3 534 → 3 339
    // instructions a URL, `aasa classify --compiled --jobs 1`, callgrind, stream − empty).
    /// Appends `value` in decimal, as `"\(value)"` writes it.
    private static func appendDecimal(_ value: Int, to text: inout [UInt8]) {
        if value < 0 { text.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var place: UInt = 1
        while magnitude / place >= 10 { place &*= 10 }
        repeat {
            text.append(UInt8(ascii: "0") &+ UInt8(magnitude / place % 10))
            place /= 10
        } while place > 0
    }

    /// Appends a literal's UTF-8 bytes in one copy.
    private static func append(_ literal: StaticString, to text: inout [UInt8]) {
        literal.withUTF8Buffer { text.append(contentsOf: $0) }
    }

    func deallocate() {
        bytes.deallocate()
        offsets.deallocate()
        excludes.deallocate()
    }

    @inline(__always)
    private func piece(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        // SAFETY: the accessors pass `index` up to `1 + appCount + 2 × ruleCount` (their `assert`s
        // check it in test builds), and every offset lies within `bytes`.
        let start = Int(offsets[index])
        let end = Int(offsets[index + 1])
        return UnsafeBufferPointer(start: bytes.baseAddress.map { $0 + start }, count: end - start)
    }

    @inline(__always)
    var domainJSON: UnsafeBufferPointer<UInt8> { piece(0) }

    @inline(__always)
    func appJSON(_ app: Int) -> UnsafeBufferPointer<UInt8> {
        assert(app >= 0 && app < appCount)
        return piece(1 + app)
    }

    @inline(__always)
    func ruleJSONSuffix(_ rule: Int) -> UnsafeBufferPointer<UInt8> {
        assert(rule >= 0 && rule < ruleCount)
        return piece(1 + appCount + rule)
    }

    /// An NDJSON record's text from after the URL to before its end when no app is decided:
    /// `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`, the
    /// same for every such URL of the domain, so written with one copy.
    @inline(__always)
    var noMatchTail: UnsafeBufferPointer<UInt8> { piece(1 + appCount + ruleCount) }

    /// The rule's `E:R`, its entry and rule index (the TSV and CSV rules column).
    @inline(__always)
    func ruleText(_ rule: Int) -> UnsafeBufferPointer<UInt8> {
        assert(rule >= 0 && rule < ruleCount)
        return piece(2 + appCount + ruleCount + rule)
    }

    /// Whether the deciding rule `rule` (a rule id, or -1 for none) opens its app.
    @inline(__always)
    func opens(_ rule: Int32) -> Bool {
        guard rule >= 0 else { return false }
        assert(Int(rule) < ruleCount)
        // SAFETY: rule ids come from the domain's own matcher, below `ruleCount`.
        return !excludes[Int(rule)]
    }

    @inline(__always)
    func excludes(_ rule: Int) -> Bool {
        assert(rule >= 0 && rule < ruleCount)
        return excludes[rule]
    }
}
