/// What the outcomes of an exploration say about each rule of one document: does it ever
/// match, ever decide, for which apps and on which URL, and what decides instead when it does not.
///
/// Facts come from every outcome, so that the explorer's extra outcomes (texts no real URL
/// normalises to, such as non-NFC decoded text) can only *withhold* a claim of absence, never
/// make one; URLs only come from witnesses the matcher confirmed (`Evidence.url` is `nil`
/// otherwise), and a claim that something happens is made only with such a URL.
struct RuleReachability {
    struct Evidence {
        var url: String?
    }

    /// A rule matches some URL (whatever decides it).
    private(set) var matches: [Bool]
    /// Per rule, per app index: the rule decides for that app on some URL.
    private(set) var deciding: [[Int: Evidence]]
    /// Per rule: the rules that decide one of its apps instead, on URLs it matches (for a rule
    /// that never decides, every rule that covers it; for one that decides some apps, what
    /// decides the others, which `cover` names for those apps).
    private(set) var shadowedBy: [[Int: Evidence]]
    /// Per exclude rule: a URL it excludes that a later rule would have opened.
    private(set) var excludeEffect: [Evidence?]
    /// Per exclude rule: the later exclusions that, without it, would be the next rule to match
    /// some URL it excludes (so that URL would stay excluded).
    private(set) var laterExclusions: [Set<Int>]
    /// Per exclude rule: some URL it excludes is matched by no later rule for that app.
    private(set) var excludesWithNoLaterRule: [Bool]
    /// Per rule: whether it matches in every outcome, that is on every URL.
    private(set) var matchesEverything: [Bool]
    /// Sets of apps (indexes) that all open some URL.
    /// Sets of apps some URL opens together, with such a URL, and whether on some such URL the
    /// rules that open them belong to different entries (`overlapping-apps`) rather than all to
    /// one (`apps-share-urls`).
    private(set) var overlaps: [(apps: [Int], evidence: Evidence, acrossEntries: Bool)] = []
    /// Outcomes none of whose witnesses the matcher confirmed (a bug if the analysis is exact).
    private(set) var unconfirmedOutcomes = 0

    /// The rules that decide instead of `rule` (those of `include`), as a claim names them.
    /// Facts from a walk per mode class (`perModeClass`) also come from pairings of texts no one
    /// URL has: then only the rules some URL showed deciding instead (here or in `seen`, the
    /// first walk's facts) are named, when there are some.
    func covering(_ rule: Int, perModeClass: Bool, seen: RuleReachability, include: (Int) -> Bool = { _ in true }) -> [Int] {
        let all = shadowedBy[rule].keys.filter(include).sorted()
        guard perModeClass else { return all }
        let shown = all.filter { seen.shadowedBy[rule][$0]?.url != nil || shadowedBy[rule][$0]?.url != nil }
        return shown.isEmpty ? all : shown
    }

    init(analysis: AnalysisDocument, result: URLExplorer.Result, check: WitnessCheck) {
        let count = analysis.rules.count
        matches = Array(repeating: false, count: count)
        deciding = Array(repeating: [:], count: count)
        shadowedBy = Array(repeating: [:], count: count)
        excludeEffect = Array(repeating: nil, count: count)
        laterExclusions = Array(repeating: [], count: count)
        excludesWithNoLaterRule = Array(repeating: false, count: count)
        matchesEverything = Array(repeating: !result.outcomes.isEmpty, count: count)
        var overlapIndex: [[Int]: Int] = [:]
        // Per app, the rules naming it, in order: the rule after an exclusion that would decide
        // its app is looked for among these, not among every rule the outcome matched, which was
        // quadratic in them per outcome and charged to no budget.
        // PERF: 1 500 entries `{"/":"/N/*"}, {"/":"*x*","exclude":true}` (113 KB), medians of
        // three alternated runs: `aasa cover` 4.59 → 1.13 s, `aasa lint` 4.39 → 1.01 s; reports
        // identical.
        var rulesNaming = [[Int]](repeating: [], count: analysis.appIDs.count)
        for rule in 0..<count {
            for app in analysis.rules[rule].apps { rulesNaming[app].append(rule) }
        }
        for outcome in result.outcomes {
            let alive = outcome.alive[0]
            let decided = analysis.decisions(alive: alive)
            // Rule ids compared per app, not decision values: O(apps) integers an outcome.
            let evidence = Evidence(url: outcome.witnesses.first { check.confirms($0, rows: [decided]) })
            if evidence.url == nil { unconfirmedOutcomes += 1 }
            let members = alive.members
            for rule in 0..<count where !alive.contains(rule) { matchesEverything[rule] = false }
            for rule in members {
                matches[rule] = true
                let apps = analysis.rules[rule].apps
                var decidesHere = false
                for app in apps where decided[app] == Int32(rule) {
                    decidesHere = true
                    if deciding[rule][app]?.url == nil { deciding[rule][app] = evidence }
                }
                for app in apps where decided[app] >= 0 && decided[app] != Int32(rule) && shadowedBy[rule][Int(decided[app])]?.url == nil {
                    shadowedBy[rule][Int(decided[app])] = evidence
                }
                // An exclusion matters where, without it, the next matching rule would open the app.
                if analysis.rules[rule].exclude, decidesHere, excludeEffect[rule]?.url == nil {
                    for app in apps where decided[app] == Int32(rule) {
                        let naming = rulesNaming[app]
                        var start = 0, end = naming.count
                        while start < end {
                            let middle = (start + end) / 2
                            if naming[middle] > rule { end = middle } else { start = middle + 1 }
                        }
                        guard let later = naming[start...].first(where: { alive.contains($0) }) else {
                            excludesWithNoLaterRule[rule] = true
                            continue
                        }
                        if analysis.rules[later].exclude {
                            laterExclusions[rule].insert(later)
                        } else {
                            excludeEffect[rule] = evidence
                        }
                    }
                }
            }
            let opened = decided.indices.filter { decided[$0] >= 0 && !analysis.rules[Int(decided[$0])].exclude }
            // A positive claim: only from an outcome the matcher confirmed. Which entries open the
            // apps is read from the deciding rules of this URL, not from where each app is first
            // named: an entry of exclusions for both apps, written first, made a cross-entry
            // overlap read as one entry's (an audit's finding).
            if opened.count >= 2, evidence.url != nil {
                let acrossEntries = Set(opened.map { analysis.rules[Int(decided[$0])].entryIndex }).count > 1
                if let known = overlapIndex[opened] {
                    if acrossEntries && !overlaps[known].acrossEntries { overlaps[known] = (opened, evidence, true) }
                } else {
                    overlapIndex[opened] = overlaps.count
                    overlaps.append((opened, evidence, acrossEntries))
                }
            }
        }
    }
}
