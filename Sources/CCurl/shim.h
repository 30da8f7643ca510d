// libcurl's public header, plus typed wrappers: `curl_easy_setopt`, `curl_easy_getinfo` and
// `curl_multi_setopt` are C variadic functions, which Swift cannot call, so each argument type
// the fetcher passes gets one inline function here (static inline compiles into the caller).
#include <curl/curl.h>

static inline CURLcode aasa_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode aasa_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode aasa_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode aasa_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode aasa_easy_setopt_blob(CURL *handle, CURLoption option, struct curl_blob *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*aasa_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode aasa_easy_setopt_callback(CURL *handle, CURLoption option, aasa_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode aasa_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode aasa_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode aasa_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode aasa_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
