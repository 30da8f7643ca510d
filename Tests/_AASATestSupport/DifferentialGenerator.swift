import AASAKit
import Foundation

/// Random documents and URLs for differential testing: small alphabets, so that patterns and
/// URLs collide often, and every SPEC feature (variables, folding, decoding, NFC, slash rules,
/// query dictionaries, defaults, legacy paths, hostile shapes) in play at once.
///
/// URLs are drawn from the document's own patterns (so they hit) and then mutated by one small
/// step (so they narrowly miss): a case change, an escape, a decomposed accent, a trailing slash,
/// a dropped or added character, a repeated query item.
public struct DifferentialGenerator {
    public var random: RandomSource

    public init(seed: UInt64) {
        random = RandomSource(seed: seed)
    }

    public static let apps = ["ABCDE12345.com.example.a", "ABCDE12345.com.example.b", "FGHIJ67890.com.example.c"]

    /// Pieces of patterns: literals from a small alphabet (ASCII, upper case, accents in both
    /// forms, escapes, regex metacharacters), wildcards and variable references.
    public static let patternAtoms = [
        "/", "/", "/", "a", "a", "b", "A", "B", "é", "É", "e\u{301}", "%41", "%c3%a9", "%C3%A9", "%2F", ".", "+",
        "(", ")", "$", "*", "*", "?", "?", "$(v)", "$(w)", "$(digit)", "$(upper)", "$(lang)", "$(nope)", "$(",
        "ß", "İ", "ﬁ",
    ]

    static let valueAtoms = ["a", "b", "A", "é", "e\u{301}", "%41", "1", "9", "*", "?", "$", "/"]

    static let textAtoms = [
        "a", "b", "A", "B", "/", "é", "É", "e\u{301}", "%41", "%61", "%c3%a9", "%C3%A9", "%E9", "%2F", "%", "%2", "1",
        "7", ".", "+", "(", ")", "$", "ß", "İ", "ı", "ﬁ", "en", "fr", "GB", "x",
    ]

    public mutating func pattern(maxAtoms: Int = 6, atoms: [String] = patternAtoms) -> String {
        (0..<random.int(0...maxAtoms)).map { _ in random.pick(atoms) }.joined()
    }

    mutating func flag() -> JSONValue? {
        random.chance(0.5) ? nil : (random.chance(0.85) ? .bool(random.chance(0.5)) : .number("1"))
    }

    mutating func queryValue() -> JSONValue? {
        switch random.int(0...9) {
        case 0...4: return nil
        case 5...6: return .string(pattern(maxAtoms: 4, atoms: ["a", "=", "&", "b", "*", "?", "%26", "1", "A"]))
        case 7...8:
            var members: [(key: String, value: JSONValue)] = []
            for _ in 0..<random.int(1...2) {
                members.append((random.pick(["a", "b", "A", "é", "e\u{301}", "%62"]), .string(pattern(maxAtoms: 3, atoms: Self.valueAtoms + ["$(v)", "$(digit)"]))))
            }
            return .object(JSONObject(members: members))
        default:
            return .object(JSONObject(members: [("a", .string("1")), ("b", .bool(true))]))
        }
    }

