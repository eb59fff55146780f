// libcurl, loaded the first time it is called instead of when the process starts.
//
// Linked statically (`--static-swift-stdlib`, the image's `rnm`), FoundationNetworking's URLSession
// calls libcurl directly, so the one binary of the five programs needed libcurl.so.4 and its 30
// libraries (OpenSSL, GnuTLS, Kerberos, LDAP, SSH, ...) loaded and relocated by the dynamic loader
// at every start: about 5 ms of the 20 ms rnmctl took, for a program that never fetches from an
// upstream (BENCHMARKS.md, session 17). The package no longer autolinks libcurl (Package.swift);
// these definitions take its place: each one finds the real function with dlsym, in a libcurl
// opened on the first call. A service calls libcurl when it makes its URLSession, at start.
//
// Only the functions FoundationNetworking calls are here: a new one is an undefined symbol when
// the image's binary links, not a failure at run time. The definitions are hidden: nothing
// outside this binary (libcurl itself included) resolves a curl symbol to them. Linked
// dynamically, FoundationNetworking is a shared library that brings its own libcurl, and nothing
// calls these.
#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define RNM_CURL_FUNCTIONS(X) \
    X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_init) X(curl_easy_pause) \
    X(curl_easy_setopt) X(curl_easy_strerror) X(curl_free) X(curl_global_init) \
    X(curl_multi_add_handle) X(curl_multi_assign) X(curl_multi_cleanup) X(curl_multi_info_read) \
    X(curl_multi_init) X(curl_multi_remove_handle) X(curl_multi_setopt) X(curl_multi_socket_action) \
    X(curl_slist_append) X(curl_slist_free_all) X(curl_url) X(curl_url_get) X(curl_url_set) \
    X(curl_version) X(curl_version_info)

#define RNM_CURL_FIELD(name) void *name;
static struct { RNM_CURL_FUNCTIONS(RNM_CURL_FIELD) } real;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

// A service cannot fetch without libcurl: it stops, saying why, as a missing NEEDED library
// would have stopped it at start.
static void fail(const char *what) {
    fprintf(stderr, "rnm: %s; the upstream fetcher needs libcurl (libcurl4)\n", what);
    abort();
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) fail(dlerror());
#define RNM_CURL_LOAD(name) \
    if ((real.name = dlsym(library, #name)) == NULL) fail(dlerror());
    RNM_CURL_FUNCTIONS(RNM_CURL_LOAD)
}

#define REAL(name, type) (pthread_once(&loaded, load), (type)real.name)
#define HIDDEN __attribute__((visibility("hidden")))

// curl's types as the ABI sees them: handles are pointers, its enums ints, a socket an int.
// The variadic setters take one more argument, a long, a pointer or a curl_off_t: each is
// passed in one integer register on x86_64 and arm64 Linux, so it goes on as a pointer.
HIDDEN void curl_easy_cleanup(void *handle) { REAL(curl_easy_cleanup, void (*)(void *))(handle); }

HIDDEN int curl_easy_getinfo(void *handle, int info, ...) {
    va_list arguments;
    va_start(arguments, info);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return REAL(curl_easy_getinfo, int (*)(void *, int, ...))(handle, info, argument);
}

HIDDEN void *curl_easy_init(void) { return REAL(curl_easy_init, void *(*)(void))(); }

HIDDEN int curl_easy_pause(void *handle, int bitmask) {
    return REAL(curl_easy_pause, int (*)(void *, int))(handle, bitmask);
}

HIDDEN int curl_easy_setopt(void *handle, int option, ...) {
    va_list arguments;
    va_start(arguments, option);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return REAL(curl_easy_setopt, int (*)(void *, int, ...))(handle, option, argument);
}

HIDDEN const char *curl_easy_strerror(int code) {
    return REAL(curl_easy_strerror, const char *(*)(int))(code);
}

HIDDEN void curl_free(void *pointer) { REAL(curl_free, void (*)(void *))(pointer); }

HIDDEN int curl_global_init(long flags) { return REAL(curl_global_init, int (*)(long))(flags); }

HIDDEN int curl_multi_add_handle(void *multi, void *easy) {
    return REAL(curl_multi_add_handle, int (*)(void *, void *))(multi, easy);
}

HIDDEN int curl_multi_assign(void *multi, int socket, void *pointer) {
    return REAL(curl_multi_assign, int (*)(void *, int, void *))(multi, socket, pointer);
}

HIDDEN int curl_multi_cleanup(void *multi) { return REAL(curl_multi_cleanup, int (*)(void *))(multi); }

HIDDEN void *curl_multi_info_read(void *multi, int *queued) {
    return REAL(curl_multi_info_read, void *(*)(void *, int *))(multi, queued);
}

HIDDEN void *curl_multi_init(void) { return REAL(curl_multi_init, void *(*)(void))(); }

HIDDEN int curl_multi_remove_handle(void *multi, void *easy) {
    return REAL(curl_multi_remove_handle, int (*)(void *, void *))(multi, easy);
}

HIDDEN int curl_multi_setopt(void *multi, int option, ...) {
    va_list arguments;
    va_start(arguments, option);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return REAL(curl_multi_setopt, int (*)(void *, int, ...))(multi, option, argument);
}

HIDDEN int curl_multi_socket_action(void *multi, int socket, int events, int *running) {
    return REAL(curl_multi_socket_action, int (*)(void *, int, int, int *))(multi, socket, events, running);
}

HIDDEN void *curl_slist_append(void *list, const char *string) {
    return REAL(curl_slist_append, void *(*)(void *, const char *))(list, string);
}

HIDDEN void curl_slist_free_all(void *list) { REAL(curl_slist_free_all, void (*)(void *))(list); }

HIDDEN void *curl_url(void) { return REAL(curl_url, void *(*)(void))(); }

HIDDEN int curl_url_get(const void *url, int part, char **value, unsigned int flags) {
    return REAL(curl_url_get, int (*)(const void *, int, char **, unsigned int))(url, part, value, flags);
}

HIDDEN int curl_url_set(void *url, int part, const char *value, unsigned int flags) {
    return REAL(curl_url_set, int (*)(void *, int, const char *, unsigned int))(url, part, value, flags);
}

HIDDEN char *curl_version(void) { return REAL(curl_version, char *(*)(void))(); }

HIDDEN void *curl_version_info(int age) { return REAL(curl_version_info, void *(*)(int))(age); }
#endif
