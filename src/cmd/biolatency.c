/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit biolatency — block I/O latency as a log2 histogram, as bcc's
 * biolatency prints it (BTF tracepoints block_rq_{insert,issue,complete};
 * the kernel half is src/bpf/biolatency.bpf.c).
 *
 *   biolatency [-D] [-Q] [-m] [-T] [interval [count]]
 * Without interval it prints once, at Ctrl-C; with it, every interval
 * seconds (count times), each histogram covering that interval only.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/parse.h"
#include "base/strbuf.h"
#include "bpf/biolatency.h"
#include "bpfutil/hist.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "biolatency.skel.h"

struct biolatency_opts {
	bool per_disk, queued, ms, time;
	double interval;
	long count;
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit biolatency [-D] [-Q] [-m] [-T] [-v] [interval [count]]\n"
		"  -D, --disks          one histogram per disk\n"
		"  -Q, --queued         include OS queued time (from insertion, not issue)\n"
		"  -m, --milliseconds   histogram in milliseconds (default microseconds)\n"
		"  -T, --timestamp      print the time of day with each histogram\n"
		"  -v, --verbose        show libbpf's messages\n"
		"  interval [count]     print every interval seconds, count times\n");
}

static void disk_name(__u32 dev, char *buf, size_t size)
{
	char path[96], line[256];
	FILE *f;

	snprintf(buf, size, "%u:%u", BIO_MAJOR(dev), BIO_MINOR(dev));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", BIO_MAJOR(dev), BIO_MINOR(dev));
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			size_t n = strlen(line + 8);
			if (n && n < size)
				memcpy(buf, line + 8, n + 1);
			break;
		}
	}
	fclose(f);
}

/* Print every histogram in the map and empty it. */
static int print_and_clear(int fd, const struct biolatency_opts *o)
{
	struct bio_hist_key key, next, *prev = NULL;
	struct bio_hist h;
	struct strbuf sb = STRBUF_INIT;
	int err;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		err = bpf_map_lookup_elem(fd, &next, &h);
		if (err) {
			sb_release(&sb);
			return bpfk_error(errno, "reading histogram map");
		}
		if (o->per_disk) {
			char name[64];
			disk_name(next.dev, name, sizeof(name));
			sb_addf(&sb, "\ndisk = %s\n", next.dev ? name : "?");
		}
		uint64_t slots[LOG2_SLOTS];
		for (int i = 0; i < LOG2_SLOTS; i++)
			slots[i] = h.slots[i];
		hist_render(&sb, slots, LOG2_SLOTS, o->ms ? "msecs" : "usecs");
		key = next;
		prev = &key;
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	sb_release(&sb);
	while (bpf_map_get_next_key(fd, NULL, &next) == 0)
		if (bpf_map_delete_elem(fd, &next))
			break;
	return 0;
}

static int parse_opts(struct biolatency_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "disks", no_argument, NULL, 'D' },
		{ "queued", no_argument, NULL, 'Q' },
		{ "milliseconds", no_argument, NULL, 'm' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+DQmTvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'D': o->per_disk = true; break;
		case 'Q': o->queued = true; break;
		case 'm': o->ms = true; break;
		case 'T': o->time = true; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	c = bpfk_opt_args(argc, argv, optind, "the interval", &o->interval, &o->count);
	if (c) {
		fprintf(stderr, "perfkit biolatency: %s\n", pk_errmsg());
		if (c == -E2BIG)
			usage(stderr);
		return 2;
	}
	return 0;
}

int cmd_biolatency(int argc, char **argv)
{
	struct biolatency_opts o = { 0 };
	struct biolatency_bpf *skel = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_start(o.verbose, NULL, NULL, NULL))
		goto fail;

	skel = biolatency_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_per_disk = o.per_disk;
	skel->rodata->targ_queued = o.queued;
	skel->rodata->targ_ms = o.ms;
	if (!o.queued)
		bpf_program__set_autoload(skel->progs.block_rq_insert, false);
	if (bpfk_load_attach(skel->skeleton, "BTF tracepoints block_rq_{insert,issue,complete} "
			     "(tp_btf needs CONFIG_DEBUG_INFO_BTF=y, Linux 5.5+)"))
		goto fail;

	bpfk_stop_on_signals();
	fprintf(stderr, "Tracing block device I/O... Hit Ctrl-C to end.\n");
	int fd = bpf_map__fd(skel->maps.hists);
	for (long n = 0;;) {
		bpfk_wait_interval(o.interval, 0);
		if (o.time || (o.interval > 0 && !bpfk_stopped()))
			printf("\n");
		if (o.time) {
			char buf[16];

			printf("%-8s\n", bpfk_clock(buf, sizeof(buf)));
		}
		if (print_and_clear(fd, &o))
			goto fail;
		fflush(stdout);
		if (bpfk_interval_last(o.interval, o.count, &n))
			break;
	}
	if (skel->bss->missed_starts)
		fprintf(stderr, "perfkit biolatency: %llu I/Os not measured (start map full)\n",
			(unsigned long long)skel->bss->missed_starts);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit biolatency: %s\n", pk_errmsg());
out:
	biolatency_bpf__destroy(skel);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