    mutating func keys(includeExclude: Bool) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if random.chance(0.8) { members.append(("/", .string(pattern()))) }
        if let query = queryValue() { members.append(("?", query)) }
        if random.chance(0.2) { members.append(("#", .string(pattern(maxAtoms: 3)))) }
        if includeExclude, random.chance(0.25) { members.append(("exclude", .bool(true))) }
        if let value = flag() { members.append(("caseSensitive", value)) }
        if let value = flag() { members.append(("percentEncoded", value)) }
        return members
    }

    /// A random document with 1 to 3 entries of up to 6 rules.
    public mutating func document() -> JSONValue {
        var entries: [JSONValue] = []
        for _ in 0..<random.int(1...3) {
            var entry: [(key: String, value: JSONValue)] = []
            let apps = Self.apps.filter { _ in random.chance(0.6) }
            if random.chance(0.3), let first = apps.first {
                entry.append(("appID", .string(first)))
                entry.append(("appIDs", .array(apps.dropFirst().map { .string($0) })))
            } else {
                entry.append(("appIDs", .array((apps.isEmpty ? [Self.apps[0]] : apps).map { .string($0) })))
            }
            if random.chance(0.3) {
                entry.append(("defaults", .object(JSONObject(members: keys(includeExclude: true)))))
            }
            if random.chance(0.25) {
                let paths: [JSONValue] = (0..<random.int(1...5)).map { _ in
                    .string((random.chance(0.3) ? "NOT " : "") + pattern())
                }
                entry.append(("paths", .array(paths)))
            } else {
                let rules: [JSONValue] = (0..<random.int(1...6)).map { _ in
                    random.chance(0.03) ? .string("not a rule") : .object(JSONObject(members: keys(includeExclude: true)))
                }
                entry.append(("components", .array(rules)))
            }
            entries.append(.object(JSONObject(members: entry)))
        }
        var applinks: [(key: String, value: JSONValue)] = [("details", .array(entries))]
        if random.chance(0.3) {
            applinks.append(("defaults", .object(JSONObject(members: keys(includeExclude: false)))))
        }
        var variables: [(key: String, value: JSONValue)] = []
        if random.chance(0.6) {
            variables.append(("v", .array((0..<random.int(0...4)).map { _ in .string(pattern(maxAtoms: 3, atoms: Self.valueAtoms)) })))
        }
        if random.chance(0.3) { variables.append(("w", .array([.string("ab"), .string("a"), .string("")]))) }
        if random.chance(0.1) { variables.append(("digit", .array([.string("x")]))) }
        if !variables.isEmpty { applinks.append(("substitutionVariables", .object(JSONObject(members: variables)))) }
        return .object(JSONObject(members: [("applinks", .object(JSONObject(members: applinks)))]))
    }

    /// A URL aimed at `document`'s patterns, often mutated into a near miss.
    public mutating func url(for document: JSONValue) -> String {
        let patterns = Self.patterns(in: document)
        var path = random.chance(0.8) && !patterns.isEmpty ? instantiate(random.pick(patterns)) : pattern(atoms: Self.textAtoms)
        if !path.hasPrefix("/") { path = "/" + path }
        if random.chance(0.5) { path = mutate(path) }
        var url = random.pick(["https://example.com", "https://EXAMPLE.com", "http://example.com:8080", "https://u@example.com", "https://other.com"])
        url += path
        if random.chance(0.5) {
            let items = (0..<random.int(0...3)).map { _ in
                random.pick(["a", "b", "A", "%61", "é", "e%CC%81", "a%3D1"]) + (random.chance(0.8) ? "=" + instantiate(pattern(maxAtoms: 2, atoms: Self.valueAtoms)) : "")
            }
            url += "?" + items.joined(separator: "&")
        }
        if random.chance(0.3) { url += "#" + instantiate(pattern(maxAtoms: 3)) }
        return url
    }

    /// Replaces wildcards and references with text they (probably) match.
    mutating func instantiate(_ pattern: String) -> String {
        var text = ""
        var scalars = pattern.unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            switch scalar {
            case "*": text += (0..<random.int(0...2)).map { _ in random.pick(Self.textAtoms) }.joined()
            case "?": text += random.pick(["a", "B", "é", "/", "1"])
            case "$" where scalars.first == "(":
                if let close = scalars.firstIndex(of: ")") {
                    let name = String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<close]))
                    scalars = scalars[scalars.index(after: close)...]
                    switch name {
                    case "digit": text += random.pick(["3", "x"])
                    case "upper": text += random.pick(["Q", "q"])
                    case "lang": text += random.pick(["en", "fr", "crk", "EN", "zz"])
                    case "w": text += random.pick(["ab", "a", ""])
                    default: text += random.pick(["a", "1", "é", "A"])
                    }
                } else {
                    text += "$"
                }
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text.replacingSpaces()
    }

    mutating func mutate(_ path: String) -> String {
        var scalars = Array(path.unicodeScalars)
        switch random.int(0...5) {
        case 0: return path + "/"
        case 1: return path.uppercased()
        case 2: if !scalars.isEmpty { scalars.remove(at: random.int(0...(scalars.count - 1))) }
        case 3: scalars.insert(random.pick(Array("aé/%".unicodeScalars)), at: random.int(0...scalars.count))
        case 4: return path.replacingOccurrences(of: "é", with: "%C3%A9")
        default: return path.replacingOccurrences(of: "é", with: "e%CC%81")
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    static func patterns(in document: JSONValue) -> [String] {
        var result: [String] = []
        var stack = [document]
        while let value = stack.popLast() {
            switch value {
            case .object(let object):
                for member in object.members {
                    if member.key == "/", case .string(let text) = member.value { result.append(text) }
                    if member.key == "paths", case .array(let items) = member.value {
                        for case .string(let text) in items { result.append(text.hasPrefix("NOT ") ? String(text.dropFirst(4)) : text) }
                    }
                    stack.append(member.value)
                }
            case .array(let items): stack += items
            default: break
            }
        }
        return result
    }
}

extension String {
    /// URLs in the generator never contain spaces, `?` or `#` inside the path (they would change
    /// the splitting, which has its own tests).
    func replacingSpaces() -> String {
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case " ": result += "%20"
            case "#": result += "%23"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

}
