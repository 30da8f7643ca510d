extension BufferView where Element: BitwiseCopyable {
    /// The same elements read byte by byte: the packed byte strings that tables keep inside
    /// their words (a compact table's run classes, a trie's run bytes).
    ///
    /// Why it is safe: a `BitwiseCopyable` element is plain bytes, every one of them
    /// initialised, and the byte view covers exactly the elements' memory and lives no longer
    /// than this view's loan. Its reads are asserted like this view's.
    @inline(__always)
    var bytes: ByteView {
        // SAFETY: the raw buffer spans exactly `count` initialised elements, lent for this
        // view's lifetime (see above).
        ByteView(raw: UnsafeRawBufferPointer(buffer))
    }
}
