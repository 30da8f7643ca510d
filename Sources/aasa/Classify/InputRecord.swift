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
    /// `--limit json-depth`, which holds an NDJSON line as it holds a document.
    let maxJSONDepth: Int
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
            let object: JSONObject
            do {
                guard case .object(let parsed) = try JSONParser.parse(UnsafeRawBufferPointer(line), maxDepth: maxJSONDepth) else {
                    return .invalid("the line is not a JSON object", blankExtra)
                }
                object = parsed
            } catch {
                // What is wrong, where: an unpaired surrogate is not "not an object".
                return .invalid("the line is not valid JSON: column \(error.column): \(error.message)", blankExtra)
            }
            // A key written twice keeps its last value, as JSON readers take it: the record's
            // "fields" object then has each key once.
            var others = JSONObject()
            var seen = Set<ExactString>()
            for member in object.members.reversed() where !member.key.utf8.elementsEqual(urlField.utf8) {
                if seen.insert(ExactString(member.key)).inserted { others.members.append(member) }
            }
            others.members.reverse()
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
                return .invalid(Self.unterminatedQuote, blankExtra)
            }
            // Every record has the header's columns, so that a TSV or CSV output stays a table:
            // a short row's missing fields are empty (in NDJSON fields too), and a long row is an
            // error record (its extra fields have no column to go in) with the fields that have
            // one. A row too short to hold the URL keeps the fields it has.
            var others = fields.enumerated().filter { $0.offset != urlColumn }.map(\.element)
            let surplus = others.count - otherColumnNames.count
            if surplus > 0 { others.removeLast(surplus) }
            if surplus < 0 { others += repeatElement([], count: -surplus) }
            var json: [UInt8] = []
            var object = JSONObject()
            for (name, value) in zip(otherColumnNames, others) {
                object.members.append((name, .string(String(decoding: value, as: UTF8.self))))
            }
            JSONWriter.append(.object(object), to: &json)
            let extra = Classifier.Extra(json: outputFormat == .ndjson ? json : nil, columns: outputFormat == .ndjson ? [] : others)
            guard urlColumn < fields.count else {
                return .invalid("the row has no column \(urlColumn + 1)", extra)
            }
            if surplus > 0 {
                return .invalid("the row has \(fields.count) fields, the header \(fields.count - surplus)", extra)
            }
            let url = Self.trimmed(String(decoding: fields[urlColumn], as: UTF8.self))
            guard !url.isEmpty else { return .emptyURL(extra) }
            return .url(Array(url.utf8), extra)
        }
    }

    /// The pass-through part of a record whose line could not be read: no fields, but present
    /// as a readable line's are, so that every record of an NDJSON or CSV input has its
    /// `fields` (`{}`) and a TSV or CSV output stays a table (`{}`, or every column empty).
    var blankExtra: Classifier.Extra {
        switch format {
        case .lines: return Classifier.Extra()
        case .ndjson: return Classifier.Extra(json: Array("{}".utf8))
        case .csv:
            guard outputFormat != .ndjson else { return Classifier.Extra(json: Array("{}".utf8)) }
            return Classifier.Extra(columns: Array(repeating: [], count: otherColumnNames.count))
        }
    }

    /// `names` with each repeat (and each name in `reserved`) renamed `name.1`, `name.2`…, as
    /// pandas does, so that no two columns or JSON keys share a name.
    ///
    /// Each name's next suffix to try is kept, so a header of one name written 32 000 times
    /// costs 32 000 probes, not half a billion (it took 155 s).
    static func uniqueNames(_ names: [String], besides reserved: [String]) -> [String] {
        var taken = Set(reserved + names)
        var seen = Set(reserved)
        var nextSuffix: [String: Int] = [:]
        return names.map { name in
            guard !seen.insert(name).inserted else { return name }
            var suffix = nextSuffix[name, default: 1]
            while taken.contains("\(name).\(suffix)") { suffix += 1 }
            nextSuffix[name] = suffix + 1
            let renamed = "\(name).\(suffix)"
            taken.insert(renamed)
            seen.insert(renamed)
            return renamed
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
    /// is still open at its end, or when the line holds an odd number of quotes, so that no
    /// piece of a field cut by a line break (`"multi` and `line"`) is ever taken as a row.
    ///
    /// A quote opens a quoted field only at the field's start (after blanks, if any); anywhere
    /// else it is a character of the field, as Python's `csv` and pandas read a quote inside a
    /// field. A URL such as
    /// `https://a.example/"x"` in an unquoted field was otherwise classified as
    /// `https://a.example/x`, a URL the input does not hold.
    static func csvFields(_ line: UnsafeBufferPointer<UInt8>) -> [[UInt8]]? {
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var quoted = false
        var atFieldStart = true
        var quotes = 0
        var index = 0
        // SAFETY (every read below): `index < line.count` by the loop's condition, and `index + 1`
        // is read only after `index + 1 < line.count` is checked.
        while index < line.count {
            let byte = line[index]
            if byte == UInt8(ascii: "\"") { quotes += 1 }
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < line.count, line[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        quotes += 1
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\""), atFieldStart {
                quoted = true
                atFieldStart = false
            } else if byte == UInt8(ascii: ",") {
                fields.append(field)
                field = []
                atFieldStart = true
            } else {
                field.append(byte)
                // Blanks before the opening quote keep the field's start (`1, "a, b"`).
                if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { atFieldStart = false }
            }
            index += 1
        }
        if quoted || quotes % 2 == 1 { return nil }
        fields.append(field)
        return fields
    }
}
