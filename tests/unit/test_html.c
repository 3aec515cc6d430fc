/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for report --html's writer (src/lib/export/html.c): names
 * escaped so they can never end the page's script block or break its
 * JavaScript; a folded input's exact per-function sums, call pairs and
 * pruned tree in the page's JSON; a folded file without stacks and an
 * unwritable output leave no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "export/export.h"
#include "export/html.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[2][128];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&sb, buf, n);
	fclose(f);
	return sb_detach(&sb, NULL);
}

static void test_escape(void **state)
{
	static const char in[] = "</script><!--&\"\\\x01" "\xe2\x80\xa8" "x" "\xe2\x80\xa9" "\xff" "\xc3(" "é";
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	html_add_json_str(&sb, in, sizeof(in) - 1);
	assert_string_equal(sb.buf, "\\u003c/script\\u003e\\u003c!--\\u0026\\\"\\\\\\u0001\\u2028x\\u2029"
				    "\xef\xbf\xbd\xef\xbf\xbd(é");
	/* nothing in it an HTML parser or a JavaScript string would act on */
	assert_null(strchr(sb.buf, '<'));
	assert_null(strchr(sb.buf, '>'));
	assert_null(strchr(sb.buf, '&'));
	assert_null(strstr(sb.buf, "\xe2\x80\xa8"));
	sb_release(&sb);
}

static void test_export_add_n(void **state)
{
	struct pk_export *x = export_new();
	struct pk_frame fr[1] = { { .sym = "f", .dso = "" } };
	struct pk_sample s = { .event = "samples", .period = 7, .nr_frames = 1, .frames = fr };

	(void)state;
	export_add_n(x, &s, 7);
	export_add(x, &s);
	assert_int_equal(export_nr_samples(x), 8);
	assert_int_equal(export_total_period(x), 14);
	export_free(x);
}

/* the page's JSON for a folded input */
static char *page_of(const char *folded, double minwidth, int *err)
{
	struct html_opts o;

	write_file(tmp_path("in.folded"), folded);
	html_opts_init(&o);
	o.input = tmp_path("in.folded");
	o.output = tmp_path("out.html");
	o.minwidth_pct = minwidth;
	unlink(o.output);
	*err = html_report(&o);
	return *err ? NULL : read_file(tmp_path("out.html"));
}

static void test_folded_page(void **state)
{
	int err;
	/* a recursion (r;r;x) counts once in Children and once per call pair */
	char *p = page_of("m;a;b 6\nm;a 2\nm;c 1\nr;r;x 3\nbad line\n", 0, &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_non_null(strstr(p, "<!DOCTYPE html>"));
	assert_non_null(strstr(p, "<script type=\"application/json\" id=\"pk-data\">"));
	assert_non_null(strstr(p, "default-src 'none'"));
	/* frames in first-seen order: b a m c x r */
	assert_non_null(strstr(p, "\"frames\":[[\"b\",\"\"],[\"a\",\"\"],[\"m\",\"\"],[\"c\",\"\"],[\"x\",\"\"],[\"r\",\"\"]]"));
	assert_non_null(strstr(p, "\"total\":12,\"samples\":12"));
	/* gid, self, self samples, children, children samples */
	assert_non_null(strstr(p, "\"funcs\":[0,6,6,6,6,1,2,2,8,8,2,0,0,9,9,3,1,1,1,1,4,3,3,3,3,5,0,0,3,3]"));
	/* caller, callee, period: a->b m->a m->c r->x r->r (once per stack) */
	assert_non_null(strstr(p, "\"edges\":[1,0,6,2,1,8,2,3,1,5,4,3,5,5,3]"));
	/* pre-order, children by name: all m a b c r r x */
	assert_non_null(strstr(p, "\"tree\":[-1,0,12,12,2,1,9,9,1,2,8,8,0,3,6,6,3,2,1,1,5,1,3,3,5,2,3,3,4,3,3,3]"));
	free(p);
	/* pruned under 10 %: c (1 of 12) is left out, and said so */
	p = page_of("m;a;b 6\nm;a 2\nm;c 1\nr;r;x 3\n", 10, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(p, "\"pruned\":1,\"nodes\":8"));
	assert_null(strstr(p, ",3,2,1,1,"));
	free(p);
}

static void test_errors(void **state)
{
	int err;
	struct html_opts o;

	(void)state;
	assert_null(page_of("no count\n\n", 0, &err));
	assert_int_equal(err, -ENODATA);
	assert_non_null(strstr(pk_errmsg(), "in.folded"));
	assert_int_equal(access(tmp_path("out.html"), F_OK), -1);
	/* an output in a missing folder: an error, nothing written */
	write_file(tmp_path("in.folded"), "a;b 1\n");
	html_opts_init(&o);
	o.input = tmp_path("in.folded");
	o.output = tmp_path("no/such/dir/out.html");
	assert_true(html_report(&o) < 0);
	assert_int_equal(access(o.output, F_OK), -1);
	o.output = tmp_path("out.html");
	o.input = tmp_path("missing.folded");
	assert_true(html_report(&o) < 0);
	assert_int_equal(access(o.output, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_export_add_n),
		cmocka_unit_test(test_folded_page),
		cmocka_unit_test(test_errors),
	};
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "%s", "/tmp/pk-html-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(tmp_path("in.folded"));
	unlink(tmp_path("out.html"));
	rmdir(tmpdir);
	return rc;
}
