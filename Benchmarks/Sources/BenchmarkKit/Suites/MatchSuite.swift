import AASAKit

/// The match suite: synthetic documents, the lazy DFA against the reference matcher and the
/// regex baseline, on the same URLs in the same run.
///
/// Four tables: the headline (1 000 path rules, every engine and API), scaling by document
/// size (10 path rules to the largest document Apple accepts, 128 KB), the rule kinds at 1 000 rules, and the scaling of prefix-only
/// rules (a diagnostic). The reference and the regex baseline decide a prefix of the stream at
/// large sizes (said in the title); each ratio compares the DFA on the same URLs.
///
/// The lazy DFA is timed two ways, because a lazy DFA is only as fast as its cache is warm:
/// - *repeated*: passes over the same URLs, so after the first pass every state is cached
///   (as long as the cache holds them): the best case, a server seeing the same URLs again;
/// - *unseen*: a fresh matcher warmed on a different stream from the same document, then one
///   pass over URLs it has never seen: the states shared by many URLs are cached, the states
///   particular to each URL are not. This is a log or crawl stream, and the figure the
///   scaling claim is judged on.
enum MatchSuite {
    /// What was measured for one workload.
    struct Measured {
        var workload: SyntheticWorkload
        var dfa: Timing
        var dfaString: Timing
        /// Per-URL times of the unseen-stream passes.
        var unseen: [Double]
        var reference: Timing?
        var dfaOnReferenceURLs: Timing?
        var regex: Timing?
        var dfaOnRegexURLs: Timing?
        var referenceURLs: Int
        var regexURLs: Int
        var regexAgreement: (agree: Int, total: Int)?
        var statesBuilt = 0
        var clears = 0
        var fallbacks = 0
        var loopBytesPerURL: Double?

        var unseenMedian: Double { Statistics.quantile(unseen, 0.5) }
        var unseenP90: Double { Statistics.quantile(unseen, 0.9) }

        /// Reference ÷ DFA on the same URLs, repeated.
        var speedupVsReference: Double? {
            guard let reference else { return nil }
            return reference.median / (dfaOnReferenceURLs ?? dfa).median
        }
        /// The conservative figure: the reference's per-URL time against the DFA's on unseen URLs.
        var speedupVsReferenceUnseen: Double? {
            reference.map { $0.median / unseenMedian }
        }
        var speedupVsRegex: Double? {
            guard let regex else { return nil }
            return regex.median / (dfaOnRegexURLs ?? dfa).median
        }
    }

    /// Every synthetic workload the suite decides URLs on (the agreement suite checks them all).
    static func workloads(_ profile: Profile) -> [(kind: SyntheticDocument.Kind, rules: Int)] {
        var list: [(SyntheticDocument.Kind, Int)] = profile.scalingSizes.map { (.paths, $0) }
        list += profile.scalingSizes.map { (.prefixes, $0) }
        list += [(.variables, profile.headlineRules), (.queries, profile.headlineRules)]
        return list
    }

