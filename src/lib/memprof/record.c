/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.c — run a program under pkcache --pk-mode=c2c|mem (memprof.h). */
#include "memprof/memprof.h"

#include "base/error.h"
#include "base/outfile.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "cachesim/vgrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

/* empty the private folder (a forked child of the program writes its own
 * out.mp.pidN there), then remove it */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xstrfmt("%s/%s", dir, e->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Valgrind's last non-empty log line, its "==PID== " prefix removed. */
static void last_log_line(const char *log, char *out, size_t n)
{
	FILE *lf = fopen(log, "re");
	char line[512];

	out[0] = 0;
	while (lf && fgets(line, sizeof(line), lf)) {
		const char *m = vgrun_log_text(line);

		if (*m != '\n' && *m)
			snprintf(out, n, "%s", m);
	}
	if (lf)
		fclose(lf);
	out[strcspn(out, "\n")] = 0;
}

static int copy_out(const char *from, struct outfile *of)
{
	FILE *f = fopen(from, "re");
	char buf[65536];
	size_t n;

	if (!f)
		return pk_error(errno, "cannot read '%s': %s", from, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, of->f) != n) {
			fclose(f);
			return pk_error(EIO, "cannot write '%s': %s", of->path, strerror(errno));
		}
	fclose(f);
	return 0;
}

int memprof_record_args(int argc, char **argv, const char *const pass[], const char **opts, int *nopts,
			const char **out)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int k = 0;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		while (pass && pass[k] && strncmp(a, pass[k], strlen(pass[k])))
			k++;
		if (pass && pass[k]) {
			opts[(*nopts)++] = a;
		} else if (!strcmp(a, "-o")) {
			if (++i >= argc)
				return pk_error(EINVAL, "-o needs a file name");
			*out = argv[i];
		} else if (!strncmp(a, "--output=", 9)) {
			*out = a + 9;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return 0;
		} else {
			struct strbuf q = STRBUF_INIT;
			sb_add_term(&q, a, strlen(a));
			int err = pk_error(EINVAL, "unknown option '%s'", q.buf);
			sb_release(&q);
			return err;
		}
	}
	if (i >= argc)
		return pk_error(EINVAL, "no program to run");
	return i;
}

int memprof_check_program(const char *path)
{
	unsigned char m[4] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return pk_error(errno, "'%s': %s", path, strerror(errno));
	n = fread(m, 1, sizeof(m), f);
	fclose(f);
	if ((n == 4 && !memcmp(m, "\177ELF", 4)) || (n >= 2 && m[0] == '#' && m[1] == '!'))
		return 0;
	return pk_error(ENOEXEC, "'%s': cannot run it: neither an ELF executable nor a "
			"#! script", path);
}

int memprof_program(const char *name)
{
	char *prog;
	int err = pk_find_program(name, &prog);

	if (err < 0)
		return err;
	err = memprof_check_program(prog);
	free(prog);
	return err == -ENOENT ? -EACCES : err;	/* -ENOENT means not found */
}

int memprof_record(const char *mode, const char *const opts[], const char *out,
		   char *const argv[], int *status)
{
	struct vgrun vr = VGRUN_INIT;
	struct outfile of;
	struct strbuf dir, tmp, log;
	const char *tmpdir = getenv("TMPDIR");
	char *old_preload = NULL, *wrap = NULL, **vopts;
	size_t nopt = 0;
	int rc, fd;

	if (strcmp(mode, "c2c") && strcmp(mode, "mem"))
		return pk_error(EINVAL, "mode '%s': expected c2c or mem", mode);
	rc = vgrun_find(&vr);
	if (rc < 0)
		return rc;
	rc = of_open(&of, out);
	if (rc < 0) {
		vgrun_release(&vr);
		return rc;
	}
	sb_init(&dir, 64);
	sb_init(&tmp, 64);
	sb_init(&log, 64);
	sb_addf(&dir, "%s/perfkit-mem.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir.buf)) {
		rc = pk_error(errno, "cannot create a temporary folder '%s': %s", dir.buf, strerror(errno));
		of_abort(&of);
		goto out_nodir;
	}
	sb_addf(&tmp, "%s/out.mp", dir.buf);
	sb_addf(&log, "%s/valgrind.log", dir.buf);
	fd = open(log.buf, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0)
		close(fd);

	/* the allocation hooks, beside the tool: pkcache-P -> pkmemwrap-P.so */
	{
		const char *slash = strrchr(vr.tool, '/'), *dash = slash ? strchr(slash, '-') : NULL;
		struct stat st;

		if (slash && dash && dash - slash >= 8 && !strncmp(dash - 7, "pkcache", 7)) {
			wrap = xstrfmt("%.*s/pkmemwrap%s.so", (int)(slash - vr.tool), vr.tool, dash);
			if (stat(wrap, &st) != 0) {
				free(wrap);
				wrap = NULL;
			}
		}
	}
	if (wrap) {
		const char *o = getenv("LD_PRELOAD");
		char *v = o && *o ? xstrfmt("%s:%s", wrap, o) : xstrdup(wrap);

		old_preload = o ? xstrdup(o) : NULL;
		setenv("LD_PRELOAD", v, 1);
		free(v);
	}
	while (opts && opts[nopt])
		nopt++;
	vopts = xcalloc(nopt + 2, sizeof(char *));
	vopts[0] = xstrfmt("--pk-mode=%s", mode);
	for (size_t i = 0; i < nopt; i++)
		vopts[i + 1] = (char *)opts[i];
	rc = vgrun_run(&vr, (const char *const *)vopts, tmp.buf, log.buf, argv, status);
	if (wrap) {
		if (old_preload)
			setenv("LD_PRELOAD", old_preload, 1);
		else
			unsetenv("LD_PRELOAD");
	}
	free(vopts[0]);
	free(vopts);
	if (rc == 0) {
		struct stat st;
		struct memprof mp;

		if (stat(tmp.buf, &st) != 0 || st.st_size == 0) {
			char last[512];

			last_log_line(log.buf, last, sizeof(last));
			if (WIFSIGNALED(*status))
				rc = pk_error(EIO, "'%s' was killed by signal %d before the tool wrote "
					      "its file", argv[0], WTERMSIG(*status));
			else
				rc = pk_error(EIO, "valgrind could not run '%s' (exit %d)%s%s", argv[0],
					      WEXITSTATUS(*status), last[0] ? ": " : "", last);
		} else if ((rc = memprof_read(&mp, tmp.buf)) == 0) {
			memprof_release(&mp);
			rc = copy_out(tmp.buf, &of);
		}
	}
	if (rc == 0)
		rc = of_commit(&of);
	else
		of_abort(&of);
	remove_dir(dir.buf);
out_nodir:
	free(wrap);
	free(old_preload);
	sb_release(&dir);
	sb_release(&tmp);
	sb_release(&log);
	vgrun_release(&vr);
	return rc;
}
