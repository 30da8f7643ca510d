#include "CBenchmarkSupport.h"

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

uint64_t aasa_bench_peak_rss_bytes(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#if defined(__APPLE__)
    return (uint64_t)usage.ru_maxrss;
#else
    return (uint64_t)usage.ru_maxrss * 1024u;
#endif
}

uint64_t aasa_bench_glibc_heap_in_use_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
#else
    return UINT64_MAX;
#endif
}
