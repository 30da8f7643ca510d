/// What the path plan hands the matcher besides the strategy: how to read the path automaton's
/// tags (`TagLayout`), which apps each rule names (`RuleApps`), and, for
/// `soloPathCompiledRows`, the decision of every tag set (`DecisionRows`). The automaton layer
/// knows none of this: its tags are numbers, and what a number means is decided here.

/// Which tags of a path automaton are rules and which are `SuffixSplit` prefix groups.
///
/// A path automaton is tagged with rule ids (evaluation order); when a mode's
/// `literal * literal` patterns are split, each distinct prefix goes in as one more tag, from
/// `firstGroup` on (`firstGroup + group`). Every reader of path tags asks this type rather than
/// comparing with the rule count itself.
struct TagLayout: Sendable, Equatable {
    /// Tags below are rule ids; from here on, prefix groups.
    let firstGroup: Int32

    init(ruleCount: Int) { firstGroup = Int32(ruleCount) }

    @inline(__always)
    func isRule(_ tag: Int32) -> Bool { tag < firstGroup }
}

/// Which apps each rule names, and whether its path alone decides (its query and fragment are
/// `*`), in the form the per-URL merge of split rules reads.
///
/// Why a mask: merging the split rules that matched happens per URL, and `rules[rule].apps` is
/// two dependent loads and a retain; a mask is one load. Documents naming more than 63 apps
/// (none in the real corpus) read `rules[rule].apps`.
struct RuleApps: Sendable {
    /// Per rule, when the document names at most 63 apps: a bit per app it names, and
    /// `needsMoreBit` when it needs the query or fragment; empty otherwise.
    let masks: [UInt64]
    /// Per rule: its query and fragment are `*`, so a path match alone decides.
    let decidesOnPath: [Bool]

    static let needsMoreBit: UInt64 = 1 << 63

    init(rules: [CompiledDocument.RuleInfo], appCount: Int) {
        var decidesOnPath: [Bool] = []
        var masks: [UInt64] = []
        decidesOnPath.reserveCapacity(rules.count)
        if appCount <= 63 { masks.reserveCapacity(rules.count) }
        for rule in rules {
            let decides = Self.decidesOnPath(rule)
            decidesOnPath.append(decides)
            guard appCount <= 63 else { continue }
            var mask = decides ? 0 : Self.needsMoreBit
            for app in rule.apps { mask |= 1 << UInt64(app) }
            masks.append(mask)
        }
        self.decidesOnPath = decidesOnPath
        self.masks = masks
    }

    /// Whether `rule`'s query and fragment are `*`.
    static func decidesOnPath(_ rule: CompiledDocument.RuleInfo) -> Bool {
        if case .universal = rule.queryKind { return rule.fragmentIsUniversal }
        return false
    }
}

/// The decision of every tag set of a prebuilt path table, computed once for every thread
/// (`soloPathCompiledRows`). Without them each matcher computes a row the first time it meets
/// a tag set (`FirstSightRows`), which for a large table is most URLs of a fresh matcher.
///
/// One fixed-width row per tag set, at `tagSet * width`: whether it decides on the path alone
/// (1, or 0 when a rule that would decide an app also needs the query or fragment), the number
/// of its `SuffixSplit` prefix groups and where they start in `groupTags`, then one deciding
/// rule id (or -1) per app. Why one row: a URL reads its decision and whether the suffix side
/// has anything to do with one cache miss instead of one per array. (Rows that held a few
/// groups themselves saved 0.06% of a URL at 128 KB of rules, `Benchmarks/Records`,
/// `inline-groups-ab`, and went.)
struct DecisionRows: Sendable {
    let width: Int
    let rows: [Int32]
    /// The prefix groups of every tag set, row after row. A path whose tag set has no group
    /// cannot match a split rule: the suffix side is skipped.
    let groupTags: [Int32]

    static let decidedSlot = 0
    static let groupCountSlot = 1
    /// Where the row's groups start in `groupTags`.
    static let groupStartSlot = 2
    static let firstAppSlot = 3

    /// Words a row takes with `appCount` apps.
    static func width(appCount: Int) -> Int {
        firstAppSlot + appCount
    }

    /// Bytes the rows and groups take.
    var memoryUsage: Int { (rows.count + groupTags.count) * 4 }

    /// The rows of every tag set of `table` (`tagSets`, the empty set first).
    init(tagSets: [TagSet], layout: TagLayout, rules: [CompiledDocument.RuleInfo], apps: RuleApps, appCount: Int) {
        width = Self.width(appCount: appCount)
        var rows: [Int32] = []
        var groupTags: [Int32] = []
        rows.reserveCapacity(tagSets.count * width)
        var decision: [Int32] = []
        for tags in tagSets {
            decision.removeAll(keepingCapacity: true)
            let decided = Self.appendRow(
                for: tags.sorted, layout: layout, rules: rules, apps: apps, appCount: appCount, to: &decision)
            let groups = tags.sorted.filter { !layout.isRule($0) }
            rows += [decided ? 1 : 0, Int32(groups.count), Int32(groupTags.count)]
            groupTags += groups
            rows += decided ? decision : Array(repeating: -1, count: appCount)
        }
        self.rows = rows
        self.groupTags = groupTags
    }

    /// The decision row of a path tag set (`tags`, sorted), appended to `row`: per app, the
    /// first rule of `tags` that names it; false (nothing appended) when such a rule also needs
    /// the query or fragment.
    static func appendRow(
        for tags: [Int32], layout: TagLayout, rules: [CompiledDocument.RuleInfo], apps: RuleApps, appCount: Int,
        to row: inout [Int32]
    ) -> Bool {
        let start = row.count
        row.append(contentsOf: repeatElement(-1, count: appCount))
        var remaining = appCount
        for rule in tags {
            if !layout.isRule(rule) { break }
            let ruleApps = rules[Int(rule)].apps
            guard ruleApps.contains(where: { row[start + Int($0)] < 0 }) else { continue }
            guard apps.decidesOnPath[Int(rule)] else {
                row.removeLast(appCount)
                return false
            }
            for app in ruleApps where row[start + Int(app)] < 0 {
                row[start + Int(app)] = rule
                remaining -= 1
            }
            if remaining == 0 { break }
        }
        return true
    }
}
