// jemalloc's public header. Debian builds jemalloc without a symbol prefix, so linking it
// replaces malloc/free for the whole process; `mallctl` gives the allocation statistics the
// benchmark harness reports.
#include <jemalloc/jemalloc.h>
