/// Text for a terminal that quotes what a server sent: a `Location` or `Content-Type` value, a
/// reason phrase, a document's strings. Control characters there (an escape sequence can set
/// the window title, clear the screen or paint a fake "ok") are shown as `\u{1B}` instead of
/// being obeyed; line breaks and tabs stay. JSON output needs none of this: its escaping
/// already covers them.
public enum VisibleText {
    public static func escaped(_ text: String) -> String {
        escaped(text, hiding: isHidden)
    }

    /// As `escaped(_:)` for text shown on one line of its own (a URL, an app ID): line breaks
    /// (the Unicode line and paragraph separators too, which editors and some viewers break
    /// on) and tabs are escaped too, so that a value cannot print a line that looks like the
    /// tool's ("1000 passed, 0 failed").
    public static func escapedLine(_ text: String) -> String {
        escaped(text, hiding: { isHidden($0) || $0 == "\n" || $0 == "\t" || $0 == "\u{2028}" || $0 == "\u{2029}" })
    }

    /// As `escapedLine(_:)` for a string already quoted and escaped as JSON: what JSON leaves as
    /// it is (DEL, the C1 controls, the bidirectional controls, the Unicode line separators) is
    /// escaped as JSON escapes (`\u007f`), so that the string stays JSON and one string never
    /// shows a control in two notations.
    public static func escapedJSONString(_ quoted: String) -> String {
        escaped(quoted, hiding: { isHidden($0) || $0 == "\u{2028}" || $0 == "\u{2029}" }) { scalar in
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// As `escapedLine(_:)`, cut after `limit` characters ("…" and the whole size follow), for
    /// a message that quotes input of any length: a 300 MB line is named, not printed.
    public static func excerpt(_ text: String, limit: Int = 80) -> String {
        escapedLine(cut(text, limit: limit))
    }

    /// `text` cut after `limit` characters as `excerpt(_:limit:)` cuts it, but not escaped: for a
    /// message that JSON may carry (its escaping is JSON's) and a terminal shows escaped.
    public static func cut(_ text: String, limit: Int = 80) -> String {
        var count = 0
        var end = text.startIndex
        while end < text.endIndex, count < limit {
            end = text.index(after: end)
            count += 1
        }
        guard end < text.endIndex else { return text }
        return String(text[..<end]) + "… (\(text.utf8.count) bytes)"
    }

    /// What a record shows of a line over `line-bytes` (`URLLineReader`), for a URL given as an
    /// argument, which is judged as such a line: at most its first 200 bytes, and no more than
    /// the reader keeps of a line (`maxLineBytes + 2`), cut before a UTF-8 sequence rather than
    /// inside it, and "…" when cut.
    public static func overlongLine(_ text: String, maxLineBytes: Int) -> String {
        let bytes = Array(text.utf8)
        let window = maxLineBytes + 2
        guard bytes.count > window else { return bytes.withView { $0.shownText() } }
        return bytes.withView { $0[0..<window].shownText(cut: true) }
    }

    private static func escaped(
        _ text: String, hiding isHidden: (Unicode.Scalar) -> Bool,
        as notation: (Unicode.Scalar) -> String = { "\\u{\(String($0.value, radix: 16, uppercase: true))}" }
    ) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isHidden(scalar) {
                shown.append(contentsOf: notation(scalar).unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// C0 controls but line feed and tab, DEL, the C1 controls (which terminals also obey), and
    /// the bidirectional embeddings, overrides and isolates, which reorder what is shown after them.
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
