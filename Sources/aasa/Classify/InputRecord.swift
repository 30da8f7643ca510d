import AASAKit

/// How `classify` reads its input lines, and how it finds the URL (and the fields to pass
/// through) in each.
enum InputFormat: String {
    /// One URL per line (SPEC 14).
    case lines
    /// One JSON object per line; the URL is the string field `--url-field` (default `url`).
    case ndjson
    /// CSV with a header row; the URL is column `--url-column` (1-based number or header name,
    /// default `url`). Quoted fields are supported within a line (no line breaks inside quotes).
    case csv
}

/// Extracts the URL and the pass-through fields of one input line.
struct InputRecordParser {
    let format: InputFormat
    let urlField: String
    /// For CSV: the URL's column, and the names of the other columns (from the header).
    var urlColumn: Int = 0
    var otherColumnNames: [String] = []
    let outputFormat: RecordFormat

    enum Parsed {
        case url([UInt8], Classifier.Extra)
        case invalid(String, Classifier.Extra)
        /// The URL field is there but empty: its record shows an empty URL, not the line.
        case emptyURL(Classifier.Extra)
    }

    func parse(_ line: UnsafeBufferPointer<UInt8>) -> Parsed {
        switch format {
        case .lines:
            return .url(Array(line), Classifier.Extra())
        case .ndjson:
            guard case .object(let object)? = try? JSONParser.parse(UnsafeRawBufferPointer(line)) else {
                return .invalid("the line is not a JSON object", Classifier.Extra())
            }
            var others = JSONObject()
            for member in object.members where !member.key.utf8.elementsEqual(urlField.utf8) {
                others.members.append(member)
            }
            var json: [UInt8] = []
            JSONWriter.append(.object(others), to: &json)
            let extra = Classifier.Extra(json: json)
            guard case .string(let url)? = object[urlField] else {
                return .invalid("the record has no string field \"\(urlField)\"", extra)
            }
            let trimmed = Self.trimmed(url)
            guard !trimmed.isEmpty else { return .emptyURL(extra) }
            return .url(Array(trimmed.utf8), extra)
        case .csv:
            guard let fields = Self.csvFields(line) else {
                return .invalid(Self.unterminatedQuote, Classifier.Extra())
            }
            guard urlColumn < fields.count else {
                return .invalid("the row has no column \(urlColumn + 1)", Classifier.Extra())
            }
            let others = fields.enumerated().filter { $0.offset != urlColumn }.map(\.element)
            var json: [UInt8] = []
            var object = JSONObject()
            for (index, value) in others.enumerated() {
                let name = index < otherColumnNames.count ? otherColumnNames[index] : "column\(index + 1)"
                object.members.append((name, .string(String(decoding: value, as: UTF8.self))))
            }
            JSONWriter.append(.object(object), to: &json)
            let extra = Classifier.Extra(json: outputFormat == .ndjson ? json : nil, columns: outputFormat == .ndjson ? [] : others)
            let url = Self.trimmed(String(decoding: fields[urlColumn], as: UTF8.self))
            guard !url.isEmpty else { return .emptyURL(extra) }
            return .url(Array(url.utf8), extra)
        }
    }

    /// Said of an empty URL field, which would otherwise get the splitter's "no scheme".
    static let emptyURL = "empty URL"

    static func trimmed(_ text: String) -> String {
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(Substring(scalars))
    }

    /// Said of a row whose quote is still open at the end of its line: the rest of the field
    /// is on the next line, which CSV input does not read as part of it.
    static let unterminatedQuote = "the row has an unterminated quote (a CSV record is one line: no line breaks inside quotes)"

    /// Splits one CSV line (RFC 4180 quoting, no line breaks inside quotes); nil when a quote
    /// is still open at its end, so that a field cut by a line break is never taken whole.
    static func csvFields(_ line: UnsafeBufferPointer<UInt8>) -> [[UInt8]]? {
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var quoted = false
        var index = 0
        while index < line.count {
            let byte = line[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < line.count, line[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                fields.append(field)
                field = []
            } else {
                field.append(byte)
            }
            index += 1
        }
        if quoted { return nil }
        fields.append(field)
        return fields
    }
}
