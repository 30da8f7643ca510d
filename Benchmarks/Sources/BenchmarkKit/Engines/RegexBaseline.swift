import AASAKit
import Foundation

/// "What people write today": each rule's path pattern translated to an anchored, escaped
/// `NSRegularExpression` (`*` → `.*`, `?` → `.`, `$(var)` → an alternation of its values,
/// everything else escaped), the rules scanned in document order, the first match deciding each
/// app. Only for path-only documents: no query or fragment rules, no legacy `paths`.
///
/// To keep the comparison about *matching*, it borrows our URL splitter and SPEC 6's slash
/// rules (a pattern ending in `/*` also matches without the segment, trailing slashes dropped);
/// a case-insensitive rule gets `.caseInsensitive`, a `percentEncoded: false` rule is matched
/// against `removingPercentEncoding` of the path. It is a baseline for speed: its answers are
/// compared with the reference and the agreement is reported, not required.
public final class RegexBaseline {
    struct CompiledRule {
        var regex: NSRegularExpression
        var entry: Int
        var ruleIndex: Int
        var exclude: Bool
        var decoded: Bool
        /// App indices of the rule's entry.
        var apps: [Int]
    }

    let rules: [CompiledRule]
    public let appIDs: [String]
    let domain: String
    /// Per app: index of the deciding rule in `rules`, or -1. Reused across URLs.
    public private(set) var deciding: [Int]

    /// `nil` when the document is not path-only.
    public init?(document: AASADocument, domain: String) throws {
        let appIDs = document.appIDs
        let defaults = document.applinks?.defaults ?? RuleKeys()
        let variables = document.applinks?.substitutionVariables ?? SubstitutionVariables()
        var rules: [CompiledRule] = []
        for entry in document.entries {
            let apps = entry.appIDs.compactMap { app in appIDs.firstIndex(of: app) }
            for rule in entry.rules {
                if rule.isLegacyPath { return nil }
                let keys = rule.keys
                func pick<T>(_ key: KeyPath<RuleKeys, T?>) -> T? { keys[keyPath: key] ?? entry.defaults[keyPath: key] ?? defaults[keyPath: key] }
                if let query = pick(\.query), query != .text("*") { return nil }
                if let fragment = pick(\.fragment), fragment != "*" { return nil }
                let path = pick(\.path) ?? "*"
                let caseSensitive = pick(\.caseSensitive) ?? true
                let percentEncoded = pick(\.percentEncoded) ?? true
                let alternatives = PathNormalization.alternatives(of: Pattern(parsing: path)).map {
                    Self.translate($0, variables: variables)
                }
                let source = "^(?:" + alternatives.joined(separator: "|") + ")$"
                var options: NSRegularExpression.Options = [.dotMatchesLineSeparators]
                if !caseSensitive { options.insert(.caseInsensitive) }
                rules.append(
                    CompiledRule(
                        regex: try NSRegularExpression(pattern: source, options: options), entry: entry.index,
                        ruleIndex: rule.index, exclude: pick(\.exclude) ?? false, decoded: !percentEncoded, apps: apps))
            }
        }
        self.rules = rules
        self.appIDs = appIDs
        self.domain = domain.lowercased()
        self.deciding = Array(repeating: -1, count: appIDs.count)
    }

    static func translate(_ pattern: Pattern, variables: SubstitutionVariables) -> String {
        var out = ""
        for piece in pattern.pieces {
            switch piece {
            case .literal(let text): out += NSRegularExpression.escapedPattern(for: text)
            case .anyOne: out += "."
            case .anyMany: out += ".*"
            case .variable(let name):
                guard let values = variables.resolve(name), !values.isEmpty else {
                    out += "(?!)"
                    continue
                }
                out += "(?:" + values.map { translate(Pattern(parsing: $0, allowVariables: false), variables: variables) }
                    .joined(separator: "|") + ")"
            }
        }
        return out
    }

    /// Decides every app for `url`, leaving the result in `deciding`; returns a checksum.
    @discardableResult
    public func decide(_ url: String) -> Int {
        for index in deciding.indices { deciding[index] = -1 }
        guard let split = try? URLSplitter.split(url), split.host.lowercased() == domain else { return 0 }
        var path = split.path
        while path.hasSuffix("/") { path.removeLast() }
        var decodedPath: String?
        var remaining = appIDs.count
        var checksum = 0
        for (position, rule) in rules.enumerated() where remaining > 0 {
            guard rule.apps.contains(where: { deciding[$0] < 0 }) else { continue }
            var text = path
            if rule.decoded {
                if decodedPath == nil { decodedPath = path.removingPercentEncoding ?? path }
                text = decodedPath ?? path
            }
            let range = NSRange(location: 0, length: text.utf16.count)
            guard rule.regex.firstMatch(in: text, options: [], range: range) != nil else { continue }
            for app in rule.apps where deciding[app] < 0 {
                deciding[app] = position
                remaining -= 1
                checksum &+= position
            }
        }
        return checksum
    }

    /// The decision of the last `decide` as a `URLDecision`, for the agreement count.
    public var lastDecision: URLDecision {
        URLDecision(
            decisions: appIDs.indices.map { app in
                let position = deciding[app]
                guard position >= 0 else { return AppDecision(app: appIDs[app], kind: .noMatch) }
                let rule = rules[position]
                return AppDecision(app: appIDs[app], kind: rule.exclude ? .exclude : .match, entry: rule.entry, rule: rule.ruleIndex)
            })
    }
}
