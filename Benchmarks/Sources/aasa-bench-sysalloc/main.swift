// aasa-bench-sysalloc: the same harness on the C library's allocator (no jemalloc linked). The
// memory suite of `aasa-bench` runs it as a subprocess for the side-by-side table; it can also
// be run directly with the same arguments.
import BenchmarkKit

BenchmarkMain.run(allocator: SystemAllocatorCounters(), executableName: "aasa-bench-sysalloc")
