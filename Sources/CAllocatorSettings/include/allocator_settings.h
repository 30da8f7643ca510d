// `aasa`'s jemalloc options are a definition in settings.c that jemalloc finds by name
// (`malloc_conf`); this header only makes the folder a C target the executable links.
#ifndef AASA_ALLOCATOR_SETTINGS_H
#define AASA_ALLOCATOR_SETTINGS_H
#endif
