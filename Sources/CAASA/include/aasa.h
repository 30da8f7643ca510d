/*
 * libaasa: Apple's apple-app-site-association (AASA) matching from C.
 *
 * The same engine and the same answers as the `aasa` command line tool: open rules once (a
 * directory of documents as `aasa classify --rules DIR` reads it, a compiled artifact from
 * `aasa compile`, or one document's bytes and its domain), then decide URLs one at a time or in
 * batches. A batch gives per URL either values (`aasa_classify`), the same values as flat
 * arrays for bindings (`aasa_classify_columns`), or the NDJSON record `aasa classify` writes for
 * it, byte for byte (`aasa_classify_ndjson`).
 *
 * Each URL is one input line as `classify` reads it: blanks around it are trimmed, a URL that
 * is not valid UTF-8, over a length limit, blank or otherwise not decidable gets a result with
 * an error text instead of decisions. Such a URL is never a failure of the call: one result per
 * URL, always. (A URL holding a line feed stays one URL, where the tool would read two lines;
 * a byte order mark is part of the URL, where the tool drops one at the start of its input;
 * each URL counts as a line its LF ended, so a final CR is dropped as half of a CRLF, where the
 * tool keeps the CR that ends its input's last line without an LF.)
 *
 * Errors: every function that can fail returns an `aasa_status`; on failure,
 * `aasa_last_error()` gives the message on the calling thread. Nothing aborts on bad input.
 *
 * Threads: an `aasa_rules` handle is immutable once opened and may be shared by any number of
 * threads calling `aasa_decide`, `aasa_classify`, `aasa_classify_columns` and
 * `aasa_classify_ndjson` at once (each call borrows a worker with its own DFA caches from a
 * pool in the handle, as each of the tool's threads owns one; a worker of a one-document handle
 * holds two matchers of it, `aasa_decide`'s and the classifier's, each within the dfa-cache-bytes
 * limit per automaton). Results and options belong to whoever made them; free a handle only when no call
 * on it is running.
 *
 * Strings handed out are UTF-8, NUL-terminated, with their length beside them (a document's
 * app ID may hold U+0000). They live as long as the object that holds them.
 */
#ifndef AASA_H
#define AASA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call came to. */
typedef enum aasa_status {
    AASA_OK = 0,
    /* A NULL pointer where one is needed, or a pointer NULL with a length above 0. */
    AASA_ERROR_ARGUMENT = 1,
    /* An unknown limit name, or a value outside the limit's range. */
    AASA_ERROR_LIMIT = 2,
    /* The rules cannot be used: unreadable directory or artifact, no documents, or a single
     * document that does not load or compile. */
    AASA_ERROR_RULES = 3,
    /* The output could not be allocated, or a batch's results would pass 1 GiB (the message
     * says how many of its URLs fitted: classify fewer per call). */
    AASA_ERROR_MEMORY = 4,
} aasa_status;

/* The message of the last call that failed on this thread (empty when none has). Valid until
 * the next failing call on the same thread. */
const char *aasa_last_error(void);

/* ---- Options: the limits of the engine (`aasa classify --limit NAME=VALUE`). ---- */

typedef struct aasa_options aasa_options;

/* Defaults everywhere; NULL only when out of memory. */
aasa_options *aasa_options_new(void);
void aasa_options_free(aasa_options *options);

/* Sets one limit by the tool's name for it ("document-bytes", "url-bytes", "dfa-cache-bytes",
 * "url-work", ... as `aasa classify --help` lists them). AASA_ERROR_LIMIT for an unknown name
 * or a value outside the limit's range, which is then left as it was. */
aasa_status aasa_options_set_limit(aasa_options *options, const char *name, uint64_t value);

/* Reads one limit into *value. */
aasa_status aasa_options_get_limit(const aasa_options *options, const char *name, uint64_t *value);

/* ---- Rules ---- */

typedef struct aasa_rules aasa_rules;

/* Documents named after their domain in a directory: DOMAIN.json,
 * DOMAIN/apple-app-site-association or DOMAIN/.well-known/apple-app-site-association, each read
 * and compiled when a URL of its domain first arrives. A document that does not load does not
 * fail the call: its URLs get error results, as in the tool.
 * `options` may be NULL (defaults). On success *rules is the new handle. Paths, here and below,
 * are UTF-8 (AASA_ERROR_ARGUMENT otherwise). */
aasa_status aasa_rules_open_directory(const char *path, const aasa_options *options, aasa_rules **rules);

/* An artifact written by `aasa compile`; the limits of `options` apply to its URLs. Its header
 * and index are checked now; each domain's body when a URL of that domain first arrives, so a
 * damaged body or one over a limit gives that domain's URLs error results, as in the tool. */
aasa_status aasa_rules_open_artifact(const char *path, const aasa_options *options, aasa_rules **rules);

/* One document's bytes (the JSON of an apple-app-site-association file) for one domain (a
 * NUL-terminated host name, matched ASCII case-insensitively; AASA_ERROR_ARGUMENT for one no
 * URL's host can be: empty, a URL or a path, a port, white space, bytes that are not UTF-8).
 * The bytes are copied. */
aasa_status aasa_rules_open_document(const void *bytes, size_t length, const char *domain,
                                     const aasa_options *options, aasa_rules **rules);

/* NULL is fine. */
void aasa_rules_free(aasa_rules *rules);

/* ---- Results as values ---- */

