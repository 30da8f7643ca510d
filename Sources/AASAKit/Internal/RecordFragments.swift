/// A domain's pre-rendered record pieces in one block of memory it owns outright: the text of a
/// record that decides nothing, the domain as JSON, each app ID as JSON, each rule's
/// `", "entry": E, "rule": R}` suffix, each rule's `E:R` (the TSV and CSV rules column), and
/// whether each rule excludes.
///
/// Why raw memory: the classify hot path writes several of these per URL, and reading an array
/// stored in a class retains and releases it each time (about a tenth of a URL's instructions in
/// the fleet profile); this value is one pointer, so copying it out of its owner is free. Why one
/// block, its counts and offsets first and the no-match text right after them: most URLs of a fleet
/// decide nothing, and their record then reads the block's first few cache lines and nothing else
/// of the domain (PERF: see `DomainSlot`). The owner (`ClassifierRules.Loaded`, one per domain)
/// calls `deallocate()` exactly once, in its `deinit`; every copy (each thread's `DomainSlot`)
/// keeps that owner alive as long as itself.
///
/// Why `@unchecked Sendable`: the memory is written only by `init` and never changes after it,
/// so threads may read it at once; it is freed only by the owner's `deinit`, after every copy's
/// holder has let the owner go.
struct RecordFragments: @unchecked Sendable {
    /// The block: a header of four `Int32`s (the app count, the rule count, where the exclude
    /// bytes start and where the text starts), then the `2 + apps + 2 × rules + 1` piece offsets
    /// (`Int32`, from the start of the text), then per rule whether it excludes (one byte each),
    /// then the text. Piece 0 is the no-match tail, piece 1 the domain, then the apps, then the
    /// rules' JSON suffixes, then the rules' texts.
    private let block: UnsafeMutableRawPointer

    /// The pieces of `domain`'s records, its document naming `apps` and having `rules` (by rule
    /// id).
    init(domain: String, apps: [String], rules: [(entry: Int, rule: Int, exclude: Bool)]) {
        // Every piece but the tail, in piece order, each string escaped once; the tail is then
        // copied together from them.
        var rest: [UInt8] = []
        rest.reserveCapacity(64 + 48 * apps.count + 40 * rules.count + domain.utf8.count)
        var ends: [Int32] = [0, 0]
        ends.reserveCapacity(3 + apps.count + 2 * rules.count)
        JSONWriter.appendEscaped(domain, to: &rest)
        ends.append(Int32(rest.count))
        for app in apps {
            JSONWriter.appendEscaped(app, to: &rest)
            ends.append(Int32(rest.count))
        }
        for rule in rules {
            Self.append(#", "entry": "#, to: &rest)
            Self.appendDecimal(rule.entry, to: &rest)
            Self.append(#", "rule": "#, to: &rest)
            Self.appendDecimal(rule.rule, to: &rest)
            rest.append(UInt8(ascii: "}"))
            ends.append(Int32(rest.count))
        }
        for rule in rules {
            Self.appendDecimal(rule.entry, to: &rest)
            rest.append(UInt8(ascii: ":"))
            Self.appendDecimal(rule.rule, to: &rest)
            ends.append(Int32(rest.count))
        }
        // The no-match tail: `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`.
        var tail: [UInt8] = []
        tail.reserveCapacity(64 + 48 * apps.count + domain.utf8.count)
        Self.append(#", "domain": "#, to: &tail)
        tail.append(contentsOf: rest[0..<Int(ends[2])])
        Self.append(#", "apps": [], "decisions": ["#, to: &tail)
        for app in apps.indices {
            if app > 0 { Self.append(", ", to: &tail) }
            Self.append(#"{"app": "#, to: &tail)
            tail.append(contentsOf: rest[Int(ends[2 + app])..<Int(ends[3 + app])])
            Self.append(#", "decision": "no_match"}"#, to: &tail)
        }
        tail.append(UInt8(ascii: "]"))
        // The tail is piece 0, so every other piece starts after it.
        ends[1] = Int32(tail.count)
        for index in 2..<ends.count { ends[index] += Int32(tail.count) }
        let excludes = 16 + 4 * ends.count
        let textStart = excludes + rules.count
        block = .allocate(byteCount: textStart + tail.count + rest.count, alignment: MemoryLayout<Int32>.alignment)
        // Laid out as `block` says: the header, `ends.count` offsets, one byte per rule, the text.
        for (offset, value) in [apps.count, rules.count, excludes, textStart].enumerated() {
            block.storeBytes(of: Int32(value), toByteOffset: 4 * offset, as: Int32.self)
        }
        for (index, end) in ends.enumerated() { block.storeBytes(of: end, toByteOffset: 16 + 4 * index, as: Int32.self) }
        for (index, rule) in rules.enumerated() {
            block.storeBytes(of: UInt8(rule.exclude ? 1 : 0), toByteOffset: excludes + index, as: UInt8.self)
        }
        tail.withUnsafeBytes { (block + textStart).copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: $0.count) }
        rest.withUnsafeBytes { (block + textStart + tail.count).copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: $0.count) }
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
        block.deallocate()
    }

    // SAFETY (every read below): `init` wrote the four header counts, the offsets after them,
    // the exclude bytes after those and the text last; the accessors pass piece and rule
    // indices below the counts (their `assert`s check it in test builds), and every offset lies
    // within the text.
    var appCount: Int {
        @inline(__always) get { Int(block.load(fromByteOffset: 0, as: Int32.self)) }
    }

    var ruleCount: Int {
        @inline(__always) get { Int(block.load(fromByteOffset: 4, as: Int32.self)) }
    }

    @inline(__always)
    private func piece(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = Int(block.load(fromByteOffset: 16 + 4 * index, as: Int32.self))
        let end = Int(block.load(fromByteOffset: 20 + 4 * index, as: Int32.self))
        let text = block + Int(block.load(fromByteOffset: 12, as: Int32.self))
        // SAFETY: the text holds bytes (`UInt8`, written by `init`), and `start..<end` is a piece
        // of it.
        return UnsafeBufferPointer(start: (text + start).assumingMemoryBound(to: UInt8.self), count: end - start)
    }

    /// An NDJSON record's text from after the URL to before its end when no app is decided:
    /// `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`, the
    /// same for every such URL of the domain, so written with one copy.
    @inline(__always)
    var noMatchTail: UnsafeBufferPointer<UInt8> { piece(0) }

    @inline(__always)
    var domainJSON: UnsafeBufferPointer<UInt8> { piece(1) }

    @inline(__always)
    func appJSON(_ app: Int) -> UnsafeBufferPointer<UInt8> {
        assert(app >= 0 && app < appCount)
        return piece(2 + app)
    }

    @inline(__always)
    func ruleJSONSuffix(_ rule: Int) -> UnsafeBufferPointer<UInt8> {
        assert(rule >= 0 && rule < ruleCount)
        return piece(2 + appCount + rule)
    }

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
        return !excludes(Int(rule))
    }

    @inline(__always)
    func excludes(_ rule: Int) -> Bool {
        assert(rule >= 0 && rule < ruleCount)
        // Rule ids come from the domain's own matcher, below `ruleCount`.
        return block.load(fromByteOffset: Int(block.load(fromByteOffset: 8, as: Int32.self)) + rule, as: UInt8.self) != 0
    }
}
