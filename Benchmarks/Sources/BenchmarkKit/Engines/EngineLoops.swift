import AASAKit
import Foundation

/// The timed loops, one per engine. Each decides every app for every URL of a batch and
/// returns a checksum of the decisions (fed to `blackHole`).
public enum EngineLoops {
    /// The lazy DFA through the allocation-free API: `decide(bytes:)`, results read from
    /// `decidingRule`.
    public static func dfaBytes(_ matcher: DFAMatcher, _ batch: URLBatch) -> Int {
        var checksum = 0
        batch.forEachBytes { _, bytes in
            do {
                try matcher.decide(bytes: bytes)
                for rule in matcher.decidingRule { checksum &+= Int(rule) }
            } catch {
                checksum &+= 7
            }
        }
        return checksum
    }

    /// The lazy DFA through the `String` API, returning a `URLDecision` (what the CLI does).
    public static func dfaString(_ matcher: DFAMatcher, _ batch: URLBatch) -> Int {
        var checksum = 0
        for url in batch.urls {
            if let decision = try? matcher.decide(url, app: nil) {
                for app in decision.decisions { checksum &+= app.rule ?? -1 }
            } else {
                checksum &+= 7
            }
        }
        return checksum
    }

    public static func reference(_ reference: ReferenceMatcher, _ batch: URLBatch) -> Int {
        var checksum = 0
        for url in batch.urls {
            if let decision = try? reference.decide(url, app: nil) {
                for app in decision.decisions { checksum &+= app.rule ?? -1 }
            } else {
                checksum &+= 7
            }
        }
        return checksum
    }

    public static func regex(_ baseline: RegexBaseline, _ batch: URLBatch) -> Int {
        var checksum = 0
        for url in batch.urls { checksum &+= baseline.decide(url) }
        return checksum
    }
}

/// One URL on which the DFA engine and the reference matcher decided differently.
public struct Disagreement: Codable, Sendable {
    public var suite: String
    public var document: String
    public var url: String
    public var dfa: String
    public var reference: String
}

/// Decides URLs with both engines and lists every difference, with both records.
public enum Agreement {
    /// A decision as a one-line record (the shape of `aasa match` output).
    public static func record(_ result: Result<URLDecision, URLSplitError>) -> String {
        switch result {
        case .failure(let error):
            return "{\"error\": \"\(error)\"}"
        case .success(let decision):
            return "{" + decision.decisions.map { app in
                var text = "\"\(app.app)\": {\"decision\": \"\(app.kind.rawValue)\""
                if let entry = app.entry { text += ", \"entry\": \(entry)" }
                if let rule = app.rule { text += ", \"rule\": \(rule)" }
                return text + "}"
            }.joined(separator: ", ") + "}"
        }
    }

    static func result(_ body: () throws(URLSplitError) -> URLDecision) -> Result<URLDecision, URLSplitError> {
        do throws(URLSplitError) {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    /// Decides every URL with both engines; returns the disagreements. `timed`, when given, is
    /// the matcher a suite has just timed (its caches warm from the timed passes): it is held
    /// to the same reference decisions, so that the figures come from a matcher known to agree.
    public static func check(
        suite: String, document: String, dfa: DFAMatcher, timed: DFAMatcher? = nil, reference: ReferenceMatcher, urls: [String]
    ) -> [Disagreement] {
        var found: [Disagreement] = []
        for url in urls {
            let oracle = result { () throws(URLSplitError) in try reference.decide(url, app: nil) }
            for matcher in [dfa] + (timed.map { [$0] } ?? []) {
                let fast = result { () throws(URLSplitError) in try matcher.decide(url, app: nil) }
                let same: Bool
                switch (fast, oracle) {
                case (.success(let a), .success(let b)): same = a == b
                case (.failure(let a), .failure(let b)): same = a == b
                default: same = false
                }
                if !same {
                    let engine = matcher === dfa ? "" : " (the timed matcher)"
                    found.append(
                        Disagreement(suite: suite, document: document + engine, url: url, dfa: record(fast), reference: record(oracle)))
                }
            }
        }
        return found
    }
}

extension Agreement {
    /// Shared state of a parallel check: workers claim chunks of URLs in order, so the URLs
    /// checked when the deadline passes are always a prefix.
    private final class ParallelRun: @unchecked Sendable {
        let lock = NSLock()
        var next: Int
        var checked = 0
        var found: [(Int, Disagreement)] = []

        init(start: Int) {
            next = start
        }
    }

    /// Checks `urls[start...]` on `threads` threads (a `DFAMatcher` each) until done or until
    /// `deadline` (a `Clock.now()` value) passes, but at least the first `minimum` URLs of the
    /// stream whatever the time (so a loaded machine cannot bring a workload's check down to
    /// nothing). Returns how many URLs were checked (from `start`, a prefix) and the
    /// disagreements in URL order.
    public static func checkParallel(
        suite: String, document: String, compiled: CompiledDocument, reference: ReferenceMatcher, urls: [String],
        start: Int = 0, deadline: UInt64, minimum: Int = 0, threads: Int = 2
    ) -> (checked: Int, disagreements: [Disagreement]) {
        guard start < urls.count else { return (0, []) }
        let run = ParallelRun(start: start)
        let chunk = 8
        DispatchQueue.concurrentPerform(iterations: max(1, threads)) { _ in
            let matcher = DFAMatcher(compiled)
            while true {
                run.lock.lock()
                if run.next >= urls.count || (run.next >= minimum && Clock.now() > deadline) {
                    run.lock.unlock()
                    return
                }
                let range = run.next..<min(urls.count, run.next + chunk)
                run.next = range.upperBound
                run.lock.unlock()
                var local: [(Int, Disagreement)] = []
                for index in range {
                    if let found = check(suite: suite, document: document, dfa: matcher, reference: reference, urls: [urls[index]]).first {
                        local.append((index, found))
                    }
                }
                run.lock.lock()
                run.checked += range.count
                run.found += local
                run.lock.unlock()
            }
        }
        return (run.checked, run.found.sorted { $0.0 < $1.0 }.map(\.1))
    }
}
