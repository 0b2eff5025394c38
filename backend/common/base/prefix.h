/* prefix.h - where the running program's helpers and data are.
 *
 * Installed (GNU layout), the programs are PREFIX/bin/lazaret and
 * PREFIX/bin/lazaret-workbench, helpers such as lazaret-escalate are in
 * PREFIX/libexec/lazaret and themes in PREFIX/share/lazaret. PREFIX is found
 * from the program's own path (/proc/self/exe), so a tree installed with any
 * PREFIX, or unpacked under a DESTDIR, is found without a compiled-in path.
 * In a build tree the helpers sit next to the program (build/).
 */
#ifndef LZ_PREFIX_H
#define LZ_PREFIX_H

#include "err.h"

/* Helpers under PREFIX (make install's libexecdir/lazaret). */
#define LZ_PREFIX_LIBEXEC	"libexec/lazaret"
/* Data under PREFIX (make install's datadir/lazaret). */
#define LZ_PREFIX_DATA		"share/lazaret"

/* The directory of the running program ("/usr/bin"); free it. Fails when
 * /proc/self/exe cannot be read. */
int lz_prefix_exe_dir(char **out, lz_err_t *err);

/* The installation prefix of a program in exe_dir: its parent ("/usr" for
 * "/usr/bin", "" for "/bin"'s parent "/"). Never fails; free it. */
char *lz_prefix_of(const char *exe_dir);

/* Helper program `name` for a program in exe_dir: PREFIX/libexec/lazaret/name
 * when executable there, else exe_dir/name (build tree). *out is freed by
 * the caller; the error names both places. */
int lz_prefix_helper_in(const char *exe_dir, const char *name, char **out, lz_err_t *err);

/* lz_prefix_helper_in for the running program. */
int lz_prefix_helper(const char *name, char **out, lz_err_t *err);

/* The program for the coordinator's exec steps (ns-exec, cgroup-exec,
 * sandbox-exec): the small static lazaret-exec, installed or built beside
 * us (~0.7 ms to start instead of ~3 for this program and its libraries),
 * else this program itself, which has the same steps. NULL when
 * /proc/self/exe cannot be read. Caller frees. */
char *lz_prefix_exec_helper(void);

/* PREFIX/share/lazaret/rel for the running program (rel may be ""), or NULL
 * when /proc/self/exe cannot be read. Whether it exists is not checked. */
char *lz_prefix_data(const char *rel);

/* How to name setup-host in a fix: PREFIX/libexec/lazaret/setup-host when
 * this program is installed with it, else "scripts/setup-host" (a source
 * tree). Caller frees. */
char *lz_prefix_setup_host(void);

#endif
