import Foundation

/// The synthetic half of the workload: path-only AASA documents of realistic shapes, and paths
/// generated to hit their rules. Seeded, so every run sees the same bytes.
enum Workload {
    /// One rule of a generated document, in evaluation order.
    struct Rule {
        var glob: String
        var exclude: Bool
    }

    /// Common first segments of web paths (many also head real URLs of the corpus).
    static let sections = [
        "product", "products", "p", "item", "items", "category", "c", "shop", "store", "news", "blog",
        "article", "articles", "post", "posts", "wiki", "help", "support", "account", "login", "user",
        "u", "profile", "search", "tag", "tags", "video", "videos", "watch", "docs", "download",
        "release", "projects", "questions", "home", "about", "contact", "cart", "checkout", "order",
        "orders", "deals", "offers", "events", "event", "music", "books", "book", "movie", "tv",
        "sports", "travel", "hotel", "jobs", "careers", "software", "web", "app", "apps", "games",
        "forum", "thread", "topic", "community", "media", "photos", "gallery", "files", "share",
        "invite", "s", "r", "l", "go", "open", "link", "ref", "promo", "campaign", "collections",
        "brand", "brands", "stores", "restaurant", "menu", "recipes", "listing", "rooms", "trip",
        "flights", "tickets", "artist", "album", "track", "playlist", "channel", "live", "show",
        "episode", "podcast", "course", "lesson", "quiz", "survey", "feedback", "settings", "wallet",
        "pay", "payments", "invoice", "subscription", "plans", "pricing", "features", "legal",
        "privacy", "terms", "press", "investors", "partners", "developers", "api", "status", "map",
    ]

    /// Second segments and slug parts.
    static let words = [
        "summer", "winter", "sale", "new", "best", "sellers", "women", "men", "kids", "baby", "home",
        "garden", "kitchen", "outdoor", "electronics", "phones", "laptops", "tablets", "audio",
        "camera", "shoes", "bags", "jewelry", "beauty", "health", "toys", "pets", "office", "auto",
        "tools", "furniture", "lighting", "bedding", "sports", "fitness", "running", "cycling",
        "travel", "luggage", "gift", "cards", "coupons", "clearance", "outlet", "premium", "classic",
        "vintage", "organic", "local", "global", "daily", "weekly", "top", "featured", "trending",
        "popular", "latest", "archive", "special", "limited", "edition", "black", "friday", "cyber",
        "monday", "spring", "autumn", "holiday", "party", "wedding", "birthday", "school", "work",
        "red", "blue", "green", "white", "gold", "silver", "mini", "max", "pro", "plus", "lite",
        "review", "guide", "how", "to", "faq", "overview", "details", "compare", "specs", "support",
        "returns", "shipping", "delivery", "tracking", "stores", "locations", "city", "paris",
        "tokyo", "london", "berlin", "madrid", "rome", "seoul", "sydney", "toronto", "chicago",
    ]

    static let extensions = ["html", "htm", "php", "aspx", "pdf", "jpg", "png", "json", "xml", "txt"]
    static let locales = ["en", "en-us", "en-gb", "fr", "de", "ja", "jp", "es", "it", "pt-br", "zh-cn", "ko"]
    static let syllables = ["ka", "lo", "mi", "ne", "ra", "to", "vi", "zu", "be", "do", "fa", "gu", "xi", "po", "sa"]

    /// A word from the lists, or for bigger documents sometimes an invented brand-like slug, so
    /// that large documents stay mostly distinct.
    static func word(_ rng: inout SplitMix64, inventive: Bool) -> String {
        if inventive && rng.chance(40) {
            var result = ""
            for _ in 0..<Int.random(in: 2...4, using: &rng) { result += rng.pick(syllables) }
            return result
        }
        return rng.pick(words)
    }