typedef enum aasa_decision {
    /* No rule of any entry naming the app matched. */
    AASA_NO_MATCH = 0,
    /* The first matching rule is not an exclusion: the URL opens the app. */
    AASA_MATCH = 1,
    /* The first matching rule is an exclusion: the URL stays on the web. */
    AASA_EXCLUDE = 2,
} aasa_decision;

/* One app of the document and what it decides for the URL. */
typedef struct aasa_app_decision {
    const char *app;
    size_t app_length;
    aasa_decision decision;
    /* The deciding rule: its entry's index in applinks.details and its index in that entry's
     * components (or paths); both -1 for AASA_NO_MATCH. */
    int64_t entry;
    int64_t rule;
} aasa_app_decision;

/* One URL's result: the fields of its `aasa classify` record. */
typedef struct aasa_result {
    /* The domain whose document serves the URL's host; NULL when none does. */
    const char *domain;
    size_t domain_length;
    /* Why the URL got no decisions; NULL when it got them. */
    const char *error;
    size_t error_length;
    /* Every app of the document in its order (none without a domain or with an error). The
     * apps the URL opens are those whose decision is AASA_MATCH; `opened` counts them. */
    const aasa_app_decision *apps;
    size_t app_count;
    size_t opened;
} aasa_result;

typedef struct aasa_results aasa_results;

/* Decides one URL (`length` bytes at `url`, no terminator needed; NULL with length 0 is the
 * empty URL). On success *results holds one result. */
aasa_status aasa_decide(const aasa_rules *rules, const char *url, size_t length, aasa_results **results);

/* Decides `count` URLs (urls[i], lengths[i] bytes each) in one call; *results holds `count`
 * results in input order. `urls` and `lengths` may be NULL when count is 0. */
aasa_status aasa_classify(const aasa_rules *rules, const char *const *urls, const size_t *lengths, size_t count,
                          aasa_results **results);

size_t aasa_results_count(const aasa_results *results);
/* The result at `index`, or NULL past the end. */
const aasa_result *aasa_results_at(const aasa_results *results, size_t index);
/* NULL is fine. */
void aasa_results_free(aasa_results *results);

/* ---- Results as columns ---- */

/* A batch's results as flat arrays, for bindings that read a whole batch back at once (Python
 * reads these with a few bulk copies instead of a call or a struct per URL). Domains and apps
 * are indices: names come from `aasa_rules_domain` and `aasa_rules_app`. */
typedef struct aasa_columns {
    size_t count;
    /* Per URL: the index of its domain in the rules, or -1 when no document serves its host. */
    const int32_t *domain;
    /* Per URL: the index of its error text, or -1 when it got decisions. */
    const int32_t *error;
    /* count + 1 offsets: URL i's decisions are those at first[i] up to first[i + 1], one per
     * app of its domain in the domain's app order (app j of URL i is decision first[i] + j). */
    const uint32_t *first;
    size_t decision_count;
    /* Per decision: an aasa_decision, and the deciding entry and rule (-1 for AASA_NO_MATCH). */
    const uint8_t *decision;
    const int32_t *entry;
    const int32_t *rule;
    /* The error texts, UTF-8 one after another: text i is error_text[error_ends[i - 1]] (0 for
     * i = 0) up to error_text[error_ends[i]]. */
    size_t error_count;
    const char *error_text;
    const size_t *error_ends;
} aasa_columns;

typedef struct aasa_batch aasa_batch;

/* Decides `count` URLs held in one buffer (`length` bytes at `bytes`) in one call. With `ends`
 * NULL the URLs are separated by line feeds: the buffer holds exactly count - 1 of them
 * (AASA_ERROR_ARGUMENT otherwise; a buffer of 0 bytes is one empty URL when count is 1, no URL
 * when count is 0). Otherwise URL i is the bytes from ends[i - 1] (0 for i = 0) up to ends[i],
 * the ends nondecreasing and at most `length`. On success *batch holds the results. */
aasa_status aasa_classify_columns(const aasa_rules *rules, const char *bytes, size_t length, const size_t *ends,
                                  size_t count, aasa_batch **batch);

/* The batch's columns, valid until `aasa_batch_free`; NULL for a NULL batch. */
const aasa_columns *aasa_batch_columns(const aasa_batch *batch);
/* NULL is fine. */
void aasa_batch_free(aasa_batch *batch);

/* The number of domains in the rules, and domain `index`'s name (NUL-terminated, its length in
 * *length when that is not NULL), or NULL for an index out of range. Valid while the rules are. */
size_t aasa_rules_domain_count(const aasa_rules *rules);
const char *aasa_rules_domain(const aasa_rules *rules, size_t index, size_t *length);

/* The apps of domain `domain`'s document, in its order (0 when its document cannot be loaded),
 * and app `app`'s ID, or NULL out of range. Either loads the document if no call has yet. */
size_t aasa_rules_app_count(const aasa_rules *rules, size_t domain);
const char *aasa_rules_app(const aasa_rules *rules, size_t domain, size_t app, size_t *length);

/* ---- Results as bytes ---- */

/* As `aasa_classify`, but *output receives the NDJSON records `aasa classify --blank-lines
 * record` writes for these URLs as lines, one line each, and *output_length their length in
 * bytes. Free *output with `aasa_free`. */
aasa_status aasa_classify_ndjson(const aasa_rules *rules, const char *const *urls, const size_t *lengths, size_t count,
                                 char **output, size_t *output_length);

/* Frees what `aasa_classify_ndjson` handed out. NULL is fine. */
void aasa_free(void *bytes);

#ifdef __cplusplus
}
#endif

#endif
