// Process-level memory figures for the benchmark harness, where Swift's Glibc module falls
// short (it does not import <malloc.h>). Only the benchmark executables depend on this target.
#ifndef C_BENCHMARK_SUPPORT_H
#define C_BENCHMARK_SUPPORT_H

#include <stdint.h>

/// Peak resident set size of this process, in bytes (getrusage, ru_maxrss).
uint64_t aasa_bench_peak_rss_bytes(void);

/// Bytes the C library's malloc holds for the program (mallinfo2: uordblks + hblkhd), or
/// UINT64_MAX when not available. Meaningful only when glibc's malloc is the allocator.
uint64_t aasa_bench_glibc_heap_in_use_bytes(void);

#endif
