/// A URL assembled from the compared texts the explorer wrote, written so that the matcher's
/// normalisation gives those texts back.
///
/// Under a decoding mode the texts are decoded text, so bytes that would split the URL (`?`,
/// `#`, `&`, `=`), `%` itself, spaces and control bytes are percent-encoded; under a raw mode the
/// explorer never wrote such bytes where they would split, and the text is the URL's own.
struct WitnessURL {
    let domain: String
    let policy: ComponentText.Policy
    var path: [UInt8] = []
    var query: [UInt8] = []
    /// Query items in the order written: a name and its values (one or more).
    var items: [(name: String, values: [[UInt8]])] = []
    var fragment: [UInt8] = []

    init(domain: String, policy: ComponentText.Policy) {
        self.domain = domain
        self.policy = policy
    }

    private var decoded: Bool {
        if case .exact(let mode) = policy { return mode.decoded }
        return false
    }

    var text: String {
        var bytes = Array("https://\(domain)".utf8)
        bytes += path.isEmpty ? [UInt8(ascii: "/")] : encoded(path, special: "?#")
        var queryText = encoded(query, special: "#")
        for (name, values) in items {
            // A missing item counts as one empty value (SPEC 7): leave it out for a shorter URL.
            if values.count == 1 && values[0].isEmpty { continue }
            for value in values {
                if !queryText.isEmpty { queryText.append(UInt8(ascii: "&")) }
                queryText += encoded(Array(name.utf8), special: "#&=")
                queryText.append(UInt8(ascii: "="))
                queryText += encoded(value, special: "#&")
            }
        }
        if !queryText.isEmpty { bytes += [UInt8(ascii: "?")] + queryText }
        if !fragment.isEmpty { bytes += [UInt8(ascii: "#")] + encoded(fragment, special: "") }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func encoded(_ text: [UInt8], special: String) -> [UInt8] {
        guard decoded else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        for byte in text {
            if byte == UInt8(ascii: "%") || byte <= 0x20 || byte == 0x7F || special.utf8.contains(byte) {
                result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                result.append(byte)
            }
        }
        return result
    }
}
