/// Entries that can never decide anything: no app to apply to, or no rules to apply.
///
/// Both come from keys the decoder had to ignore (a misspelt `appId`, `appIDs` written as a
/// string, `paths` as a string) or that were never written. The decoder reports the ignored key,
/// but not its consequence, which is what the publisher needs to hear: the whole entry is dead.
enum EntryLint {
    static func findings(document: AASADocument) -> [LintFinding] {
        var findings: [LintFinding] = []
        for entry in document.entries {
            if entry.appIDs.isEmpty { findings.append(.entryWithoutApps(entry.path)) }
            if entry.ruleSource == .none { findings.append(.entryWithoutRules(entry.path)) }
        }
        return findings
    }
}

extension LintFinding {
    static func entryWithoutApps(_ path: JSONPath) -> LintFinding {
        LintCatalog.entryWithoutApps.finding(
            at: path, "this entry names no app (no usable \"appID\" or \"appIDs\"), so its rules apply to nothing",
            hint: #"add "appIDs": ["TEAMID.bundle.id"]"#)
    }

    static func entryWithoutRules(_ path: JSONPath) -> LintFinding {
        LintCatalog.entryWithoutRules.finding(
            at: path, "this entry has no usable \"components\" or \"paths\" array, so it matches no URL for its apps",
            hint: #"add "components": [{"/": "/path/*"}]"#)
    }
}
