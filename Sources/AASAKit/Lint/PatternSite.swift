/// Every pattern text the engine will compile, with the JSON path it was written at.
///
/// Variable checks need "where is `$(x)` used", and the model keeps pattern text but not paths.
/// The paths are rebuilt from the model rather than by walking JSON, so exactly the patterns the
/// engine reads are checked: not a `paths` array that `components` hides, nor a wrong-typed
/// value that counts as absent. Query item *names* are not patterns (SPEC 7) and are left out.
struct PatternSite {
    /// Which part of a URL the pattern is compared with.
    enum Component: Equatable {
        /// A path: a component's `/`, or a string of a legacy `paths` array (its `NOT ` gone).
        case path(legacy: Bool)
        /// A query written as one string (`"?": "a=1"`).
        case query
        /// The value pattern of a query dictionary's item `name`.
        case queryItem(name: String)
        case fragment
    }

    var path: JSONPath
    var text: String
    var component: Component

    static func all(in document: AASADocument) -> [PatternSite] {
        guard let applinks = document.applinks else { return [] }
        var sites = sites(of: applinks.defaults, at: .root / "applinks" / "defaults")
        for entry in document.entries {
            sites += Self.sites(of: entry.defaults, at: entry.path / "defaults")
            for rule in entry.rules {
                if rule.isLegacyPath {
                    sites.append(PatternSite(path: entry.path / "paths" / rule.index, text: rule.keys.path ?? "", component: .path(legacy: true)))
                } else {
                    sites += Self.sites(of: rule.keys, at: entry.path / "components" / rule.index)
                }
            }
        }
        return sites
    }

    private static func sites(of keys: RuleKeys, at path: JSONPath) -> [PatternSite] {
        var sites: [PatternSite] = []
        if let text = keys.path { sites.append(PatternSite(path: path / "/", text: text, component: .path(legacy: false))) }
        switch keys.query {
        case .text(let text)?:
            sites.append(PatternSite(path: path / "?", text: text, component: .query))
        case .items(let predicates)?:
            sites += predicates.map { PatternSite(path: path / "?" / $0.name, text: $0.pattern, component: .queryItem(name: $0.name)) }
        case .voided?, nil:
            break
        }
        if let text = keys.fragment { sites.append(PatternSite(path: path / "#", text: text, component: .fragment)) }
        return sites
    }
}
