/// Host names a document can be fetched for. The name becomes the host of a URL and the name
/// of a folder in a rules directory, so anything else (a URL, a path, a port) is refused before
/// any request is made or any file written.
public enum DomainName {
    /// The domain, lowercased, or why it is not one. A URL or a path gets a hint naming its host.
    ///
    /// Accepted: dot-separated labels of ASCII letters, digits, `-` and `_` (some real hosts
    /// have underscores), 1 to 63 bytes each, 253 in all; a trailing dot is dropped. IDNs must be
    /// given in their `xn--` form, as the file name and the TLS certificate use it.
    public static func validate(_ input: String) -> Result<String, DomainNameError> {
        var text = input
        // Every URL (`://`) holds a slash: one byte search, not Foundation's string search.
        if text.utf8.contains(UInt8(ascii: "/")) {
            var rest = Substring(text)
            if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
            let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" }
            let hint = host.isEmpty ? "" : " (try \(VisibleText.cut(String(host))))"
            return .failure(DomainNameError(message: "'\(VisibleText.cut(input))' is a URL or a path, not a domain\(hint)"))
        }
        if text.hasSuffix(".") { text.removeLast() }
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else {
            return .failure(DomainNameError(message: "'\(VisibleText.cut(input))' is not a domain (1 to 253 characters)"))
        }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.count),
                label.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }),
                label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
            else {
                let hint = input.contains(":") ? " (a port is not part of a domain; use --connect-to for another port)" : ""
                return .failure(DomainNameError(message: "'\(VisibleText.cut(input))' is not a domain name\(hint)"))
            }
        }
        return .success(String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self))
    }

    /// Why a value cannot be the domain one document is matched for (`documentDomainProblem`).
    public enum DocumentDomainProblem: Sendable, Equatable, CustomStringConvertible {
        /// A URL or a path; `host` is the host it names, when it names one.
        case urlOrPath(host: String?)
        /// Empty, or holding a byte no URL's host has; `port` when that byte is a `:`.
        case notAHost(port: Bool)

        public var description: String {
            switch self {
            case .urlOrPath(let host): return "a domain is a host name such as example.com, not a URL or a path\(host.map { ": try \($0)" } ?? "")"
            case .notAHost(let port): return "a domain is a host name such as example.com\(port ? " (no port)" : "")"
            }
        }
    }

    /// Why `value` cannot be the domain one document is matched for (`--domain`,
    /// `aasa_rules_open_document`), or nil. Looser than `validate`: the host is compared as URLs
    /// write it, so an IDN in Unicode or a bracketed IPv6 literal is fine; but a URL's host is
    /// never empty and never holds white space, a control character or one of `/?#@[]\:`, and
    /// a domain with one would silently match no URL at all.
    public static func documentDomainProblem(_ value: String) -> DocumentDomainProblem? {
        if value.contains("/") {
            var rest = Substring(value)
            if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
            let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            return .urlOrPath(host: host.isEmpty || host == Substring(value) ? nil : String(host))
        }
        let literal = value.count > 2 && value.hasPrefix("[") && value.hasSuffix("]")
            && value.dropFirst().dropLast().unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }
        guard !literal else { return nil }
        if value.isEmpty || value.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || ":?#@[]\\".unicodeScalars.contains($0) }) {
            return .notAHost(port: value.contains(":"))
        }
        return nil
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }
}

/// The message quotes the input cut (`VisibleText.cut`) but not escaped: JSON carries it as it
/// is, and a terminal shows it through `VisibleText.escapedLine`.
public struct DomainNameError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