    static func run(_ context: RunContext) throws -> SuiteReport {
        var report = SuiteReport(name: "match")
        let profile = context.profile
        var measured: [String: Measured] = [:]
        func measure(_ kind: SyntheticDocument.Kind, _ rules: Int, withReference: Bool = true) throws -> Measured {
            let key = "\(kind.rawValue)-\(rules)"
            if let known = measured[key] { return known }
            let result = try self.measure(
                context.store.synthetic(kind, rules: rules), context: context, withReference: withReference, report: &report)
            measured[key] = result
            return result
        }

        // The scaling ratios' pairs are sampled between the other measurements, so that they
        // span the suite's minutes (see `PairSampler`).
        let smallest = profile.scalingSizes.first ?? 10, largest = profile.scalingSizes.last ?? Profile.appleLimit
        let samplers = try [SyntheticDocument.Kind.paths, .prefixes].map { kind in
            PairSampler(small: try context.store.synthetic(kind, rules: smallest), large: try context.store.synthetic(kind, rules: largest))
        }
        func sample() { for sampler in samplers { sampler.sample(rounds: PairSampler.roundsPerWindow) } }

        let headline = try measure(.paths, profile.headlineRules)
        sample()
        var scaling: [Measured] = []
        for size in profile.scalingSizes {
            scaling.append(try measure(.paths, size))
            sample()
        }
        var kinds: [Measured] = []
        for kind in SyntheticDocument.Kind.allCases {
            kinds.append(try measure(kind, profile.headlineRules))
            sample()
        }
        // Wildcards only at the end: separates the cost of the number of rules from the cost of
        // mid-pattern and leading `*` (DFA only, except at the headline size).
        var prefixes: [Measured] = []
        for size in profile.scalingSizes {
            prefixes.append(try measure(.prefixes, size, withReference: size == profile.headlineRules))
            sample()
        }
        for sampler in samplers { sampler.sample(rounds: 3 * profile.repetitions) }

        context.emit(headlineTable(headline), into: &report)
        context.emit(scalingTable(scaling, kind: .paths, profile: profile, pairs: samplers[0]), into: &report)
        trackScaling(scaling, pairs: samplers[0], prefix: "scaling", noun: "path rules", claim: true, into: &report)
        context.emit(kindsTable(kinds, profile: profile), into: &report)
        context.emit(scalingTable(prefixes, kind: .prefixes, profile: profile, pairs: samplers[1]), into: &report)
        trackScaling(prefixes, pairs: samplers[1], prefix: "scaling.prefixes", noun: "prefix rules", claim: false, into: &report)
        return report
    }

    /// Back-to-back pairs of unseen passes at the smallest and the largest size of one kind,
    /// taken in windows spread over the suite's run.
    ///
    /// Why windows: one block of pairs takes a fraction of a second, and this 2-core VM has
    /// slow spells of seconds to minutes in which contention slows a memory-bound pass (thousands
    /// of rules, large tables) more than a cache-resident one (10 rules): the same
    /// build gave 1.88× in a calm block and 2.39× in a slow one. Windows between
    /// the other measurements sample the whole run, so the median is the machine's usual
    /// ratio rather than that of whichever second the block fell in; the spread of the
    /// window medians shows the spells.
    final class PairSampler {
        let small: SyntheticWorkload
        let large: SyntheticWorkload
        /// Per window: large ÷ small per pair.
        private(set) var windows: [[Double]] = []
        static let roundsPerWindow = 4

        init(small: SyntheticWorkload, large: SyntheticWorkload) {
            self.small = small
            self.large = large
        }

        var all: [Double] { windows.flatMap { $0 } }
        var windowMedians: [Double] { windows.map { Statistics.quantile($0, 0.5) } }

        func sample(rounds: Int) {
            guard small.document.ruleCount == 10, large.fillsAppleLimit, rounds > 0 else { return }
            windows.append(MatchSuite.pairedUnseenRatios(small, large, rounds: rounds))
        }
    }

    /// Tracks the growth of DFA time on unseen URLs from the smallest to the largest size (lower
    /// is better): the median of every pair `pairs` took, in all its windows (see
    /// `PairSampler`), the ratio of the table's separate passes reported beside it.
    static func trackScaling(
        _ rows: [Measured], pairs: PairSampler, prefix: String, noun: String, claim: Bool, into report: inout SuiteReport
    ) {
        let paired = pairs.all
        guard let first = rows.first, let last = rows.last, first.workload.document.ruleCount == 10,
            last.workload.fillsAppleLimit, !paired.isEmpty
        else { return }
        report.ratios["\(prefix).dfa_time_128k_over_10"] = TrackedRatio(
            value: Statistics.quantile(paired, 0.5), higherIsBetter: false,
            meaning: "lazy DFA ns/URL on unseen URLs at 128 KB of \(noun) ÷ at 10, median of \(paired.count) back-to-back pairs in \(pairs.windows.count) windows over the run\(claim ? " (claim b: < 2)" : "")")
        report.timings["\(prefix).dfa_time_128k_over_10_separate"] = last.unseenMedian / first.unseenMedian
        report.timings["\(prefix).dfa_time_128k_over_10_pairs_q25"] = Statistics.quantile(paired, 0.25)
        report.timings["\(prefix).dfa_time_128k_over_10_pairs_q75"] = Statistics.quantile(paired, 0.75)
        let medians = pairs.windowMedians
        report.timings["\(prefix).dfa_time_128k_over_10_window_min"] = medians.min()
        report.timings["\(prefix).dfa_time_128k_over_10_window_max"] = medians.max()
        // Reported, not tracked: at 128 KB of rules the repeated loop's speed is that of the
        // CPU caches holding a large transition table, and the other core moves it from run to
        // run.
        report.timings["\(prefix).dfa_repeated_time_128k_over_10"] = last.dfa.median / first.dfa.median
    }

