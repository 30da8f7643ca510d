/// Since when each domain's CDN copy has differed from its origin copy, kept across runs of
/// `aasa check --state FILE`.
///
/// Apple's CDN refreshes on its own schedule, so a fresh difference right after a deployment is
/// expected and only a warning; one that outlives the alert threshold means the CDN is not
/// picking the document up, and becomes an error. "The same difference" is the same pair of
/// copies (the SHA-256 digests of their `applinks`, written canonically): a new origin copy gives
/// the CDN a new chance to catch up, so the clock restarts, and so it does when the CDN moves to
/// another copy that still differs. Only `applinks` counts, keys sorted and white space dropped,
/// so that an origin that stamps each response (a `"generated"` time) or whose servers order keys
/// differently cannot restart the clock for ever.
/// When the copies agree, the domain is forgotten. A comparison that could not be made leaves
/// the entry as it was: nothing was learned.
public struct DifferenceState: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var fingerprint: String
        /// Seconds since 1970 when this difference was first seen.
        public var firstSeen: Double
    }

    /// By domain.
    public private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// Reads a state file's bytes; `nil` when they are not a state file (the caller says so
    /// rather than silently starting over, which would hide a persistent difference).
    public init?(json bytes: [UInt8]) {
        guard case .object(let root)? = try? JSONParser.parse(bytes, maxDepth: 8),
            case .object(let differences)? = root["differences"]
        else { return nil }
        for member in differences.members {
            guard case .object(let entry) = member.value, case .string(let fingerprint)? = entry["fingerprint"],
                case .number(let seen)? = entry["first_seen"], let firstSeen = Double(seen), Self.plausible(firstSeen)
            else { return nil }
            entries[member.key] = Entry(fingerprint: fingerprint, firstSeen: firstSeen)
        }
    }

    /// Whether `seconds` since 1970 is a time this file could hold: finite, and between 1970 and
    /// the year 9999. A hand-edited `-1e300` or `nan` is a damaged file, not a time to subtract.
    public static func plausible(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds >= 0 && seconds <= 253_402_300_799
    }

    /// The fingerprint of a difference between two copies.
    public static func fingerprint(origin: [UInt8], cdn: [UInt8]) -> String {
        SHA256.hex(canonicalAppLinks(origin)) + ":" + SHA256.hex(canonicalAppLinks(cdn))
    }

    /// A copy's `applinks` member, keys sorted and without white space; the bytes themselves
    /// when the copy is not a JSON object with one.
    static func canonicalAppLinks(_ bytes: [UInt8]) -> [UInt8] {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        guard case .object(let root)? = try? JSONParser.parse(body), let appLinks = root["applinks"] else { return bytes }
        var canonical: [UInt8] = []
        JSONWriter.append(appLinks, sortedKeys: true, to: &canonical)
        return canonical
    }

    /// Records that `domain`'s copies differ (`fingerprint`) at `now`, and returns how long this
    /// difference has lasted, in seconds.
    public mutating func observeDifference(domain: String, fingerprint: String, now: Double) -> Double {
        if let entry = entries[domain], entry.fingerprint == fingerprint { return max(0, now - entry.firstSeen) }
        entries[domain] = Entry(fingerprint: fingerprint, firstSeen: now)
        return 0
    }

    /// Records that `domain`'s copies agree: any difference is over.
    public mutating func observeAgreement(domain: String) {
        entries[domain] = nil
    }

    /// Takes `other`'s entries (or their absence) for `domains`, keeping this state's for the
    /// rest: what one run learned, merged into a file other runs also wrote.
    public mutating func adopt(_ other: DifferenceState, for domains: [String]) {
        for domain in domains { entries[domain] = other.entries[domain] }
    }

    /// The state file's text, domains sorted so that the file diffs well.
    public var json: String {
        let rows = entries.sorted { $0.key < $1.key }.map { domain, entry in
            "    \(JSONWriter.escape(domain)): {\"fingerprint\": \(JSONWriter.escape(entry.fingerprint)), "
                + "\"first_seen\": \(Self.number(entry.firstSeen))}"
        }
        return "{\n  \"differences\": {" + (rows.isEmpty ? "" : "\n" + rows.joined(separator: ",\n") + "\n  ") + "}\n}\n"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
