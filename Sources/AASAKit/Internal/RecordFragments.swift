/// A domain's pre-rendered record pieces in memory it owns outright: the domain as JSON, each app
/// ID as JSON, and the text of a record that decides nothing; beside them, the pieces of its
/// document's rules (`RulePieces`: each rule's `", "entry": E, "rule": R}` suffix, its `E:R`
/// for the TSV and CSV rules column, and whether it excludes), which every domain compiled from
/// the same rules shares.
///
/// Why raw memory: the classify hot path writes several of these per URL, and reading an array
/// stored in a class retains and releases it each time (about a tenth of a URL's instructions
/// in the fleet profile); this value holds only pointers, so copying it out of its owner is
/// free. The owner (`ClassifierRules.Loaded`, one per domain) calls `deallocate()` exactly once,
/// in its `deinit`, and keeps the `RulePieces` it was made with alive; every copy (each thread's
/// `DomainSlot`) keeps that owner alive as long as itself.
///
/// Why `@unchecked Sendable`: the memory is written only by `init` and never changes after it,
/// so threads may read it at once; it is freed only by its owners' `deinit`, after every copy's
/// holder has let them go.
struct RecordFragments: @unchecked Sendable {
    /// Piece `i` is `bytes[offsets[i]..<offsets[i + 1]]`: piece 0 the domain, then the apps,
    /// then the no-match tail.
    private let bytes: UnsafeMutablePointer<UInt8>
    private let offsets: UnsafeMutablePointer<Int32>
    /// The shared rule pieces (`RulePieces.Memory`), owned by a `RulePieces` that this value's
    /// owner keeps alive.
    private let rules: RulePieces.Memory
    let appCount: Int
    var ruleCount: Int { rules.count }

