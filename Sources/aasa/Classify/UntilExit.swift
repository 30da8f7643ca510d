import Foundation

/// Objects that live until the process exits instead of being freed one by one just before it.
///
/// Why: a fleet's compiled documents, matchers and DFA caches are hundreds of thousands of
/// small allocations; releasing them when `classify` returns, only to call `exit` a moment
/// later, cost about a tenth of a 10 000-domain run.
// PERF: `aasa classify --rules` on the fleet suite's 10 000 domains, 100 000 URLs (callgrind):
// the deinitialisers of Classifier, ClassifierRules and DFAMatcher were 450 M of 4 690 M
// instructions.
enum UntilExit {
    private static let lock = NSLock()
    // SAFETY: appended to only while `lock` is held, and never read.
    nonisolated(unsafe) private static var objects: [AnyObject] = []

    static func keep(_ object: AnyObject) {
        lock.lock()
        objects.append(object)
        lock.unlock()
    }
}
