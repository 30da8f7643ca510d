/// Patterns written in the other encoding than their rule's `percentEncoded` reads (SPEC 12), so
/// that they match only URLs written otherwise than browsers write them:
///
/// - under `percentEncoded: false` the URL is decoded and the pattern is not, so `%20` in the
///   pattern is the three characters `%`, `2`, `0`, which only a URL writing `%2520` holds;
/// - under `percentEncoded: true` (the default) the URL is compared as written, so a space, a
///   control character or a non-ASCII character in the pattern matches only a URL that carries it
///   raw, and a browser escapes each of them (`é` is sent as `%C3%A9`).
///
/// A pattern is judged under the flag of every rule that reads it (a default can serve rules of
/// both kinds), a custom variable's values under the flags of the rules that call it, and query
/// item names as their values are (SPEC 7 compares them alike).
///
/// What it will not do: judge a `%` without two hex digits after it (literal under both flags),
/// or the characters some browsers leave raw (`|`, `{`, `"`, …), whose fate depends on the
/// browser.
enum PercentEncodingLint {
    static func findings(document: AASADocument, tree: JSONTree) -> [LintFinding] {
        guard let applinks = document.applinks else { return [] }
        var findings: [LintFinding] = []
        var judged = Set<Judged>()
        /// Per custom variable: the flags of the rules that call it.
        var callers: [ExactString: Set<Bool>] = [:]
        let domainDefaults = (applinks.defaults, JSONPath.root / "applinks" / "defaults")

        func judge(_ text: String, at path: JSONPath, encoded: Bool, isName: Bool = false) {
            guard judged.insert(Judged(path: path.description, encoded: encoded, isName: isName)).inserted else { return }
            let pattern = isName ? Pattern(pieces: [.literal(text)]) : Pattern(parsing: text)
            for case .variable(let name) in pattern.pieces where applinks.substitutionVariables[name] != nil {
                callers[ExactString(name), default: []].insert(encoded)
            }
            if let finding = finding(for: pattern, text: text, at: path, encoded: encoded, isName: isName) { findings.append(finding) }
        }

        for entry in document.entries {
            let entryDefaults = (entry.defaults, entry.path / "defaults")
            for rule in entry.rules {
                let encoded = rule.keys.percentEncoded ?? entry.defaults.percentEncoded ?? applinks.defaults.percentEncoded ?? true
                if rule.isLegacyPath {
                    judge(rule.keys.path ?? "", at: entry.path / "paths" / rule.index, encoded: encoded)
                    continue
                }
                // SPEC 10: each key from the most specific level that sets it.
                let levels = [(rule.keys, entry.path / "components" / rule.index), entryDefaults, domainDefaults]
                if let (keys, at) = levels.first(where: { $0.0.path != nil }), let text = keys.path {
                    judge(text, at: at / "/", encoded: encoded)
                }
                if let (keys, at) = levels.first(where: { $0.0.fragment != nil }), let text = keys.fragment {
                    judge(text, at: at / "#", encoded: encoded)
                }
                switch levels.lazy.compactMap({ level in level.0.query.map { ($0, level.1) } }).first {
                case (.text(let text), let at)?:
                    judge(text, at: at / "?", encoded: encoded)
                case (.items(let predicates), let at)?:
                    for predicate in predicates {
                        judge(predicate.name, at: at / "?" / predicate.name, encoded: encoded, isName: true)
                        judge(predicate.pattern, at: at / "?" / predicate.name, encoded: encoded)
                    }
                case (.voided, _)?, nil:
                    break
                }
            }
        }

        let definitions = JSONPath.root / "applinks" / "substitutionVariables"
        for name in applinks.substitutionVariables.names {
            guard let flags = callers[ExactString(name)], case .array(let elements)? = tree.value(at: definitions / name) else { continue }
            for (index, element) in elements.enumerated() {
                guard case .string(let value) = element else { continue }
                // SPEC 9: a value is a pattern of `*`, `?` and literal text, never a reference.
                let pattern = Pattern(parsing: value, allowVariables: false)
                for encoded in flags.sorted(by: { !$0 && $1 }) {
                    if let finding = finding(for: pattern, text: value, at: definitions / name / index, encoded: encoded, variable: name) {
                        findings.append(finding)
                    }
                }
            }
        }
        return findings
    }

    private struct Judged: Hashable {
        var path: String
        var encoded: Bool
        var isName: Bool
    }

    /// The finding for `pattern` (written `text`) read under `percentEncoded: encoded`, or nil.
    private static func finding(
        for pattern: Pattern, text: String, at path: JSONPath, encoded: Bool, isName: Bool = false, variable: String? = nil
    ) -> LintFinding? {
        let literals = pattern.pieces.compactMap { piece -> String? in
            if case .literal(let literal) = piece { return literal }
            return nil
        }
        let what = variable.map { "this value of $(\($0))" } ?? (isName ? "this query item name" : "this pattern")
        let rules = variable == nil ? "its rule" : "a rule that calls it"
        if encoded {
            guard let raw = literals.lazy.compactMap(firstRaw).first else { return nil }
            let escaped = escape(text)
            return LintCatalog.percentEncodingMismatch.finding(
                at: path,
                "\(rules) compares the URL as written (percentEncoded is true), and \(what) holds \(describe(raw)) unescaped, which a URL from a browser never does (it writes \(escape(String(raw))))",
                hint: "set \"percentEncoded\": false on the rule to write characters, or write the escapes: \"\(escaped)\"")
        }
        guard let escapeText = literals.lazy.compactMap(firstEscape).first else { return nil }
        let decoded = decode(text)
        return LintCatalog.percentEncodingMismatch.finding(
            at: path,
            "\(rules) decodes the URL before comparing (percentEncoded is false) but not \(what): \"\(escapeText)\" stands for those three characters, which only a URL writing %25\(escapeText.dropFirst()) holds",
            hint: decoded.map { "write the characters themselves: \"\($0)\"" } ?? "write the characters themselves, or set \"percentEncoded\": true")
    }

    /// The first scalar no browser leaves raw in a URL: a space, a control character, or any
    /// non-ASCII scalar.
    private static func firstRaw(_ literal: String) -> Unicode.Scalar? {
        literal.unicodeScalars.first { $0.value <= 0x20 || $0.value >= 0x7F }
    }

    /// The first `%XX` (two hex digits) in `literal`.
    private static func firstEscape(_ literal: String) -> String? {
        let bytes = Array(literal.utf8)
        guard bytes.count >= 3 else { return nil }
        for index in 0..<(bytes.count - 2) where bytes[index] == UInt8(ascii: "%") && isHex(bytes[index + 1]) && isHex(bytes[index + 2]) {
            return String(decoding: bytes[index..<(index + 3)], as: UTF8.self)
        }
        return nil
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x20: return "a space"
        case ..<0x20, 0x7F: return "a control character (U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)))"
        default: return "\"\(Character(scalar))\""
        }
    }

    /// `text` with every byte a browser escapes written `%XX`, upper-case hex as browsers write it.
    private static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte <= 0x20 || byte >= 0x7F {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    /// `text` with its `%XX` escapes decoded, or nil when the result is not UTF-8.
    private static func decode(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]),
                let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension LintCatalog {
    public static let percentEncodingMismatch = Entry(
        code: "percent-encoding-mismatch", severity: .warning,
        summary: "a pattern holds %XX escapes under percentEncoded false, or raw spaces or non-ASCII under true: it matches only URLs no browser writes")
}
