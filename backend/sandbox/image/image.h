/* image.h - the default sandbox image, built locally without a registry.
 *
 * `lazaret image build-default` assembles a rootfs from the host's own
 * binaries (busybox-static for the basics, bash, coreutils, git, less, vim)
 * with every shared library ldd lists, then `podman import`s it.
 */
#ifndef LZ_IMAGE_H
#define LZ_IMAGE_H

#include <stdbool.h>
#include <limits.h>
#include <stdio.h>

#include "err.h"

#define IMAGE_DEFAULT "localhost/lazaret-default:latest"
/* Label set on every image Lazaret builds (lazaret image ls). */
#define IMAGE_LABEL "org.lazaret.image"
/* A kit image's kit name and recipe hash (image-kit.c, lazaret image ls). */
#define IMAGE_LABEL_KIT "org.lazaret.kit"
#define IMAGE_LABEL_RECIPE "org.lazaret.recipe"

struct cfg_kit;

/* Build image `name` (IMAGE_DEFAULT when NULL) unless it exists and !force.
 * Progress lines go to progress (may be NULL). */
int image_build_default(const char *name, bool force, FILE *progress, lz_err_t *err);

/* Build kit k's image (k->image) from its recipe unless it exists and
 * !force (then one `podman image exists`). Progress lines go to progress
 * (may be NULL); a failure names the kit and the step and tags nothing. */
struct image_net;	/* a build's network, the caller's (net/net-build.c) */
struct image_net_ops {
	/* Bring up a network that reaches only policy's entries (allow_egress
	 * syntax); *wrap: argv to run a program inside it; *netns, *resolver:
	 * for podman build --network=ns: --dns. dir names it. */
	int (*up)(const char *dir, char *const *policy, size_t n, void *arg, struct image_net **net,
	    lz_err_t *err);
	char *const *(*wrap)(const struct image_net *);
	const char *(*netns)(const struct image_net *);
	const char *(*name)(const struct image_net *);	/* for progress */
	void (*down)(struct image_net *);
	void *arg;
};
#define IMAGE_NET_RESOLVER "127.0.0.1"	/* the router's, inside the namespace */
/* net NULL: the host's network (nothing confines the build). */
int image_kit_build(const struct cfg_kit *k, bool force, FILE *progress,
    const struct image_net_ops *net, lz_err_t *err);

/* Library paths in `ldd FILE...` output (absolute, de-duplicated, in order
 * of first appearance). Returns the count; caller frees *paths (strv). */
size_t image_ldd_parse(const char *out, char ***paths);

/* Copy into root, at their host paths, files (may be NULL) and every shared
 * library `ldd elves...` lists, then dirs (cp -a; may be NULL). *n_libs is
 * how many libraries were copied. */
int image_copy_closure(char *const *elves, char *const *files, char *const *dirs,
    const char *root, size_t *n_libs, lz_err_t *err);
/* Pack root into tar (owner root) and `podman import` it as name with the
 * Dockerfile-style changes (NULL-terminated, may be NULL); *id (caller frees)
 * is the new image's ID. */
int image_import_dir(const char *root, const char *tar, const char *name, char *const *changes,
    char **id, lz_err_t *err);
/* A new directory $TMPDIR/lazaret-image.XXXXXX (TMPDIR absolute, else /var/tmp). */
int image_mkdtemp(char tmpl[PATH_MAX], lz_err_t *err);
/* The image's full ID, or NULL; caller frees. */
char *image_id(const char *name);
/* A rebuild left old_id untagged: drop it unless a container uses it (a
 * note on progress, may be NULL, says it was kept). */
void image_remove_old(const char *old_id, FILE *progress);
/* CLOCK_MONOTONIC in seconds (a build's duration). */
double image_now(void);
/* rm -rf --one-file-system dir; errors are printed, not returned. */
void image_rmtree(const char *dir);

#endif
