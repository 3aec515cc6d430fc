/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfkit record — run a command (or watch -p PID / -a) and write its
 * samples to a perf.data file that Linux perf reads.
 *
 * Life: parse options → capture/recorder.h does the recording (open the
 * events, synthesize the side-band, run the command, drain the rings into
 * the writer, add the build-ids, rename into place) → report the summary.
 */
#include "cmd/cmds.h"

#include "base/child.h"
#include "base/error.h"
#include "base/outfile.h"
#include "base/parse.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "capture/recorder.h"
#include "event/event.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit record [-F HZ | -c PERIOD] [-e EVENT] [-g] [-o FILE [-f]] [-m PAGES] [-p PID,... | -t TID,... | -a] [-C CPUS] [-- CMD ARGS...]\n"
		"  -F, --freq HZ        sample at HZ samples per second (default %d)\n"
		"  -c, --count PERIOD   sample every PERIOD events\n"
		"  -e, --event EVENT    event to sample (perf's names; default cpu-clock), repeatable\n"
		"  -g                   record frame-pointer call chains (user and kernel)\n"
		"      --call-graph fp|dwarf[,SIZE]  frame pointers, or registers + SIZE bytes of\n"
		"                       user stack (default 8192) unwound with DWARF at report time\n"
		"  -o, --output FILE    output file (default perf.data; an old one becomes FILE.old;\n"
		"                       a device or FIFO such as /dev/null is written to directly),\n"
		"                       created mode 0600; a symbolic link there is not replaced\n"
		"  -f, --force          replace it (the link itself: its target is never written)\n"
		"  -p, --pid PID,...    record existing processes (all their threads), until\n"
		"                       they end or Ctrl-C\n"
		"  -t, --tid TID,...    record existing threads only (not the threads they make)\n"
		"  -a, --all-cpus       record the whole system (also with no command and no -p,\n"
		"                       as perf record: until Ctrl-C)\n"
		"  -C, --cpu CPUS       the whole system on those CPUs only (0,2-3; with CMD,\n"
		"                       while it runs); -p and -t override it, as perf's\n"
		"  -m, --mmap-pages N   ring buffer data pages per CPU, a power of 2 (else rounded up; default %d),\n"
		"                       or a size with a unit (512K, 1M: B, K, M, G), as perf's; ',AUX' ignored\n"
		"      --strict-freq    refuse an -F above the kernel's maximum sample rate\n"
		"                       (perf_event_max_sample_rate) instead of lowering it\n"
		"  -d, --data           sample the data addresses too (PERF_SAMPLE_ADDR)\n"
		"  -s, --stat           per-thread counts (inherit_stat)\n"
		"  -T, --timestamp, -P, --period  (always recorded: accepted, as perf)\n"
		"  -N, --no-buildid-cache  write nothing to ~/.debug (the file still lists build-ids)\n"
		"  -B, --no-buildid     no build-id list in the file, nothing written to ~/.debug\n"
		"  -q, --quiet          no closing summary line\n"
		"      --no-inherit     the command's own threads only (not the children it makes)\n"
		"      --sample-cpu     the CPU in every sample (always with -a)\n"
		"      --all-user, --all-kernel  every event samples user (kernel) space only\n"
		"  -D, --delay MSECS    start sampling MSECS after the command starts (perf's)\n"
		"  -z, --compression-level[=N]  zstd-compress the records at level N (default 1,\n"
		"                       the fastest; up to 22, the smallest; 0: off), as perf's\n"
		"  -F max               the kernel's maximum rate (perf_event_max_sample_rate)\n",
		RECORDER_DEFAULT_FREQ, RECORDER_RING_PAGES);
}


#define RECORD_MAX_TARGETS 1024

