/// Per app, the deciding rule id (or -1) of the last URL a matcher decided, in memory the
/// matcher owns outright.
///
/// Why raw memory: the matcher writes this row for most URLs and `classify` reads it for every
/// record; as an array stored in the matcher, each read retained and released it and each write
/// asked whether it was uniquely referenced (the fleet profile showed both). This value holds a
/// pointer and a count, so it is copied freely and never counted. The owner (`DFAMatcher`)
/// calls `deallocate()` exactly once, in its `deinit`; nothing else may keep a copy past that.
///
/// Its size is fixed when it is made: one slot per app of the document.
struct DecisionBuffer {
    private let base: UnsafeMutablePointer<Int32>
    let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: -1, count: max(count, 1))
    }

    func deallocate() { base.deallocate() }

    /// The deciding rule of `app`.
    @inline(__always)
    subscript(app app: Int) -> Int32 {
        get {
            assert(app >= 0 && app < count)
            // SAFETY: every caller passes an app index of the matcher's document (a rule's
            // apps, or `0..<count`), below `count`; the `assert` checks it in test builds.
            return base[app]
        }
        nonmutating set {
            assert(app >= 0 && app < count)
            // SAFETY: as for the getter.
            base[app] = newValue
        }
    }

    /// Sets every app's rule to -1.
    @inline(__always)
    func clear() {
        // SAFETY: `count` slots were allocated and initialised.
        base.update(repeating: -1, count: count)
    }

    /// The row, valid while the owner is alive and until the next URL is decided.
    @inline(__always)
    var buffer: UnsafeBufferPointer<Int32> {
        UnsafeBufferPointer(start: base, count: count)
    }
}
