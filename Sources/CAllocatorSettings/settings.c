// The options jemalloc starts `aasa` with (the library reads this string before `main`; the
// MALLOC_CONF environment variable, read after it, still overrides any of them).
//
// thp:always asks the kernel for transparent huge pages on the heap (MADV_HUGEPAGE; the default
// "madvise" setting of Debian's kernels gives none without it). A fleet stream meets thousands of
// domains and builds a few small objects for each the first time: on 4 KiB pages, every new page
// cost a page fault (10 843 faults for one pass of the 10 000-domain stream, 2 932 with huge
// pages). The price is resident memory, since a huge page is resident whole once touched: about
// 6 MiB more for the process, and more with each thread's arena (docs/limits.md).
//
// PERF: `aasa classify --compiled rules.aasac --jobs 1 --quiet` on the 10 000-domain stream kept
// by `AASA_BENCH_KEEP_FLEET=1 aasa-bench --suite fleet`, CPU time (`perf stat -e task-clock`),
// minima of 21 alternated rounds: the pass with every domain's first use 104.2 -> 84.9 ms (-19%);
// warm passes unchanged (Benchmarks/Records/2026-12-06-fleet-huge-pages.md).
#include "allocator_settings.h"

const char *malloc_conf = "thp:always";
