/// Lint findings computed on the compiled automata: rules that never match, rules that never
/// decide (and what decides instead), duplicates, exclusions that change nothing, catch-alls and
/// URLs several apps claim. Each claim about URLs carries a witness URL the matcher confirmed.
///
/// Negative claims ("no URL ...") are made only when an exploration is a proof: the walk read
/// every rule's text as the matcher does (in one text, or one per mode class) and its budget
/// sufficed. Otherwise a note says which claims were left out and why.
public enum SemanticLint {
    /// The automaton-level findings of `document`, witnesses on `https://domain/...`.
    public static func findings(document: AASADocument, domain: String, configuration: Configuration) -> [LintFinding] {
        let analysis: AnalysisDocument
        let check: WitnessCheck
        do {
            analysis = try AnalysisDocument(document: document, domain: domain, limits: configuration.automata)
            check = try WitnessCheck(sides: [analysis], configuration: configuration)
        } catch {
            if case .tooManyNFAStates = error {
                // As the matcher refuses the document: an error, not a skipped analysis.
                return [
                    LintCatalog.overLimit.finding(
                        at: .root, error.description, hint: "simplify the rules, or \(Configuration.Limit.nfaStates.hint)")
                ]
            }
            if case .overLimit(let limit, _, _, let location) = error, limit != .analysisPairs {
                // The matcher would refuse this document too: an error, at the rule that passed.
                // (It would not for `analysis-pairs`: only the automaton checks are left out.)
                return [
                    LintCatalog.overLimit.finding(
                        at: location ?? .root, error.description,
                        hint: "simplify the rules there, or \(limit.hint)")
                ]
            }
            return [
                LintCatalog.notAnalysed.finding(
                    at: .root, "the rules could not be analysed: \(error)",
                    hint: "raise the limit named in the message, or split the rules")
            ]
        }
        // The walks share one work budget: each after the first gets what is left of it.
        var workLeft = configuration.automata.maxAnalysisWork
        func walk(_ strategy: URLExplorer.Strategy) -> URLExplorer.Result {
            let result = URLExplorer(
                sides: [analysis], domain: domain, maxStates: configuration.automata.maxAnalysisStates,
                maxWork: max(workLeft, 0), witnessesPerOutcome: 2
            ).explore(strategy, everyRule: strategy == .perModeClass)
            workLeft -= result.work
            return result
        }
        let result = walk(.standard)
        let facts = RuleReachability(analysis: analysis, result: result, check: check)
        // Rules comparing text in modes one walk cannot read alike (Apple's international
        // example: case-folded decoded rules with accented literals beside case-sensitive ones)
        // make the walk above no proof. A walk giving each mode class a text of its own is
        // one: every real URL's outcome is among its outcomes, and the facts of absence this
        // lint claims (never matches, never decides, excludes nothing, matches everything) hold
        // over a superset of them. Its outcomes may pair texts no one URL has, so it only
        // withholds claims; witnesses still come from URLs the matcher confirmed.
        var classes: URLExplorer.Result?
        if !result.isProof, result.complete {
            let perClass = walk(.perModeClass)
            if perClass.exact { classes = perClass }
        }
        let proof = classes ?? result
        let proofFacts = classes.map { RuleReachability(analysis: analysis, result: $0, check: check) } ?? facts
        let locations = RuleLocations(document)
        var findings: [LintFinding] = []
        let rules = analysis.rules
        func name(_ rule: Int) -> String { locations.paths[rule].description }
        /// A confirmed URL on which `rule` decides, from either walk.
        func witness(deciding rule: Int) -> String? {
            facts.deciding[rule].values.lazy.compactMap(\.url).first ?? proofFacts.deciding[rule].values.lazy.compactMap(\.url).first
        }

        let duplicates = duplicateRules(rules)
        // For each rule, the exclusions of its entry written before it (one pass, not one per rule).
        var exclusionsBefore: [Int] = []
        var seen: [Int: Int] = [:]
        for rule in rules {
            exclusionsBefore.append(seen[rule.entryIndex, default: 0])
            if rule.exclude { seen[rule.entryIndex, default: 0] += 1 }
        }
        for rule in rules.indices where !rules[rule].apps.isEmpty {
            let path = locations.paths[rule]
            if let original = duplicates[rule] {
                findings.append(
                    LintCatalog.duplicateRule.finding(
                        at: path, "this rule repeats \(name(original)) (same patterns and flags once defaults apply), so it never decides",
                        hint: "remove it", witness: facts.shadowedBy[rule][original]?.url))
                continue
            }
            let claim = proof.isProof ? Absence(proofFacts, rule: rule, exclude: rules[rule].exclude) : nil
            if claim == .neverMatches {
                findings.append(
                    LintCatalog.neverMatches.finding(
                        at: path, "no URL can match this rule" + neverMatchReason(rules[rule]),
                        hint: "look for characters its component cannot hold (a raw \"?\" or \"#\" in a path), or an undefined or empty variable"))
                continue
            }
            if claim == .neverDecides {
                let covering = proofFacts.covering(rule, perModeClass: classes != nil, seen: facts)
                let sameEntry = covering.allSatisfy { rules[$0].entryIndex == rules[rule].entryIndex }
                let scope = sameEntry ? "earlier rules of its entry" : "earlier rules"
                findings.append(
                    LintCatalog.unreachableRule.finding(
                        at: path, "this rule never decides: every URL it matches is decided by \(scope): \(covering.map(name).joined(separator: ", "))",
                        hint: "remove it, or move it before the rules that cover it",
                        witness: covering.lazy.compactMap { facts.shadowedBy[rule][$0]?.url ?? proofFacts.shadowedBy[rule][$0]?.url }.first))
                continue
            }
            if claim == .excludesNothing {
                // Where a later exclusion is what would take its URLs, the message names it:
                // "as no_match" was wrong there, and the exclusion to keep is that one.
                let later = proofFacts.laterExclusions[rule].sorted().map(name)
                let instead =
                    later.isEmpty
                    ? ", as no_match instead of exclude: no later rule for its apps opens one"
                    : ": the next rule for its apps that matches one is \(later.count == 1 ? "the exclusion" : "one of the exclusions") \(later.joined(separator: ", "))"
                        + (proofFacts.excludesWithNoLaterRule[rule] ? ", or there is none" : "")
                findings.append(
                    LintCatalog.uselessExclude.finding(
                        at: path, "this exclusion keeps no URL from opening an app: without it, every URL it excludes would still stay on the web\(instead)",
                        hint: "remove it (one at a time: lint again after each removal), or check the patterns of the rules it was meant to carve from",
                        witness: witness(deciding: rule)))
            }
            if claim == .matchesEverything {
                let comment = locations.comments[rule].map { " (its comment: \"\($0)\")" } ?? ""
                let apps = rules[rule].apps.map { analysis.appIDs[$0] }.joined(separator: ", ")
                // Exclusions of its entry written before it already follow Apple's pattern: the
                // hint then asks to check them rather than to add some.
                let exclusions = exclusionsBefore[rule]
                let hint =
                    exclusions == 0
                    ? "restrict its path, or put exclude rules for the pages that must stay on the web before it"
                    : exclusions == 1
                        ? "the exclusion before it keeps its URLs on the web: check it names every page that must stay there, such as sign-in, account and payment pages"
                        : "the \(exclusions) exclusions before it keep their URLs on the web: check they name every page that must stay there, such as sign-in, account and payment pages"
                findings.append(
                    LintCatalog.catchAll.finding(
                        at: path, "this rule matches every URL of the domain\(comment): every URL no earlier rule decides opens \(apps)",
                        hint: hint,
                        witness: witness(deciding: rule)))
            }
        }
        for overlap in facts.overlaps {
            let apps = overlap.apps.map { analysis.appIDs[$0] }
            let oneEntry = !overlap.acrossEntries
            findings.append(
                (oneEntry ? LintCatalog.appsShareURLs : LintCatalog.overlappingApps).finding(
                    at: .root / "applinks" / "details", "some URLs open several apps (\(apps.joined(separator: ", "))): each of them is a match, and the apps are listed in the order the document names them (\(apps[0]) first), which decides nothing between them (docs/semantics.md)",
                    hint: oneEntry ? nil : "exclude these URLs from all but one app, unless sharing them is intended",
                    witness: overlap.evidence.url))
        }
        if !proof.isProof {
            let reasons = (proof.complete ? result : proof).incompleteness([analysis])
            findings.append(
                LintCatalog.analysisIncomplete.finding(
                    at: .root, "unreachable-rule, never-matches, useless-exclude and catch-all were not checked: \(reasons.joined(separator: "; "))",
                    hint: "see docs/analysis.md; cover and diff still give checked URLs"))
        } else if let classes, proofFacts.unconfirmedOutcomes > 0 {
            // An outcome of the walk per mode class that no URL confirmed may pair texts no one
            // URL has, and it withholds every claim it contradicts. The claims that only such
            // outcomes contradict are named as unproven, and the others go unsaid. Which
            // decisions real URLs have: first the URLs at hand (the first walk's, and each
            // outcome's own in every class's spelling); for claims still withheld, the walks on
            // the URL's own text too (as diff and cover take them), which cost far more.
            // PERF: `aasa-bench --quick --suite analysis`, row `international.lint` (Apple's
            // example, callgrind beyond start-up): 1 121 M → 98 M instructions with those walks
            // run only for claims still withheld, the same report
            // (`Benchmarks/Records/2026-12-07-analysis-modes.md`).
            var seen = Set<String>()
            var rows = Set<[Int32]>()
            func judge(_ urls: [String]) {
                for url in WitnessCheck.toJudge(urls, seen: &seen) {
                    if let row = check.rules(url, side: 0) { rows.insert(row) }
                }
            }
            func withheldClaims() -> [String] {
                var confirmed = classes
                confirmed.outcomes = classes.outcomes.filter { rows.contains(analysis.decisions(alive: $0.alive[0])) }
                let unproven = RuleReachability(analysis: analysis, result: confirmed, check: check)
                return rules.indices.compactMap { rule -> String? in
                    // Only rules lint says nothing else about: a rule proven never to decide is
                // not also named as one that may match no URL.
                guard !rules[rule].apps.isEmpty, duplicates[rule] == nil,
                        Absence(proofFacts, rule: rule, exclude: rules[rule].exclude) == nil,
                        let maybe = Absence(unproven, rule: rule, exclude: rules[rule].exclude)
                    else { return nil }
                    return "\(name(rule)) \(maybe.maybe)"
                }
            }
            judge(result.outcomes.flatMap(\.witnesses) + classes.outcomes.flatMap { $0.witnesses + $0.otherSpellings })
            var withheld = withheldClaims()
            if !withheld.isEmpty {
                for strategy in URLExplorer.Strategy.rawTextWalks([analysis]) where workLeft > 0 {
                    judge(walk(strategy).outcomes.flatMap(\.witnesses))
                }
                withheld = withheldClaims()
            }
            if !withheld.isEmpty {
                let listed = withheld.prefix(5).joined(separator: "; ") + (withheld.count > 5 ? "; and \(withheld.count - 5) more" : "")
                findings.append(
                    LintCatalog.analysisIncomplete.finding(
                        at: .root, "not proven either way, as rules compare text in several modes and some combinations of texts had no URL: \(listed)",
                        hint: "see docs/analysis.md; cover and diff still give checked URLs"))
            }
        }
        return findings
    }

