/* libaasa's C ABI, compiled against the installed header and library (Tests/CABI/run.sh).
 *
 * usage: test_aasa RULES_DIR ARTIFACT URLS CLI_NDJSON
 *   URLS        one URL per line (each line goes to the library as it stands, CR included)
 *   CLI_NDJSON  what `aasa classify --rules RULES_DIR --blank-lines record` wrote for URLS
 * Prints "ok: ..." lines ("skipped: ..." for a check this machine cannot make); exits 1 at the
 * first failed check. */
#define _GNU_SOURCE /* memmem */
#include <aasa.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int failures = 0;
#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, " (last error: %s)\n", aasa_last_error());            \
            failures++;                                                           \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    CHECK(file != NULL, "cannot open %s", path);
    size_t capacity = 1 << 16, used = 0;
    char *bytes = malloc(capacity);
    size_t got;
    while ((got = fread(bytes + used, 1, capacity - used, file)) > 0) {
        used += got;
        if (used == capacity) bytes = realloc(bytes, capacity *= 2);
    }
    fclose(file);
    *length = used;
    return bytes;
}

/* The lines of a file (without their LF; a last line without one counts). */
typedef struct { const char **urls; size_t *lengths; size_t count; char *bytes; } lines;

static lines split_lines(const char *path) {
    lines out = {0};
    size_t length;
    out.bytes = read_file(path, &length);
    size_t capacity = 1024;
    out.urls = malloc(capacity * sizeof *out.urls);
    out.lengths = malloc(capacity * sizeof *out.lengths);
    size_t start = 0;
    while (start < length) {
        const char *end = memchr(out.bytes + start, '\n', length - start);
        size_t stop = end ? (size_t)(end - out.bytes) : length;
        if (out.count == capacity) {
            capacity *= 2;
            out.urls = realloc(out.urls, capacity * sizeof *out.urls);
            out.lengths = realloc(out.lengths, capacity * sizeof *out.lengths);
        }
        out.urls[out.count] = out.bytes + start;
        out.lengths[out.count] = stop - start;
        out.count++;
        start = stop + 1;
    }
    return out;
}

static int same_text(const char *a, size_t a_length, const char *b, size_t b_length) {
    if (a == NULL || b == NULL) return a == b;
    return a_length == b_length && memcmp(a, b, a_length) == 0 && a[a_length] == 0;
}

static int same_result(const aasa_result *a, const aasa_result *b) {
    if (!same_text(a->domain, a->domain_length, b->domain, b->domain_length)) return 0;
    if (!same_text(a->error, a->error_length, b->error, b->error_length)) return 0;
    if (a->app_count != b->app_count || a->opened != b->opened) return 0;
    for (size_t i = 0; i < a->app_count; i++) {
        const aasa_app_decision *x = &a->apps[i], *y = &b->apps[i];
        if (!same_text(x->app, x->app_length, y->app, y->app_length) || x->decision != y->decision ||
            x->entry != y->entry || x->rule != y->rule)
            return 0;
    }
    return 1;
}

/* Result `i` of a columns batch says what `expected` (from aasa_classify) says. */
static int same_as_columns(const aasa_rules *rules, const aasa_columns *c, size_t i, const aasa_result *expected) {
    const char *domain = NULL;
    size_t domain_length = 0;
    if (c->domain[i] >= 0) domain = aasa_rules_domain(rules, (size_t)c->domain[i], &domain_length);
    if ((domain == NULL) != (expected->domain == NULL)) return 0;
    if (domain && !same_text(domain, domain_length, expected->domain, expected->domain_length)) return 0;
    if ((c->error[i] >= 0) != (expected->error != NULL)) return 0;
    if (c->error[i] >= 0) {
        size_t e = (size_t)c->error[i], start = e ? c->error_ends[e - 1] : 0;
        /* Error texts lie end to end, without terminators. */
        if (e >= c->error_count || !same_text(expected->error, expected->error_length, c->error_text + start, c->error_ends[e] - start))
            return 0;
    }
    if (c->first[i + 1] - c->first[i] != expected->app_count) return 0;
    for (size_t app = 0; app < expected->app_count; app++) {
        size_t d = c->first[i] + app, length = 0;
        const char *name = aasa_rules_app(rules, (size_t)c->domain[i], app, &length);
        const aasa_app_decision *x = &expected->apps[app];
        if (!name || !same_text(name, length, x->app, x->app_length) || c->decision[d] != x->decision || c->entry[d] != x->entry ||
            c->rule[d] != x->rule)
            return 0;
    }
    return 1;
}

/* The URLs joined by line feeds (none holds one: they are lines of a file), or with `ends` end
 * to end, their ends written there. */
