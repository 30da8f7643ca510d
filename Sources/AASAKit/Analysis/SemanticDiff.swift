/// `aasa diff`: how two versions of a document decide differently, as classes of URLs with
/// example URLs, computed on the product of both documents' automata.
///
/// Two documents are equivalent when every URL gets the same decision kind (match, exclude,
/// no match) for every app in both, whatever their text: reordered keys, hoisted defaults,
/// renumbered rules. A class is one (app, old decision, new decision) with the deciding rules
/// on both sides; every example URL was re-checked against both documents by the matcher.
public struct SemanticDiff: Sendable {
    public struct Change: Sendable, Hashable {
        public var app: String
        public var old: AppDecision
        public var new: AppDecision
        /// Example URLs, shortest first, each confirmed by the matcher on both documents.
        public var urls: [String]
    }

    public enum Verdict: Sendable, Equatable {
        /// No URL is decided differently: proven.
        case equivalent
        /// Some URLs are decided differently (`changes`).
        case different
        /// No difference was found, but the search could not be exhaustive.
        case noDifferenceFound(reason: String)
    }

    public let changes: [Change]
    public let verdict: Verdict
    /// Why `changes` may not be every class of changed URLs (a budget the walk hit, modes or
    /// query shapes it could not model exactly), for people; nil when the list is proven
    /// complete. Each class listed holds either way: its URLs were confirmed by the matcher.
    public let incompleteness: String?

