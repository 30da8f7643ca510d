import Foundation

/// The oracle's text normalisation for one rule (SPEC 11, 12): percent-decoding of URL text,
/// NFC, and simple lowercase folding, in that order.
struct ReferenceText: Sendable, Hashable {
    var caseSensitive: Bool
    var percentEncoded: Bool

    /// URL text as the rule compares it: decoded (when `percentEncoded` is false and the bytes
    /// decode to valid UTF-8), then NFC (same condition, even when decoding was abandoned), then
    /// folded (when `caseSensitive` is false).
    func normalize(_ urlText: String) -> String {
        var text = urlText
        if !percentEncoded {
            text = Self.percentDecoded(text) ?? text
            // NFC leaves ASCII unchanged; skipping Foundation for it only saves time.
            // Through `TextNormalization.nfc`: Foundation alone is quadratic in a run of
            // combining marks out of order.
            if !text.utf8.allSatisfy({ $0 < 0x80 }) { text = TextNormalization.nfc(text) }
        }
        return caseSensitive ? text : Self.folded(text)
    }

    /// Pattern literal text as the rule compares it: never decoded; NFC when `percentEncoded` is
    /// false; folded when `caseSensitive` is false.
    func normalizeLiteral(_ literal: String) -> String {
        var text = literal
        // The URL text's NFC (`TextNormalization.nfc`): Foundation's own misses compositions.
        if !percentEncoded { text = TextNormalization.nfc(text) }
        return caseSensitive ? text : Self.folded(text)
    }

    /// `%XX` sequences become bytes; a `%` not followed by two hex digits stays. `nil` when the
    /// result is not valid UTF-8 (the caller then compares the text undecoded).
    static func percentDecoded(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
                let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2])
            {
                decoded.append(high << 4 | low)
                i += 3
            } else {
                decoded.append(bytes[i])
                i += 1
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Simple one-to-one lowercase folding: a scalar whose lowercase form is one scalar becomes
    /// that scalar; one whose lowercase is several scalars (`İ`) stays as it is.
    static func folded(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            if lower.count == 1, let only = lower.first {
                result.append(only)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
