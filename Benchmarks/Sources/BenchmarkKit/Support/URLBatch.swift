/// A list of URLs kept twice: as `String`s (for the reference matcher and the String API) and
/// as one contiguous UTF-8 arena with offsets (for the allocation-free `decide(bytes:)` loop),
/// so no engine pays for a conversion inside the timed loop.
public struct URLBatch: Sendable {
    public let urls: [String]
    let arena: [UInt8]
    /// `offsets[i]..<offsets[i + 1]` is URL `i` in `arena`.
    let offsets: [Int]

    public init(_ urls: [String]) {
        self.urls = urls
        var arena: [UInt8] = []
        arena.reserveCapacity(urls.reduce(0) { $0 + $1.utf8.count })
        var offsets = [0]
        offsets.reserveCapacity(urls.count + 1)
        for url in urls {
            arena.append(contentsOf: url.utf8)
            offsets.append(arena.count)
        }
        self.arena = arena
        self.offsets = offsets
    }

    public var count: Int { urls.count }

    /// The first `count` URLs (the stream is shuffled, so a prefix is a fair sample).
    public func prefix(_ count: Int) -> URLBatch {
        count >= urls.count ? self : URLBatch(Array(urls.prefix(count)))
    }

    /// Calls `body` with each URL's bytes, in order, without allocating.
    @inline(__always)
    public func forEachBytes(_ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        arena.withUnsafeBufferPointer { all in
            offsets.withUnsafeBufferPointer { offsets in
                for index in 0..<(offsets.count - 1) {
                    body(index, UnsafeBufferPointer(rebasing: all[offsets[index]..<offsets[index + 1]]))
                }
            }
        }
    }

    /// Mean URL length in bytes.
    public var meanLength: Double { urls.isEmpty ? 0 : Double(arena.count) / Double(urls.count) }
}
