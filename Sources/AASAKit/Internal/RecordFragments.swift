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
    ///
    /// PERF: every domain a stream meets builds these once, so the text is written straight into
    /// the block (strings escaped once into a scratch array, digits and literals stored in
    /// place), by the same code that first measured it. Building it by appending to arrays cost
    /// about 6 700 instructions a domain; first use on the 10 000-domain fleet stream went
    /// 2 321 → 2 196 instructions a URL (`aasa classify --compiled --jobs 1`, callgrind,
    /// stream − empty).
    /// `nil` when the text would not fit the block's 32-bit offsets (2 GiB): a crafted artifact
    /// can name tens of millions of app IDs, which no document within `document-bytes` can.
    init?(domain: String, apps: [String], rules: [(entry: Int, rule: Int, exclude: Bool)]) {
        let (escaped, stringEnds) = Self.escaped(domain: domain, apps: apps)
        // The text's size and its pieces (`2 + apps + 2 × rules`): the pass that writes it,
        // counting only.
        var measure = TextCounter()
        Self.writeText(into: &measure, escaped: escaped, stringEnds: stringEnds, rules: rules)
        let (size, overflow) = (16 + 4 * (measure.pieces + 1) + rules.count).addingReportingOverflow(measure.written)
        guard !overflow, size <= Int(Int32.max) else { return nil }
        self.init(escaped: escaped, stringEnds: stringEnds, rules: rules, measured: measure)
    }

    /// The pieces of `domain` naming `apps`, when its document has `template`'s rules and as many
    /// apps: the names (the no-match tail, the domain and each app) written, the rules' pieces
    /// and exclude bytes copied from the template.
    ///
    /// Why: a fleet serves a few documents under thousands of names (and white-label fleets one
    /// set of rules under each customer's app IDs), and every domain a stream meets needs its
    /// pieces; copying the rules' pieces costs a copy where writing them formats every rule again.
    /// `nil` when the text would not fit the block's 32-bit offsets, or `apps` are not as many.
    init?(domain: String, apps: [String], as template: RecordFragments) {
        guard apps.count == template.appCount else { return nil }
        let (escaped, stringEnds) = Self.escaped(domain: domain, apps: apps)
        var measure = TextCounter()
        Self.writeNames(into: &measure, escaped: escaped, stringEnds: stringEnds)
        let pieces = measure.pieces + 2 * template.ruleCount
        let textStart = Int(template.block.load(fromByteOffset: 12, as: Int32.self))
        let oldNames = Int(template.block.load(fromByteOffset: 16 + 4 * measure.pieces, as: Int32.self))
        let oldText = Int(template.block.load(fromByteOffset: 16 + 4 * pieces, as: Int32.self))
        let (size, overflow) = (textStart + oldText - oldNames).addingReportingOverflow(measure.written)
        guard !overflow, size - textStart <= Int(Int32.max) else { return nil }
        block = .allocate(byteCount: size, alignment: MemoryLayout<Int32>.alignment)
        // SAFETY: the new block has the template's header, offsets and exclude bytes
        // (`textStart` bytes: the same counts), then the names `measure` counted, then the
        // template's rule pieces (`oldText - oldNames` bytes): `size` bytes in all. The names'
        // offsets are written by the writer, the rules' moved by the names' change in length.
        block.copyMemory(from: template.block, byteCount: textStart)
        var text = TextWriter(start: block + textStart, offsets: block + 16)
        Self.writeNames(into: &text, escaped: escaped, stringEnds: stringEnds)
        assert(text.written == measure.written && text.pieces == measure.pieces)
        (block + textStart + text.written).copyMemory(from: template.block + textStart + oldNames, byteCount: oldText - oldNames)
        let shift = text.written - oldNames
        for piece in (text.pieces + 1)..<(pieces + 1) {
            let old = Int(template.block.load(fromByteOffset: 16 + 4 * piece, as: Int32.self))
            block.storeBytes(of: Int32(old + shift), toByteOffset: 16 + 4 * piece, as: Int32.self)
        }
    }

    /// The pieces of `domain` when its document names the same apps and has the same rules as
    /// `template`'s: the template's block with the domain written in its two places (the
    /// no-match tail and the domain piece), every other piece copied as it is.
    /// `nil` when the text would not fit the block's 32-bit offsets.
    init?(domain: String, as template: RecordFragments) {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(2 + domain.utf8.count)
        JSONWriter.appendEscaped(domain, to: &escaped)
        let pieces = 2 + template.appCount + 2 * template.ruleCount
        let textStart = Int(template.block.load(fromByteOffset: 12, as: Int32.self))
        let oldText = Int(template.block.load(fromByteOffset: 16 + 4 * pieces, as: Int32.self))
        let oldDomain = template.domainJSON.count
        let shift = escaped.count - oldDomain
        let (size, overflow) = (textStart + oldText).addingReportingOverflow(2 * shift)
        guard !overflow, size - textStart <= Int(Int32.max) else { return nil }
        block = .allocate(byteCount: size, alignment: MemoryLayout<Int32>.alignment)
        // SAFETY: the new block has the template's header, offsets and exclude bytes
        // (`textStart` bytes, the same counts), then its text with the domain `shift` bytes
        // longer in both of the two pieces that hold it: `size` bytes in all. Piece 0 starts
        // with the literal before the domain (`writeNames`), piece 1 is the domain, and every
        // offset after them moves by the domain's growth once or twice.
        block.copyMemory(from: template.block, byteCount: textStart)
        for piece in 1...pieces {
            let old = Int(template.block.load(fromByteOffset: 16 + 4 * piece, as: Int32.self))
            block.storeBytes(of: Int32(old + (piece == 1 ? shift : 2 * shift)), toByteOffset: 16 + 4 * piece, as: Int32.self)
        }
        let literal = Self.domainLiteral.utf8CodeUnitCount
        let oldTail = template.noMatchTail.count
        let newText = block + textStart
        let oldTextStart = template.block + textStart
        newText.copyMemory(from: oldTextStart, byteCount: literal)
        escaped.withUnsafeBytes { escaped in
            guard let base = escaped.baseAddress else { return }
            (newText + literal).copyMemory(from: base, byteCount: escaped.count)
            (newText + literal + escaped.count).copyMemory(from: oldTextStart + literal + oldDomain, byteCount: oldTail - literal - oldDomain)
            let domainStart = oldTail + shift
            (newText + domainStart).copyMemory(from: base, byteCount: escaped.count)
            let after = oldTail + oldDomain
            (newText + domainStart + escaped.count).copyMemory(from: oldTextStart + after, byteCount: oldText - after)
        }
    }

    /// What piece 0, the no-match tail, starts with, before the domain.
    private static let domainLiteral: StaticString = #", "domain": "#

    /// The domain, then each app, as JSON strings; string `i` ends at `stringEnds[i]`.
    private static func escaped(domain: String, apps: [String]) -> (escaped: [UInt8], stringEnds: [Int]) {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(2 + domain.utf8.count + 48 * apps.count)
        var stringEnds: [Int] = []
        stringEnds.reserveCapacity(1 + apps.count)
        JSONWriter.appendEscaped(domain, to: &escaped)
        stringEnds.append(escaped.count)
        for app in apps {
            JSONWriter.appendEscaped(app, to: &escaped)
            stringEnds.append(escaped.count)
        }
        return (escaped, stringEnds)
    }

    /// The pieces of a domain whose document cannot be used: its name alone, for its error
    /// records (an empty name in the absurd case that the name itself passes 2 GiB).
    static func withoutDocument(domain: String) -> RecordFragments {
        if let fragments = RecordFragments(domain: domain, apps: [], rules: []) { return fragments }
        var measure = TextCounter()
        let escaped = Array(#""""#.utf8)
        Self.writeText(into: &measure, escaped: escaped, stringEnds: [escaped.count], rules: [])
        return RecordFragments(escaped: escaped, stringEnds: [escaped.count], rules: [], measured: measure)
    }

    /// Writes the block whose text `measured` counted (it fits 32-bit offsets).
    private init(escaped: [UInt8], stringEnds: [Int], rules: [(entry: Int, rule: Int, exclude: Bool)], measured measure: TextCounter) {
        let offsetCount = measure.pieces + 1
        let excludes = 16 + 4 * offsetCount
        let textStart = excludes + rules.count
        block = .allocate(byteCount: textStart + measure.written, alignment: MemoryLayout<Int32>.alignment)

        // SAFETY: `block` holds the four header counts, `offsetCount` offsets, one byte per rule,
        // and then the text, which the same pass over the same strings and rules just measured;
        // every count and offset is below `Int32.max` (the failable `init` checked the sum).
        block.storeBytes(of: Int32(stringEnds.count - 1), toByteOffset: 0, as: Int32.self)
        block.storeBytes(of: Int32(rules.count), toByteOffset: 4, as: Int32.self)
        block.storeBytes(of: Int32(excludes), toByteOffset: 8, as: Int32.self)
        block.storeBytes(of: Int32(textStart), toByteOffset: 12, as: Int32.self)
        for (index, rule) in rules.enumerated() {
            block.storeBytes(of: UInt8(rule.exclude ? 1 : 0), toByteOffset: excludes + index, as: UInt8.self)
        }
        var text = TextWriter(start: block + textStart, offsets: block + 16)
        Self.writeText(into: &text, escaped: escaped, stringEnds: stringEnds, rules: rules)
        assert(text.written == measure.written && text.pieces == measure.pieces)
    }

    /// The text, piece by piece: the no-match tail, the domain, each app, each rule's JSON
    /// suffix, each rule's `E:R`. `escaped` holds the domain and then each app as JSON strings,
    /// string `i` ending at `stringEnds[i]`.
    private static func writeText<Text: TextSink>(
        into text: inout Text, escaped: [UInt8], stringEnds: [Int], rules: [(entry: Int, rule: Int, exclude: Bool)]
    ) {
        writeNames(into: &text, escaped: escaped, stringEnds: stringEnds)
        writeRules(into: &text, rules: rules)
    }

    /// The pieces that name: the no-match tail, the domain, each app.
    private static func writeNames<Text: TextSink>(into text: inout Text, escaped: [UInt8], stringEnds: [Int]) {
        let apps = 0..<(stringEnds.count - 1)
        escaped.withUnsafeBytes { escaped in
            // `stringEnds` holds ascending ends within `escaped`.
            let domainJSON = UnsafeRawBufferPointer(rebasing: escaped[0..<stringEnds[0]])
            // Piece 0, the no-match tail:
            // `, "domain": D, "apps": [], "decisions": [{"app": A, "decision": "no_match"}, …]`.
            text.write(domainLiteral)
            text.write(domainJSON)
            text.write(#", "apps": [], "decisions": ["#)
            for app in apps {
                if app > 0 { text.write(", ") }
                text.write(#"{"app": "#)
                text.write(UnsafeRawBufferPointer(rebasing: escaped[stringEnds[app]..<stringEnds[app + 1]]))
                text.write(#", "decision": "no_match"}"#)
            }
            text.write(UInt8(ascii: "]"))
            text.endPiece()
            // Piece 1 the domain, then one piece per app.
            text.write(domainJSON)
            text.endPiece()
            for app in apps {
                text.write(UnsafeRawBufferPointer(rebasing: escaped[stringEnds[app]..<stringEnds[app + 1]]))
                text.endPiece()
            }
        }
    }

    /// Each rule's JSON suffix, then each rule's `E:R`.
    private static func writeRules<Text: TextSink>(into text: inout Text, rules: [(entry: Int, rule: Int, exclude: Bool)]) {
        for rule in rules {
            text.write(#", "entry": "#)
            text.writeDecimal(rule.entry)
            text.write(#", "rule": "#)
            text.writeDecimal(rule.rule)
            text.write(UInt8(ascii: "}"))
            text.endPiece()
        }
        for rule in rules {
            text.writeDecimal(rule.entry)
            text.write(UInt8(ascii: ":"))
            text.writeDecimal(rule.rule)
            text.endPiece()
        }
    }

    /// How many bytes `value` takes in decimal, as `"\(value)"` writes it.
    fileprivate static func decimalLength(_ value: Int) -> Int {
        (value < 0 ? 1 : 0) + digitCount(value.magnitude)
    }

    fileprivate static func digitCount(_ magnitude: UInt) -> Int {
        var count = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
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

    /// Bytes of the block: the header and offsets, the exclude bytes and the text (the fleet's
    /// `DocumentBudget` charges them).
    var byteCount: Int {
        let textStart = Int(block.load(fromByteOffset: 12, as: Int32.self))
        let pieces = 2 + appCount + 2 * ruleCount
        return textStart + Int(block.load(fromByteOffset: 16 + 4 * pieces, as: Int32.self))
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

/// Where `writeText` puts the text: `init` runs it twice over the same strings and rules,
/// first into a `TextCounter`, then into a `TextWriter` on a block sized from the count, so
/// the block holds exactly what is written.
fileprivate protocol TextSink {
    var written: Int { get }
    var pieces: Int { get }
    mutating func write(_ bytes: UnsafeRawBufferPointer)
    mutating func write(_ byte: UInt8)
    mutating func writeDecimal(_ value: Int)
    mutating func endPiece()
}

/// Counts the text's bytes and pieces.
fileprivate struct TextCounter: TextSink {
    private(set) var written = 0
    private(set) var pieces = 0

    mutating func write(_ bytes: UnsafeRawBufferPointer) { written += bytes.count }
    mutating func write(_ byte: UInt8) { written += 1 }
    mutating func writeDecimal(_ value: Int) { written += RecordFragments.decimalLength(value) }
    mutating func endPiece() { pieces += 1 }
}

/// Writes the text and each piece's end offset (offset 0, the first piece's start, is
/// written first).
fileprivate struct TextWriter: TextSink {
    let start: UnsafeMutableRawPointer
    let offsets: UnsafeMutableRawPointer
    private(set) var written = 0
    private(set) var pieces = 0

    init(start: UnsafeMutableRawPointer, offsets: UnsafeMutableRawPointer) {
        self.start = start
        self.offsets = offsets
        // SAFETY: the block has room for every offset (`init` counted them).
        offsets.storeBytes(of: 0, as: Int32.self)
    }

    // SAFETY (every store below): `init` sized the text with a `TextCounter` run over the
    // same calls, which counts each as many bytes as it stores here.
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        (start + written).copyMemory(from: base, byteCount: bytes.count)
        written += bytes.count
    }

    mutating func write(_ byte: UInt8) {
        start.storeBytes(of: byte, toByteOffset: written, as: UInt8.self)
        written += 1
    }

    /// Writes `value` in decimal, as `"\(value)"` does, its digits stored from the last.
    mutating func writeDecimal(_ value: Int) {
        if value < 0 { write(UInt8(ascii: "-")) }
        let length = RecordFragments.digitCount(value.magnitude)
        var rest = value.magnitude
        var at = written + length - 1
        repeat {
            start.storeBytes(of: UInt8(ascii: "0") &+ UInt8(rest % 10), toByteOffset: at, as: UInt8.self)
            rest /= 10
            at -= 1
        } while rest > 0
        written += length
    }

    mutating func endPiece() {
        pieces += 1
        offsets.storeBytes(of: Int32(written), toByteOffset: 4 * pieces, as: Int32.self)
    }
}

extension TextSink {
    /// Writes a literal's UTF-8 bytes.
    mutating func write(_ literal: StaticString) {
        literal.withUTF8Buffer { write(UnsafeRawBufferPointer($0)) }
    }
}