static char *joined(const lines *urls, size_t *length, size_t *ends) {
    size_t total = 0;
    for (size_t i = 0; i < urls->count; i++) total += urls->lengths[i] + 1;
    char *out = malloc(total + 1), *at = out;
    for (size_t i = 0; i < urls->count; i++) {
        if (i && !ends) *at++ = '\n';
        memcpy(at, urls->urls[i], urls->lengths[i]);
        at += urls->lengths[i];
        if (ends) ends[i] = (size_t)(at - out);
    }
    *length = (size_t)(at - out);
    return out;
}

/* ---- one handle, eight threads ---- */

typedef struct {
    const aasa_rules *rules;
    const lines *urls;
    const aasa_results *expected;
    int index;
    int ok;
} worker;

static void *work(void *argument) {
    worker *job = argument;
    job->ok = 1;
    for (int round = 0; round < 3 && job->ok; round++) {
        aasa_results *results = NULL;
        if (aasa_classify(job->rules, job->urls->urls, job->urls->lengths, job->urls->count, &results) != AASA_OK) {
            job->ok = 0;
            break;
        }
        for (size_t i = 0; i < job->urls->count; i++)
            if (!same_result(aasa_results_at(results, i), aasa_results_at(job->expected, i))) job->ok = 0;
        aasa_results_free(results);
        /* The same batch as columns. */
        size_t length;
        char *text = joined(job->urls, &length, NULL);
        aasa_batch *batch = NULL;
        if (aasa_classify_columns(job->rules, text, length, NULL, job->urls->count, &batch) != AASA_OK) job->ok = 0;
        for (size_t i = 0; job->ok && i < job->urls->count; i++)
            if (!same_as_columns(job->rules, aasa_batch_columns(batch), i, aasa_results_at(job->expected, i))) job->ok = 0;
        aasa_batch_free(batch);
        free(text);
        /* Single URLs too, a different slice per thread. */
        for (size_t i = (size_t)job->index; i < job->urls->count; i += 8) {
            aasa_results *one = NULL;
            if (aasa_decide(job->rules, job->urls->urls[i], job->urls->lengths[i], &one) != AASA_OK) {
                job->ok = 0;
                break;
            }
            if (aasa_results_count(one) != 1 || !same_result(aasa_results_at(one, 0), aasa_results_at(job->expected, i)))
                job->ok = 0;
            aasa_results_free(one);
        }
    }
    return NULL;
}

/* ---- one document: every decision kind, entry and rule ---- */

static void test_document(void) {
    static const char document[] =
        "{\"applinks\": {\"details\": ["
        "{\"appIDs\": [\"ABCDE12345.com.example.shop\"], \"components\": ["
        "{\"/\": \"/help/*\", \"exclude\": true}, {\"/\": \"/*\"}]},"
        "{\"appIDs\": [\"ABCDE12345.com.example.news\"], \"components\": [{\"/\": \"/news/*\"}]}]}}";
    aasa_rules *rules = NULL;
    CHECK(aasa_rules_open_document(document, strlen(document), "Example.COM", NULL, &rules) == AASA_OK, "open document");
    const char *urls[] = {"https://example.com/news/1", "https://EXAMPLE.com/help/me", "https://other.example/x", "nonsense"};
    size_t lengths[] = {strlen(urls[0]), strlen(urls[1]), strlen(urls[2]), strlen(urls[3])};
    aasa_results *results = NULL;
    CHECK(aasa_classify(rules, urls, lengths, 4, &results) == AASA_OK, "classify");
    CHECK(aasa_results_count(results) == 4, "count");
    const aasa_result *news = aasa_results_at(results, 0);
    CHECK(news->domain && strcmp(news->domain, "example.com") == 0 && news->error == NULL, "news domain");
    CHECK(news->app_count == 2 && news->opened == 2, "news opens both apps");
    CHECK(strcmp(news->apps[0].app, "ABCDE12345.com.example.shop") == 0 && news->apps[0].decision == AASA_MATCH &&
              news->apps[0].entry == 0 && news->apps[0].rule == 1,
          "shop by /*");
    CHECK(news->apps[1].decision == AASA_MATCH && news->apps[1].entry == 1 && news->apps[1].rule == 0, "news by /news/*");
    const aasa_result *help = aasa_results_at(results, 1);
    CHECK(help->opened == 0 && help->apps[0].decision == AASA_EXCLUDE && help->apps[0].entry == 0 && help->apps[0].rule == 0 &&
              help->apps[1].decision == AASA_NO_MATCH && help->apps[1].entry == -1 && help->apps[1].rule == -1,
          "help excluded for shop, no match for news");
    const aasa_result *other = aasa_results_at(results, 2);
    CHECK(other->domain == NULL && other->error == NULL && other->app_count == 0, "other host: no document");
    const aasa_result *nonsense = aasa_results_at(results, 3);
    CHECK(nonsense->domain == NULL && nonsense->error != NULL && nonsense->error_length == strlen(nonsense->error), "not a URL");
    CHECK(aasa_results_at(results, 4) == NULL, "past the end");
    aasa_results_free(results);
    aasa_rules_free(rules);
    printf("ok: one document: match, exclude, no_match with entry and rule, no domain, error\n");
}