    /// `count` distinct rules of the shapes real AASA files use, about 8% of them exclusions.
    ///
    /// Shapes: `/product/*`, `/p/????/*`, `/category/<word>/*`, `/<word>-<word>/*.html`,
    /// `/<section>/*/<word>`, literal paths (`/help/contact`, `/s/48213`), literal dots
    /// (`/about.html`, `/docs/guide.pdf`), `/*.pdf`, `/<section>/?*`, `/<locale>/<section>/*`,
    /// `/<section>/*/<word>/*`.
    static func rules(count: Int, seed: UInt64) -> [Rule] {
        var rng = SplitMix64(seed: seed ^ UInt64(count))
        var seen = Set<String>()
        var result: [Rule] = []
        let inventive = count > 200
        while result.count < count {
            let section = rng.pick(sections)
            let roll = Int.random(in: 0..<100, using: &rng)
            let glob: String
            switch roll {
            case 0..<14: glob = "/\(section)/*"
            case 14..<20: glob = "/\(section)/" + String(repeating: "?", count: Int.random(in: 2...6, using: &rng)) + "/*"
            case 20..<34: glob = "/\(section)/\(word(&rng, inventive: inventive))/*"
            case 34..<42: glob = "/\(word(&rng, inventive: inventive))-\(word(&rng, inventive: inventive))/*.html"
            case 42..<48: glob = "/\(section)/*/\(word(&rng, inventive: inventive))"
            case 48..<62: glob = "/\(section)/\(word(&rng, inventive: inventive))"
            case 62..<70: glob = "/\(section)/\(Int.random(in: 1000...999_999, using: &rng))"
            case 70..<78:
                glob = rng.chance(50)
                    ? "/\(section).\(rng.pick(extensions))"
                    : "/\(section)/\(word(&rng, inventive: inventive)).\(rng.pick(extensions))"
            case 78..<80: glob = "/*.\(rng.pick(extensions))"
            case 80..<85: glob = "/\(section)/?*"
            case 85..<93: glob = "/\(rng.pick(locales))/\(section)/*"
            default: glob = "/\(section)/*/\(word(&rng, inventive: inventive))/*"
            }
            precondition(GlobTranslation.violation(of: glob) == nil, "generator made \(glob)")
            guard seen.insert(glob).inserted else { continue }
            result.append(Rule(glob: glob, exclude: rng.chance(8)))
        }
        return result
    }

    /// Apple's limit on an `apple-app-site-association` file: 128 KB (swcd does not read a
    /// larger one), which is also the library's default `document.maxBytes`. The largest
    /// document a user can deploy is the suite's large case.
    static let appleLimitBytes = 131_072

    /// The largest rule count whose document (`json(rules(count:seed:))`) is at most `bytes`.
    ///
    /// Each count draws its own rules (the generator is seeded with the count), so the size
    /// grows with the count only on average (about 25 bytes a rule) and scatters by a few dozen
    /// rules' worth around it. A binary search therefore finds a count near the boundary, not
    /// necessarily the largest (at 128 KB with the default seed it settles on 5 212, and 5 263
    /// still fits); every count up to 5% (at least 64) past it is then generated too, and the
    /// largest that fits wins. At 128 KB that window is about 260 rules, several times the
    /// scatter. Returns the count, its size in bytes and the binary search's own answer (the
    /// log prints both); a pure function of (`bytes`, `seed`).
    static func ruleCount(fillingAtMost bytes: Int, seed: UInt64) -> (rules: Int, bytes: Int, searched: Int) {
        func size(_ count: Int) -> Int { json(rules(count: count, seed: seed)).count }
        // Every rule takes more than 8 bytes of JSON (`{"/":"/a"}`), which bounds the search.
        var low = 1, high = max(1, bytes / 8)
        guard size(low) <= bytes else { return (1, size(1), 1) }
        while low < high {
            let middle = (low + high + 1) / 2
            if size(middle) <= bytes { low = middle } else { high = middle - 1 }
        }
        var best = (rules: low, bytes: size(low))
        for count in (low + 1)...(low + max(64, low / 20)) {
            let candidate = size(count)
            if candidate <= bytes { best = (count, candidate) }
        }
        return (best.rules, best.bytes, low)
    }

    static let appID = "ABCDE12345.com.example.app"
    static let domain = "example.com"

    /// The document as AASA JSON: one entry, one app, one `components` rule per glob.
    static func json(_ rules: [Rule]) -> [UInt8] {
        var out = "{\"applinks\":{\"details\":[{\"appIDs\":[\"\(appID)\"],\"components\":["
        for (index, rule) in rules.enumerated() {
            if index > 0 { out += "," }
            out += "{\"/\":\"\(escapeJSON(rule.glob))\""
            if rule.exclude { out += ",\"exclude\":true" }
            out += "}"
        }
        out += "]}]}}"
        return Array(out.utf8)
    }

