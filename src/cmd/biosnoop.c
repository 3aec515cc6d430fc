/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit biosnoop — one line per block I/O request with its process,
 * disk, operation, sector, size and latency, as bcc's (libbpf-tools)
 * biosnoop prints it (BTF tracepoints block_bio_queue, block_rq_{insert,
 * issue,complete}; kernel half: src/bpf/biosnoop.bpf.c).
 *
 *   biosnoop [-d DISK] [-Q] [duration]
 * Columns: TIME(s) COMM PID DISK T SECTOR BYTES [QUE(ms)] LAT(ms).
 * TIME(s): seconds since tracing started, at completion; LAT: issue to
 * completion; QUE (-Q): insertion into the I/O scheduler to issue.  T is
 * blktrace's rwbs (R read, W write, D discard, F flush, then F FUA,
 * A readahead, S sync, M metadata).  PID/COMM: the process that submitted
 * the request's first bio (else the one that issued it); comms escaped.
 * -d DISK: that disk only (a partition stands for its disk), filtered in
 * the kernel.
 */
#include "cmd/cmds.h"

#ifndef PERFKIT_NO_BPF   /* else perfkit.c says why the tool is missing */

#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "bpf/biosnoop.h"
#include "bpfutil/opts.h"
#include "bpfutil/setup.h"
#include "biosnoop.skel.h"

struct disk_name {
	__u32 dev;
	char name[32];
};

struct biosnoop_opts {
	const char *disk;
	__u32 dev;
	bool queued;
	double duration;
	int verbose;
	unsigned long long start_ns;
	struct disk_name names[64];
	int nr_names;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit biosnoop [-d DISK] [-Q] [-v] [duration]\n"
		"  -d, --disk DISK      only this disk (e.g. sda, nvme0n1; a partition means its disk)\n"
		"  -Q, --queue          show the time queued in the I/O scheduler (QUE(ms))\n"
		"  -v, --verbose        show libbpf's messages\n"
		"  duration             seconds to trace (default: until Ctrl-C)\n");
}

/* "maj:min" of /sys/class/block/NAME/dev, of its disk when NAME is a
 * partition. */
static int disk_dev(const char *name, __u32 *dev)
{
	char path[PATH_MAX], line[64];
	unsigned int maj, min;
	FILE *f;

	if (!*name || strchr(name, '/') || strlen(name) > 64)
		goto bad;
	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	if (access(path, F_OK) == 0)
		snprintf(path, sizeof(path), "/sys/class/block/%s/../dev", name);
	else
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f)
		goto bad;
	int ok = fgets(line, sizeof(line), f) && sscanf(line, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (!ok)
		goto bad;
	*dev = (maj << 20) | min;
	return 0;
bad:;
	struct strbuf q = STRBUF_INIT;
	sb_add_term(&q, name, strlen(name));
	int err = pk_error(ENOENT, "-d: no block device '%s' (see /sys/class/block)", q.buf);
	sb_release(&q);
	return err;
}

