/// URL component text in the form a rule compares it (SPEC 11, 12), computed once per URL and
/// mode into reusable buffers.
///
/// Raw, case-sensitive text is the URL's own bytes (no copy). Decoding turns `%XX` into bytes
/// and, when the result is not valid UTF-8, gives up and keeps the raw text; text that is then
/// non-ASCII is put in NFC (the only step that allocates, and only for non-ASCII decoded text).
/// Folding lowercases ASCII eight bytes at a time and looks up non-ASCII scalars in a table.
struct ComponentNormalizer {
    private var decoded: [UInt8] = []
    private var nfc: [UInt8] = []
    /// Folded text, written a word at a time (an array append per word would check capacity
    /// and uniqueness each time). A reference: copies of a normalizer share it, so each matcher
    /// state (one thread's) makes its own normalizer and never copies it to another thread.
    private let folded = ScratchBuffer<UInt8>(capacity: 256)

    /// Calls `body` with `bytes` normalised for `mode`. The view passed to `body` is valid only
    /// inside it.
    mutating func withNormalized<R>(_ bytes: ByteView, mode: TextMode, _ body: (ByteView) -> R) -> R {
        var nothing: Void = ()
        return withNormalized(bytes, mode: mode, updating: &nothing) { _, normalized in body(normalized) }
    }

    /// As `withNormalized(_:mode:_:)`, `target` passed to `body` as an `inout` parameter
    /// rather than captured. A closure's captured `inout` may alias, so a reference read from
    /// it was retained around every call; read from a parameter, it is not.
    mutating func withNormalized<Target, R>(
        _ bytes: ByteView, mode: TextMode, updating target: inout Target, _ body: (inout Target, ByteView) -> R
    ) -> R {
        if !mode.decoded && !mode.folded { return body(&target, bytes) }
        guard mode.decoded else {
            // Folding changes nothing in text without upper-case ASCII or non-ASCII bytes
            // (most paths): it is used as it is, uncopied.
            if TextNormalization.isOwnFold(bytes) { return body(&target, bytes) }
            return Self.fold(bytes, into: folded) { body(&target, $0) }
        }
        // The buffers are moved out while in use (swapped, not copied: a copy would leave two
        // references and make every append reallocate), so no closure below borrows `self`.
        var decoded: [UInt8] = []
        var nfc: [UInt8] = []
        let folded = self.folded
        swap(&decoded, &self.decoded)
        swap(&nfc, &self.nfc)
        defer {
            swap(&decoded, &self.decoded)
            swap(&nfc, &self.nfc)
        }
        if Self.percentDecode(bytes, into: &decoded) {
            return decoded.withView { Self.composeAndFold($0, fold: mode.folded, nfc: &nfc, folded: folded) { body(&target, $0) } }
        }
        return Self.composeAndFold(bytes, fold: mode.folded, nfc: &nfc, folded: folded) { body(&target, $0) }
    }

    /// NFC (non-ASCII text only), then folding when asked.
    private static func composeAndFold<R>(
        _ text: ByteView, fold: Bool, nfc: inout [UInt8], folded: ScratchBuffer<UInt8>, _ body: (ByteView) -> R
    ) -> R {
        if !ASCIIWords.isASCII(text) {
            nfc.removeAll(keepingCapacity: true)
            nfc.append(contentsOf: TextNormalization.nfc(text.string(0..<text.count)).utf8)
            return nfc.withView { composed in
                fold ? Self.fold(composed, into: folded, body) : body(composed)
            }
        }
        return fold ? Self.fold(text, into: folded, body) : body(text)
    }

    private static func fold<R>(_ text: ByteView, into folded: ScratchBuffer<UInt8>, _ body: (ByteView) -> R) -> R {
        folded.removeAll()
        TextNormalization.appendFolded(text, to: folded)
        return folded.withView(body)
    }

    /// Decodes `%XX` escapes into `output`; `false` when there was nothing to decode or the
    /// result is not valid UTF-8 (SPEC 12: then the component is compared undecoded).
    static func percentDecode(_ bytes: ByteView, into output: inout [UInt8]) -> Bool {
        guard bytes.contains(UInt8(ascii: "%")) else { return false }
        output.removeAll(keepingCapacity: true)
        var index = 0
        var changed = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
                changed = true
            } else {
                output.append(byte)
                index += 1
            }
        }
        guard changed else { return false }
        return output.withView { URLLineReader.isValidUTF8($0) }
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
