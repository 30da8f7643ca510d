/// Re-checks witness URLs with the matcher before anything is printed.
///
/// The explorer and the matcher share the automata but not the code around them (URL
/// splitting, percent-decoding, NFC, trimming), so a witness is only reported once the matcher
/// itself gives it the decisions the analysis claims. A witness that fails would be a bug in
/// the analysis; it is dropped rather than shown.
///
/// The matcher is given the URL as `match` and `classify` would read it from a line, or not at
/// all: a witness those commands would trim (a fragment ending in a space), split (a line
/// break) or refuse (over `url-bytes`) would show a URL that decides otherwise, or nothing.
struct WitnessCheck {
    private let matchers: [DFAMatcher]
    private let maxURLBytes: Int

    /// Matchers over the sides' own NFAs (compiled once), within `configuration`'s limits.
    init(sides: [AnalysisDocument], configuration: Configuration) throws(AutomatonError) {
        var matchers: [DFAMatcher] = []
        for side in sides {
            let compiled = try CompiledDocument(nfas: side.nfas, appIDs: side.appIDs, domain: side.domain, configuration: configuration)
            matchers.append(DFAMatcher(compiled))
        }
        self.matchers = matchers
        maxURLBytes = min(configuration.input.maxURLBytes, configuration.input.maxLineBytes)
    }

    /// Whether a line holding `url` gives the matcher `url` itself (SPEC 14): within the URL
    /// and line limits, no line break in it, nothing trimmed from its ends.
    func isReadable(_ url: String) -> Bool {
        let bytes = url.utf8
        guard bytes.count <= maxURLBytes, let first = bytes.first, let last = bytes.last else { return false }
        func trimmed(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        return !trimmed(first) && !trimmed(last) && !bytes.contains(UInt8(ascii: "\n"))
    }

    /// The decisions of document `side` for `url`, in its app order; `nil` when the URL cannot
    /// be split or read from a line as written.
    func decisions(_ url: String, side: Int) -> [AppDecision]? {
        guard isReadable(url) else { return nil }
        return try? matchers[side].decide(url, app: nil).decisions
    }

    /// The most URLs the matcher judges when the walks prove nothing: a fraction of the walks'
    /// own cost.
    static let maxJudgedURLs = 4_096

    /// The URLs of `urls` to judge short of a proof: each also with an empty query item
    /// (`WitnessURL.withEmptyItem`) and with its item names in the other letter case
    /// (`WitnessURL.withItemNamesInOtherCase`), those not in `seen` yet, until `seen` holds
    /// `maxJudgedURLs`.
    static func toJudge(_ urls: [String], seen: inout Set<String>) -> [String] {
        var fresh: [String] = []
        let spellings = urls.flatMap { url in WitnessURL.withEmptyItem(url) + [WitnessURL.withItemNamesInOtherCase(url)].compactMap { $0 } }
        for url in spellings where seen.count < maxJudgedURLs && seen.insert(url).inserted {
            fresh.append(url)
        }
        return fresh
    }

    /// The deciding rule id (or -1) per app of document `side` for `url`, in its app order;
    /// `nil` when the URL cannot be split. The matcher's rule ids are the side's
    /// (`CompiledDocument(nfas:)` keeps their order).
    func rules(_ url: String, side: Int) -> [Int32]? {
        guard decideRow(url, side: side) else { return nil }
        let matcher = matchers[side]
        return (0..<matcher.decisions.count).map { matcher.decisions[app: $0] }
    }

    /// Whether every document decides `url` with the rule ids `rows` (per side, per app, as
    /// `AnalysisDocument.decisions(alive:)` gives them): no decision value per app, so that a
    /// URL costs O(apps) integer compares on entries naming thousands of apps.
    func confirms(_ url: String, rows: [[Int32]]) -> Bool {
        for (side, row) in rows.enumerated() {
            guard decideRow(url, side: side) else { return false }
            let decisions = matchers[side].decisions
            guard decisions.count == row.count else { return false }
            for app in row.indices where decisions[app: app] != row[app] { return false }
        }
        return true
    }

    /// Decides `url` into document `side`'s matcher row; `false` when it cannot be split or
    /// read from a line as written.
    private func decideRow(_ url: String, side: Int) -> Bool {
        guard isReadable(url) else { return false }
        do {
            _ = try matchers[side].decideRow(url, app: nil)
            return true
        } catch {
            return false
        }
    }
}
