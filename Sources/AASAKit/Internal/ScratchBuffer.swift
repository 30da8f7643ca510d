/// A growable buffer of plain values that one thread owns, cleared in O(1): the determiniser's
/// per-state work space and the bytes of output records.
///
/// Why unsafe: the elements live in memory this object allocates itself, and its stored
/// properties opt out of dynamic exclusivity checks. PERF: the same buffers as `Array`s cost,
/// per state built, five `removeAll(keepingCapacity:)` calls through the generic
/// `replaceSubrange` and a uniqueness check per append: about a quarter of the instructions of
/// building a state (callgrind, paths-10000, unseen URLs); and a record is a dozen appends, each
/// checking uniqueness and capacity (a third of a classify run's instructions, callgrind, shared
/// corpus).
///
/// What makes it safe: the pointer never leaves this type except as a view lent to a closure
/// (`withView`, `withUnsafeBufferPointer`) that must not append; every append first makes room
/// (`reserve`); every read checks its index against `count`; and one thread uses a buffer at a
/// time (its owner, a cache or a classifier, is per thread), so no access can overlap another.
final class ScratchBuffer<Element: BitwiseCopyable> {
    // PERF: one thread owns a buffer; dynamic exclusivity checks on these would be pure cost.
    // SAFETY: the owner is one thread at a time and no access calls out while in progress, so
    // accesses to these three never overlap.
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private(set) var capacity: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    var isEmpty: Bool { count == 0 }

    /// Makes room for `extra` more elements; every append does this itself.
    @inline(__always)
    func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(to: count + extra) }
    }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        // SAFETY: `count < capacity` after the check above.
        base[count] = element
        count &+= 1
    }

    /// Appends every element of `elements`.
    @inline(__always)
    func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress else { return }
        reserve(elements.count)
        // SAFETY: `reserve` left room for `elements.count` more; `source` is the caller's loan.
        (base + count).update(from: source, count: elements.count)
        count &+= elements.count
    }

    @inline(__always)
    func append(contentsOf elements: BufferView<Element>) {
        append(contentsOf: elements.buffer)
    }

    /// Appends `delimiter`, every element of `elements`, then `delimiter` again (a quoted
    /// string), making room once.
    @inline(__always)
    func append(contentsOf elements: BufferView<Element>, enclosedBy delimiter: Element) {
        let length = elements.count
        reserve(length &+ 2)
        // SAFETY: `reserve` left room for `length + 2` more elements.
        base[count] = delimiter
        if let source = elements.buffer.baseAddress {
            // SAFETY: as above; `source` is the caller's loan of `length` elements.
            (base + (count &+ 1)).update(from: source, count: length)
        }
        // SAFETY: as above.
        base[count &+ 1 &+ length] = delimiter
        count &+= length &+ 2
    }

    @inline(__always)
    func append(contentsOf elements: [Element]) {
        elements.withView { append(contentsOf: $0) }
    }

    /// Appends `count` copies of `element` (a new table row), making room once.
    @inline(__always)
    func append(repeating element: Element, count extra: Int) {
        precondition(extra >= 0, "appending a negative count")
        reserve(extra)
        // SAFETY: `reserve` left room for `extra` more elements.
        (base + count).initialize(repeating: element, count: extra)
        count &+= extra
    }

    @inline(__always)
    func popLast() -> Element? {
        guard count > 0 else { return nil }
        count &-= 1
        // SAFETY: `count` was above zero, so the new `count` indexes a written element.
        return base[count]
    }

    @inline(__always)
    func removeAll() { count = 0 }

    /// Empties the buffer and gives back its memory beyond room for `kept` elements: for a
    /// cache emptied to bound its thread's memory, not to be refilled at once.
    func removeAll(keepingRoomFor kept: Int) {
        count = 0
        guard capacity > max(1, kept) else { return }
        // SAFETY: views of the memory live only inside `withView` and its kin, which must not
        // call this; nothing points into the old block once it is freed.
        base.deallocate()
        capacity = max(1, kept)
        base = .allocate(capacity: capacity)
    }

    /// Keeps the first `newCount` elements.
    func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncating past the end")
        count = newCount
    }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "scratch index out of range")
            // SAFETY: checked just above.
            return base[index]
        }
        set {
            precondition(index >= 0 && index < count, "scratch index out of range")
            // SAFETY: checked just above.
            base[index] = newValue
        }
    }

    /// The elements, lent to `body`, which must not append.
    @inline(__always)
    func withView<Result, Failure: Error>(_ body: (BufferView<Element>) throws(Failure) -> Result) throws(Failure) -> Result {
        // SAFETY: `count` elements are initialised; `body` cannot grow the buffer.
        try body(BufferView(UnsafeBufferPointer(start: base, count: count)))
    }

    /// The elements, valid only inside `body` (which must not append).
    @inline(__always)
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        // SAFETY: as `withView`.
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    var array: [Element] { withView { Array($0.buffer) } }

    @inline(never)
    private func grow(to minimum: Int) {
        var size = capacity * 2
        while size < minimum { size *= 2 }
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: size)
        // SAFETY: the first `count` elements are initialised and `size > count`.
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = size
    }
}

extension ScratchBuffer where Element == UInt8 {
    /// Appends `bytes`, each eight-byte word of them passed through `transform`, which must map
    /// every byte on its own (result byte `i` depends only on input byte `i`): the last bytes
    /// go through it in one word overlapping the previous one, which rewrites a few bytes with
    /// the same values.
    @inline(__always)
    func append(contentsOf bytes: ByteView, wordwise transform: (UInt64) -> UInt64) {
        let length = bytes.count
        reserve(length)
        // SAFETY: `reserve` left room for `length` more bytes from `base + count`, and every
        // store below writes eight bytes at an offset at most `length - 8` into that room.
        let destination = UnsafeMutableRawPointer(base + count)
        if length >= 8 {
            var index = 0
            while length &- index >= 8 {
                destination.storeBytes(of: transform(bytes.word(at: index)), toByteOffset: index, as: UInt64.self)
                index &+= 8
            }
            if index < length {
                destination.storeBytes(of: transform(bytes.lastWord), toByteOffset: length &- 8, as: UInt64.self)
            }
        } else {
            // Fewer than eight bytes: gathered into one word in memory order, transformed,
            // stored back byte by byte.
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { raw in
                for index in 0..<length { raw[index] = bytes[index] }
            }
            word = transform(word)
            withUnsafeBytes(of: &word) { raw in
                for index in 0..<length { destination.storeBytes(of: raw[index], toByteOffset: index, as: UInt8.self) }
            }
        }
        count &+= length
    }
}

// The sorts the determiniser needs (positions, tags), for concrete element types: a generic one
// is specialised only where its caller's file is compiled with it (release builds, whole
// module), and the test build (`make test`, file by file) ran the standard library's unspecialised
// sort, most of a closure's time.
extension ScratchBuffer where Element == UInt64 {
    func sort() {
        // SAFETY: the first `count` elements are initialised; the sort stays within them.
        var elements = UnsafeMutableBufferPointer(start: base, count: count)
        elements.sort()
    }
}

extension ScratchBuffer where Element == Int32 {
    func sort() {
        // SAFETY: as above.
        var elements = UnsafeMutableBufferPointer(start: base, count: count)
        elements.sort()
    }
}
