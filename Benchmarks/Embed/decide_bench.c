/* The C side of `make bench-embed`'s decide pairing: libaasa's `aasa_decide`, one URL per call
 * (result read, then freed), on the documents and URLs that aasa-bench-decide runs through the
 * Swift API. Same arguments and output line as aasa-bench-decide.
 *
 * usage: decide_bench MANIFEST URLS REPETITIONS */
#define _POSIX_C_SOURCE 200809L
#include <aasa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static char *slurp(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = malloc((size_t)size + 1);
    *length = fread(bytes, 1, (size_t)size, file);
    bytes[*length] = 0;
    fclose(file);
    return bytes;
}

int main(int argc, char **argv) {
    int repetitions = argc == 4 ? atoi(argv[3]) : 0;
    size_t manifest_length, text_length;
    char *manifest = argc == 4 ? slurp(argv[1], &manifest_length) : NULL, *text = argc == 4 ? slurp(argv[2], &text_length) : NULL;
    if (repetitions <= 0 || !manifest || !text) {
        fprintf(stderr, "usage: decide_bench MANIFEST URLS REPETITIONS\n");
        return 2;
    }
    size_t count = 0, capacity = 1024;
    const char **urls = malloc(capacity * sizeof *urls);
    size_t *lengths = malloc(capacity * sizeof *lengths);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (count == capacity) {
            capacity *= 2;
            urls = realloc(urls, capacity * sizeof *urls);
            lengths = realloc(lengths, capacity * sizeof *lengths);
        }
        urls[count] = line;
        lengths[count++] = strlen(line);
    }
    long documents = 0, decides = 0, checksum = 0;
    double wall = 0, cpu = 0;
    char *save = NULL;
    for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        size_t length;
        char *document = slurp(line, &length);
        aasa_rules *rules = NULL;
        if (!document || aasa_rules_open_document(document, length, tab + 1, NULL, &rules) != AASA_OK) {
            free(document);
            continue;
        }
        for (int pass = 0; pass <= repetitions; pass++) {
            /* Pass 0 is the warm-up, as on the Swift side. */
            double wall0 = now(CLOCK_MONOTONIC), cpu0 = now(CLOCK_THREAD_CPUTIME_ID);
            for (size_t i = 0; i < count; i++) {
                aasa_results *results;
                if (aasa_decide(rules, urls[i], lengths[i], &results) != AASA_OK) return 1;
                const aasa_result *result = aasa_results_at(results, 0);
                if (pass == 0) checksum += result->error ? 1 : (long)result->opened;
                aasa_results_free(results);
            }
            if (pass > 0) {
                wall += now(CLOCK_MONOTONIC) - wall0;
                cpu += now(CLOCK_THREAD_CPUTIME_ID) - cpu0;
            }
        }
        aasa_rules_free(rules);
        free(document);
        documents++;
        decides += (long)count * repetitions;
    }
    printf("documents %ld urls %zu decides %ld wall_ns %.0f cpu_ns %.0f checksum %ld\n", documents, count, decides, wall, cpu,
           checksum);
    return 0;
}
