/* shim/statx.c - lazaret-statx.so: statx and fstatat without AT_NO_AUTOMOUNT.
 *
 * runsc 0.0~20221219 rejects AT_NO_AUTOMOUNT in statx(2) and newfstatat(2)
 * with EINVAL, and GNU coreutils pass it on every stat (`ls: cannot access
 * '/': Invalid argument`). gVisor has no automount points, so the flag
 * changes nothing there: on EINVAL with the flag set we ask again without
 * it. The coordinator mounts this object read-only into every sandbox and
 * names it in a read-only /etc/ld.so.preload (sandbox/mounts/preload.h), so the
 * image on disk stays as it is.
 *
 * Built with -nostdlib: it must load into whatever glibc (or musl) the image
 * has, so it makes its syscalls itself and needs one symbol from the libc
 * already loaded, __errno_location (glibc and musl both export it).
 */
#include <stddef.h>

#define SHIM_AT_NO_AUTOMOUNT	0x800
#define SHIM_EINVAL		22

#if defined(__x86_64__)
#define SHIM_NR_NEWFSTATAT	262
#define SHIM_NR_STATX		332
#elif defined(__aarch64__)
#define SHIM_NR_NEWFSTATAT	79
#define SHIM_NR_STATX		291
#else
#error "lazaret-statx.so: syscall numbers for this architecture are missing"
#endif

struct stat;
struct statx;

extern int *__errno_location(void);

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf);
int fstatat(int dirfd, const char *path, struct stat *buf, int flags);
int fstatat64(int dirfd, const char *path, struct stat *buf, int flags);

static long
shim_syscall5(long nr, long a, long b, long c, long d, long e)
{
	long ret;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile ("syscall"
	    : "=a"(ret)
	    : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
	    : "rcx", "r11", "memory");
#else
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile ("svc 0"
	    : "+r"(x0)
	    : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
	    : "memory");
	ret = x0;
#endif
	return ret;
}

/* The libc convention: -1 with errno set. */
static int
shim_ret(long r)
{
	if (r < 0 && r > -4096) {
		*__errno_location() = (int)-r;
		return -1;
	}
	return (int)r;
}

int
statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
	long r = shim_syscall5(SHIM_NR_STATX, dirfd, (long)path, flags, (long)mask, (long)buf);

	if (r == -SHIM_EINVAL && (flags & SHIM_AT_NO_AUTOMOUNT))
		r = shim_syscall5(SHIM_NR_STATX, dirfd, (long)path, flags & ~SHIM_AT_NO_AUTOMOUNT,
		    (long)mask, (long)buf);
	return shim_ret(r);
}

/* glibc's struct stat is the kernel's on x86_64 and aarch64. */
int
fstatat(int dirfd, const char *path, struct stat *buf, int flags)
{
	long r = shim_syscall5(SHIM_NR_NEWFSTATAT, dirfd, (long)path, (long)buf, flags, 0);

	if (r == -SHIM_EINVAL && (flags & SHIM_AT_NO_AUTOMOUNT))
		r = shim_syscall5(SHIM_NR_NEWFSTATAT, dirfd, (long)path, (long)buf,
		    flags & ~SHIM_AT_NO_AUTOMOUNT, 0);
	return shim_ret(r);
}

int
fstatat64(int dirfd, const char *path, struct stat *buf, int flags)
{
	return fstatat(dirfd, path, buf, flags);
}
