/// Which bytes a URL component's compared text can hold, and the few rules of its shape.
///
/// The explorer writes URLs in the text a rule compares (normalised text), so it must only
/// write texts some real URL normalises to, or its "no URL does this" proofs would count
/// impossible texts, and its witnesses would be URLs that cannot exist. Three facts decide it:
///
/// - splitting (SPEC 4): a raw path holds no `?` or `#`, a raw query no `#`, a raw query item no
///   `&`; decoded text can hold them all (they arrive as `%3F`, `%23`, `%26`);
/// - folding (SPEC 11) leaves no ASCII capital letter;
/// - the matcher trims the path's trailing `/` (SPEC 6), and a path starts with `/`.
///
/// Everything else is left open, which keeps the proofs sound (a superset of the real texts);
/// the witnesses are re-checked by the matcher anyway.
enum ComponentText {
    enum Kind: Hashable {
        case path
        case query
        /// A query item's value; `name` is the normalised item name.
        case itemValue(name: String)
        case fragment
    }

    /// How the explorer's texts relate to URLs.
    enum Policy: Equatable {
        /// Every rule compares in `mode`: texts are that mode's normalised text, exactly.
        case exact(TextMode)
        /// Rules compare in several modes: texts are restricted to bytes every mode leaves
        /// unchanged (lower-case printable ASCII without `%`), so all modes read the same text.
        /// Witnesses stay valid; "no URL" claims are no longer proofs.
        case common
    }

    /// `allowed[b]`: whether byte `b` may appear in a text of `kind` under `policy`.
    static func allowedBytes(_ kind: Kind, policy: Policy) -> [Bool] {
        var allowed = [Bool](repeating: true, count: 256)
        func forbid(_ characters: String) {
            for byte in characters.utf8 { allowed[Int(byte)] = false }
        }
        switch policy {
        case .common:
            for byte in 0..<256 {
                allowed[byte] = byte > 0x20 && byte < 0x7F && !(0x41...0x5A).contains(byte)
            }
            forbid("%?#&=")
        case .exact(let mode):
            if mode.folded {
                for byte in 0x41...0x5A { allowed[byte] = false }
            }
            if !mode.decoded {
                switch kind {
                case .path: forbid("?#")
                case .query: forbid("#")
                case .itemValue: forbid("#&")
                case .fragment: break
                }
            }
        }
        return allowed
    }

    /// Whether the item name `name` (normalised) can be written in a URL under `policy`: a raw
    /// name cannot hold the bytes that split items, and a folded one has no capitals.
    static func canWriteName(_ name: String, policy: Policy) -> Bool {
        switch policy {
        case .common:
            return name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !(0x41...0x5A).contains($0) && !"%?#&=".utf8.contains($0) }
        case .exact(let mode):
            if mode.folded && name.utf8.contains(where: { (0x41...0x5A).contains($0) }) { return false }
            return mode.decoded || !name.utf8.contains { "#&=".utf8.contains($0) }
        }
    }

    /// Preference of bytes in witnesses: letters, digits, then punctuation, non-ASCII, space
    /// and control bytes last, so that the shortest witness is also a readable one.
    static func rank(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 100 + Int(byte)
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"): return 200 + Int(byte)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return 300 + Int(byte)
        case 0x21...0x7E: return 400 + Int(byte)
        case 0x80...0xFF: return 600 + Int(byte)
        case 0x20: return 900
        default: return 1000 + Int(byte)
        }
    }

    /// Boundaries of the UTF-8 lead and continuation byte ranges that `Context` tells apart.
    static let utf8Boundaries: [Int] = [0x80, 0x90, 0xA0, 0xC0, 0xC2, 0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4, 0xF5]

    /// The state of a text being written, one byte: bits 0-2 the UTF-8 decoder state (only
    /// valid UTF-8 is written), bit 3 "something was written", bit 4 "last byte was `/`".
    struct Context: Hashable {
        var bits: UInt8 = 0

        private static let started: UInt8 = 1 << 3
        private static let lastSlash: UInt8 = 1 << 4

        /// The context after writing `byte` in a text of `kind`, or `nil` when that byte cannot
        /// come next.
        func writing(_ byte: UInt8, kind: Kind) -> Context? {
            guard let utf8 = Self.utf8Step(bits & 7, byte) else { return nil }
            if kind == .path, bits & Self.started == 0, byte != UInt8(ascii: "/") { return nil }
            var next = utf8 | Self.started
            if byte == UInt8(ascii: "/") { next |= Self.lastSlash }
            return Context(bits: next)
        }

        /// Whether the text may end here: whole scalars only, and a path not ending in `/`
        /// (the matcher trims it, SPEC 6).
        func canEnd(kind: Kind) -> Bool {
            bits & 7 == 0 && !(kind == .path && bits & Self.lastSlash != 0)
        }

        /// UTF-8 well-formedness as a small DFA (Unicode table 3-7): states 0 boundary, 1-3 that
        /// many continuation bytes due, 4-7 the restricted second bytes after E0, ED, F0, F4.
        private static func utf8Step(_ state: UInt8, _ byte: UInt8) -> UInt8? {
            switch state {
            case 0:
                switch byte {
                case 0x00...0x7F: return 0
                case 0xC2...0xDF: return 1
                case 0xE0: return 4
                case 0xE1...0xEC, 0xEE...0xEF: return 2
                case 0xED: return 5
                case 0xF0: return 6
                case 0xF1...0xF3: return 3
                case 0xF4: return 7
                default: return nil
                }
            case 1, 2, 3: return (0x80...0xBF).contains(byte) ? state - 1 : nil
            case 4: return (0xA0...0xBF).contains(byte) ? 1 : nil
            case 5: return (0x80...0x9F).contains(byte) ? 1 : nil
            case 6: return (0x90...0xBF).contains(byte) ? 2 : nil
            default: return (0x80...0x8F).contains(byte) ? 2 : nil
            }
        }
    }
}
