/// A C view of the two peer engines, RE2::Set and Hyperscan, for the peers benchmark.
///
/// Both answer one question per input: the *lowest index* of the patterns that match the whole
/// input, or -1 when none does. RE2::Set reports every matching index (we take the minimum);
/// Hyperscan calls back once per matching pattern id (we keep the minimum). A handle is not
/// thread-safe: it owns its match scratch (RE2 result vector, Hyperscan scratch), so use one
/// handle per thread.
#ifndef CPEERS_H
#define CPEERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// -2: the engine failed on this input (RE2's DFA ran out of memory, a Hyperscan error); a
/// failure is never reported as "no match".
#define PEERS_ENGINE_ERROR (-2)

typedef struct peers_re2_set peers_re2_set;

/// Builds an anchored (both ends) RE2::Set in UTF-8 mode with `.` matching `\n` from `count`
/// patterns, with a memory budget of `max_mem` bytes (RE2's default is 8 MiB). Returns NULL
/// and writes a message into `error` when a pattern does not parse or compilation fails.
peers_re2_set *_Nullable peers_re2_set_create(
    const char *_Nonnull const *_Nonnull patterns, size_t count, int64_t max_mem,
    char *_Nonnull error, size_t error_capacity);

/// The lowest index of the patterns matching all of `text`, -1 if none, PEERS_ENGINE_ERROR if
/// RE2 gave up (DFA out of memory).
int32_t peers_re2_set_first_match(
    peers_re2_set *_Nonnull set, const uint8_t *_Nullable text, size_t length);

void peers_re2_set_destroy(peers_re2_set *_Nullable set);

typedef struct peers_hs_database peers_hs_database;

/// Compiles a Hyperscan block-mode database from `count` patterns; pattern i gets id i and
/// flags `flags[i]`. Returns NULL and writes a message into `error` on failure.
peers_hs_database *_Nullable peers_hs_create(
    const char *_Nonnull const *_Nonnull patterns, const unsigned *_Nonnull flags, size_t count,
    char *_Nonnull error, size_t error_capacity);

/// The lowest id of the patterns matching `text` (block mode), -1 if none,
/// PEERS_ENGINE_ERROR if `hs_scan` failed.
int32_t peers_hs_first_match(
    peers_hs_database *_Nonnull database, const uint8_t *_Nullable text, size_t length);

/// Bytes of the compiled database and of its scratch space.
size_t peers_hs_database_size(peers_hs_database *_Nonnull database);
size_t peers_hs_scratch_size(peers_hs_database *_Nonnull database);

void peers_hs_destroy(peers_hs_database *_Nullable database);

/// Hyperscan flag values, re-exported as plain integers for Swift.
extern const unsigned peers_hs_flag_dotall;
extern const unsigned peers_hs_flag_utf8;
extern const unsigned peers_hs_flag_allowempty;

/// Library versions, for the report.
const char *_Nonnull peers_hs_version(void);

#ifdef __cplusplus
}
#endif

#endif
