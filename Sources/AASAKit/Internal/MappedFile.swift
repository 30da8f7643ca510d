import Foundation

/// A file mapped read-only into memory for the life of this object.
///
/// Why unsafe: the bytes are memory the kernel lends at an address, not a Swift value, and
/// `bytes` hands out a view of them. What makes it safe: the mapping is private and read-only,
/// so nothing this process does can change it; it is unmapped only in `deinit`, so a view
/// taken from a living `MappedFile` stays valid as long as the caller keeps that object (its
/// owners store it beside every use of the view); and the view covers exactly the mapped size.
final class MappedFile: @unchecked Sendable {
    /// The whole file; valid while this object lives.
    let bytes: ByteView

    /// Maps `size` bytes of the open file `descriptor` (which may be closed afterwards), or
    /// returns nil when the mapping fails or `size` is not positive.
    init?(descriptor: Int32, size: Int) {
        guard size > 0, let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            return nil
        }
        // SAFETY: `mmap` returned `size` readable bytes at `mapped`, which stay mapped until
        // `deinit`.
        bytes = ByteView(raw: UnsafeRawBufferPointer(start: mapped, count: size))
    }

    deinit {
        // SAFETY: `bytes` is exactly the mapping made in `init`, unmapped once, here.
        munmap(UnsafeMutableRawPointer(mutating: bytes.buffer.baseAddress), bytes.count)
    }
}
