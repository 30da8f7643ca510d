import Foundation

/// The link shortener's workload, built on disk at run time: a rules directory of many small
/// documents and one interleaved stream of URLs over them.
///
/// Four documents in five are the shared corpus's real ones under new host names
/// (`d000042.fleet.test`); the fifth is generated with the features real files rarely combine:
/// `caseSensitive: false`, `percentEncoded: false`, substitution variables, query
/// dictionaries. The stream takes real URL paths and gives each a host by Zipf-like popularity
/// (exponent 0.9, so a few domains are hot and most are met a handful of times), sends about a
/// fifth to hosts no document serves, and has the texture of real logs: some CRLF endings,
/// upper-case hosts, a few lines that are not URLs.
///
/// Nothing here is copied into the repository: the documents and paths are read from
/// `../shared` when the suite runs.
public struct Fleet: Sendable {
    public var domains: [String]
    public var jsonBytes: Int

    /// Writes `count` documents into `directory` (`DOMAIN.json`).
    public static func write(
        count: Int, documents real: [NamedDocument], into directory: String, seed: UInt64
    ) throws -> Fleet {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var random = SeededRandom(seed: seed)
        var domains: [String] = []
        var bytes = 0
        for index in 0..<count {
            let domain = host(index)
            let document: [UInt8] =
                index % 5 == 4 || real.isEmpty ? generated(index, &random) : real[index % real.count].bytes
            try Data(document).write(to: URL(fileURLWithPath: directory + "/" + domain + ".json"))
            domains.append(domain)
            bytes += document.count
        }
        return Fleet(domains: domains, jsonBytes: bytes)
    }

    public static func host(_ index: Int) -> String {
        "d" + String(repeating: "0", count: max(0, 6 - String(index).count)) + String(index) + ".fleet.test"
    }

    /// A small document using case folding, decoded comparison, variables and query items; one
    /// in ten of them also calls `$(lang)_$(region)`, Apple's own example and the costliest
    /// predefined pair to compile (a few milliseconds), as few real files do.
    static func generated(_ index: Int, _ random: inout SeededRandom) -> [UInt8] {
        let words = ["shop", "item", "post", "user", "promo", "video", "order", "news", "profile", "deal"]
        let first = random.pick(words)
        let second = random.pick(words)
        let team = String(format: "%010X", index)
        let text = """
            {"applinks": {"defaults": {"caseSensitive": false},
              "substitutionVariables": {"section": ["\(first)", "\(second)", "sale", "café"]},
              "details": [{"appIDs": ["\(team).com.fleet.app\(index)", "\(team).com.fleet.clip"],
                "components": [
                  {"/": "/$(section)/*", "percentEncoded": false},
                  {"/": "/\(first)/?*", "?": {"ref": "$(alnum)*", "utm_source": "?*"}},
                  {"/": "/help/*", "exclude": true},
                  {"/": "/\(second)/*/details", "#": "top*"},
                  {"/": "/\(index % 50 == 4 ? "$(lang)_$(region)" : "$(digit)$(digit)")/\(first)/*"}
                ]}]}}
            """
        return Array(text.utf8)
    }

    /// `count` URLs over `domains`; `paths` are real URL paths (starting with `/`, or empty).
    public static func stream(
        count: Int, domains: [String], paths: [String], seed: UInt64, oneHost: String? = nil
    ) -> (fleet: [UInt8], oneDomain: [UInt8]) {
        var random = SeededRandom(seed: seed)
        var cumulative: [Double] = []
        cumulative.reserveCapacity(domains.count)
        var total = 0.0
        for rank in 0..<domains.count {
            total += 1 / pow(Double(rank + 1), 0.9)
            cumulative.append(total)
        }
        var fleet: [UInt8] = []
        var one: [UInt8] = []
        fleet.reserveCapacity(count * 64)
        one.reserveCapacity(count * 64)
        let single = oneHost ?? domains.first ?? "one.fleet.test"
        for _ in 0..<count {
            let path = paths.isEmpty ? "/" : random.pick(paths)
            let ending: String = random.chance(0.05) ? "\r\n" : "\n"
            if random.chance(0.002) {
                // A line no URL parser accepts, and one that is not UTF-8.
                let junk: [UInt8] = random.chance(0.5) ? Array("not a url at all".utf8) : [0x68, 0x74, 0xFF, 0xFE, 0x2F]
                fleet += junk + Array(ending.utf8)
                one += junk + Array(ending.utf8)
                continue
            }
            var host: String
            // The one-domain line keeps an unserved host as it is: both streams then have the
            // same lines that no document serves (cheap ones) as well as the same paths.
            var served = true
            if random.chance(0.2) {
                host = "u\(random.next() % UInt64(max(domains.count, 1))).unserved.test"
                served = false
            } else {
                let target = Double(random.next() >> 11) / Double(1 << 53) * total
                var low = 0
                var high = cumulative.count - 1
                while low < high {
                    let middle = (low + high) / 2
                    if cumulative[middle] < target { low = middle + 1 } else { high = middle }
                }
                host = domains[low]
            }
            var oneHostText = served ? single : host
            if random.chance(0.03) {
                host = host.uppercased()
                oneHostText = oneHostText.uppercased()
            }
            let scheme = random.chance(0.1) ? "http://" : "https://"
            fleet += Array((scheme + host + path + ending).utf8)
            one += Array((scheme + oneHostText + path + ending).utf8)
        }
        return (fleet, one)
    }

    /// The path, query and fragment of real URLs (what follows the host).
    public static func paths(of urls: [String]) -> [String] {
        urls.compactMap { url -> String? in
            guard let scheme = url.range(of: "://") else { return nil }
            let rest = url[scheme.upperBound...]
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return "/" }
            let path = String(rest[slash...])
            return path.first == "/" ? path : "/" + path
        }
    }
}
