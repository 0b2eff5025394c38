/* net-image.c - build the sidecar's FROM-scratch image (see net-image.h).
 * Same route as the default image (image.c): a rootfs in a private temp dir,
 * `ldd` for the closure, tar, `podman import`; every step from argv. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/net-image.h"
#include "prefix.h"
#include "sandbox/driver.h"
#include "sandbox/image/image.h"
#include "sandbox/podman/podman.h"
#include "host/proc.h"
#include "strv.h"
#include "xmalloc.h"

int
net_image_bin(char **bin, lz_err_t *err)
{
	/* PREFIX/libexec/lazaret when installed, next to lazaret in a build tree. */
	if (lz_prefix_helper("lazaret-sidecar", bin, err) < 0)
		return lz_err_wrap(err, "the network sidecar (built with lazaret)");
	return 0;
}

int
net_image_name(const char *bin, char **name, lz_err_t *err)
{
	crypto_generichash_state st;
	unsigned char h[32], buf[65536];
	char hex[65];
	ssize_t n;
	int fd = open(bin, O_RDONLY | O_CLOEXEC);

	*name = NULL;
	if (fd < 0)
		return lz_err_sys(err, errno, "cannot open %s", bin);
	crypto_generichash_init(&st, NULL, 0, sizeof h);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		crypto_generichash_update(&st, buf, (unsigned long long)n);
	close(fd);
	if (n < 0)
		return lz_err_sys(err, errno, "cannot read %s", bin);
	crypto_generichash_final(&st, h, sizeof h);
	sodium_bin2hex(hex, sizeof hex, h, sizeof h);
	*name = xasprintf("%s:%.12s", NET_IMAGE_REPO, hex);
	return 0;
}

int
net_image_ensure(const char *bin, char **name, FILE *progress, lz_err_t *err)
{
	char tmpl[PATH_MAX], *root = NULL, *tar = NULL, *id = NULL, *dst = NULL;
	char **changes = NULL;
	char *const elves[] = { (char *)bin, NULL };
	size_t n_libs = 0;
	bool exists;
	int ret = -1;

	if (net_image_name(bin, name, err) < 0)
		return -1;
	if (podman_ops.image_exists(*name, &exists, err) < 0)
		goto fail;
	if (exists)
		return 0;
	if (progress != NULL)
		fprintf(progress, "building the network sidecar image %s...\n", *name);
	if (image_mkdtemp(tmpl, err) < 0)
		goto fail;
	root = xasprintf("%s/rootfs", tmpl);
	tar = xasprintf("%s/rootfs.tar", tmpl);
	dst = xasprintf("%s%s", root, NET_IMAGE_BIN);
	if (mkdir(root, 0755) < 0) {
		lz_err_sys(err, errno, "cannot create %s", root);
		goto out;
	}
	{
		/* Stripped when binutils is there (339 KB -> 80 KB), else as built. */
		char *st[] = { (char *)"strip", (char *)"--strip-all", (char *)"-o", dst, (char *)bin,
		    NULL };
		char *cp[] = { (char *)"cp", (char *)"-L", (char *)"--", (char *)bin, dst, NULL };
		lz_err_t e2 = LZ_ERR_INIT;

		if (proc_run_ok(st, NULL, &e2) < 0) {
			lz_err_clear(&e2);
			if (proc_run_ok(cp, NULL, err) < 0)
				goto out;
		}
	}
	/* Only the libraries: the binary itself sits at NET_IMAGE_BIN. */
	if (image_copy_closure(elves, NULL, NULL, root, &n_libs, err) < 0)
		goto out;
	lz_strv_pushf(&changes, "ENTRYPOINT=[\"%s\"]", NET_IMAGE_BIN);
	lz_strv_pushf(&changes, "LABEL=%s=sidecar", IMAGE_LABEL);
	if (image_import_dir(root, tar, *name, changes, &id, err) < 0)
		goto out;
	if (progress != NULL)
		fprintf(progress, "built %s (the sidecar and %zu libraries, no shell)\n", *name, n_libs);
	ret = 0;
out:
	image_rmtree(tmpl);
	lz_strv_free(changes);
	free(root);
	free(tar);
	free(dst);
	free(id);
	if (ret == 0)
		return 0;
fail:
	free(*name);
	*name = NULL;
	return -1;
}