    /// The claim of absence lint makes about a rule from the facts of a walk that is a proof,
    /// in the order they are tried: each makes the later ones moot.
    enum Absence: Equatable {
        case neverMatches, neverDecides, excludesNothing, matchesEverything

        init?(_ facts: RuleReachability, rule: Int, exclude: Bool) {
            if !facts.matches[rule] {
                self = .neverMatches
            } else if facts.deciding[rule].isEmpty {
                self = .neverDecides
            } else if exclude, facts.excludeEffect[rule] == nil {
                self = .excludesNothing
            } else if !exclude, facts.matchesEverything[rule] {
                self = .matchesEverything
            } else {
                return nil
            }
        }

        /// The claim as a possibility, for the rules it was withheld from.
        var maybe: String {
            switch self {
            case .neverMatches: return "may match no URL (never-matches)"
            case .neverDecides: return "may never decide (unreachable-rule)"
            case .excludesNothing: return "may keep no URL from opening an app (useless-exclude)"
            case .matchesEverything: return "may match every URL (catch-all)"
            }
        }
    }

    /// The likeliest cause when a rule can never match: a raw path pattern holding `#` (a URL's
    /// fragment starts there, SPEC 4), common in files written for hash-routed web apps.
    static func neverMatchReason(_ rule: EffectiveRule) -> String {
        guard !rule.mode.decoded else { return "" }
        let literals = rule.path.flatMap(\.pieces).compactMap { piece -> String? in
            if case .literal(let text) = piece { return text }
            return nil
        }
        if literals.contains(where: { $0.contains("#") }) {
            return ": its path pattern contains \"#\", but a URL's path ends where its fragment starts; match the fragment with the \"#\" key"
        }
        return ""
    }

    /// For each rule identical to an earlier rule of the same entry (after defaults), that rule.
    static func duplicateRules(_ rules: [EffectiveRule]) -> [Int: Int] {
        var first: [String: Int] = [:]
        var result: [Int: Int] = [:]
        for rule in rules {
            let key = "\(rule.entryIndex)\u{0}\(signature(rule))"
            if let original = first[key] { result[rule.id] = original } else { first[key] = rule.id }
        }
        return result
    }

    /// Everything that decides which URLs a rule matches and what it decides.
    static func signature(_ rule: EffectiveRule) -> String {
        let query: String
        switch rule.query {
        case .universal: query = "*"
        case .text(let pattern): query = "t\(pattern)"
        case .items(let items): query = "i" + items.map { "\($0.name)\u{1}\($0.pattern)" }.sorted().joined(separator: "\u{2}")
        }
        return [rule.mode.description, "\(rule.exclude)", rule.path.map(\.description).joined(separator: "\u{1}"), query, rule.fragment.description]
            .joined(separator: "\u{0}")
    }
}
