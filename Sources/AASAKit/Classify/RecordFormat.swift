/// The output formats of `classify`.
public enum RecordFormat: String, Sendable, CaseIterable {
    /// One JSON object per line: the `match` record with `"domain"` after `"url"`.
    case ndjson
    /// Tab-separated: url, domain, apps (joined by `|`; an app ID's own `|` and `%`, which no
    /// valid one holds, written `%7C` and `%25`), rules (`entry:rule` per matched app, joined by
    /// `|`), error; a header line first. A field holding a tab, a quote or a line
    /// break (a URL from NDJSON input may) is quoted as CSV quotes it, which pandas and Python's
    /// `csv` read back; nothing else is quoted.
    case tsv
    /// The same columns, comma-separated, RFC 4180 quoting.
    case csv

    var delimiter: UInt8 { self == .csv ? UInt8(ascii: ",") : UInt8(ascii: "\t") }

    /// The columns of a TSV or CSV record, before any passed through from the input.
    public static let columns = ["url", "domain", "apps", "rules", "error"]

    /// The header line (empty for NDJSON); `extraColumns` are passed-through input columns.
    public func header(extraColumns: [String] = []) -> [UInt8] {
        guard self != .ndjson else { return [] }
        var out: [UInt8] = []
        for (index, name) in (Self.columns + extraColumns).enumerated() {
            if index > 0 { out.append(delimiter) }
            appendField(Array(name.utf8), to: &out)
        }
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// Appends one delimited field, quoted when it holds the delimiter, a quote or a line break.
    func appendField(_ bytes: ByteView, to out: inout [UInt8]) {
        guard needsQuotes(bytes) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }

    func appendField(_ bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withView { appendField($0, to: &out) }
    }

    func needsQuotes(_ bytes: ByteView) -> Bool {
        bytes.contains { $0 == delimiter || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
    }

    /// As `appendField(_:to:)`, into a record buffer.
    func appendField(_ bytes: ByteView, to out: RecordBuffer) {
        guard needsQuotes(bytes) else { return out.append(bytes) }
        var field: [UInt8] = []
        appendField(bytes, to: &field)
        out.append(field)
    }

    func appendField(_ bytes: [UInt8], to out: RecordBuffer) {
        bytes.withView { appendField($0, to: out) }
    }
}
