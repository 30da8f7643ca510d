import AASAKit

/// The match suite's tables: ratios first, workload in the title.
extension MatchSuite {
    static func headlineTable(_ m: Measured) -> Table {
        let rules = m.workload.document.ruleCount
        let urls = m.workload.urls.count
        var title = "lazy DFA vs reference vs regex baseline, \(Format.count(rules)) path rules, \(Format.count(urls)) generated URLs"
        if m.referenceURLs < urls || m.regexURLs < urls {
            title += " (reference on the first \(Format.count(m.referenceURLs)), regex on the first \(Format.count(m.regexURLs)); ratios on the same URLs)"
        }
        title += ", 1 thread"
        var table = Table(
            title: title,
            columns: ["engine", "lazy DFA speed-up, same URLs", "vs DFA on unseen URLs", "ns/URL median", "p90", "URLs/s", "URLs"])
        let regexBase = m.dfaOnRegexURLs ?? m.dfa
        table.rows.append([
            "lazy DFA, `decide(bytes:)`, repeated URLs", "1×", "", Format.nanoseconds(m.dfa.median), Format.nanoseconds(m.dfa.p90),
            Format.rate(m.dfa.itemsPerSecond), Format.count(urls),
        ])
        table.rows.append([
            "lazy DFA, `decide(bytes:)`, unseen URLs", "", "1×", Format.nanoseconds(m.unseenMedian), Format.nanoseconds(m.unseenP90),
            Format.rate(1e9 / max(1, m.unseenMedian)), Format.count(urls),
        ])
        table.rows.append([
            "lazy DFA, `decide(_:app:)` → `URLDecision`, repeated", Format.ratio(m.dfaString.median / m.dfa.median) + " (String API cost)", "",
            Format.nanoseconds(m.dfaString.median), Format.nanoseconds(m.dfaString.p90), Format.rate(m.dfaString.itemsPerSecond), Format.count(urls),
        ])
        if let reference = m.reference {
            table.rows.append([
                "reference matcher", "**" + (m.speedupVsReference.map(Format.ratio) ?? "—") + "**",
                "**" + (m.speedupVsReferenceUnseen.map(Format.ratio) ?? "—") + "**", Format.nanoseconds(reference.median),
                Format.nanoseconds(reference.p90), Format.rate(reference.itemsPerSecond), Format.count(m.referenceURLs),
            ])
        }
        if let regex = m.regex {
            table.rows.append([
                "regex baseline (`NSRegularExpression` per rule, in order)", "**" + Format.ratio(regex.median / regexBase.median) + "**",
                Format.ratio(regex.median / m.unseenMedian), Format.nanoseconds(regex.median), Format.nanoseconds(regex.p90),
                Format.rate(regex.itemsPerSecond), Format.count(m.regexURLs),
            ])
        }
        var note = "Every engine decides all three apps of the document per URL. Repeated: passes over the same URLs (every state cached after the first). "
        note += "Unseen: a fresh matcher warmed on another stream from the same rules, then one pass over these URLs. "
        note += "First contact (empty cache): \(Format.nanoseconds(m.dfa.cold))/URL. One pass builds \(Format.count(m.statesBuilt)) DFA states, "
        note += "\(m.clears) cache clears, \(m.fallbacks) NFA fallbacks; "
        note += "\(m.loopBytesPerURL.map { String(format: "%.1f", $0) } ?? "n/a") bytes allocated per URL in a second pass."
        table.notes.append(note)
        if let agreement = m.regexAgreement {
            table.notes.append(
                "The regex baseline agrees with the reference on \(Format.count(agreement.agree)) of \(Format.count(agreement.total)) URLs (a speed baseline, not an oracle).")
        }
        return table
    }

