/// A URL assembled from the compared texts the explorer wrote, written so that the matcher's
/// normalisation gives those texts back.
///
/// Under a decoding mode the texts are decoded text, so bytes that would split the URL (`?`,
/// `#`, `&`, `=`), `%` itself, spaces and control bytes are percent-encoded; under a raw mode the
/// explorer never wrote such bytes where they would split, and the text is the URL's own.
struct WitnessURL {
    /// One component's compared text and the policy it was written under.
    struct Text {
        var bytes: [UInt8]
        var policy: ComponentText.Policy

        /// Whether the text is decoded text, so that the URL must encode it.
        var decoded: Bool {
            if case .exact(let mode) = policy { return mode.decoded }
            return false
        }
    }

    let domain: String
    var path: Text?
    var query: Text?
    /// Query items in the order written: a name and its values (one or more).
    var items: [(name: String, values: [[UInt8]], policy: ComponentText.Policy)] = []
    var fragment: Text?

    init(domain: String) {
        self.domain = domain
    }

    var text: String {
        var bytes = Array("https://\(domain)".utf8)
        if let path, !path.bytes.isEmpty {
            bytes += encoded(path.bytes, special: "?#", decoded: path.decoded)
        } else {
            bytes.append(UInt8(ascii: "/"))
        }
        var queryText = query.map { encoded($0.bytes, special: "#", decoded: $0.decoded) } ?? []
        for (name, values, policy) in items {
            // A missing item counts as one empty value (SPEC 7): leave it out for a shorter URL.
            if values.count == 1 && values[0].isEmpty { continue }
            let decoded = Text(bytes: [], policy: policy).decoded
            for value in values {
                if !queryText.isEmpty { queryText.append(UInt8(ascii: "&")) }
                queryText += encoded(Array(name.utf8), special: "#&=", decoded: decoded)
                queryText.append(UInt8(ascii: "="))
                queryText += encoded(value, special: "#&", decoded: decoded)
            }
        }
        if !queryText.isEmpty { bytes += [UInt8(ascii: "?")] + queryText }
        if let fragment, !fragment.bytes.isEmpty {
            bytes += [UInt8(ascii: "#")] + encoded(fragment.bytes, special: "", decoded: fragment.decoded)
        } else if let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            // `match` and `classify` trim a line's trailing blanks (SPEC 14), which would make
            // this another URL: an empty fragment ends it instead, and decides as none (SPEC 4).
            bytes.append(UInt8(ascii: "#"))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `url` (a witness) and, when it has a query, the same URL with an empty item appended:
    /// query dictionaries ignore that item (unless one names the empty item), but a text
    /// pattern reads another text. Walks that model only one query shape cannot write it.
    static func withEmptyItem(_ url: String) -> [String] {
        let fragment = url.firstIndex(of: "#") ?? url.endIndex
        guard let query = url[..<fragment].firstIndex(of: "?"), url.index(after: query) < fragment else { return [url] }
        return [url, url[..<fragment] + "&" + url[fragment...]]
    }

    /// `url` with the ASCII letters of its query item names in the other case (`?Key=a` for
    /// `?kEY=a`), or `nil` when no name has one. A rule comparing names case-insensitively
    /// reads it as it reads `url`, one comparing them as written does not (SPEC 7, 11); the
    /// walks spell each name only as the documents do, so without it a diff that only makes an
    /// item name case-insensitive found no URL to show (an audit's finding).
    static func withItemNamesInOtherCase(_ url: String) -> String? {
        var bytes = Array(url.utf8)
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")),
            bytes[..<mark].allSatisfy({ $0 != UInt8(ascii: "#") })
        else { return nil }
        var inName = true
        var changed = false
        for index in (mark + 1)..<bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "&") {
                inName = true
            } else if byte == UInt8(ascii: "=") {
                inName = false
            } else if inName, (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) {
                bytes[index] = byte ^ 0x20
                changed = true
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// The escape `%XY` of `byte`, upper-case hex as RFC 3986 recommends.
    static func escape(_ byte: UInt8) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
    }

    private func encoded(_ text: [UInt8], special: String, decoded: Bool) -> [UInt8] {
        guard decoded else { return text }
        var result: [UInt8] = []
        for byte in text {
            if byte == UInt8(ascii: "%") || byte <= 0x20 || byte == 0x7F || special.utf8.contains(byte) {
                result += Self.escape(byte)
            } else {
                result.append(byte)
            }
        }
        return result
    }
}
