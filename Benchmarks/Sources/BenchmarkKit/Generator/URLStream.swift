import AASAKit

/// URL streams drawn from a synthetic document: *hits* (a URL built to match one rule, chosen
/// uniformly, so the reference scans half the rules on average) and *near misses* (a hit with one
/// small mutation: a changed or dropped character, a dropped or added segment, the wrong case,
/// a required query item removed). A few URLs name another host.
///
/// The stream is a pure function of the document and the seed.
public enum URLStream {
    /// The seed of a stream's draws: the stream's seed, the rule count and the document's seed
    /// hashed together (`mix`), not XOR-ed: `seed` is the document's seed + 1 in the suites,
    /// and `(s + 1) ^ s` is 1 for every even `s`, so every even `--seed` drew the same URLs.
    static func randomSeed(_ seed: UInt64, ruleCount: Int, documentSeed: UInt64) -> UInt64 {
        mix(mix(mix(seed) ^ UInt64(ruleCount)) ^ documentSeed)
    }

    /// SplitMix64's finaliser.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` URLs for `document`; `hitRatio` of them are hits before mutation.
    public static func generate(for document: SyntheticDocument, count: Int, seed: UInt64 = 0x5EED, hitRatio: Double = 0.6)
        -> [String]
    {
        var random = SeededRandom(seed: randomSeed(seed, ruleCount: document.ruleCount, documentSeed: document.seed))
        var urls: [String] = []
        urls.reserveCapacity(count)
        var parsedPatterns: [String: Pattern] = [:]
        func pattern(_ text: String) -> Pattern {
            if let known = parsedPatterns[text] { return known }
            let parsed = Pattern(parsing: text)
            parsedPatterns[text] = parsed
            return parsed
        }
        for _ in 0..<count {
            let rule = document.rules[random.int(0...(document.rules.count - 1))]
            var path = instantiate(pattern(rule.path), rule: rule, document: document, random: &random)
            if !path.hasPrefix("/") { path = "/" + path }
            var query = ""
            var fragment = ""
            switch rule.query {
            case .items(let items)?:
                var parts = items.map { "\($0.name)=\(instantiate(Pattern(parsing: $0.pattern), rule: rule, document: document, random: &random))" }
                if random.chance(0.5) { parts.append("utm_source=\(Vocabulary.word(random.int(0...50)))") }
                random.shuffle(&parts)
                query = "?" + parts.joined(separator: "&")
            case .text(let text)?:
                query = "?" + instantiate(Pattern(parsing: text), rule: rule, document: document, random: &random)
            case nil:
                if random.chance(0.2) { query = "?utm_source=mail&utm_campaign=\(Vocabulary.word(random.int(0...500)))" }
            }
            if let text = rule.fragment {
                fragment = "#" + instantiate(Pattern(parsing: text), rule: rule, document: document, random: &random)
            } else if random.chance(0.05) {
                fragment = "#top"
            }
            if !random.chance(hitRatio) {
                if rule.query != nil, random.chance(0.5) {
                    query = random.chance(0.5) ? "" : "?utm_source=mail"
                } else {
                    path = nearMiss(path, random: &random)
                }
            }
            let host = random.chance(0.03) ? "www.other.example" : document.domain
            urls.append("https://\(host)\(path)\(query)\(fragment)")
        }
        return urls
    }

    static let fillers = ["", "x", "2024/05", "summer", "a/b", "12345", "index.html", "p/42/reviews"]
    static let alphanumerics = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)

    static func instantiate(_ pattern: Pattern, rule: SyntheticDocument.GeneratedRule, document: SyntheticDocument, random: inout SeededRandom)
        -> String
    {
        var out = ""
        for piece in pattern.pieces {
            switch piece {
            case .literal(let text):
                out += literal(text, rule: rule, random: &random)
            case .anyOne:
                out.unicodeScalars.append(random.pick(alphanumerics))
            case .anyMany:
                let filler = random.pick(fillers)
                out += filler == "summer" ? Vocabulary.word(random.int(0...900)) : filler
            case .variable(let name):
                let values = document.variables[name] ?? PredefinedVariables.values(of: name) ?? ["x"]
                let value = random.pick(values)
                out += instantiate(Pattern(parsing: value, allowVariables: false), rule: rule, document: document, random: &random)
            }
        }
        return out
    }

    /// A literal as a URL might spell it for the rule: letter case varied when the rule ignores
    /// case, some characters percent-encoded when the rule compares decoded text.
    static func literal(_ text: String, rule: SyntheticDocument.GeneratedRule, random: inout SeededRandom) -> String {
        var text = text
        if rule.caseInsensitive, random.chance(0.3) { text = random.chance(0.5) ? text.uppercased() : text.prefix(1).uppercased() + text.dropFirst() }
        if rule.decoded, random.chance(0.4) {
            var out = ""
            for scalar in text.unicodeScalars {
                if scalar != "/", scalar.value > 0x7F || random.chance(0.1) {
                    for byte in String(scalar).utf8 { out += "%" + hex(byte) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        if !rule.decoded, text.unicodeScalars.contains(where: { $0.value > 0x7F }) {
            // A percent-encoded-compared rule matches the raw text; browsers send it encoded,
            // which is a miss: keep both spellings in the stream.
            if random.chance(0.3) {
                return text.unicodeScalars.map { $0.value > 0x7F ? String($0).utf8.map { "%" + hex($0) }.joined() : String($0) }.joined()
            }
        }
        return text
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }

    static func nearMiss(_ path: String, random: inout SeededRandom) -> String {
        var scalars = Array(path.unicodeScalars)
        switch random.int(0...5) {
        case 0:
            // Change one letter.
            let letters = scalars.indices.filter { scalars[$0].properties.isAlphabetic }
            if let index = letters.isEmpty ? nil : random.pick(letters) {
                scalars[index] = scalars[index] == "q" ? "w" : "q"
            }
        case 1:
            // Drop the last segment.
            if let slash = scalars.lastIndex(of: "/"), slash > 0 { scalars.removeSubrange(slash...) }
        case 2:
            scalars += Array("/zz".unicodeScalars)
        case 3:
            if scalars.count > 2 { scalars.remove(at: random.int(1...(scalars.count - 1))) }
        case 4:
            return path.uppercased()
        default:
            // Another section.
            let rest = scalars.dropFirst().firstIndex(of: "/").map { Array(scalars[$0...]) } ?? []
            scalars = Array("/\(random.pick(Vocabulary.commonSections))".unicodeScalars) + rest
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }
}