static const char *dev_name(struct biosnoop_opts *o, __u32 dev)
{
	char path[96], line[256];
	struct disk_name *d;
	FILE *f;

	for (int i = 0; i < o->nr_names; i++)
		if (o->names[i].dev == dev)
			return o->names[i].name;
	if (o->nr_names == (int)(sizeof(o->names) / sizeof(o->names[0])))
		o->nr_names = 0;   /* a cache, not a table: start over */
	d = &o->names[o->nr_names++];
	d->dev = dev;
	if (!dev) {
		snprintf(d->name, sizeof(d->name), "?");
		return d->name;
	}
	snprintf(d->name, sizeof(d->name), "%u:%u", BIOSNOOP_MAJOR(dev), BIOSNOOP_MINOR(dev));
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", BIOSNOOP_MAJOR(dev), BIOSNOOP_MINOR(dev));
	f = fopen(path, "r");
	if (!f)
		return d->name;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			size_t n = strlen(line + 8);
			if (n && n < sizeof(d->name))
				memcpy(d->name, line + 8, n + 1);
			break;
		}
	}
	fclose(f);
	return d->name;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct biosnoop_opts *o = ctx;
	const struct biosnoop_event *e = data;
	char ecomm[4 * BIOSNOOP_TASK_COMM_LEN + 1], rwbs[9];

	if (size < sizeof(*e))
		return 0;
	snprintf(ecomm, sizeof(ecomm), "%.*s", BIOSNOOP_TASK_COMM_LEN, e->comm);
	str_term_escape_buf(ecomm, 15);   /* the COMM column: never cut in an escape */
	snprintf(rwbs, sizeof(rwbs), "%.8s", e->rwbs);
	printf("%-11.6f %-14.14s %-7u %-7s %-4s %-10llu %-7u ",
	       e->ts_ns >= o->start_ns ? (double)(e->ts_ns - o->start_ns) / 1e9 : 0.0, ecomm, e->pid,
	       dev_name(o, e->dev), rwbs, (unsigned long long)e->sector, e->bytes);
	if (o->queued)
		printf("%7.3f ", (double)e->queue_ns / 1e6);
	printf("%7.3f\n", (double)e->lat_ns / 1e6);
	return 0;
}

static int parse_opts(struct biosnoop_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "disk", required_argument, NULL, 'd' },
		{ "queue", no_argument, NULL, 'Q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+d:Qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->disk = optarg; break;
		case 'Q': o->queued = true; break;
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	c = bpfk_opt_args(argc, argv, optind, "the duration", &o->duration, NULL);
	if (c) {
		fprintf(stderr, "perfkit biosnoop: %s\n", pk_errmsg());
		if (c == -E2BIG)
			usage(stderr);
		return 2;
	}
	if (o->disk && disk_dev(o->disk, &o->dev)) {
		fprintf(stderr, "perfkit biosnoop: %s\n", pk_errmsg());
		return 2;
	}
	return 0;
}

int cmd_biosnoop(int argc, char **argv)
{
	struct biosnoop_opts o = { 0 };
	struct biosnoop_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	int err, ret = 1;

	err = parse_opts(&o, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	if (bpfk_start(o.verbose, NULL, NULL, NULL))
		goto fail;

	skel = biosnoop_bpf__open();
	if (!skel) {
		bpfk_error(errno, "opening BPF skeleton");
		goto fail;
	}
	skel->rodata->targ_queued = o.queued;
	skel->rodata->targ_dev = o.dev;
	if (!o.queued)
		bpf_program__set_autoload(skel->progs.block_rq_insert, false);
	if (bpfk_load_attach(skel->skeleton, "BTF tracepoints block_bio_queue, block_rq_{insert,issue,complete} "
			     "(tp_btf needs CONFIG_DEBUG_INFO_BTF=y, Linux 5.5+)") ||
	    !(rb = bpfk_ring_new(skel->maps.events, handle_event, &o)))
		goto fail;

	bpfk_stop_on_signals();
	o.start_ns = bpfk_now_ns();
	printf("%-11s %-14s %-7s %-7s %-4s %-10s %-7s ", "TIME(s)", "COMM", "PID", "DISK", "T", "SECTOR", "BYTES");
	if (o.queued)
		printf("%7s ", "QUE(ms)");
	printf("%7s\n", "LAT(ms)");
	fflush(stdout);
	fprintf(stderr, "Tracing block I/O... Hit Ctrl-C to end.\n");
	if (bpfk_poll_ring(rb, o.duration))
		goto fail;
	if (skel->bss->lost_events)
		fprintf(stderr, "perfkit biosnoop: %llu events lost (ring buffer full)\n",
			(unsigned long long)skel->bss->lost_events);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "perfkit biosnoop: %s\n", pk_errmsg());
out:
	ring_buffer__free(rb);
	biosnoop_bpf__destroy(skel);
	return ret;
}
#endif /* PERFKIT_NO_BPF */
