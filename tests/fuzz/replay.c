/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c — feed files to a harness's LLVMFuzzerTestOneInput without
 * libFuzzer: `replay-<harness> FILE...` runs every file once, prints one
 * line per file and exits 0 (a finding aborts or is reported by the
 * sanitizers, so the exit status is non-zero).  Directories are walked one
 * level deep.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			uint8_t *nb = realloc(buf, cap);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		return 1;
	}
	/* an exact-size copy, so ASan sees reads past the end */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return 1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	printf("replayed %s (%zu bytes)\n", path, len);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			while (d && (e = readdir(d))) {
				if (e->d_name[0] == '.')
					continue;
				char p[4096];
				snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
				rc |= run_file(p);
			}
			if (d)
				closedir(d);
		} else {
			rc |= run_file(argv[i]);
		}
	}
	return rc;
}