struct rec_args {
	struct recorder_opts o;
	int force;              /* -f: replace an output that is a symlink */
	int strict_freq;        /* --strict-freq: refuse -F above the kernel's maximum */
	bool output_given;      /* -o was given (else a pipe on stdout gets pipe mode, as perf) */
	bool quiet;             /* -q: no summary line */
	pid_t pids[RECORD_MAX_TARGETS];      /* -p */
	pid_t tids[RECORD_MAX_TARGETS];      /* -t */
	int nr_pids, nr_tids;
	int cpus[RECORD_MAX_TARGETS];        /* -C */
	int nr_cpus;
	char *names[RECORDER_MAX_EVENTS];    /* -e's events (o.events points here) */
	char *mods[RECORDER_MAX_EVENTS];     /* their groups' modifiers (o.group_mods) */
};

/* -D: the events started (perf's words). */
static void say_enabled(void)
{
	fputs("Events enabled\n", stderr);
}

/* An option value base/parse refused: its one line (option and range), exit 2. */
static int value_error(void)
{
	fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
	return 2;
}

static int parse_args(struct rec_args *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "call-graph", optional_argument, NULL, 'G' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "strict-freq", no_argument, NULL, 'S' },
		{ "data", no_argument, NULL, 'd' },
		{ "stat", no_argument, NULL, 's' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "period", no_argument, NULL, 'P' },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "no-buildid", no_argument, NULL, 'B' },
		{ "no-inherit", no_argument, NULL, 1001 },
		{ "sample-cpu", no_argument, NULL, 1002 },
		{ "compression-level", optional_argument, NULL, 'z' },
		{ "all-user", no_argument, NULL, 1003 },
		{ "delay", required_argument, NULL, 'D' },
		{ "all-kernel", no_argument, NULL, 1004 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+F:c:e:go:fp:t:C:am:hdsTPNBqz::D:", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (!strcmp(optarg, "max")) {   /* perf's: the kernel's maximum rate */
				unsigned max;

				if (ev_max_sample_rate(&max) || !max) {
					fprintf(stderr, "perfkit record: -F max: cannot read "
							"/proc/sys/kernel/perf_event_max_sample_rate\n");
					return 1;
				}
				r->o.freq = max;
				fprintf(stderr, "info: Using a maximum frequency rate of %u Hz\n", max);
				break;
			}
			if (pk_parse_u64("-F", optarg, 1, UINT64_MAX, &r->o.freq))
				return value_error();
			break;
		case 'c':
			/* the kernel refuses a period with bit 63 set */
			if (pk_parse_u64("-c", optarg, 1, INT64_MAX, &r->o.period))
				return value_error();
			break;
		case 'e': {
			/* perf's list: "a,b", groups "{a,b}:u", "cpu/t=1,u=2/" */
			struct ev_list_item *it;
			size_t n;

			if (!optarg[strspn(optarg, ",")]) {
				/* no event: it was the default one */
				fprintf(stderr, "perfkit record: -e expects an event name, got '%s'\n", optarg);
				return 2;
			}
			if (ev_list_parse(optarg, &it, &n)) {
				fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
				return 2;
			}
			for (size_t k = 0; k < n; k++) {
				if (r->o.nr_events == RECORDER_MAX_EVENTS) {
					fprintf(stderr, "perfkit record: at most %d events\n", RECORDER_MAX_EVENTS);
					ev_list_free(it, n);
					return 2;
				}
				/* the name as given, the group's modifiers apart
				 * ("{a,b}:u": a and b, as perf names them) */
				const char *colon = strrchr(it[k].name, ':');
				bool sread = (it[k].group_mods && strchr(it[k].group_mods, 'S')) ||
					     (colon && strchr(colon + 1, 'S') && strspn(colon + 1, "ukhpGHIDeWS") == strlen(colon + 1));

				if (sread) {
					fprintf(stderr, "perfkit record: '%s': the ':S' modifier (sample read, "
						"PERF_SAMPLE_READ) is not supported\n", optarg);
					ev_list_free(it, n);
					return 2;
				}
				r->names[r->o.nr_events] = it[k].name;
				r->mods[r->o.nr_events] = it[k].group_mods;
				it[k].name = it[k].group_mods = NULL;
				r->o.group_member[r->o.nr_events] = it[k].group && !it[k].leader;
				r->o.group_mods[r->o.nr_events] = r->mods[r->o.nr_events];
				r->o.events[r->o.nr_events] = r->names[r->o.nr_events];
				r->o.nr_events++;
			}
			ev_list_free(it, n);
			break;
		}
		case 'G':
			/* "--call-graph dwarf" (perf's spelling) as well as "--call-graph=dwarf" */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++]; /* perf's value is required */
			if (optarg && !strncmp(optarg, "dwarf", 5) && (!optarg[5] || optarg[5] == ',')) {
				/* dwarf[,SIZE]: registers + a copy of the user stack */
				uint64_t sz = 8192;
				if (optarg[5] && pk_parse_u64("--call-graph dwarf,SIZE", optarg + 6, 1, 65528, &sz))
					return value_error();
				r->o.callgraph = 2;
				r->o.stack_size = (uint32_t)((sz + 7) & ~7ULL);
				break;
			}
			if (optarg && strcmp(optarg, "fp")) {
				fprintf(stderr, "perfkit record: --call-graph '%s' is not supported (fp or dwarf[,SIZE])\n",
					optarg);
				return 2;
			}
			/* fall through */
		case 'g':
			r->o.callgraph = 1;
			break;
		case 'o':
			r->o.output = optarg;
			r->output_given = true;
			break;
		case 'f':
			r->force = 1;
			break;
		case 'p':
			if (pk_parse_id_list("-p", optarg, r->pids, RECORD_MAX_TARGETS, &r->nr_pids))
				return value_error();
			break;
		case 't':
			if (pk_parse_id_list("-t", optarg, r->tids, RECORD_MAX_TARGETS, &r->nr_tids))
				return value_error();
			break;
		case 'C':
			if (pk_parse_cpu_list("-C", optarg, r->cpus, RECORD_MAX_TARGETS, &r->nr_cpus))
				return value_error();
			break;
		case 'a':
			r->o.system_wide = 1;
			break;
		case 'S':
			r->strict_freq = 1;
			break;
		case 'd':
			r->o.sample_addr = true;
			break;
		case 's':
			r->o.inherit_stat = true;
			break;
		case 'T': /* fall through: time and period are in every sample */
		case 'P':
			break;
		case 'N':
			r->o.no_buildid_cache = true;
			break;
		case 'B':
			r->o.no_buildid = r->o.no_buildid_cache = true;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 1001:
			r->o.no_inherit = true;
			break;
		case 1002:
			r->o.sample_cpu = true;
			break;
		case 'D': {   /* perf's -D MSECS: the events start that long after the command */
			uint64_t ms;

			if (pk_parse_u64("-D", optarg, 0, 3600000, &ms))
				return value_error();
			r->o.delay_ms = (unsigned)ms;
			break;
		}
		case 1003:   /* the last of the two wins */
			r->o.all_user = true;
			r->o.all_kernel = false;
			break;
		case 1004:
			r->o.all_kernel = true;
			r->o.all_user = false;
			break;
		case 'z': {
			/* perf's: -z alone level 1, -zN / --compression-level=N;
			 * above zstd's maximum: its maximum; 0: off */
			uint64_t lv = 1;

			if (optarg && pk_parse_u64("-z", optarg, 0, UINT32_MAX, &lv))
				return value_error();
			r->o.comp_level = lv > 22 ? 22 : (int)lv;
			break;
		}
		case 'm': {
			/* perf's forms: PAGES, or a size with a unit (B, K, M, G:
			 * bytes made pages), then ",AUX" pages (no AUX area here:
			 * read and left) */
			char num[64];
			size_t nl = strcspn(optarg, ",");
			uint64_t unit = 0;

			if (nl >= sizeof(num) || !nl) {
				fprintf(stderr, "perfkit record: -m '%s': expected PAGES or a size such as 512K\n", optarg);
				return 2;
			}
			memcpy(num, optarg, nl);
			num[nl] = 0;
			switch (num[nl - 1]) {
			case 'B': case 'b': unit = 1; break;
			case 'K': case 'k': unit = 1u << 10; break;
			case 'M': case 'm': unit = 1u << 20; break;
			case 'G': case 'g': unit = 1u << 30; break;
			}
			if (unit)
				num[nl - 1] = 0;
			if (pk_parse_u64("-m", num, unit ? 1 : 0, unit ? (uint64_t)4 << 30 : 1u << 20, &r->o.mmap_pages))
				return value_error();
			if (unit)   /* bytes to 4 KiB pages, at least one */
				r->o.mmap_pages = (r->o.mmap_pages * unit + 4095) / 4096;
			if (r->o.mmap_pages > 1u << 20) {
				fprintf(stderr, "perfkit record: -m '%s': more than 4 GiB of ring per CPU\n", optarg);
				return 2;
			}
			if (!r->o.mmap_pages)   /* perf's 0: the default */
				break;
			if (r->o.mmap_pages & (r->o.mmap_pages - 1)) {
				/* perf's: rounded up to a power of 2, with a note */
				uint64_t up = 1;

				while (up < r->o.mmap_pages)   /* at most 1 << 20, as parsed */
					up <<= 1;
				r->o.mmap_pages = up;
				bool mib = up * 4 >= 1024;   /* 4 KiB pages */

				fprintf(stderr, "rounding mmap pages size to %llu%c (%llu pages)\n",
					(unsigned long long)(mib ? up * 4 / 1024 : up * 4), mib ? 'M' : 'K',
					(unsigned long long)up);
			}
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && strchr("Fceopm", optopt))
				fprintf(stderr, "perfkit record: option -%c needs a value\n", optopt);
			else if (optopt)   /* a short one, maybe within "-abc" */
				fprintf(stderr, "perfkit record: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "perfkit record: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (r->o.freq && r->o.period) {
		fprintf(stderr, "perfkit record: -F and -c cannot be used together\n");
		return 2;
	}
	if (!r->o.period) {
		/* perf's record_opts__config_freq(): above the kernel's maximum,
		 * -F is lowered to it with a warning (refused with --strict-freq);
		 * the default frequency is lowered with a note */
		unsigned max;
		uint64_t want = r->o.freq ? r->o.freq : RECORDER_DEFAULT_FREQ;
		if (ev_max_sample_rate(&max) == 0 && want > max) {
			if (r->o.freq && r->strict_freq) {
				fprintf(stderr, "perfkit record: error: Maximum frequency rate (%u Hz) exceeded.\n"
					"       Please use -F freq option with a lower value or consider\n"
					"       tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n", max);
				return 1;
			}
			if (r->o.freq)
				fprintf(stderr, "perfkit record: warning: Maximum frequency rate (%u Hz) exceeded, throttling from %" PRIu64 " Hz to %u Hz.\n"
					"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"
					"         The kernel will lower it when perf's interrupts take too long.\n"
					"         Use --strict-freq to disable this throttling, refusing to record.\n",
					max, r->o.freq, max);
			else
				fprintf(stderr, "perfkit record: Lowering default frequency rate from %u to %u.\n"
					"Please consider tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n",
					(unsigned)RECORDER_DEFAULT_FREQ, max);
			r->o.freq = max;
		}
	}
	/* perf's target: -p wins over -t, either over -C (with perf's warning) */
	if (r->nr_pids) {
		r->o.targets = r->pids;
		r->o.nr_targets = (size_t)r->nr_pids;
	} else if (r->nr_tids) {
		r->o.targets = r->tids;
		r->o.nr_targets = (size_t)r->nr_tids;
		r->o.target_tids = true;
	}
	if (r->o.nr_targets && r->o.system_wide) {   /* perf's target__validate */
		fprintf(stderr, "Warning:\nPID/TID switch overriding SYSTEM\n");
		r->o.system_wide = false;
	}
	if (r->nr_cpus && r->o.nr_targets) {
		fprintf(stderr, "Warning:\nPID/TID switch overriding CPU\n");
	} else if (r->nr_cpus) {
		r->o.cpu_list = r->cpus;
		r->o.nr_cpu_list = (size_t)r->nr_cpus;
		r->o.system_wide = true;   /* perf: a CPU list is a system-wide target */
	}
	if (!r->o.output[0]) {
		fprintf(stderr, "perfkit record: -o needs a file name\n");
		return 2;
	}
	struct stat st;
	if (stat(r->o.output, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "perfkit record: '%s' is a directory; give -o a file name\n", r->o.output);
		return 2;
	}
	if (optind < argc)
		r->o.cmd = argv + optind;
	/* no command and no target: every CPU until Ctrl-C, as perf record's
	 * default target (target__none: system-wide) */
	if (!r->o.cmd && !r->o.nr_targets && !r->o.system_wide)
		r->o.system_wide = true;
	if (!r->o.nr_events)
		r->o.events[r->o.nr_events++] = "cpu-clock";
	if (!r->o.mmap_pages)
		r->o.mmap_pages = RECORDER_RING_PAGES;
	return -1;
}