/* A batch's results are held to 1 GiB by their whole size, the app IDs copied into each
 * result included: counting only the decisions let 21 000 URLs of a document of 1 250
 * hundred-letter app IDs return a 3.45 GiB block. About 6 100 such results fit. */
static void test_batch_of_long_app_ids(void) {
    size_t capacity = 200000, used = 0;
    char *document = malloc(capacity);
    used += (size_t)snprintf(document + used, capacity - used, "{\"applinks\": {\"details\": [{\"appIDs\": [");
    for (int i = 0; i < 1250; i++) {
        used += (size_t)snprintf(document + used, capacity - used, "%s\"T.%096d\"", i ? "," : "", i);
    }
    used += (size_t)snprintf(document + used, capacity - used, "], \"components\": [{}]}]}}");
    CHECK(used <= 131072, "the document fits document-bytes: %zu bytes", used);
    aasa_rules *rules = NULL;
    CHECK(aasa_rules_open_document(document, used, "b.example", NULL, &rules) == AASA_OK, "open the long-app document");
    size_t count = 7000;
    const char **urls = malloc(count * sizeof *urls);
    size_t *lengths = malloc(count * sizeof *lengths);
    for (size_t i = 0; i < count; i++) {
        urls[i] = "https://b.example/x";
        lengths[i] = strlen(urls[i]);
    }
    aasa_results *results = NULL;
    CHECK(aasa_classify(rules, urls, lengths, count, &results) == AASA_ERROR_MEMORY && results == NULL, "7 000 results pass 1 GiB");
    CHECK(strstr(aasa_last_error(), "pass 1024 MiB after ") != NULL && strstr(aasa_last_error(), "of its 7000 URLs") != NULL, "%s",
          aasa_last_error());
    CHECK(aasa_classify(rules, urls, lengths, 100, &results) == AASA_OK && aasa_results_count(results) == 100, "100 fit");
    CHECK(aasa_results_at(results, 99)->app_count == 1250 && aasa_results_at(results, 99)->opened == 1250, "every app opened");
    aasa_results_free(results);
    aasa_rules_free(rules);
    free(urls);
    free(lengths);
    free(document);
    printf("ok: a batch is held to 1 GiB by its results' whole size, app IDs included\n");
}

/* ---- what must fail, and what must not ---- */