    private static func escapeJSON(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// Text for a `?`: mostly ASCII, sometimes a 2-, 3- or 4-byte scalar (so `?` really is
    /// tested as one scalar, not one byte).
    static let oneScalar = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHXYZ-_".unicodeScalars).map(String.init)
    static let wideScalars = ["é", "ß", "й", "日", "本", "€", "😀"]
    static let fills = ["", "", "", "x", "12345", "index", "a/b", "2024/06/summer-sale", "café", "日本語/記事", "ünï-çødé"]

    /// `count` paths made by instantiating random rules: `?` gets one scalar, `*` some text
    /// (possibly empty, possibly with `/`). About 15% are then made near misses (one byte
    /// changed, upper-cased or dropped) and 5% get a trailing `/`.
    static func paths(hitting rules: [Rule], count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed &+ 0xA5A5 &+ UInt64(rules.count))
        var result: [String] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let glob = rng.pick(rules).glob
            var path = ""
            for scalar in glob.unicodeScalars {
                switch scalar {
                case "?":
                    path += rng.chance(8) ? rng.pick(wideScalars) : rng.pick(oneScalar)
                case "*":
                    if rng.chance(50) {
                        path += rng.pick(fills)
                    } else {
                        path += "\(word(&rng, inventive: true))-\(Int.random(in: 1...99_999, using: &rng))"
                    }
                default:
                    path.unicodeScalars.append(scalar)
                }
            }
            if rng.chance(15) {
                var scalars = Array(path.unicodeScalars)
                let index = Int.random(in: 1..<max(2, scalars.count), using: &rng)
                if index < scalars.count {
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: scalars[index] = "z"
                    case 1: scalars[index] = String(scalars[index]).uppercased().unicodeScalars.first ?? "Q"
                    default: scalars.remove(at: index)
                    }
                }
                path = String(String.UnicodeScalarView(scalars))
            }
            if rng.chance(5) { path += "/" }
            result.append(path)
        }
        return result
    }
}

/// The real half of the workload: URL paths from the shared corpus.
struct CorpusPaths {
    var paths: [String] = []
    var urls = 0
    var skippedRootOrEmpty = 0
    var skippedInvalidUTF8 = 0
    var withTrailingSlash = 0

    /// Reads one URL per line and keeps the path (after the host, before `?` / `#`). URLs whose
    /// path is empty or `/` (home pages) are left out: they carry no path to match. Returns nil
    /// when the file is absent.
    static func load(from file: String) -> CorpusPaths? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        var result = CorpusPaths()
        let bytes = [UInt8](data)
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
            var end = lineEnd
            if end > lineStart && bytes[end - 1] == 0x0D { end -= 1 }
            if end > lineStart { result.add(bytes[lineStart..<end]) }
            lineStart = lineEnd + 1
        }
        return result
    }

    private mutating func add(_ line: ArraySlice<UInt8>) {
        urls += 1
        // After "scheme://", the authority runs to the first "/", "?" or "#".
        var index = line.startIndex
        var schemeEnd: Int?
        while index + 2 < line.endIndex {
            if line[index] == UInt8(ascii: ":") && line[index + 1] == UInt8(ascii: "/") && line[index + 2] == UInt8(ascii: "/") {
                schemeEnd = index + 3
                break
            }
            index += 1
        }
        guard let authorityStart = schemeEnd else { return }
        let isDelimiter: (UInt8) -> Bool = { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        let pathStart = line[authorityStart...].firstIndex(where: isDelimiter) ?? line.endIndex
        let pathEnd = line[pathStart...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? line.endIndex
        let path = line[pathStart..<pathEnd]
        if path.isEmpty || (path.count == 1 && path.first == UInt8(ascii: "/")) {
            skippedRootOrEmpty += 1
            return
        }
        guard let text = String(validating: path, as: UTF8.self) else {
            skippedInvalidUTF8 += 1
            return
        }
        if path.last == UInt8(ascii: "/") { withTrailingSlash += 1 }
        paths.append(text)
    }
}

/// A stream of URL paths, stored once: `https://example.com<path>` for our engine (which splits
/// the URL and checks the host itself), and the path, a suffix of the same bytes, for the peers.
struct PathStream {
    var bytes: [UInt8] = []
    /// Per path: where its URL starts, where its path starts, where both end.
    var urlStart: [Int] = []
    var pathStart: [Int] = []
    var end: [Int] = []
    var realCount = 0
    var generatedCount = 0

    var count: Int { end.count }

    init(real: [String], generated: [String], seed: UInt64) {
        var items = real.map { ($0, true) } + generated.map { ($0, false) }
        var rng = SplitMix64(seed: seed &+ 0x5EED)
        items.shuffle(using: &rng)
        let prefix = Array("https://\(Workload.domain)".utf8)
        for (path, _) in items {
            urlStart.append(bytes.count)
            bytes += prefix
            pathStart.append(bytes.count)
            bytes += Array(path.utf8)
            end.append(bytes.count)
        }
        realCount = real.count
        generatedCount = generated.count
    }

    func path(_ index: Int) -> String {
        String(decoding: bytes[pathStart[index]..<end[index]], as: UTF8.self)
    }
}
