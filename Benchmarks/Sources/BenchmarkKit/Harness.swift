#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The measuring tools: a monotonic clock, a sink the optimiser cannot see through, and
/// interleaved repetitions with median and p90.
///
/// Contenders are timed *interleaved* (A, B, C, A, B, C, …) after a warm-up pass each, so a
/// burst of noise from the other core hits every contender alike and the ratios stay honest on
/// a noisy machine. Wall-clock figures are reported, never asserted.
public enum Clock {
    /// Nanoseconds of `CLOCK_MONOTONIC`.
    @inline(__always)
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Runs `body` and returns its result with the elapsed nanoseconds.
    @inline(__always)
    public static func measure<T>(_ body: () throws -> T) rethrows -> (value: T, nanoseconds: UInt64) {
        let start = now()
        let value = try body()
        return (value, now() &- start)
    }
}

nonisolated(unsafe) private var blackHoleSink: Int = 0

/// Keeps `value` alive and observable so the loop producing it is not optimised away.
@inline(never)
public func blackHole(_ value: Int) {
    blackHoleSink &+= value
}

/// Repeated measurements of one contender, in nanoseconds per item (per URL, per document).
public struct Timing: Codable, Sendable {
    /// Per-item time of each repetition, in the order measured.
    public var samples: [Double]
    /// The warm-up pass (first contact: lazy DFA states built, caches cold), per item.
    public var cold: Double
    /// Items one repetition processed (the workload size times the inner loop count).
    public var itemsPerRepetition: Int

    public var median: Double { Statistics.quantile(samples, 0.5) }
    public var p90: Double { Statistics.quantile(samples, 0.9) }
    public var itemsPerSecond: Double { median > 0 ? 1e9 / median : 0 }
}

public enum Statistics {
    /// The `q` quantile by nearest rank (0.5: median, 0.9: p90); 0 for no samples.
    public static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
}

/// One thing to time: `run` processes `items` items once and returns a checksum.
public struct Contender {
    public var name: String
    public var items: Int
    /// A slow engine (reference, regex) whose pass is sized to last about a repetition: no
    /// calibration pass and no loop. A fast engine's first pass is no guide to its speed (the
    /// lazy DFA builds its states then), so fast engines are always calibrated on a warm pass.
    public var isSlow: Bool
    public var run: () -> Int

    public init(_ name: String, items: Int, slow: Bool = false, run: @escaping () -> Int) {
        self.name = name
        self.items = items
        self.isSlow = slow
        self.run = run
    }
}

public struct Harness: Sendable {
    /// Timed repetitions per contender (after the warm-up).
    public var repetitions: Int
    /// A repetition loops over its workload until it has run at least this long, so that
    /// short workloads are not dominated by clock resolution.
    public var minimumRepetitionNanoseconds: UInt64

    public init(repetitions: Int, minimumRepetitionNanoseconds: UInt64) {
        self.repetitions = repetitions
        self.minimumRepetitionNanoseconds = minimumRepetitionNanoseconds
    }

    /// Times every contender: a cold pass, a calibration pass, then `repetitions` interleaved
    /// rounds. Returns the timings by contender name.
    public func compare(_ contenders: [Contender]) -> [String: Timing] {
        var timings: [String: Timing] = [:]
        var loops: [Int] = []
        for contender in contenders {
            let (checksum, cold) = Clock.measure(contender.run)
            blackHole(checksum)
            // A second, warm pass calibrates the loop count (slow engines need none).
            var warm = cold
            if !contender.isSlow {
                let (again, elapsed) = Clock.measure(contender.run)
                blackHole(again)
                warm = elapsed
            }
            let perPass = max(warm, 1)
            let count = max(1, Int((minimumRepetitionNanoseconds + perPass - 1) / perPass))
            loops.append(count)
            timings[contender.name] = Timing(
                samples: [], cold: Double(cold) / Double(max(1, contender.items)),
                itemsPerRepetition: contender.items * count)
        }
        for _ in 0..<repetitions {
            for (index, contender) in contenders.enumerated() {
                let count = loops[index]
                // Fast contenders run untimed for half a repetition first: the contender before
                // them (often a slow, allocation-heavy engine) evicts their tables from the CPU
                // caches, and a lazy DFA with thousands of states needs several passes (about
                // 10 ms at 1 000 rules) to be back at its steady speed. Without this the first
                // fast contender of each round was measured up to 2.5× slower than itself.
                if count > 1 {
                    let until = Clock.now() + minimumRepetitionNanoseconds / 2
                    repeat { blackHole(contender.run()) } while Clock.now() < until
                }
                let (checksum, elapsed) = Clock.measure { () -> Int in
                    var sum = 0
                    for _ in 0..<count { sum &+= contender.run() }
                    return sum
                }
                blackHole(checksum)
                timings[contender.name]?.samples.append(Double(elapsed) / Double(max(1, contender.items * count)))
            }
        }
        return timings
    }
}

extension Timing {
    /// A timing that was not taken (never expected: every contender is timed).
    static let missing = Timing(samples: [], cold: 0, itemsPerRepetition: 0)
}

