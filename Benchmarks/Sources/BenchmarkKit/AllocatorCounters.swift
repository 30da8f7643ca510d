import CBenchmarkSupport
import Foundation

/// What the allocator can tell us. `aasa-bench` injects jemalloc's `mallctl` statistics;
/// `aasa-bench-sysalloc` runs on the C library's allocator, which has no per-thread counter.
///
/// The counters are deterministic for a given workload (same seed, same URLs, one thread), so
/// they go in the CI baseline; wall-clock time does not.
public protocol AllocatorCounters: Sendable {
    /// "jemalloc 5.3.0-…" or "glibc malloc".
    var allocatorName: String { get }
    /// Bytes allocated by the calling thread since it started (monotonic, frees not
    /// subtracted); `nil` when the allocator cannot say.
    func threadAllocatedBytes() -> UInt64?
    /// Bytes allocated and not yet freed in the whole process, statistics refreshed first.
    func heapInUseBytes() -> UInt64?
}

extension AllocatorCounters {
    /// Bytes the calling thread allocated while `body` ran (`nil` without a counter).
    public func allocated<T>(during body: () throws -> T) rethrows -> (value: T, bytes: UInt64?) {
        let before = threadAllocatedBytes()
        let value = try body()
        guard let before, let after = threadAllocatedBytes() else { return (value, nil) }
        return (value, after &- before)
    }
}

/// The C library's allocator (glibc `malloc` on Linux): only heap-in-use, via `mallinfo2`.
public struct SystemAllocatorCounters: AllocatorCounters {
    public init() {}

    public var allocatorName: String { "glibc malloc" }

    public func threadAllocatedBytes() -> UInt64? { nil }

    public func heapInUseBytes() -> UInt64? {
        let bytes = aasa_bench_glibc_heap_in_use_bytes()
        return bytes == UInt64.max ? nil : bytes
    }
}

public enum ProcessMemory {
    /// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`), `nil` where there is none.
    public static func status(_ field: String) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return UInt64(String(digits)).map { $0 * 1024 }
        }
        return nil
    }

    /// Resets the kernel's peak-RSS mark (`VmHWM`) to the current RSS (Linux ≥ 4.0: write 5 to
    /// `/proc/self/clear_refs`). Returns `false` when not possible.
    @discardableResult
    public static func resetPeakResident() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// Peak resident set size of this process so far, in bytes (`getrusage`, `ru_maxrss`).
    public static func peakResidentBytes() -> UInt64 {
        aasa_bench_peak_rss_bytes()
    }
}