    /// Compares `old` and `new` on `domain`, keeping up to `witnesses` URLs per class, and only
    /// app `app` when given, within `configuration`'s automaton limits.
    /// - Throws: `AutomatonError` when the rules exceed a compile limit.
    public init(
        old: AASADocument, new: AASADocument, domain: String, app: String? = nil, witnesses: Int = 3,
        configuration: Configuration = .default
    ) throws(AutomatonError) {
        var apps: [String] = []
        var seen = Set<ExactString>()
        for document in [old, new] { for id in document.appIDs where seen.insert(ExactString(id)).inserted { apps.append(id) } }
        if let app { apps = apps.filter { $0.isExactly(app) } }
        // Identical rules need no automata: this proof holds whatever the modes, query shapes
        // or size that would keep the walk from being one.
        if RuleIdentity.sameRules(old, new, apps: apps) {
            changes = []
            verdict = .equivalent
            incompleteness = nil
            return
        }
        let limits = configuration.automata
        // With `app`, each side compiles only the entries naming it (`AnalysisDocument.Scope`):
        // the other apps' rules cannot change its decisions, and would spend the walk's budget
        // (a hundred other apps' query items made a one-rule change "not proven"). Rule ids
        // and numbers stay the whole document's, so the classes are those of the whole diff.
        let scope: AnalysisDocument.Scope = app.map { .app($0) } ?? .all
        let sides = [
            try AnalysisDocument(document: old, domain: domain, limits: limits, scope: scope),
            try AnalysisDocument(document: new, domain: domain, limits: limits, scope: scope),
        ]
        let check = try WitnessCheck(sides: sides, configuration: configuration)
        let explorer = URLExplorer(
            sides: sides, domain: domain, maxStates: limits.maxAnalysisStates, maxWork: limits.maxAnalysisWork,
            // One more than asked (a witness may fail the check); `Int.max` asked stays `Int.max`.
            witnessesPerOutcome: min(max(witnesses, 1), Int.max - 1) + 1)
        // The proof: every real outcome is among these; with several text modes or query
        // shapes, some outcomes may pair texts no one URL has, and their URLs fail the check.
        let result = explorer.explore(.perModeClass)
        var changes: [Change] = []
        var classIndex: [[AppDecision]: Int] = [:]
        // Each side's pairs are held to `analysis-pairs` (`AnalysisDocument`), and so are the
        // changes: every outcome can add one per app.
        func change(_ before: AppDecision, _ after: AppDecision) throws(AutomatonError) -> Int {
            if let known = classIndex[[before, after]] { return known }
            guard changes.count < limits.maxAnalysisPairs else {
                throw .tooManyChanges(limit: limits.maxAnalysisPairs)
            }
            classIndex[[before, after]] = changes.count
            changes.append(Change(app: before.app, old: before, new: after, urls: []))
            return changes.count - 1
        }
        // Per app of `apps`, its index on each side (-1 where that side does not name it), so
        // that an outcome or a judged URL costs O(apps) integer compares: decision values and
        // app-ID tables per outcome made a diff of 3 800 one-app entries take 7.5 s.
        let sideIndex: [[Int]] = sides.map { side in
            let index = Dictionary(side.appIDs.enumerated().map { (ExactString($1), $0) }, uniquingKeysWith: { first, _ in first })
            return apps.map { index[ExactString($0)] ?? -1 }
        }
        /// App `app`'s deciding rule id on `side` given that side's row, -1 for none.
        func rule(_ rows: [[Int32]], _ side: Int, _ app: Int) -> Int32 {
            let index = sideIndex[side][app]
            return index < 0 ? -1 : rows[side][index]
        }
        func kind(_ side: Int, _ rule: Int32) -> DecisionKind {
            rule < 0 ? .noMatch : (sides[side].rules[Int(rule)].exclude ? .exclude : .match)
        }
        func decision(_ side: Int, _ app: Int, _ rule: Int32) -> AppDecision {
            let index = sideIndex[side][app]
            return index < 0 ? AppDecision(app: apps[app], kind: .noMatch) : sides[side].decision(app: index, rule: rule)
        }
        /// Every URL the walks wrote, in order.
        var written: [String] = []
        func collect(_ outcomes: [URLExplorer.Outcome]) throws(AutomatonError) {
            for outcome in outcomes {
                let rows = [0, 1].map { sides[$0].decisions(alive: outcome.alive[$0]) }
                let candidates = outcome.witnesses + outcome.otherSpellings
                written += candidates
                // Confirmed once, when the outcome changes some app.
                var confirmed: [String]?
                for app in apps.indices {
                    let old = rule(rows, 0, app)
                    let new = rule(rows, 1, app)
                    guard kind(0, old) != kind(1, new) else { continue }
                    let urls = confirmed ?? candidates.filter { check.confirms($0, rows: rows) }
                    confirmed = urls
                    let index = try change(decision(0, app, old), decision(1, app, new))
                    for url in urls where changes[index].urls.count < witnesses && !changes[index].urls.contains(url) {
                        changes[index].urls.append(url)
                    }
                }
            }
        }
        try collect(result.outcomes)
        // Witnesses from the URL's own text, each automaton reading it through its mode, when
        // the proof walk could not show a URL for some change (or did not finish); on what is
        // left of the walk's budgets, so a diff costs no more than one walk.
        if !result.witnessesAreReal && (!result.complete || changes.contains { $0.urls.isEmpty }) {
            var spent = (states: result.states, work: result.work)
            for strategy in URLExplorer.Strategy.rawTextWalks(sides) {
                let rest = URLExplorer(
                    sides: sides, domain: domain, maxStates: max(explorer.maxStates - spent.states, 0),
                    maxWork: max(explorer.maxWork - spent.work, 0), witnessesPerOutcome: explorer.witnessesPerOutcome)
                let raw = rest.explore(strategy)
                spent.states += raw.states
                spent.work += raw.work
                try collect(raw.outcomes)
            }
        }
        // A change is claimed only with a URL the matcher confirmed on both documents; an
        // unconfirmed one (an outcome no real URL has) only withholds "equivalent".
        let unconfirmed = changes.contains { $0.urls.isEmpty }
        changes.removeAll { $0.urls.isEmpty }
        classIndex = Dictionary(uniqueKeysWithValues: changes.enumerated().map { ([$1.old, $1.new], $0) })
        // Short of a proof, the matcher judges every URL the walks wrote, whatever outcome a
        // walk expected of it: a walk that models a URL's texts only in part (several modes,
        // both query shapes) still writes URLs that tell the documents apart, and a URL the
        // matcher decides differently is a change (for classes no outcome confirmed).
        if !result.isProof || unconfirmed {
            let known = changes.count
            var judged = Set<String>()
            for url in WitnessCheck.toJudge(written, seen: &judged) {
                guard let old = check.rules(url, side: 0), let new = check.rules(url, side: 1) else { continue }
                let rows = [old, new]
                for app in apps.indices {
                    let before = rule(rows, 0, app)
                    let after = rule(rows, 1, app)
                    guard kind(0, before) != kind(1, after) else { continue }
                    let index = try change(decision(0, app, before), decision(1, app, after))
                    if index >= known && changes[index].urls.count < witnesses && !changes[index].urls.contains(url) {
                        changes[index].urls.append(url)
                    }
                }
            }
        }
        // Each app's place looked up once: a search of the app list in the comparator made
        // sorting the changes of 6 000 apps × 10 rules most of a 10 s diff.
        let appOrder = Dictionary(apps.enumerated().map { (ExactString($1), $0) }, uniquingKeysWith: { first, _ in first })
        self.changes = changes.sorted { lhs, rhs in
            (appOrder[ExactString(lhs.app)] ?? 0, lhs.urls.first?.utf8.count ?? Int.max, lhs.urls.first ?? "")
                < (appOrder[ExactString(rhs.app)] ?? 0, rhs.urls.first?.utf8.count ?? Int.max, rhs.urls.first ?? "")
        }
        let reasons = result.isProof
            ? ["some outcomes differ but no URL with them could be confirmed (for instance decoded text no URL normalises to, or texts of different modes or query shapes that no one URL has)"]
            : result.incompleteness(sides)
        incompleteness = result.isProof && !unconfirmed ? nil : reasons.joined(separator: "; ")
        if !changes.isEmpty {
            verdict = .different
        } else if let incompleteness {
            verdict = .noDifferenceFound(reason: incompleteness)
        } else {
            verdict = .equivalent
        }
    }
}
