import BenchmarkKit

/// The seeded SplitMix64 source of the benchmarks, shared by the tests: every generated document
/// and URL can be regenerated from the seed printed with a failure.
public typealias RandomSource = SeededRandom
