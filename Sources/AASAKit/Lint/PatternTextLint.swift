/// Patterns that are valid but almost surely written as something else than what the engine
/// reads them as: a whole URL or a host where a path belongs, a query string inside a path, a
/// `NOT ` that is literal text, a query or fragment pattern starting with its own delimiter, a
/// query item name that no URL can hold. Each still matches what SPEC 5 to 10 say it matches
/// (so the file works, only not as meant), hence a warning with the reading the author wanted.
///
/// What it will not do: guess intent beyond these shapes, or judge percent escapes (their
/// meaning depends on the rule's effective `percentEncoded`: `PercentEncodingLint`).
enum PatternTextLint {
    static func findings(document: AASADocument) -> [LintFinding] {
        PatternSite.all(in: document).compactMap(finding(for:))
    }

    static func finding(for site: PatternSite) -> LintFinding? {
        guard let (message, hint) = problem(site) else { return nil }
        return LintCatalog.suspiciousPattern.finding(at: site.path, message, hint: hint)
    }

    /// What is wrong with `site`, with the fix, or nil.
    static func problem(_ site: PatternSite) -> (String, String)? {
        let text = site.text
        switch site.component {
        case .path(let legacy):
            let lower = text.lowercased()
            // `//` alone is no URL: a pattern's leading slashes collapse to one (SPEC 6), so only
            // `//` before a host name is a scheme-relative URL.
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") || (text.hasPrefix("//") && isHostName(text.dropFirst(2).prefix { $0 != "/" })) {
                return (
                    "this path pattern is a whole URL; it is compared with the URL's path alone, so it matches only paths that repeat it",
                    "write the path alone, e.g. \"/\(afterHost(text))\"")
            }
            if let host = leadingHost(text) {
                return (
                    "this path pattern starts with the host name \"\(host)\"; it is compared with the URL's path alone (a \"/\" is put before it)",
                    "write the path alone, e.g. \"/\(afterHost(text))\"")
            }
            if let query = queryString(text) {
                let hint = legacy
                    ? "legacy paths cannot match a query: use components, e.g. {\"/\": \"\(text[..<query])\", \"?\": {...}}"
                    : "match the query with the \"?\" key, e.g. {\"/\": \"\(text[..<query])\", \"?\": {...}}"
                return ("this path pattern holds a query string; in a path, ? is any one character, and a URL's path never holds its query", hint)
            }
            if !legacy, text.utf8.starts(with: "NOT ".utf8) {
                return (
                    "in components, \"NOT \" is literal text, not an exclusion: this rule matches paths that start with \"NOT \"",
                    "write {\"/\": \"\(String(text.unicodeScalars.dropFirst(4)))\", \"exclude\": true}")
            }
            if legacy, looksLikeMisspeltNot(text) {
                return (
                    "only \"NOT \" (upper case, then one space) makes a legacy path an exclusion; this is literal text that matches paths starting with it",
                    "write \"NOT \(text.drop { $0 != "/" })\"")
            }
        case .query:
            if text.hasPrefix("?") {
                return (
                    "this query pattern starts with \"?\"; a URL's query does not include the ? before it, so here ? is one more character",
                    "drop the leading \"?\": \"\(text.dropFirst())\"")
            }
        case .fragment:
            if text.hasPrefix("#") {
                return (
                    "this fragment pattern starts with \"#\"; a URL's fragment does not include the # before it, so it matches only fragments that start with #",
                    "drop the leading \"#\": \"\(text.dropFirst())\"")
            }
        case .queryItem(let name):
            if name.contains("=") {
                return (
                    "no URL has a query item named \"\(name)\": an item's name ends at its first =",
                    "name the item and put its value in the pattern, e.g. {\"\(name.prefix { $0 != "=" })\": \"\(name.drop { $0 != "=" }.dropFirst())\"}")
            }
            if name.hasPrefix("?") {
                return (
                    "no URL has a query item named \"\(name)\": the ? before a query is not part of its first item's name",
                    "drop the leading \"?\" from the name")
            }
            if name.contains("*") {
                return (
                    "query item names are compared as written, not as patterns: \"\(name)\" names only an item spelt with that *",
                    "name the item exactly; patterns go in its value")
            }
        }
        return nil
    }

    /// The host a path pattern starts with (`example.com/bar`), or nil: letters, digits, `-` and
    /// `.`, with a dot, then a `/`.
    private static func leadingHost(_ text: String) -> Substring? {
        guard let slash = text.firstIndex(of: "/"), slash != text.startIndex else { return nil }
        let head = text[..<slash]
        return isHostName(head) ? head : nil
    }

    /// A dotted name of ASCII letters, digits and hyphens ending in letters (`example.com`).
    private static func isHostName(_ head: Substring) -> Bool {
        head.contains(".") && head.last != "." && head.first != "."
            && head.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
            && head.split(separator: ".").last?.allSatisfy({ $0.isLetter }) == true
    }

    /// What follows the scheme and host of a URL written as a path, for the hint.
    private static func afterHost(_ text: String) -> Substring {
        var rest = Substring(text)
        if let scheme = rest.range(of: "//") { rest = rest[scheme.upperBound...] }
        guard let slash = rest.firstIndex(of: "/") else { return "" }
        return rest[rest.index(after: slash)...]
    }

    /// Where a query string starts in a path pattern (`/search?q=*`): a `?` followed by a name
    /// and `=`, or nil.
    private static func queryString(_ text: String) -> String.Index? {
        var index = text.startIndex
        while let mark = text[index...].firstIndex(of: "?") {
            let name = text[text.index(after: mark)...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.[]".contains($0)) }
            if !name.isEmpty, name.endIndex < text.endIndex, text[name.endIndex] == "=" { return mark }
            index = text.index(after: mark)
        }
        return nil
    }

    /// `NOT/login`, `not /signup`, `Not  /x`: a legacy exclusion prefix spelt otherwise.
    private static func looksLikeMisspeltNot(_ text: String) -> Bool {
        // Scalars, as the prefix is read (SPEC 5): a mark after the space must not hide it.
        let head = Array(text.unicodeScalars.prefix(4))
        guard head.count == 4, String(String.UnicodeScalarView(head[0..<3])).lowercased() == "not" else { return false }
        return head[3] == "/" || head[3] == " " || head[3] == "\t"
    }
}

extension LintCatalog {
    public static let suspiciousPattern = Entry(
        code: "suspicious-pattern", severity: .warning,
        summary: "a pattern is probably written as something else: a whole URL, a query string in a path, a literal NOT, a leading ? or #, an item name with = or *")
}
