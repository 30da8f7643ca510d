import Synchronization

/// What the documents of a lazily loaded fleet hold together, against `loaded-bytes`.
///
/// Why a budget for the whole fleet: every document is bounded on its own (`nfa-states`, about
/// 50 MB), but a stream keeps each document it meets, and a stream whose hosts serve many
/// hostile documents would otherwise keep them all (30 documents of 5 000 query items calling
/// `$(lang)`, each under every limit, held 1.8 GB with `--rules` and 2.3 GB with `--compiled`).
///
/// Why let go of every document at once rather than the least recently used: a document is held
/// by its domain, by the caches that share it with domains serving the same file or artifact
/// body, and by each thread that met it (its slot and matcher). Dropping all at once needs no
/// per-URL bookkeeping on the hot path: each thread compares one counter (`generation`) before
/// a URL and, when it moved, drops its slots and matchers, keeping its counts. The documents in
/// use are loaded again by the next URL of their domain, as the lazy DFA caches build their
/// states again after `Classifier.releaseCaches`. A fleet within the budget pays one counter
/// read a URL and one charge a domain met.
///
/// What it will not do: bound the documents' per-thread caches (`dfa-cache-bytes`, their own
/// budget) or the per-domain counts, or free at once what a thread holds when the budget is
/// passed (its slots go before its next URL; the document that passed the budget serves the
/// thread that loaded it). A failed document is never let go: it holds only its message, and
/// letting it go would report it again.
final class DocumentBudget: Sendable {
    /// `loaded-bytes`; `Int.max` for rules loaded eagerly, which never let go.
    let limit: Int
    /// Bumped each time every document is let go: a thread whose count differs drops what it
    /// holds before its next URL (`Classifier.route`).
    let generation = Atomic<Int>(0)
    /// Times every document was let go.
    let releases = Atomic<Int>(0)
    /// The bytes charged since the last release, and the domains holding them.
    private let held = Mutex<(bytes: Int, domains: [Int])>((0, []))
    /// Whether `held` is over the limit, set and cleared under its lock: read without it by
    /// every thread meeting a domain (`releaseIfOver`), which then mostly takes no lock.
    private let passed = Atomic<Bool>(false)
    /// Taken while letting go, so that two threads passing the budget at once release once.
    private let releasing = Mutex(())

    init(limit: Int) {
        self.limit = limit
    }

    /// Records that domain `domain` now holds a document of `bytes` bytes.
    func charge(_ bytes: Int, domain: Int) {
        held.withLock { held in
            held.bytes &+= bytes
            held.domains.append(domain)
            if held.bytes > limit { passed.store(true, ordering: .relaxed) }
        }
    }

    /// When the budget is passed: hands the domains charged since the last release to `letGo`,
    /// starts the charge again from nothing, and moves the generation. Never called under a
    /// domain's lock.
    func releaseIfOver(letGo: ([Int]) -> Void) {
        guard passed.load(ordering: .relaxed) else { return }
        releasing.withLock { _ in
            let domains: [Int]? = held.withLock { held in
                guard held.bytes > limit else { return nil }
                defer {
                    held = (0, [])
                    passed.store(false, ordering: .relaxed)
                }
                return held.domains
            }
            guard let domains else { return }
            letGo(domains)
            releases.add(1, ordering: .relaxed)
            generation.add(1, ordering: .releasing)
        }
    }
}