    /// One unseen pass (see the type's comment): a fresh matcher warmed on the workload's
    /// warm-up stream, then its URLs once; nanoseconds a URL.
    static func unseenPass(_ workload: SyntheticWorkload) -> Double {
        let fresh = DFAMatcher(workload.compiled)
        blackHole(EngineLoops.dfaBytes(fresh, workload.warmupURLs))
        let (checksum, elapsed) = Clock.measure { EngineLoops.dfaBytes(fresh, workload.urls) }
        blackHole(checksum)
        return Double(elapsed) / Double(max(1, workload.urls.count))
    }

    /// Unseen time of `large` ÷ `small`, per round of two unseen passes run back to back
    /// (their order alternating from round to round).
    ///
    /// Why pairs: the table measures each size on its own, minutes apart, and this 2-core VM
    /// drifts by 10% or more over minutes (the same build gave 1.89× and 2.00× in two runs);
    /// two passes a few milliseconds apart see the same machine, so their ratio keeps the
    /// document's effect and drops the drift. The median of the pairs is the scaling figure.
    static func pairedUnseenRatios(_ small: SyntheticWorkload, _ large: SyntheticWorkload, rounds: Int) -> [Double] {
        var ratios: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                let smallTime = unseenPass(small)
                ratios.append(unseenPass(large) / smallTime)
            } else {
                let largeTime = unseenPass(large)
                ratios.append(largeTime / unseenPass(small))
            }
        }
        return ratios
    }

    static func measure(_ workload: SyntheticWorkload, context: RunContext, withReference: Bool, report: inout SuiteReport) throws
        -> Measured
    {
        let profile = context.profile
        let rules = workload.document.ruleCount
        let kind = workload.document.kind
        let label = workload.label
        let all = workload.urls
        let reference = workload.reference
        let regex = workload.document.isPathOnly && withReference
            ? try RegexBaseline(document: workload.parsed, domain: workload.document.domain) : nil
        // DFA-only sizes still check a few URLs against the reference.
        let referenceBatch = all.prefix(withReference ? profile.referenceURLs(kind, rules: rules) : 5)
        let regexBatch = all.prefix(regex == nil ? 0 : profile.regexURLs(kind, rules: rules))
        var progress = "_measuring \(label): \(Format.count(all.count)) URLs"
        progress += withReference ? ", reference on \(Format.count(referenceBatch.count)), regex on \(Format.count(regexBatch.count))_" : ", DFA only_"
        context.say(progress)

        // Deterministic counters: a fresh matcher, exactly one pass over the stream, then one
        // more pass under the allocation counter.
        let counting = DFAMatcher(workload.compiled)
        blackHole(EngineLoops.dfaBytes(counting, all))
        let statistics = counting.cacheStatistics
        let (_, loopBytes) = context.allocator.allocated { blackHole(EngineLoops.dfaBytes(counting, all)) }

        // Unseen URLs: a fresh matcher per repetition, warmed on another stream.
        let unseen = (0..<profile.repetitions).map { _ in unseenPass(workload) }

        // Repeated URLs, interleaved with the slow engines.
        let matcher = DFAMatcher(workload.compiled)
        var contenders = [
            Contender("dfa", items: all.count) { EngineLoops.dfaBytes(matcher, all) },
            Contender("dfa-string", items: all.count) { EngineLoops.dfaString(matcher, all) },
        ]
        if withReference {
            contenders.append(Contender("reference", items: referenceBatch.count, slow: true) { EngineLoops.reference(reference, referenceBatch) })
            if referenceBatch.count < all.count {
                contenders.append(Contender("dfa-reference-urls", items: referenceBatch.count) { EngineLoops.dfaBytes(matcher, referenceBatch) })
            }
        }
        if let regex {
            contenders.append(Contender("regex", items: regexBatch.count, slow: true) { EngineLoops.regex(regex, regexBatch) })
            if regexBatch.count < all.count {
                contenders.append(Contender("dfa-regex-urls", items: regexBatch.count) { EngineLoops.dfaBytes(matcher, regexBatch) })
            }
        }
        let timings = context.harness.compare(contenders)

        var result = Measured(
            workload: workload, dfa: timings["dfa"] ?? .missing, dfaString: timings["dfa-string"] ?? .missing, unseen: unseen,
            reference: timings["reference"], dfaOnReferenceURLs: timings["dfa-reference-urls"], regex: timings["regex"],
            dfaOnRegexURLs: timings["dfa-regex-urls"], referenceURLs: withReference ? referenceBatch.count : 0,
            regexURLs: regex == nil ? 0 : regexBatch.count)
        result.statesBuilt = statistics.statesBuilt
        result.clears = statistics.clears
        result.fallbacks = statistics.fallbacks
        result.loopBytesPerURL = loopBytes.map { Double($0) / Double(max(1, all.count)) }

        context.checkAgreement(
            suite: "match", label: label, document: "synthetic \(label) (seed \(context.options.seed))",
            dfa: DFAMatcher(workload.compiled), timed: matcher, reference: reference, urls: referenceBatch.urls, into: &report)
        if let regex {
            var agree = 0
            for url in regexBatch.urls {
                regex.decide(url)
                if let expected = try? reference.decide(url, app: nil), expected == regex.lastDecision { agree += 1 }
            }
            result.regexAgreement = (agree, regexBatch.count)
        }

        report.counters["\(label).nfa_states"] = Double(workload.compiled.nfaStateCount)
        report.counters["\(label).automaton_bytes"] = Double(workload.compiled.memoryUsage)
        report.counters["\(label).dfa_states_built"] = Double(result.statesBuilt)
        report.counters["\(label).dfa_cache_clears"] = Double(result.clears)
        report.counters["\(label).dfa_fallbacks"] = Double(result.fallbacks)
        if let loopBytes { report.counters["\(label).loop_bytes_allocated"] = Double(loopBytes) }

        // Speed-ups: all reported; the headline ones tracked by the CI baseline (the others
        // rest on a handful of reference URLs in quick mode and would make CI flaky).
        let tracked = kind == .paths && rules == profile.headlineRules
        func record(_ key: String, _ value: Double?, _ meaning: String) {
            guard let value else { return }
            report.timings["\(label).\(key)"] = value
            if tracked { report.ratios["\(label).\(key)"] = TrackedRatio(value: value, higherIsBetter: true, meaning: meaning) }
        }
        record("speedup_vs_reference", result.speedupVsReference, "reference ns/URL ÷ lazy DFA ns/URL, same URLs (repeated)")
        record("speedup_vs_reference_unseen", result.speedupVsReferenceUnseen, "reference ns/URL ÷ lazy DFA ns/URL on unseen URLs")
        record("speedup_vs_regex", result.speedupVsRegex, "regex baseline ns/URL ÷ lazy DFA ns/URL, same URLs (repeated)")
        report.timings["\(label).dfa_ns_per_url"] = result.dfa.median
        report.timings["\(label).dfa_unseen_ns_per_url"] = result.unseenMedian
        report.timings["\(label).dfa_string_ns_per_url"] = result.dfaString.median
        if let reference = result.reference { report.timings["\(label).reference_ns_per_url"] = reference.median }
        if let regex = result.regex { report.timings["\(label).regex_ns_per_url"] = regex.median }
        report.timings["\(label).parse_ns"] = Double(workload.parseNanoseconds)
        report.timings["\(label).compile_ns"] = Double(workload.compileNanoseconds)
        return result
    }
}
