/// Entries that can never decide anything: no app to apply to, or no rules to apply; and
/// defaults that apply to none of the rules there are.
///
/// Both come from keys the decoder had to ignore (a misspelt `appId`, `appIDs` written as a
/// string, `paths` as a string) or that were never written. The decoder reports the ignored key,
/// but not its consequence, which is what the publisher needs to hear: the whole entry is dead.
/// Legacy `paths` take only `caseSensitive` and `percentEncoded` from the defaults (SPEC 10), so
/// a default `/`, `?`, `#` or `exclude` over them changes nothing, however it reads.
enum EntryLint {
    static func findings(document: AASADocument) -> [LintFinding] {
        var findings: [LintFinding] = []
        for entry in document.entries where entry.ruleSource == .paths {
            if let keys = ignoredByPaths(entry.defaults) { findings.append(.defaultsIgnored(entry.path / "defaults", keys: keys)) }
        }
        if let defaults = document.applinks?.defaults, !document.entries.isEmpty,
            document.entries.allSatisfy({ $0.ruleSource == .paths }), let keys = ignoredByPaths(defaults)
        {
            findings.append(.defaultsIgnored(.root / "applinks" / "defaults", keys: keys))
        }
        for entry in document.entries {
            if entry.appIDs.isEmpty { findings.append(.entryWithoutApps(entry.path)) }
            if entry.ruleSource == .none {
                findings.append(.entryWithoutRules(entry.path))
            } else if entry.rules.isEmpty {
                // `"components": []` (or only unusable elements) is read, and is no rule at all:
                // a `paths` array beside it is not read instead.
                let key = entry.ruleSource == .components ? "components" : "paths"
                findings.append(.emptyRules(entry.path / key, key: key))
            }
        }
        return findings
    }
}

extension EntryLint {
    /// The keys of `defaults` that legacy paths do not take, as the file spells them, or nil.
    static func ignoredByPaths(_ defaults: RuleKeys) -> String? {
        var keys: [String] = []
        if defaults.path != nil { keys.append("\"/\"") }
        if defaults.query != nil { keys.append("\"?\"") }
        if defaults.fragment != nil { keys.append("\"#\"") }
        if defaults.exclude != nil { keys.append("\"exclude\"") }
        return keys.isEmpty ? nil : keys.joined(separator: ", ")
    }
}

extension LintFinding {
    static func defaultsIgnored(_ path: JSONPath, keys: String) -> LintFinding {
        LintCatalog.defaultsIgnored.finding(
            at: path, "these defaults apply only to components rules, and the rules here are legacy paths, which take only caseSensitive and percentEncoded from them: \(keys) change nothing",
            hint: "write the rules as components, or move these keys into them (a legacy exclusion is \"NOT /path\")")
    }

    static func entryWithoutApps(_ path: JSONPath) -> LintFinding {
        LintCatalog.entryWithoutApps.finding(
            at: path, "this entry names no app (no usable \"appID\" or \"appIDs\"), so its rules apply to nothing",
            hint: #"add "appIDs": ["TEAMID.bundle.id"]"#)
    }

    static func emptyRules(_ path: JSONPath, key: String) -> LintFinding {
        LintCatalog.entryWithoutRules.finding(
            at: path, "this entry's \"\(key)\" array holds no usable rule, so the entry matches no URL for its apps",
            hint: #"add a rule, e.g. {"/": "/path/*"}, or remove the entry"#)
    }

    static func entryWithoutRules(_ path: JSONPath) -> LintFinding {
        LintCatalog.entryWithoutRules.finding(
            at: path, "this entry has no usable \"components\" or \"paths\" array, so it matches no URL for its apps",
            hint: #"add "components": [{"/": "/path/*"}]"#)
    }
}
