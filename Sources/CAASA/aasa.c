// The C ABI lives in include/aasa.h; this file only makes the header a C target.
#include "aasa.h"
