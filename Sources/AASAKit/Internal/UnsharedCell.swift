/// One mutable value that a single thread owns, read and written without Swift's dynamic
/// exclusivity checks.
///
/// Why unsafe: a `var` stored in a class is checked at run time for overlapping accesses
/// (`swift_beginAccess`, a thread-local lookup each time); this one opts out. For the per-URL
/// work meter that check was about a hundred instructions a URL, 4% of a warm URL (fleet suite,
/// `aasa classify --jobs 1 --rules`, callgrind). What makes it safe: the owner of a cell (a
/// matcher's `WorkMeter`, a cache's `StateScratch`) belongs to one thread at a time, and no
/// access to `value` calls out to code that could reach the same cell while it is in progress.
final class UnsharedCell<Value> {
    // SAFETY: one thread owns the cell and its accesses do not nest (see the type's comment).
    @exclusivity(unchecked) var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
