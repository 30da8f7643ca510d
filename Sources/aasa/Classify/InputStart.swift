import AASAKit

/// What the first bytes of the input say about it: a byte order mark to drop (SPEC 14), or a
/// compressed stream, which read as lines would give one "not valid UTF-8" record per line
/// with no hint of the cause.
enum InputStart: Equatable {
    case plain
    case byteOrderMark
    case compressed(format: String, command: String)

    /// Signatures of the compressed formats a log pipeline meets, with the command that
    /// decompresses each to standard output.
    private static let signatures: [(bytes: [UInt8], start: InputStart)] = [
        (URLLineReader.byteOrderMark, .byteOrderMark),
        ([0x1F, 0x8B], .compressed(format: "gzip", command: "zcat")),
        ([0x28, 0xB5, 0x2F, 0xFD], .compressed(format: "zstd", command: "zstdcat")),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], .compressed(format: "xz", command: "xzcat")),
    ] + bzip2Signatures

    /// bzip2's `BZh`, its block size digit and the magic of its first block (π's digits) or, for
    /// an empty stream, of its end (√π's): ten bytes, since `BZh` alone starts ordinary text.
    private static let bzip2Signatures: [(bytes: [UInt8], start: InputStart)] = (UInt8(ascii: "1")...UInt8(ascii: "9")).flatMap { level in
        [[0x31, 0x41, 0x59, 0x26, 0x53, 0x59], [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]].map { magic in
            ([0x42, 0x5A, 0x68, level] + magic, InputStart.compressed(format: "bzip2", command: "bzcat"))
        }
    }

    /// Whether `prefix` (all the input so far) could still be the start of a signature: the
    /// reader reads on only then, so a short line typed at a terminal is never held back.
    static func needsMore(_ prefix: ArraySlice<UInt8>) -> Bool {
        signatures.contains { $0.bytes.count > prefix.count && $0.bytes.starts(with: prefix) }
    }

    static func of(_ prefix: ArraySlice<UInt8>) -> (start: InputStart, length: Int) {
        for signature in signatures where prefix.starts(with: signature.bytes) {
            return (signature.start, signature.bytes.count)
        }
        return (.plain, 0)
    }
}