int cmd_record(int argc, char **argv)
{
	struct rec_args a;
	struct recorder r;
	struct recorder_result res;
	struct recorder_signals sig;	/* kept blocked to the end, as perf record */
	struct stat st;
	int ret, rc, die = 0;

	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	r.held = (struct pk_child)PK_CHILD_INIT;
	hm_init(&r.dsos);
	a.o.output = "perf.data";

	/* keep a copy of argv for HEADER_CMDLINE: -e parsing edits it */
	char **argv_copy = xmalloc((size_t)(argc + 1) * sizeof(char *));
	for (int i = 0; i < argc; i++)
		argv_copy[i] = xstrdup(argv[i]);
	argv_copy[argc] = NULL;

	ret = parse_args(&a, argc, argv);
	if (ret >= 0)
		goto out_free;
	/* like perf (check_pipe): no -o and stdout a pipe: pipe mode there */
	if (!a.output_given && fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
		a.o.output = "-";
	if (pk_options_only) {   /* the option fuzz harness: stop before running */
		ret = 0;
		goto out_free;
	}
	ret = 1;
	if ((!strcmp(a.o.output, "-") || of_std_fd(a.o.output) == STDOUT_FILENO) &&
	    fcntl(STDOUT_FILENO, F_GETFD) < 0) {
		/* else the first descriptor opened (an event's) becomes "stdout" */
		fprintf(stderr, "perfkit record: standard output is closed; nothing to write the data to "
			"(give -o FILE)\n");
		goto out_free;
	}
	struct stat ost, tst;
	if (!a.force && !of_kernel_path(a.o.output) && lstat(a.o.output, &ost) == 0 && S_ISLNK(ost.st_mode) &&
	    !(stat(a.o.output, &tst) == 0 && !S_ISREG(tst.st_mode) && !S_ISDIR(tst.st_mode))) {
		/* the link may lead anywhere (an attacker's choice in a shared
		 * directory): never replace it without being told to; a link to
		 * a device or FIFO (/dev/stdout) is written through */
		fprintf(stderr, "perfkit record: %s: is a symbolic link; not replacing it (use -f)\n",
			a.o.output);
		goto out_free;
	}

	if (!a.quiet)
		a.o.on_enable = say_enabled;
	/* Signals: blocked except inside ppoll(), so none is missed. */
	recorder_signals_block(&sig, &a.o);
	a.o.argc = argc;
	a.o.argv = argv_copy;
	rc = recorder_prepare(&r, &a.o);
	if (r.user_only)
		fprintf(stderr, "perfkit record: kernel.perf_event_paranoid=%d: sampling user space only; "
			"run as root or lower it to sample the kernel too\n", cap_paranoid());
	if (rc) {
		fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
		ret = r.usage_error ? 2 : 1; /* a bad -e is a usage error */
		goto out;
	}
	if (a.o.delay_ms && !a.quiet)
		fputs("Events disabled\n", stderr);   /* perf's words around -D */
	rc = recorder_start(&r);
	if (rc < 0) {   /* the events would not start */
		fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
		ret = 1;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "perfkit record: cannot run '%s': %s\n", a.o.cmd[0], strerror(rc));
		/* the shell's: 126 found but not runnable, 127 not found */
		ret = rc == EACCES || rc == ENOEXEC || rc == EISDIR ? 126 : 127;
		goto out;
	}
	rc = recorder_run(&r);
	if (!rc && stat(a.o.output, &st) == 0 && S_ISFIFO(st.st_mode))
		fprintf(stderr, "perfkit record: writing to the FIFO %s once a reader opens it (Ctrl-C gives up)\n",
			a.o.output);
	rc = recorder_finish(&r, rc, &res);
	if (res.disk_full) {
		char msg[512];
		struct stat fst;
		double fmb = stat(a.o.output, &fst) == 0 ? (double)fst.st_size / (1024.0 * 1024.0) : 0;

		snprintf(msg, sizeof(msg), "%s", res.disk_msg);
		if (res.finish_err && res.finish_err != -ENOSPC && res.finish_err != -EDQUOT) {
			fprintf(stderr, "perfkit record: %s; nothing could be kept: %s\n", msg, pk_errmsg());
		} else {
			if (res.finish_err)   /* features dropped too: say which */
				snprintf(msg, sizeof(msg), "%s", pk_errmsg());
			fprintf(stderr, "perfkit record: %s; recording stopped, the samples written "
				"until then are in %s\n", msg, a.o.output);
			fprintf(stderr, "[ perfkit record: %" PRIu64 " samples kept, %" PRIu64 " dropped (disk full), %"
				PRIu64 " lost, %.3f MB written to %s ]\n", res.kept,
				r.samples > res.kept ? r.samples - res.kept : 0, r.lost, fmb, a.o.output);
		}
		ret = 1;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "perfkit record: %s\n", pk_errmsg());
		ret = 1;
		goto out;
	}
	/* a FIFO, device or pipe has no size: the data's size then */
	double mb = (double)(stat(a.o.output, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
									 : res.comp_bytes ? res.comp_bytes : res.data_bytes) /
		    (1024.0 * 1024.0);
	if (r.lost)
		fprintf(stderr, "perfkit record: warning: %" PRIu64 " samples lost (ring buffer full); try a lower -F or a bigger -m\n",
			r.lost);
	if (!a.quiet && res.comp_bytes)   /* perf's words for it */
		fprintf(stderr, "[ perfkit record: %" PRIu64 " samples, %" PRIu64 " lost, %.3f MB written to %s, "
			"compressed (original %.3f MB, ratio is %.3f) ]\n", r.samples, r.lost, mb,
			strcmp(a.o.output, "-") ? a.o.output : "standard output (pipe mode)",
			(double)res.comp_raw / (1024.0 * 1024.0), (double)res.comp_raw / (double)res.comp_bytes);
	else if (!a.quiet)
		fprintf(stderr, "[ perfkit record: %" PRIu64 " samples, %" PRIu64 " lost, %.3f MB written to %s ]\n",
			r.samples, r.lost, mb, strcmp(a.o.output, "-") ? a.o.output : "standard output (pipe mode)");
	ret = r.have_status ? pk_exit_status(r.status) : 0;
	/* no command (-a, -p): stopped by SIGINT or SIGTERM, it dies of the
	 * signal once the file is written, as perf record's sig_atexit (the
	 * shell sees 130 or 143) */
	if (!r.have_status && a.o.got_signal && *a.o.got_signal)
		die = (int)*a.o.got_signal;
out:
	recorder_release(&r);
out_free:
	for (int i = 0; i < RECORDER_MAX_EVENTS; i++) {
		free(a.names[i]);
		free(a.mods[i]);
	}
	for (int i = 0; i < argc; i++)
		free(argv_copy[i]);
	free(argv_copy);
	if (die) {
		sigset_t one;

		fflush(stdout);
		signal(die, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, die);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(die);
		return 128 + die;
	}
	return ret;
}
