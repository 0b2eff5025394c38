/* xmalloc.h - allocators that abort on out-of-memory (tmux, redis). */
#ifndef LZ_XMALLOC_H
#define LZ_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
char *xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* Cleanup-attribute helpers (crun, systemd): freed when the local leaves scope. */
static inline void lz_freep(void *p) { free(*(void **)p); }
static inline void lz_closep(int *fd) { if (*fd >= 0) close(*fd); }
#define _cleanup_free_  __attribute__((cleanup(lz_freep)))
#define _cleanup_close_ __attribute__((cleanup(lz_closep)))
/* Hand ownership over: return the pointer and clear the variable. */
#define lz_steal_ptr(pp) ({ __typeof__(*(pp)) _p = *(pp); *(pp) = NULL; _p; })
#define lz_steal_fd(pfd) ({ int _f = *(pfd); *(pfd) = -1; _f; })

/* Invariant check that never compiles out. */
#define LZ_ASSERT(x) do { if (!(x)) lz_assert_fail(#x, __func__, __FILE__, __LINE__); } while (0)
void lz_assert_fail(const char *, const char *, const char *, int) __attribute__((noreturn));

#endif
