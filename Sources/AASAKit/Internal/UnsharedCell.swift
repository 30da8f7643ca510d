/// One mutable value that a single thread owns, read and written without Swift's dynamic
/// exclusivity checks.
///
/// Why unsafe: a `var` stored in a class is checked at run time for overlapping accesses
/// (`swift_beginAccess`, a thread-local lookup each time); this one opts out. PERF: with those
/// checks on the work meter's count and the determiniser's pair set, `aasa classify --jobs 1
/// --rules` over the quick fleet stream given twice (`aasa-bench --quick --suite fleet` with
/// `AASA_BENCH_KEEP_FLEET=1`, callgrind) ran 1.7 M more instructions, about 140 a URL, 6% of a
/// warm URL; on an analysis explorer's memo tables, about a fifth of a walk's instructions.
/// What makes it safe: the owner of a cell (a matcher's `WorkMeter`, a cache's `StateScratch`,
/// an explorer's `Track`, made and used inside one walk) belongs to one thread at a time, and no
/// access to `value` calls out to code that could reach the same cell while it is in progress.
final class UnsharedCell<Value> {
    // SAFETY: one thread owns the cell and its accesses do not nest (see the type's comment).
    @exclusivity(unchecked) var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
