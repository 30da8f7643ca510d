/// Little-endian binary writing and bounds-checked reading for compiled artifacts.
///
/// The reader never traps on bad input: every read checks the remaining length and throws
/// `ArtifactError.truncated`, so a damaged file is refused, not crashed on.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write(_ value: UInt8) { bytes.append(value) }

    mutating func write(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func write(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    // MARK: Compact forms (format 5): most numbers in an artifact are small.

    /// `value` in LEB128: seven bits a byte, low bits first, the high bit set on all but the last.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A count, index or other non-negative number.
    mutating func varint(_ value: Int) { varint(UInt64(max(value, 0))) }

    /// A number of either sign (a state delta), zigzag-coded so that small magnitudes are short.
    mutating func signed(_ value: Int) { varint(UInt64(bitPattern: (Int64(value) << 1) ^ (Int64(value) >> 63))) }

    mutating func text(_ value: String) {
        varint(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func texts(_ values: [String]) {
        varint(values.count)
        for value in values { text(value) }
    }

    /// Non-negative numbers, count first.
    mutating func naturals(_ values: [Int32]) {
        varint(values.count)
        for value in values { varint(Int(value)) }
    }

    /// `value` as what it shares with `previous`: the length of their common prefix, the length
    /// of their common suffix in what follows it, and the bytes in between. Consecutive domain
    /// names and files differ in a few characters.
    mutating func shared(_ value: [UInt8], previous: [UInt8]) {
        let limit = min(value.count, previous.count)
        var prefix = 0
        while prefix < limit, value[prefix] == previous[prefix] { prefix += 1 }
        var suffix = 0
        while prefix + suffix < limit, value[value.count - 1 - suffix] == previous[previous.count - 1 - suffix] { suffix += 1 }
        varint(prefix)
        varint(suffix)
        varint(value.count - prefix - suffix)
        bytes.append(contentsOf: value[prefix..<(value.count - suffix)])
    }

    /// `value` in `width` (1, 2 or 4) little-endian bytes.
    mutating func fixed(_ value: Int, width: Int) {
        for shift in Swift.stride(from: 0, to: 8 * width, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}

struct BinaryReader {
    private let buffer: ByteView
    private(set) var offset = 0

    init(_ buffer: ByteView) {
        self.buffer = buffer
    }

    var remaining: Int { buffer.count - offset }

    mutating func bytes(_ count: Int) throws(ArtifactError) -> ByteView {
        guard count >= 0, count <= remaining else { throw .truncated }
        defer { offset += count }
        return buffer[offset..<(offset + count)]
    }

    mutating func uint8() throws(ArtifactError) -> UInt8 {
        guard offset < buffer.count else { throw .truncated }
        defer { offset += 1 }
        return buffer[offset]
    }

    mutating func uint32() throws(ArtifactError) -> UInt32 {
        let raw = try bytes(4)
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(raw[$1]) << UInt32(8 * $1) }
    }

    mutating func uint64() throws(ArtifactError) -> UInt64 {
        let raw = try bytes(8)
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(raw[$1]) << UInt64(8 * $1) }
    }

    mutating func varint() throws(ArtifactError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < buffer.count else { throw .truncated }
            let byte = buffer[offset]
            offset += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw .corrupt("a number is out of range") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A non-negative number that fits an `Int32`: counts, indices, tags.
    mutating func natural() throws(ArtifactError) -> Int {
        let value = try varint()
        guard value <= UInt64(Int32.max) else { throw .corrupt("a number is out of range") }
        return Int(value)
    }

    /// A count of elements each taking at least `elementSize` bytes of what remains.
    mutating func length(elementSize: Int = 1) throws(ArtifactError) -> Int {
        let value = try varint()
        guard value <= UInt64(remaining / max(elementSize, 1)) else { throw .corrupt("a length exceeds the file") }
        return Int(value)
    }

    /// A zigzag-coded number in the `Int32` range.
    mutating func signed() throws(ArtifactError) -> Int {
        let raw = try varint()
        let value = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { throw .corrupt("a number is out of range") }
        return Int(value)
    }

    mutating func text() throws(ArtifactError) -> String {
        let raw = try bytes(try length())
        guard let text = raw.validUTF8 else { throw .corrupt("a string is not UTF-8") }
        return text
    }

    mutating func texts() throws(ArtifactError) -> [String] {
        let count = try length()
        var values: [String] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try text()) }
        return values
    }

    mutating func naturals() throws(ArtifactError) -> [Int32] {
        let count = try length()
        var values: [Int32] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(Int32(try natural())) }
        return values
    }

    /// Replaces `value`, the previous value, with the next one `BinaryWriter.shared(_:previous:)`
    /// wrote; `scratch` is reused from call to call, so that reading a 100 000-domain index
    /// allocates only the strings it keeps.
    mutating func shared(_ value: inout [UInt8], scratch: inout [UInt8]) throws(ArtifactError) {
        let prefix = try natural()
        let suffix = try natural()
        guard prefix + suffix <= value.count else { throw .corrupt("a name shares more than the previous one has") }
        let middle = try bytes(try length())
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(prefix + middle.count + suffix)
        scratch.append(contentsOf: value[0..<prefix])
        scratch.append(contentsOf: middle)
        scratch.append(contentsOf: value[(value.count - suffix)...])
        swap(&value, &scratch)
    }

    /// A number in `width` (1, 2 or 4) little-endian bytes (`BinaryWriter.fixed`).
    @inline(__always)
    mutating func fixed(width: Int) throws(ArtifactError) -> Int {
        let raw = try bytes(width)
        var value = 0
        for index in 0..<width { value |= Int(raw[index]) << (8 * index) }
        return value
    }
}

/// Why a compiled artifact was refused.
public enum ArtifactError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an artifact of this tool at all (wrong magic bytes).
    case notAnArtifact
    /// Written by another format version; recompile with this `aasa`.
    case otherVersion(found: UInt32, expected: UInt32)
    /// The file ends before its content does.
    case truncated
    /// The checksum does not match the content.
    case checksumMismatch
    /// The content is inconsistent (an index out of range, a bad tag).
    case corrupt(String)
    /// The file cannot be opened or mapped.
    case unreadable(String)
    /// An automaton passes a limit of the configuration it is loaded under, which compiling
    /// the same document under that configuration would have refused: the limits guard the
    /// loading process as much as the compiling one.
    case overLimit(Configuration.Limit, found: Int, maximum: Int)

    public var description: String {
        switch self {
        case .notAnArtifact: return "not a compiled aasa artifact (wrong magic bytes)"
        case .otherVersion(let found, let expected):
            return "compiled artifact format version \(found), this aasa reads version \(expected): run 'aasa compile' again"
        case .truncated: return "the compiled artifact is truncated"
        case .checksumMismatch: return "the compiled artifact is corrupt (checksum mismatch)"
        case .corrupt(let reason): return "the compiled artifact is corrupt: \(reason)"
        case .unreadable(let reason): return "cannot read the compiled artifact: \(reason)"
        case .overLimit(.dfaCacheBytes, let found, let maximum):
            let limit = Configuration.Limit.dfaCacheBytes
            return "the compiled artifact has an automaton that needs a DFA cache of at least \(found) bytes, more than the \(limit.rawValue) limit of \(maximum) (\(limit.hint))"
        case .overLimit(.documentBytes, let found, let maximum):
            let limit = Configuration.Limit.documentBytes
            return "the compiled artifact names app IDs whose JSON takes at least \(found) bytes, more than the \(limit.rawValue) limit of \(maximum) (\(limit.hint))"
        case .overLimit(let limit, let found, let maximum):
            return "the compiled artifact has an automaton of at least \(found) \(limit.unit), over the \(limit.rawValue) limit of \(maximum) (\(limit.hint))"
        }
    }
}