    /// The pieces of `domain`'s records, its document naming `apps` and having the rules of
    /// `rules`.
    init(domain: String, apps: [String], rules: RulePieces) {
        var text: [UInt8] = []
        text.reserveCapacity(128 + 96 * apps.count + 2 * domain.utf8.count)
        // The no-match tail: `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`,
        // copied from the pieces as they are written.
        var tail: [UInt8] = []
        tail.reserveCapacity(64 + 48 * apps.count + domain.utf8.count)
        var ends: [Int32] = []
        ends.reserveCapacity(3 + apps.count)
        ends.append(0)
        JSONWriter.appendEscaped(domain, to: &text)
        ends.append(Int32(text.count))
        Self.append(#", "domain": "#, to: &tail)
        tail.append(contentsOf: text)
        Self.append(#", "apps": [], "decisions": ["#, to: &tail)
        for (index, app) in apps.enumerated() {
            let start = text.count
            JSONWriter.appendEscaped(app, to: &text)
            ends.append(Int32(text.count))
            if index > 0 { Self.append(", ", to: &tail) }
            Self.append(#"{"app": "#, to: &tail)
            tail.append(contentsOf: text[start...])
            Self.append(#", "decision": "no_match"}"#, to: &tail)
        }
        tail.append(UInt8(ascii: "]"))
        text.append(contentsOf: tail)
        ends.append(Int32(text.count))
        bytes = .allocate(capacity: max(text.count, 1))
        bytes.initialize(from: text, count: text.count)
        offsets = .allocate(capacity: ends.count)
        offsets.initialize(from: ends, count: ends.count)
        self.rules = rules.memory
        appCount = apps.count
    }

    /// Appends a literal's UTF-8 bytes in one copy.
    fileprivate static func append(_ literal: StaticString, to text: inout [UInt8]) {
        literal.withUTF8Buffer { text.append(contentsOf: $0) }
    }

    /// Frees this domain's own pieces (not the shared rule pieces).
    func deallocate() {
        bytes.deallocate()
        offsets.deallocate()
    }

    @inline(__always)
    private func piece(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        // SAFETY: the accessors pass `index` up to `1 + appCount` (their `assert`s check it in
        // test builds), and every offset lies within `bytes`.
        let start = Int(offsets[index])
        let end = Int(offsets[index + 1])
        return UnsafeBufferPointer(start: bytes + start, count: end - start)
    }

    @inline(__always)
    var domainJSON: UnsafeBufferPointer<UInt8> { piece(0) }

    @inline(__always)
    func appJSON(_ app: Int) -> UnsafeBufferPointer<UInt8> {
        assert(app >= 0 && app < appCount)
        return piece(1 + app)
    }

    /// An NDJSON record's text from after the URL to before its end when no app is decided:
    /// `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`, the
    /// same for every such URL of the domain, so written with one copy.
    @inline(__always)
    var noMatchTail: UnsafeBufferPointer<UInt8> { piece(1 + appCount) }

    @inline(__always)
    func ruleJSONSuffix(_ rule: Int) -> UnsafeBufferPointer<UInt8> { rules.piece(rule) }

    /// The rule's `E:R`, its entry and rule index (the TSV and CSV rules column).
    @inline(__always)
    func ruleText(_ rule: Int) -> UnsafeBufferPointer<UInt8> { rules.piece(rules.count + rule) }

    /// Whether the deciding rule `rule` (a rule id, or -1 for none) opens its app.
    @inline(__always)
    func opens(_ rule: Int32) -> Bool {
        guard rule >= 0 else { return false }
        return !rules.excludes(Int(rule))
    }

    @inline(__always)
    func excludes(_ rule: Int) -> Bool { rules.excludes(rule) }
}

/// The record pieces of a document's rules, which depend on its rules alone (entry and rule
/// indices, `exclude`): every domain compiled from the same rules shares one
/// (`ClassifierRules`), so a fleet writes them once per distinct document, not per domain.
// PERF: shared rather than written per domain, the first use of a domain on the 10 000-domain
// fleet stream (`AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, `aasa classify --compiled
// --jobs 1`, callgrind, stream − empty input, per domain met) 27.6 k → 25.4 k instructions
// (the whole stream 2 763 → 2 654 a URL; `--rules` 4 314 → 4 206), records identical.
final class RulePieces: Sendable {
    /// Per rule id: its entry and rule index, and whether it excludes.
    let rules: [(entry: Int, rule: Int, exclude: Bool)]
    let memory: Memory
    /// What the pieces were made for, kept alive so that its identity, the key they are found
    /// under, is never reused while they live.
    private let owner: (any AnyObject & Sendable)?

    init(rules: [(entry: Int, rule: Int, exclude: Bool)], owner: (any AnyObject & Sendable)? = nil) {
        self.rules = rules
        self.owner = owner
        memory = Memory(rules: rules)
    }

    deinit { memory.deallocate() }

    /// The pieces of no rules, for a document that could not be used.
    static let none = RulePieces(rules: [])

    /// The pieces in raw memory, owned by their `RulePieces`.
    ///
    /// Why `@unchecked Sendable`: written only by `init`, read-only after, freed only by the
    /// owner's `deinit`.
    struct Memory: @unchecked Sendable {
        /// Piece `i` is `bytes[offsets[i]..<offsets[i + 1]]`: the rules' JSON suffixes, then
        /// their texts.
        private let bytes: UnsafeMutablePointer<UInt8>
        private let offsets: UnsafeMutablePointer<Int32>
        private let excluding: UnsafeMutablePointer<Bool>
        let count: Int

        init(rules: [(entry: Int, rule: Int, exclude: Bool)]) {
            var text: [UInt8] = []
            text.reserveCapacity(48 * rules.count)
            var ends: [Int32] = []
            ends.reserveCapacity(1 + 2 * rules.count)
            ends.append(0)
            for rule in rules {
                RecordFragments.append(#", "entry": "#, to: &text)
                Self.appendDecimal(rule.entry, to: &text)
                RecordFragments.append(#", "rule": "#, to: &text)
                Self.appendDecimal(rule.rule, to: &text)
                text.append(UInt8(ascii: "}"))
                ends.append(Int32(text.count))
            }
            for rule in rules {
                Self.appendDecimal(rule.entry, to: &text)
                text.append(UInt8(ascii: ":"))
                Self.appendDecimal(rule.rule, to: &text)
                ends.append(Int32(text.count))
            }
            bytes = .allocate(capacity: max(text.count, 1))
            bytes.initialize(from: text, count: text.count)
            offsets = .allocate(capacity: ends.count)
            offsets.initialize(from: ends, count: ends.count)
            excluding = .allocate(capacity: max(rules.count, 1))
            for (index, rule) in rules.enumerated() { (excluding + index).initialize(to: rule.exclude) }
            count = rules.count
        }

        // PERF: through `String` and its UTF-8 view the pieces cost 511 instructions a URL of
        // first use on the 10 000-domain fleet stream, 316 with digits and literals copied
        // directly (first use 3 534 → 3 339 instructions a URL, `aasa classify --compiled
        // --jobs 1`, callgrind, stream − empty).
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

        fileprivate func deallocate() {
            bytes.deallocate()
            offsets.deallocate()
            excluding.deallocate()
        }

        /// Piece `index`: rule `index`'s JSON suffix below `count`, rule `index - count`'s text
        /// from it.
        @inline(__always)
        func piece(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            assert(index >= 0 && index < 2 * count)
            // SAFETY: rule ids come from the domain's own matcher (or the reference engine's
            // rule list), below `count`, so `index` is below `2 × count` and every offset lies
            // within `bytes`.
            let start = Int(offsets[index])
            let end = Int(offsets[index + 1])
            return UnsafeBufferPointer(start: bytes + start, count: end - start)
        }

        @inline(__always)
        func excludes(_ rule: Int) -> Bool {
            assert(rule >= 0 && rule < count)
            // SAFETY: rule ids come from the domain's own matcher, below `count`.
            return excluding[rule]
        }
    }
}
