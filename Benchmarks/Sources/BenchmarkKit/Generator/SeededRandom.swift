/// A seeded, reproducible random source (SplitMix64). Every synthetic document and URL stream
/// is a pure function of its seed, so deterministic counters (states built, bytes allocated)
/// can be compared with a checked-in baseline.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `true` with the given probability.
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// A uniformly chosen element; `items` must not be empty.
    public mutating func pick<T>(_ items: [T]) -> T {
        precondition(!items.isEmpty, "pick from an empty list")
        return items[Int(next() % UInt64(items.count))]
    }

    /// A uniformly chosen integer of `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A skewed index in `0..<count`: small indices are much more likely (roughly Zipf-like),
    /// as for the popular sections of a real site.
    public mutating func skewed(_ count: Int) -> Int {
        precondition(count > 0, "skewed index of an empty range")
        let u = Double(next() >> 11) / Double(1 << 53)
        return min(count - 1, Int(Double(count) * u * u * u))
    }

    /// Shuffles `items` in place (Fisher-Yates with this generator).
    public mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            let other = Int(next() % UInt64(index + 1))
            items.swapAt(index, other)
        }
    }
}
