// aasa-bench: the benchmark harness on jemalloc. Everything lives in BenchmarkKit; this
// executable only links jemalloc (Debian builds it unprefixed, so it replaces malloc for the
// whole process) and hands the harness jemalloc's allocation counters.
import BenchmarkKit
import CJemalloc

/// jemalloc's statistics through `mallctl`: `thread.allocated` (bytes this thread allocated,
/// monotonic) and `stats.allocated` after bumping `epoch` (bytes in use, whole process).
struct JemallocCounters: AllocatorCounters {
    var allocatorName: String {
        var version: UnsafePointer<CChar>?
        var length = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &length, nil, 0) == 0, let version else { return "jemalloc" }
        return "jemalloc " + String(cString: version)
    }

    func threadAllocatedBytes() -> UInt64? {
        var value: UInt64 = 0
        var length = MemoryLayout<UInt64>.size
        return mallctl("thread.allocated", &value, &length, nil, 0) == 0 ? value : nil
    }

    func heapInUseBytes() -> UInt64? {
        // Writing any value to "epoch" refreshes the statistics.
        var epoch: UInt64 = 1
        guard mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0 else { return nil }
        var length = MemoryLayout<UInt64>.size
        var allocated = 0
        length = MemoryLayout<Int>.size
        return mallctl("stats.allocated", &allocated, &length, nil, 0) == 0 ? UInt64(allocated) : nil
    }
}

BenchmarkMain.run(allocator: JemallocCounters(), executableName: "aasa-bench")
