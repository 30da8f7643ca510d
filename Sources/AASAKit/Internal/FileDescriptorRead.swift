import Foundation

/// One `read(2)` from a file descriptor straight into a byte array, without a copy.
///
/// Why unsafe: `read` writes through a raw pointer into the array's storage. What makes it
/// safe: the pointer comes from `withUnsafeMutableBytes`, which makes the storage unique and
/// lends it only for the call, and the count passed to `read` is the room left after `offset`.
enum FileDescriptorRead {
    /// Reads at most `bytes.count - offset` bytes of `fileDescriptor` into `bytes[offset...]`.
    ///
    /// - Returns: the number of bytes read (0 at the end of the input, or when `offset` leaves
    ///   no room), or minus `errno` when the call failed (`-EINTR` included: the caller decides
    ///   whether to retry).
    static func read(_ fileDescriptor: Int32, into bytes: inout [UInt8], at offset: Int) -> Int {
        bytes.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress, offset >= 0, offset < raw.count else { return 0 }
            // SAFETY: `offset < raw.count`, and `read` writes at most `raw.count - offset` bytes
            // from `base + offset`, all inside the array's storage.
            let count = Foundation.read(fileDescriptor, base + offset, raw.count - offset)
            return count < 0 ? -Int(errno) : count
        }
    }
}