    static func scalingTable(_ rows: [Measured], kind: SyntheticDocument.Kind, profile: Profile, pairs: PairSampler? = nil) -> Table {
        let urls = profile.syntheticURLs
        let withReference = rows.filter { $0.reference != nil }.count > 1
        let title = withReference
            ? "lazy DFA vs reference vs regex by document size, \(kind.ruleNoun), \(Format.count(urls)) generated URLs per size (reference and regex on a prefix: per-URL times, ratios on the same URLs), 1 thread"
            : "lazy DFA by document size, \(kind.ruleNoun) (diagnostic), \(Format.count(urls)) generated URLs per size, 1 thread"
        var table = Table(
            title: title,
            columns: [
                "rules", "unseen URLs: DFA ÷ DFA at 10 rules", "DFA ns/URL, unseen", "p90", "repeated: ÷ at 10", "DFA ns/URL, repeated",
                "speed-up vs reference (same URLs, repeated)", "vs reference (unseen)", "vs regex", "reference ns/URL (URLs)",
                "regex ns/URL (URLs)", "DFA states built (one pass)", "cache clears", "NFA states", "compile", "strategies (plan)",
            ])
        if let pairs, case let paired = pairs.all, !paired.isEmpty {
            let medians = pairs.windowMedians.map(Format.ratio).joined(separator: ", ")
            table.notes.append(
                "Unseen time at 128 KB of rules (the largest document Apple accepts) ÷ at 10, the two passes back to back (a fresh matcher each, warmed on another stream, order alternating): median \(Format.ratio(Statistics.quantile(paired, 0.5))) over \(paired.count) pairs in \(pairs.windows.count) windows spread over the suite's run [q25 \(Format.ratio(Statistics.quantile(paired, 0.25))), q75 \(Format.ratio(Statistics.quantile(paired, 0.75)))]; window medians in run order: \(medians). The column above divides passes measured minutes apart.")
        }
        let unseenBase = rows.first?.unseenMedian ?? 1
        let repeatedBase = rows.first?.dfa.median ?? 1
        for m in rows {
            let plan = m.workload.compiled.plan.strategies
            let strategies: String = Strategy.allCases.filter { plan.contains($0) }.map(\.rawValue).joined(separator: ", ")
            let size: String = Format.count(m.workload.document.ruleCount) + (m.workload.fillsAppleLimit ? " (128 KB)" : "")
            table.rows.append([
                size,
                "**" + Format.ratio(m.unseenMedian / unseenBase) + "**",
                Format.nanoseconds(m.unseenMedian), Format.nanoseconds(m.unseenP90),
                Format.ratio(m.dfa.median / repeatedBase), Format.nanoseconds(m.dfa.median),
                m.speedupVsReference.map { "**" + Format.ratio($0) + "**" } ?? "—",
                m.speedupVsReferenceUnseen.map(Format.ratio) ?? "—",
                m.speedupVsRegex.map(Format.ratio) ?? "—",
                m.reference.map { "\(Format.nanoseconds($0.median)) (\(Format.count(m.referenceURLs)))" } ?? "—",
                m.regex.map { "\(Format.nanoseconds($0.median)) (\(Format.count(m.regexURLs)))" } ?? "—",
                Format.count(m.statesBuilt), Format.count(m.clears), Format.count(m.workload.compiled.nfaStateCount),
                Format.milliseconds(Double(m.workload.compileNanoseconds)),
                strategies,
            ])
        }
        return table
    }

    static func kindsTable(_ rows: [Measured], profile: Profile) -> Table {
        var table = Table(
            title: "lazy DFA vs reference vs regex by rule kind, \(Format.count(profile.headlineRules)) rules, \(Format.count(profile.syntheticURLs)) generated URLs, 1 thread",
            columns: [
                "kind", "DFA speed-up vs reference (same URLs, repeated)", "vs reference (unseen)", "vs regex", "DFA ns/URL, unseen",
                "DFA ns/URL, repeated", "reference ns/URL (URLs)", "regex ns/URL (URLs)", "DFA states built", "NFA states", "automaton",
                "bytes alloc./URL",
            ])
        for m in rows {
            table.rows.append([
                m.workload.document.kind.rawValue,
                m.speedupVsReference.map { "**" + Format.ratio($0) + "**" } ?? "—",
                m.speedupVsReferenceUnseen.map(Format.ratio) ?? "—",
                m.speedupVsRegex.map(Format.ratio) ?? "— (not path-only)",
                Format.nanoseconds(m.unseenMedian), Format.nanoseconds(m.dfa.median),
                m.reference.map { "\(Format.nanoseconds($0.median)) (\(Format.count(m.referenceURLs)))" } ?? "—",
                m.regex.map { "\(Format.nanoseconds($0.median)) (\(Format.count(m.regexURLs)))" } ?? "—",
                Format.count(m.statesBuilt), Format.count(m.workload.compiled.nfaStateCount),
                Format.bytes(m.workload.compiled.memoryUsage),
                m.loopBytesPerURL.map { String(format: "%.1f", $0) } ?? "n/a",
            ])
        }
        var note = "paths: sections and pages, `/*` tails, some mid-path and leading `*`, `?` runs, 8% exclusions; "
        note += "prefixes: the same vocabulary with wildcards only at the end (a diagnostic: the easy case); "
        note += "variables: `$(lang)_$(region)`, `$(digit)`, `$(alnum)` and custom variables, 20% case-insensitive, 10% percent-decoded; "
        note += "queries: path rules plus item dictionaries, whole-query and fragment patterns."
        table.notes.append(note)
        return table
    }
}
