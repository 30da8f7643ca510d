// The `extern "C"` shim over RE2::Set and Hyperscan declared in include/CPeers.h.
#include "CPeers.h"

#include <hs/hs.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace {
void copy_error(const std::string &message, char *error, size_t capacity) {
    if (capacity == 0) return;
    size_t n = std::min(message.size(), capacity - 1);
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
}
}  // namespace

// MARK: RE2::Set

struct peers_re2_set {
    re2::RE2::Set set;
    // Reused across calls so that matching does not allocate once it has grown.
    std::vector<int> hits;
    explicit peers_re2_set(const re2::RE2::Options &options)
        : set(options, re2::RE2::ANCHOR_BOTH) {}
};

extern "C" peers_re2_set *peers_re2_set_create(
    const char *const *patterns, size_t count, int64_t max_mem, char *error, size_t error_capacity) {
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    options.set_dot_nl(true);  // `*` crosses every scalar, newline included
    options.set_max_mem(max_mem);
    options.set_log_errors(false);
    auto *result = new (std::nothrow) peers_re2_set(options);
    if (!result) return nullptr;
    for (size_t i = 0; i < count; i++) {
        std::string message;
        int index = result->set.Add(patterns[i], &message);
        if (index != static_cast<int>(i)) {
            copy_error("RE2 rejected pattern " + std::to_string(i) + " (" + patterns[i] + "): " + message,
                       error, error_capacity);
            delete result;
            return nullptr;
        }
    }
    if (!result->set.Compile()) {
        copy_error("RE2::Set::Compile failed (out of memory)", error, error_capacity);
        delete result;
        return nullptr;
    }
    result->hits.reserve(count);
    return result;
}

extern "C" int32_t peers_re2_set_first_match(peers_re2_set *set, const uint8_t *text, size_t length) {
    re2::RE2::Set::ErrorInfo info{re2::RE2::Set::kNoError};
    re2::StringPiece piece(reinterpret_cast<const char *>(text), length);
    if (!set->set.Match(piece, &set->hits, &info)) {
        return info.kind == re2::RE2::Set::kNoError ? -1 : PEERS_ENGINE_ERROR;
    }
    // RE2::Set reports every matching index, unordered: the first rule is the smallest.
    return static_cast<int32_t>(*std::min_element(set->hits.begin(), set->hits.end()));
}

extern "C" void peers_re2_set_destroy(peers_re2_set *set) { delete set; }

// MARK: Hyperscan

struct peers_hs_database {
    hs_database_t *database = nullptr;
    hs_scratch_t *scratch = nullptr;
};

extern "C" const unsigned peers_hs_flag_dotall = HS_FLAG_DOTALL;
extern "C" const unsigned peers_hs_flag_utf8 = HS_FLAG_UTF8;
extern "C" const unsigned peers_hs_flag_allowempty = HS_FLAG_ALLOWEMPTY;

extern "C" peers_hs_database *peers_hs_create(
    const char *const *patterns, const unsigned *flags, size_t count, char *error, size_t error_capacity) {
    if (hs_valid_platform() != HS_SUCCESS) {
        copy_error("Hyperscan: this CPU lacks SSSE3", error, error_capacity);
        return nullptr;
    }
    std::vector<unsigned> ids(count);
    for (size_t i = 0; i < count; i++) ids[i] = static_cast<unsigned>(i);
    auto *result = new (std::nothrow) peers_hs_database();
    if (!result) return nullptr;
    hs_compile_error_t *compile_error = nullptr;
    if (hs_compile_multi(patterns, flags, ids.data(), static_cast<unsigned>(count), HS_MODE_BLOCK, nullptr,
                         &result->database, &compile_error) != HS_SUCCESS) {
        std::string message = "Hyperscan rejected ";
        if (compile_error->expression >= 0) {
            message += "pattern " + std::to_string(compile_error->expression) + " (" +
                       patterns[compile_error->expression] + ")";
        } else {
            message += "the database";
        }
        message += ": ";
        message += compile_error->message;
        copy_error(message, error, error_capacity);
        hs_free_compile_error(compile_error);
        delete result;
        return nullptr;
    }
    if (hs_alloc_scratch(result->database, &result->scratch) != HS_SUCCESS) {
        copy_error("Hyperscan: hs_alloc_scratch failed", error, error_capacity);
        peers_hs_destroy(result);
        return nullptr;
    }
    return result;
}

namespace {
// Every pattern is anchored at both ends, so all matches end at the end of the block and
// arrive in no particular id order: keep the smallest and carry on.
int on_match(unsigned int id, unsigned long long, unsigned long long, unsigned int, void *context) {
    auto *best = static_cast<unsigned *>(context);
    if (id < *best) *best = id;
    return 0;
}
}  // namespace

extern "C" int32_t peers_hs_first_match(peers_hs_database *database, const uint8_t *text, size_t length) {
    unsigned best = UINT_MAX;
    static const char empty = 0;
    const char *data = text ? reinterpret_cast<const char *>(text) : &empty;
    hs_error_t status =
        hs_scan(database->database, data, static_cast<unsigned>(length), 0, database->scratch, on_match, &best);
    if (status != HS_SUCCESS) return PEERS_ENGINE_ERROR;
    return best == UINT_MAX ? -1 : static_cast<int32_t>(best);
}

extern "C" size_t peers_hs_database_size(peers_hs_database *database) {
    size_t size = 0;
    hs_database_size(database->database, &size);
    return size;
}

extern "C" size_t peers_hs_scratch_size(peers_hs_database *database) {
    size_t size = 0;
    hs_scratch_size(database->scratch, &size);
    return size;
}

extern "C" void peers_hs_destroy(peers_hs_database *database) {
    if (!database) return;
    if (database->scratch) hs_free_scratch(database->scratch);
    if (database->database) hs_free_database(database->database);
    delete database;
}

extern "C" const char *peers_hs_version(void) { return hs_version(); }
