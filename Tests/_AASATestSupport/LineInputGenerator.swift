import Foundation

/// Writes large URL streams for the classify tests: good URLs repeated, with a fixed share of
/// broken lines (invalid UTF-8, no host, no scheme) and some blank ones, all from a seed.
public enum LineInputGenerator {
    public struct Written {
        public var records: Int
        public var broken: Int
    }

    public static func write(urls: [String], lines: Int, seed: UInt64, to file: URL) throws -> Written {
        var random = RandomSource(seed: seed)
        let brokenLines: [[UInt8]] = [
            [0x68, 0x74, 0x74, 0x70, 0x73, 0x3A, 0x2F, 0x2F, 0xFF, 0xFE, 0x2F],  // invalid UTF-8
            Array("https:///no-host".utf8), Array("no-scheme.example/x".utf8), Array("mailto:someone".utf8),
        ]
        let encoded = urls.map { Array($0.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines * 64)
        var written = Written(records: 0, broken: 0)
        for index in 0..<lines {
            if index % 100 == 50 {
                bytes += random.pick(brokenLines)
                written.broken += 1
                written.records += 1
            } else if index % 997 == 3 {
                bytes += Array(" \t".utf8)  // a blank line: no record
            } else {
                let url = random.pick(encoded)
                if index % 7 == 0 {
                    bytes += [0x20, 0x20] + url + [0x09, 0x0D]  // surrounding blanks and a CR
                } else {
                    bytes += url
                }
                written.records += 1
            }
            bytes.append(0x0A)
        }
        try Data(bytes).write(to: file)
        return written
    }
}