static void test_bad_input(const char *rules_dir) {
    aasa_rules *rules = NULL;
    CHECK(aasa_rules_open_directory("/nonexistent/aasa", NULL, &rules) == AASA_ERROR_RULES && rules == NULL, "missing dir");
    CHECK(strlen(aasa_last_error()) > 0, "a message");
    CHECK(aasa_rules_open_directory(NULL, NULL, &rules) == AASA_ERROR_ARGUMENT, "NULL path");
    CHECK(aasa_rules_open_directory(rules_dir, NULL, NULL) == AASA_ERROR_ARGUMENT, "NULL out");
    CHECK(aasa_rules_open_artifact(rules_dir, NULL, &rules) == AASA_ERROR_RULES, "a directory is no artifact");
    CHECK(aasa_rules_open_document("{\"applinks\": ", 13, "example.com", NULL, &rules) == AASA_ERROR_RULES, "bad JSON");
    CHECK(strstr(aasa_last_error(), "example.com") != NULL, "the message names the document: %s", aasa_last_error());
    CHECK(aasa_rules_open_document(NULL, 0, "example.com", NULL, &rules) == AASA_ERROR_RULES, "empty document");
    CHECK(aasa_rules_open_document(NULL, 5, "example.com", NULL, &rules) == AASA_ERROR_ARGUMENT, "NULL with a length");
    /* A length past SSIZE_MAX is named as such, not blamed on the pointer. */
    CHECK(aasa_rules_open_document("{}", (size_t)-1, "example.com", NULL, &rules) == AASA_ERROR_ARGUMENT, "a huge length");
    CHECK(strstr(aasa_last_error(), "past SSIZE_MAX") != NULL, "the length named: %s", aasa_last_error());
    /* A document over document-bytes is refused by its length, before the library copies it: a
     * 4 GiB buffer handed over by mistake took 10 s and 4.1 GB before the size check. Here the
     * length says 1 TiB of a mapping that reserves it without touching it. */
    {
        size_t huge = (size_t)1 << 40;
        void *reserved = mmap(NULL, huge, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (reserved != MAP_FAILED) {
            CHECK(aasa_rules_open_document(reserved, huge, "example.com", NULL, &rules) == AASA_ERROR_RULES, "1 TiB document");
            CHECK(strstr(aasa_last_error(), "1099511627776 bytes, over the limit of 131072") != NULL, "%s", aasa_last_error());
            munmap(reserved, huge);
        } else {
            printf("skipped: a 1 TiB document refused by its length (no 1 TiB mapping here: %s)\n", strerror(errno));
        }
    }
    /* A domain no URL's host can be would make every URL quietly get no document. */
    CHECK(aasa_rules_open_document("{}", 2, "https://example.com/", NULL, &rules) == AASA_ERROR_ARGUMENT, "a URL as the domain");
    CHECK(aasa_rules_open_document("{}", 2, "example.com:443", NULL, &rules) == AASA_ERROR_ARGUMENT, "a port in the domain");
    CHECK(aasa_rules_open_document("{}", 2, "", NULL, &rules) == AASA_ERROR_ARGUMENT, "an empty domain");
    CHECK(aasa_rules_open_document("\xff\xfe{}", 4, "example.com", NULL, &rules) == AASA_ERROR_RULES, "not UTF-8");
    CHECK(aasa_rules_open_document("{}", 2, NULL, NULL, &rules) == AASA_ERROR_ARGUMENT, "NULL domain");
    /* Bytes that are not UTF-8 are refused: read with replacement characters they would name
     * another directory or another domain. */
    CHECK(aasa_rules_open_document("{}", 2, "ex\xff.com", NULL, &rules) == AASA_ERROR_ARGUMENT, "a domain not UTF-8");
    CHECK(aasa_rules_open_directory("/tmp/rules-\xe9", NULL, &rules) == AASA_ERROR_ARGUMENT, "a path not UTF-8");
    CHECK(aasa_rules_open_artifact("/tmp/rules-\xe9.aasac", NULL, &rules) == AASA_ERROR_ARGUMENT, "an artifact path not UTF-8");

    aasa_options *options = aasa_options_new();
    uint64_t value = 0;
    CHECK(aasa_options_get_limit(options, "url-bytes", &value) == AASA_OK && value == 65536, "default url-bytes");
    CHECK(aasa_options_set_limit(options, "no-such-limit", 1) == AASA_ERROR_LIMIT, "unknown limit");
    CHECK(strstr(aasa_last_error(), "url-bytes") != NULL, "the message lists the limits");
    CHECK(aasa_options_set_limit(options, "url-bytes", 0) == AASA_ERROR_LIMIT, "below the minimum");
    CHECK(aasa_options_set_limit(options, "json-depth", 1u << 20) == AASA_ERROR_LIMIT, "above the maximum");
    CHECK(aasa_options_set_limit(options, NULL, 1) == AASA_ERROR_ARGUMENT, "NULL name");
    CHECK(aasa_options_set_limit(NULL, "url-bytes", 1) == AASA_ERROR_ARGUMENT, "NULL options");
    CHECK(aasa_options_set_limit(options, "url-bytes", 40) == AASA_OK, "url-bytes=40");
    CHECK(aasa_options_set_limit(options, "document-bytes", 10) == AASA_OK, "document-bytes=10");
    CHECK(aasa_rules_open_document("{\"applinks\": {}}", 16, "example.com", options, &rules) == AASA_ERROR_RULES,
          "document-bytes applies");
    CHECK(aasa_options_set_limit(options, "document-bytes", 1 << 20) == AASA_OK, "document-bytes=1M");
    CHECK(aasa_rules_open_directory(rules_dir, options, &rules) == AASA_OK, "open with options");

    /* URL inputs that are not URLs: each still gets its one result. */
    enum { huge_length = 1 << 20 };
    char *huge = malloc(huge_length);
    memset(huge, 'a', huge_length);
    memcpy(huge, "https://x.example/", 18);
    const char *urls[] = {NULL, "\xc3\x28https://a.example/", "   \t ", huge, "https://a.example/0123456789012345678901234567890123456789",
                          "{\"url\": 1}", "https://a.example/\0/x"};
    size_t lengths[] = {0, 19, 5, huge_length, 59, 10, 21};
    size_t count = sizeof lengths / sizeof lengths[0];
    aasa_results *results = NULL;
    CHECK(aasa_classify(rules, urls, lengths, count, &results) == AASA_OK, "bad URLs are results, not failures");
    CHECK(aasa_results_count(results) == count, "one result each");
    for (size_t i = 0; i + 1 < count; i++) {
        const aasa_result *result = aasa_results_at(results, i);
        CHECK(result->error != NULL && result->app_count == 0, "URL %zu has an error", i);
    }
    /* A NUL inside is just a byte of the path: a URL of a host without a document. */
    CHECK(aasa_results_at(results, 6)->error == NULL && aasa_results_at(results, 6)->domain == NULL, "NUL in the path");
    CHECK(strcmp(aasa_results_at(results, 0)->error, "empty line") == 0, "NULL, 0 is the empty URL");
    CHECK(strstr(aasa_results_at(results, 4)->error, "url-bytes") != NULL, "the url-bytes limit: %s", aasa_results_at(results, 4)->error);
    CHECK(strstr(aasa_results_at(results, 3)->error, "line-bytes") != NULL, "1 MB: %s", aasa_results_at(results, 3)->error);
    aasa_results_free(results);
    char *ndjson = NULL;
    size_t ndjson_length = 0;
    CHECK(aasa_classify_ndjson(rules, urls, lengths, count, &ndjson, &ndjson_length) == AASA_OK, "ndjson of bad URLs");
    size_t newlines = 0;
    for (size_t i = 0; i < ndjson_length; i++) newlines += ndjson[i] == '\n';
    CHECK(newlines == count, "one record each");
    aasa_free(ndjson);

    urls[1] = NULL;
    lengths[1] = 3;
    CHECK(aasa_classify(rules, urls, lengths, count, &results) == AASA_ERROR_ARGUMENT, "NULL URL with a length");
    CHECK(strstr(aasa_last_error(), "URL 1") != NULL, "names the URL");
    CHECK(aasa_classify(rules, NULL, NULL, 0, &results) == AASA_OK && aasa_results_count(results) == 0, "empty batch");
    aasa_results_free(results);
    CHECK(aasa_classify(rules, NULL, NULL, 3, &results) == AASA_ERROR_ARGUMENT, "NULL arrays with a count");
    CHECK(aasa_classify(NULL, urls, lengths, 1, &results) == AASA_ERROR_ARGUMENT, "NULL rules");
    CHECK(aasa_decide(rules, "https://x", 9, NULL) == AASA_ERROR_ARGUMENT, "NULL results");
    CHECK(aasa_classify_ndjson(rules, urls, lengths, 1, NULL, &ndjson_length) == AASA_ERROR_ARGUMENT, "NULL output");
    CHECK(aasa_results_count(NULL) == 0 && aasa_results_at(NULL, 0) == NULL, "NULL results read as empty");
    /* A wrong count is the argument error of its first bad URL, not an allocation of the count
     * that aborts first; a buffer of SSIZE_MAX bytes is not an overflow either. */
    {
        const char *bad_urls[1] = {"https://x.example/"};
        size_t bad_lengths[1] = {(size_t)-1};
        CHECK(aasa_classify(rules, bad_urls, bad_lengths, (size_t)1 << 40, &results) == AASA_ERROR_ARGUMENT,
              "a count of 2^40 with a bad first length");
        CHECK(strstr(aasa_last_error(), "URL 0") != NULL, "names the URL: %s", aasa_last_error());
        const char *text = "https://x.example/";
        size_t text_ends[1] = {strlen(text)};
        aasa_batch *huge = NULL;
        CHECK(aasa_classify_columns(rules, text, (size_t)SSIZE_MAX, text_ends, 1, &huge) == AASA_OK,
              "a length of SSIZE_MAX with its URL's end given: %s", aasa_last_error());
        aasa_batch_free(huge);
    }
    aasa_results_free(NULL);
    aasa_rules_free(NULL);
    aasa_options_free(NULL);
    aasa_free(NULL);
    aasa_rules_free(rules);
    aasa_options_free(options);
    free(huge);
    printf("ok: bad inputs: NULL, empty, invalid UTF-8, blank, 1 MB, over a limit, JSON, NUL; limits through options\n");
}

/* ---- one document: aasa_decide's single-domain path against the classifier's ---- */

/* aasa_decide on a handle of one domain decides plain URLs of that domain with its matcher
 * directly; aasa_classify always goes through the classifier, as the CLI does. Every URL, as
 * given and with its authority replaced by the domain (https and http), must get the same
 * result from both. */
static void test_single_domain(const char *rules_dir, const lines *urls) {
    DIR *dir = opendir(rules_dir);
    CHECK(dir != NULL, "open %s", rules_dir);
    struct dirent *entry;
    size_t documents = 0, checked = 0;
    while ((entry = readdir(dir)) != NULL && documents < 40) {
        if (entry->d_name[0] == '.') continue;
        char domain[512], path[1024];
        size_t name_length = strlen(entry->d_name);
        if (name_length > 5 && strcmp(entry->d_name + name_length - 5, ".json") == 0) {
            snprintf(domain, sizeof domain, "%.*s", (int)(name_length - 5), entry->d_name);
            snprintf(path, sizeof path, "%s/%s", rules_dir, entry->d_name);
        } else {
            snprintf(domain, sizeof domain, "%s", entry->d_name);
            snprintf(path, sizeof path, "%s/%s/apple-app-site-association", rules_dir, entry->d_name);
        }
        FILE *probe = fopen(path, "rb");
        if (!probe) continue;
        fclose(probe);
        size_t length;
        char *document = read_file(path, &length);
        aasa_rules *rules = NULL;
        if (aasa_rules_open_document(document, length, domain, NULL, &rules) != AASA_OK) {
            free(document);
            continue;
        }
        /* The URLs, then each with the domain as its authority. */
        size_t count = urls->count * 3, used = 0;
        const char **batch = malloc(count * sizeof *batch);
        size_t *lengths = malloc(count * sizeof *lengths);
        char **owned = malloc(count * sizeof *owned);
        for (size_t i = 0; i < urls->count; i++) {
            batch[used] = urls->urls[i];
            lengths[used] = urls->lengths[i];
            owned[used++] = NULL;
            const char *url = urls->urls[i], *end = url + urls->lengths[i];
            const char *authority = memmem(url, urls->lengths[i], "://", 3);
            if (!authority) continue;
            const char *rest = authority + 3;
            while (rest < end && *rest != '/' && *rest != '?' && *rest != '#') rest++;
            for (int scheme = 0; scheme < 2; scheme++) {
                size_t size = strlen(domain) + (size_t)(end - rest) + 16;
                char *copy = malloc(size);
                int n = snprintf(copy, size, "%s://%s%.*s", scheme ? "http" : "https", domain, (int)(end - rest), rest);
                batch[used] = copy;
                lengths[used] = (size_t)n;
                owned[used++] = copy;
            }
        }
        if (documents == 0) {
            aasa_results *one = NULL;
            CHECK(aasa_decide(NULL, "https://x", 9, &one) == AASA_ERROR_ARGUMENT, "NULL rules");
            CHECK(aasa_decide(rules, NULL, 5, &one) == AASA_ERROR_ARGUMENT, "NULL URL with a length");
            CHECK(aasa_decide(rules, NULL, 0, &one) == AASA_OK && strcmp(aasa_results_at(one, 0)->error, "empty line") == 0,
                  "NULL, 0 is the empty URL");
            aasa_results_free(one);
        }
        aasa_results *expected = NULL;
        CHECK(aasa_classify(rules, batch, lengths, used, &expected) == AASA_OK, "classify for %s", domain);
        for (size_t i = 0; i < used; i++) {
            aasa_results *one = NULL;
            CHECK(aasa_decide(rules, batch[i], lengths[i], &one) == AASA_OK, "decide");
            CHECK(aasa_results_count(one) == 1 && same_result(aasa_results_at(one, 0), aasa_results_at(expected, i)),
                  "%s: aasa_decide and aasa_classify differ on %.*s", domain, (int)lengths[i], batch[i]);
            aasa_results_free(one);
            free(owned[i]);
        }
        checked += used;
        aasa_results_free(expected);
        aasa_rules_free(rules);
        free(batch);
        free(lengths);
        free(owned);
        free(document);
        documents++;
    }
    closedir(dir);
    CHECK(documents > 0, "no document in %s", rules_dir);
    printf("ok: single-domain handles (%zu documents): aasa_decide equals aasa_classify on %zu URLs\n", documents, checked);
}

/* ---- columns: both input forms against aasa_classify, and what must fail ---- */

static void test_columns(const aasa_rules *rules, const lines *urls, const aasa_results *values) {
    size_t length, packed_length;
    size_t *ends = malloc((urls->count + 1) * sizeof *ends);
    char *text = joined(urls, &length, NULL), *packed = joined(urls, &packed_length, ends);
    for (int form = 0; form < 2; form++) {
        aasa_batch *batch = NULL;
        CHECK(aasa_classify_columns(rules, form ? packed : text, form ? packed_length : length, form ? ends : NULL, urls->count,
                                    &batch) == AASA_OK,
              "columns");
        const aasa_columns *c = aasa_batch_columns(batch);
        CHECK(c->count == urls->count && c->first[0] == 0 && c->first[c->count] == c->decision_count, "shape");
        for (size_t i = 0; i < urls->count; i++)
            CHECK(same_as_columns(rules, c, i, aasa_results_at(values, i)), "%s: URL %zu (%.*s)", form ? "ends" : "line feeds", i,
                  (int)urls->lengths[i], urls->urls[i]);
        aasa_batch_free(batch);
    }
    aasa_batch *batch = NULL;
    if (urls->count > 1) {
        CHECK(aasa_classify_columns(rules, text, length, NULL, urls->count - 1, &batch) == AASA_ERROR_ARGUMENT && batch == NULL,
              "one line feed too many");
        CHECK(aasa_classify_columns(rules, text, length, NULL, urls->count + 1, &batch) == AASA_ERROR_ARGUMENT, "one too few");
        ends[0] = packed_length + 1;
        CHECK(aasa_classify_columns(rules, packed, packed_length, ends, urls->count, &batch) == AASA_ERROR_ARGUMENT,
              "an end past the buffer");
    }
    /* A count far past what the bytes can hold is an argument error, not an allocation that aborts. */
    CHECK(aasa_classify_columns(rules, "a\nb", 3, NULL, (size_t)1 << 40, &batch) == AASA_ERROR_ARGUMENT && batch == NULL,
          "a huge count");
    CHECK(aasa_classify_columns(rules, NULL, 0, NULL, (size_t)1 << 40, &batch) == AASA_ERROR_ARGUMENT, "a huge count, no bytes");
    CHECK(aasa_classify_columns(rules, NULL, 5, NULL, 1, &batch) == AASA_ERROR_ARGUMENT, "NULL with a length");
    CHECK(aasa_classify_columns(rules, "x", 1, NULL, 0, &batch) == AASA_ERROR_ARGUMENT, "no URLs but bytes");
    CHECK(aasa_classify_columns(NULL, "x", 1, NULL, 1, &batch) == AASA_ERROR_ARGUMENT, "NULL rules");
    CHECK(aasa_classify_columns(rules, "x", 1, NULL, 1, NULL) == AASA_ERROR_ARGUMENT, "NULL out");
    CHECK(aasa_classify_columns(rules, NULL, 0, NULL, 0, &batch) == AASA_OK && aasa_batch_columns(batch)->count == 0, "no URLs");
    aasa_batch_free(batch);
    CHECK(aasa_classify_columns(rules, NULL, 0, NULL, 1, &batch) == AASA_OK, "one empty URL");
    const aasa_columns *c = aasa_batch_columns(batch);
    CHECK(c->count == 1 && c->domain[0] == -1 && c->error[0] == 0 && c->error_ends[0] == strlen("empty line") &&
              memcmp(c->error_text, "empty line", c->error_ends[0]) == 0,
          "the empty URL's error");
    aasa_batch_free(batch);
    CHECK(aasa_batch_columns(NULL) == NULL, "NULL batch");
    aasa_batch_free(NULL);
    size_t domains = aasa_rules_domain_count(rules);
    CHECK(domains > 0 && aasa_rules_domain(rules, domains, NULL) == NULL && aasa_rules_domain(NULL, 0, NULL) == NULL, "domain range");
    CHECK(aasa_rules_app(rules, 0, 1u << 20, NULL) == NULL && aasa_rules_app_count(rules, domains) == 0, "app range");
    free(text);
    free(packed);
    free(ends);
    printf("ok: columns of %zu URLs (line feeds and ends) equal aasa_classify's results; bad arguments refused\n", urls->count);
}

/* A document nested as deep as json-depth allows, opened on a thread with a small stack: its
 * parsed tree must be freed without recursing a frame or more per level. */
static void *open_deep(void *unused) {
    (void)unused;
    enum { depth = 4090 };
    static char document[2 * depth + 256];
    size_t n = (size_t)sprintf(document, "{\"applinks\":{\"details\":[{\"appIDs\":[\"A.b\"],\"components\":[{\"/\":\"/a\",\"x\":");
    memset(document + n, '[', depth);
    memset(document + n + depth, ']', depth);
    n += 2 * depth;
    n += (size_t)sprintf(document + n, "}]}]}}");
    aasa_options *options = aasa_options_new();
    CHECK(aasa_options_set_limit(options, "json-depth", 4096) == AASA_OK, "json-depth 4096");
    aasa_rules *rules = NULL;
    CHECK(aasa_rules_open_document(document, n, "a.example", options, &rules) == AASA_OK, "deep document: %s", aasa_last_error());
    aasa_rules_free(rules);
    aasa_options_free(options);
    return NULL;
}

static void test_deep_document_on_a_small_stack(void) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 128 * 1024);
    pthread_t thread;
    CHECK(pthread_create(&thread, &attributes, open_deep, NULL) == 0, "thread with a 128 KiB stack");
    pthread_join(thread, NULL);
    pthread_attr_destroy(&attributes);
    printf("ok: a document 4090 levels deep opens on a thread with a 128 KiB stack\n");
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: test_aasa RULES_DIR ARTIFACT URLS CLI_NDJSON\n");
        return 2;
    }
    test_document();
    test_batch_of_long_app_ids();
    test_bad_input(argv[1]);
    test_deep_document_on_a_small_stack();

    lines urls = split_lines(argv[3]);
    aasa_rules *directory = NULL, *artifact = NULL;
    CHECK(aasa_rules_open_directory(argv[1], NULL, &directory) == AASA_OK, "open %s", argv[1]);
    CHECK(aasa_rules_open_artifact(argv[2], NULL, &artifact) == AASA_OK, "open %s", argv[2]);

    /* The NDJSON batch is the CLI's output, byte for byte, from both kinds of rules. */
    size_t expected_length;
    char *expected = read_file(argv[4], &expected_length);
    aasa_rules *both[] = {directory, artifact};
    for (int i = 0; i < 2; i++) {
        char *ndjson = NULL;
        size_t length = 0;
        CHECK(aasa_classify_ndjson(both[i], urls.urls, urls.lengths, urls.count, &ndjson, &length) == AASA_OK, "ndjson");
        CHECK(length == expected_length && memcmp(ndjson, expected, length) == 0,
              "%s: %zu bytes of records, the CLI wrote %zu", i ? "artifact" : "directory", length, expected_length);
        aasa_free(ndjson);
    }
    printf("ok: NDJSON of %zu URLs identical to aasa classify (%zu bytes), from the directory and the artifact\n", urls.count,
           expected_length);

    /* Values agree with the records: a result has a domain exactly when its record has one. */
    aasa_results *values = NULL;
    CHECK(aasa_classify(directory, urls.urls, urls.lengths, urls.count, &values) == AASA_OK, "values");
    CHECK(aasa_results_count(values) == urls.count, "one result per URL");
    const char *record = expected;
    size_t opened = 0, with_domain = 0;
    for (size_t i = 0; i < urls.count; i++) {
        const char *end = memchr(record, '\n', expected_length - (size_t)(record - expected));
        CHECK(end != NULL, "record %zu", i);
        const aasa_result *result = aasa_results_at(values, i);
        int record_has_domain = memmem(record, (size_t)(end - record), "\"domain\": null", 14) == NULL;
        int record_has_error = memmem(record, (size_t)(end - record), "\"error\": ", 9) != NULL;
        CHECK(record_has_domain == (result->domain != NULL) && record_has_error == (result->error != NULL), "URL %zu: %.*s", i,
              (int)(end - record), record);
        for (size_t app = 0; app < result->app_count; app++) {
            const aasa_app_decision *decision = &result->apps[app];
            /* `{"app": "A", "decision": "match", "entry": E, "rule": R}` appears in the record. */
            char expected_decision[4096];
            if (decision->decision == AASA_NO_MATCH)
                snprintf(expected_decision, sizeof expected_decision, "\"app\": \"%s\", \"decision\": \"no_match\"}", decision->app);
            else
                snprintf(expected_decision, sizeof expected_decision, "\"app\": \"%s\", \"decision\": \"%s\", \"entry\": %lld, \"rule\": %lld}",
                         decision->app, decision->decision == AASA_MATCH ? "match" : "exclude", (long long)decision->entry,
                         (long long)decision->rule);
            CHECK(memmem(record, (size_t)(end - record), expected_decision, strlen(expected_decision)) != NULL, "URL %zu app %zu: %s in %.*s",
                  i, app, expected_decision, (int)(end - record), record);
        }
        opened += result->opened;
        with_domain += result->domain != NULL;
        record = end + 1;
    }
    printf("ok: values of %zu URLs agree with the records (%zu with a domain, %zu app openings)\n", urls.count, with_domain, opened);

    /* Eight threads share one handle. */
    test_columns(directory, &urls, values);
    test_single_domain(argv[1], &urls);
    pthread_t threads[8];
    worker jobs[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (worker){.rules = directory, .urls = &urls, .expected = values, .index = i};
        CHECK(pthread_create(&threads[i], NULL, work, &jobs[i]) == 0, "thread %d", i);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].ok, "thread %d got the single-threaded results", i);
    }
    printf("ok: 8 threads sharing one handle, each batch and single URL equal to the single-threaded results\n");

    aasa_results_free(values);
    aasa_rules_free(directory);
    aasa_rules_free(artifact);
    free(expected);
    free(urls.bytes);
    free(urls.urls);
    free(urls.lengths);
    return failures ? 1 : 0;
}
