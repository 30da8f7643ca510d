import Foundation

/// Counting in large outputs, here because this module is optimised and the test modules are not:
/// a test's own byte loop over hundreds of megabytes of records takes seconds unoptimised.
public enum ByteSearch {
    /// Non-overlapping occurrences of `needle` in `bytes` (memchr, then memcmp).
    public static func occurrences(of needle: String, in bytes: Data) -> Int {
        let pattern = Array(needle.utf8)
        return bytes.withUnsafeBytes { raw -> Int in
            guard var cursor = raw.baseAddress, !pattern.isEmpty else { return 0 }
            let end = cursor + raw.count
            var count = 0
            while cursor < end, let found = memchr(cursor, Int32(pattern[0]), end - cursor) {
                let at = UnsafeRawPointer(found)
                if end - at >= pattern.count, memcmp(at, pattern, pattern.count) == 0 {
                    count += 1
                    cursor = at + pattern.count
                } else {
                    cursor = at + 1
                }
            }
            return count
        }
    }

    /// Newlines in the file at `path`, read a few megabytes at a time.
    public static func newlines(inFileAt path: String) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? handle.close() }
        var count = 0
        while let chunk = try handle.read(upToCount: 1 << 22), !chunk.isEmpty { count += occurrences(of: "\n", in: chunk) }
        return count
    }
}
