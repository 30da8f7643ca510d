/// A domain's pre-rendered record pieces in memory it owns outright: the domain as JSON, each app
/// ID as JSON, each rule's `", "entry": E, "rule": R}` suffix, the text of a record that decides
/// nothing, and whether each rule excludes.
///
/// Why raw memory: the classify hot path writes several of these per URL, and reading an array
/// stored in a class retains and releases it each time (about a tenth of a URL's instructions
/// in the fleet profile); this value holds only pointers, so copying it out of its owner is
/// free. The owner (`DomainSlot`, one per thread and domain) calls `deallocate()` exactly once,
/// in its `deinit`; nothing else may keep a copy past that.
///
/// It will not grow or change after it is made.
struct RecordFragments {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// Piece `i` is `bytes[offsets[i]..<offsets[i + 1]]`: piece 0 the domain, then the apps,
    /// then the rules, then the no-match tail.
    private let offsets: UnsafeMutableBufferPointer<Int32>
    private let excludes: UnsafeMutableBufferPointer<Bool>
    let appCount: Int
    let ruleCount: Int

    init(domainJSON: [UInt8], appJSON: [[UInt8]], ruleJSONSuffix: [[UInt8]], ruleExcludes: [Bool]) {
        let pieces = [domainJSON] + appJSON + ruleJSONSuffix + [Self.noMatchTail(domainJSON: domainJSON, appJSON: appJSON)]
        let total = pieces.reduce(0) { $0 + $1.count }
        bytes = .allocate(capacity: max(total, 1))
        offsets = .allocate(capacity: pieces.count + 1)
        excludes = .allocate(capacity: max(ruleExcludes.count, 1))
        var end = 0
        offsets[0] = 0
        for (index, piece) in pieces.enumerated() {
            for byte in piece {
                bytes[end] = byte
                end += 1
            }
            offsets[index + 1] = Int32(end)
        }
        for (index, exclude) in ruleExcludes.enumerated() { excludes[index] = exclude }
        appCount = appJSON.count
        ruleCount = ruleJSONSuffix.count
    }

    func deallocate() {
        bytes.deallocate()
        offsets.deallocate()
        excludes.deallocate()
    }

    @inline(__always)
    private func piece(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        // SAFETY: the accessors pass `index` up to `1 + appCount + ruleCount` (their `assert`s
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

    private static func noMatchTail(domainJSON: [UInt8], appJSON: [[UInt8]]) -> [UInt8] {
        var tail = Array(#", "domain": "#.utf8) + domainJSON + Array(#", "apps": [], "decisions": ["#.utf8)
        for (index, app) in appJSON.enumerated() {
            if index > 0 { tail += Array(", ".utf8) }
            tail += Array(#"{"app": "#.utf8) + app + Array(#", "decision": "no_match"}"#.utf8)
        }
        return tail + [UInt8(ascii: "]")]
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
