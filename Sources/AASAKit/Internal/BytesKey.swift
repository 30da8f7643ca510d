/// Bytes as a dictionary key, hashed in one call over their storage and compared with one
/// `memcmp`: an `[UInt8]` key hashes element by element, about 25 instructions a byte, which
/// for a rules file is more than reading it (`ClassifierRules` keys compiles by file bytes).
struct BytesKey: Hashable, Sendable {
    let bytes: [UInt8]

    static func == (lhs: BytesKey, rhs: BytesKey) -> Bool {
        lhs.bytes.count == rhs.bytes.count && lhs.bytes.withView { left in rhs.bytes.withView { left.bytesEqual($0) } }
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
