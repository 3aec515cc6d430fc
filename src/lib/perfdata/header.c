// SPDX-License-Identifier: GPL-2.0-or-later
/* perf.data header text (perfdata/header.h). */
#include "perfdata/header.h"
#include "base/bytes.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const feat_names[] = {
	[PD_FEAT_TRACING_DATA] = "TRACING_DATA", [PD_FEAT_BUILD_ID] = "BUILD_ID",
	[PD_FEAT_HOSTNAME] = "HOSTNAME", [PD_FEAT_OSRELEASE] = "OSRELEASE",
	[PD_FEAT_VERSION] = "VERSION", [PD_FEAT_ARCH] = "ARCH", [PD_FEAT_NRCPUS] = "NRCPUS",
	[PD_FEAT_CPUDESC] = "CPUDESC", [PD_FEAT_CPUID] = "CPUID", [PD_FEAT_TOTAL_MEM] = "TOTAL_MEM",
	[PD_FEAT_CMDLINE] = "CMDLINE", [PD_FEAT_EVENT_DESC] = "EVENT_DESC",
	[PD_FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY", [PD_FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[PD_FEAT_BRANCH_STACK] = "BRANCH_STACK", [PD_FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[PD_FEAT_GROUP_DESC] = "GROUP_DESC", [PD_FEAT_AUXTRACE] = "AUXTRACE", [PD_FEAT_STAT] = "STAT",
	[PD_FEAT_CACHE] = "CACHE", [PD_FEAT_SAMPLE_TIME] = "SAMPLE_TIME",
	[PD_FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY", [PD_FEAT_CLOCKID] = "CLOCKID",
	[PD_FEAT_DIR_FORMAT] = "DIR_FORMAT", [PD_FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[PD_FEAT_BPF_BTF] = "BPF_BTF", [PD_FEAT_COMPRESSED] = "COMPRESSED",
	[PD_FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS", [PD_FEAT_CLOCK_DATA] = "CLOCK_DATA",
	[PD_FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY", [PD_FEAT_PMU_CAPS] = "PMU_CAPS",
};
#define NR_FEAT_NAMES ((int)(sizeof(feat_names) / sizeof(feat_names[0])))

const char *pd_feature_name(int bit)
{
	return bit >= 0 && bit < NR_FEAT_NAMES ? feat_names[bit] : NULL;
}

/* A perf header string {u32 len; char s[len] (NUL-padded)} at *off of a
 * size-byte body: its text (up to the first NUL) appended escaped; false
 * when it does not fit. */
static bool add_string_q(struct strbuf *out, const uint8_t *p, uint64_t size, uint64_t *off, bool quotes)
{
	if (size < 4 || *off > size - 4)
		return false;
	uint32_t len = rd32(p + *off);
	if (len > size - *off - 4)
		return false;
	const char *s = (const char *)p + *off + 4, *q;
	size_t n = strnlen(s, len);

	/* quotes: each ' written \' (perf's print_cmdline) */
	while (quotes && (q = memchr(s, '\'', n))) {
		sb_add_term(out, s, (size_t)(q - s));
		sb_add(out, "\\'", 2);
		n -= (size_t)(q - s) + 1;
		s = q + 1;
	}
	sb_add_term(out, s, n);
	*off += 4 + (uint64_t)len;
	return true;
}

static bool add_string(struct strbuf *out, const uint8_t *p, uint64_t size, uint64_t *off)
{
	return add_string_q(out, p, size, off, false);
}

static bool has(const struct pd_file *f, int bit)
{
	return (f->features[bit / 64] >> (bit % 64)) & 1;
}

static void malformed(struct strbuf *out, int bit, uint64_t size)
{
	sb_addf(out, "# %s : (%" PRIu64 "-byte section, malformed)\n", feat_names[bit], size);
}

/* bit names in perf's order (perf_event_attr_fprintf.c) */
struct bitname { uint64_t bit; const char *name; };

static const struct bitname sample_type_names[] = {
	{ PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" }, { PERF_SAMPLE_TIME, "TIME" },
	{ PERF_SAMPLE_ADDR, "ADDR" }, { PERF_SAMPLE_READ, "READ" },
	{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PERF_SAMPLE_ID, "ID" }, { PERF_SAMPLE_CPU, "CPU" },
	{ PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ PERF_SAMPLE_RAW, "RAW" }, { PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ PERF_SAMPLE_REGS_USER, "REGS_USER" }, { PERF_SAMPLE_STACK_USER, "STACK_USER" },
	{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_REGS_INTR, "REGS_INTR" },
	{ PERF_SAMPLE_DATA_SRC, "DATA_SRC" }, { PERF_SAMPLE_WEIGHT, "WEIGHT" },
	{ PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { PERF_SAMPLE_AUX, "AUX" },
	{ PERF_SAMPLE_CGROUP, "CGROUP" }, { PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	{ PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" }, { PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	{ 0, NULL },
};

static const struct bitname read_format_names[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" }, { PERF_FORMAT_GROUP, "GROUP" }, { 1u << 4, "LOST" },
	{ 0, NULL },
};

static const struct bitname branch_names[] = {
	{ 1u << 0, "USER" }, { 1u << 1, "KERNEL" }, { 1u << 2, "HV" }, { 1u << 3, "ANY" },
	{ 1u << 4, "ANY_CALL" }, { 1u << 5, "ANY_RETURN" }, { 1u << 6, "IND_CALL" },
	{ 1u << 7, "ABORT_TX" }, { 1u << 8, "IN_TX" }, { 1u << 9, "NO_TX" }, { 1u << 10, "COND" },
	{ 1u << 11, "CALL_STACK" }, { 1u << 12, "IND_JUMP" }, { 1u << 13, "CALL" },
	{ 1u << 14, "NO_FLAGS" }, { 1u << 15, "NO_CYCLES" }, { 1u << 16, "TYPE_SAVE" },
	{ 1u << 17, "HW_INDEX" }, { 1u << 18, "PRIV_SAVE" },
	{ 0, NULL },
};

static void add_bits(struct strbuf *out, uint64_t v, const struct bitname *names)
{
	bool first = true;

	for (size_t i = 0; names[i].name; i++)
		if (v & names[i].bit) {
			sb_addf(out, "%s%s", first ? "" : "|", names[i].name);
			first = false;
		}
}

#define ATTR_U(label, v) do { if (v) sb_addf(out, ", %s%s%" PRIu64, label, eq, (uint64_t)(v)); } while (0)
#define ATTR_X(label, v) do { if (v) sb_addf(out, ", %s%s%#" PRIx64, label, eq, (uint64_t)(v)); } while (0)
#define ATTR_BITS(label, v, names) do { if (v) { sb_addf(out, ", %s%s", label, eq); add_bits(out, v, names); } } while (0)

void pd_attr_text(const struct perf_event_attr *a, const char *eq, struct strbuf *out)
{
	ATTR_U("type", a->type);
	ATTR_U("size", a->size);
	ATTR_X("config", a->config);
	ATTR_U("{ sample_period, sample_freq }", a->sample_period);
	ATTR_BITS("sample_type", a->sample_type, sample_type_names);
	ATTR_BITS("read_format", a->read_format, read_format_names);
	ATTR_U("disabled", a->disabled);
	ATTR_U("inherit", a->inherit);
	ATTR_U("pinned", a->pinned);
	ATTR_U("exclusive", a->exclusive);
	ATTR_U("exclude_user", a->exclude_user);
	ATTR_U("exclude_kernel", a->exclude_kernel);
	ATTR_U("exclude_hv", a->exclude_hv);
	ATTR_U("exclude_idle", a->exclude_idle);
	ATTR_U("mmap", a->mmap);
	ATTR_U("comm", a->comm);
	ATTR_U("freq", a->freq);
	ATTR_U("inherit_stat", a->inherit_stat);
	ATTR_U("enable_on_exec", a->enable_on_exec);
	ATTR_U("task", a->task);
	ATTR_U("watermark", a->watermark);
	ATTR_U("precise_ip", a->precise_ip);
	ATTR_U("mmap_data", a->mmap_data);
	ATTR_U("sample_id_all", a->sample_id_all);
	ATTR_U("exclude_host", a->exclude_host);
	ATTR_U("exclude_guest", a->exclude_guest);
	ATTR_U("exclude_callchain_kernel", a->exclude_callchain_kernel);
	ATTR_U("exclude_callchain_user", a->exclude_callchain_user);
	ATTR_U("mmap2", a->mmap2);
	ATTR_U("comm_exec", a->comm_exec);
	ATTR_U("use_clockid", a->use_clockid);
	ATTR_U("context_switch", a->context_switch);
	ATTR_U("write_backward", a->write_backward);
	ATTR_U("namespaces", a->namespaces);
	ATTR_U("ksymbol", a->ksymbol);
	ATTR_U("bpf_event", a->bpf_event);
	ATTR_U("aux_output", a->aux_output);
	ATTR_U("cgroup", a->cgroup);
	ATTR_U("text_poke", a->text_poke);
	ATTR_U("build_id", a->build_id);
	ATTR_U("inherit_thread", a->inherit_thread);
	ATTR_U("remove_on_exec", a->remove_on_exec);
	ATTR_U("sigtrap", a->sigtrap);
	ATTR_U("{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	ATTR_U("bp_type", a->bp_type);
	ATTR_X("{ bp_addr, config1 }", a->bp_addr);
	ATTR_X("{ bp_len, config2 }", a->bp_len);
	ATTR_BITS("branch_sample_type", a->branch_sample_type, branch_names);
	ATTR_X("sample_regs_user", a->sample_regs_user);
	ATTR_U("sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		sb_addf(out, ", clockid%s%" PRId64, eq, (int64_t)(int32_t)a->clockid);
	ATTR_X("sample_regs_intr", a->sample_regs_intr);
	ATTR_U("aux_watermark", a->aux_watermark);
	ATTR_U("sample_max_stack", a->sample_max_stack);
	ATTR_U("aux_sample_size", a->aux_sample_size);
	ATTR_U("sig_data", a->sig_data);
}

static void add_events(struct strbuf *out, const struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_evsels; i++) {
		const struct pd_evsel *e = &f->evsels[i];

		sb_add(out, "# event : name = ", 17);
		sb_add_term(out, e->name, strlen(e->name));
		sb_add(out, ", ", 2);
		if (e->nr_ids) {
			sb_add(out, ", id = {", 8);
			for (size_t j = 0; j < e->nr_ids; j++)
				sb_addf(out, "%s %" PRIu64, j ? "," : "", e->ids[j]);
			sb_add(out, " }", 2);
		}
		pd_attr_text(&e->attr, " = ", out);
		sb_addch(out, '\n');
	}
}

static const char *clockid_name(uint32_t id)
{
	switch (id) {
	case 0: return "realtime";
	case 1: return "monotonic";
	case 4: return "monotonic_raw";
	case 7: return "boottime";
	case 11: return "tai";
	default: return "(unknown)";
	}
}

/* One feature's lines (bit set in f->features). */
static void add_feature(struct strbuf *out, const struct pd_file *f, int bit)
{
	const uint8_t *p = bit < PD_FEAT_KEPT ? f->feat_body[bit] : NULL;
	uint64_t size = bit < PD_FEAT_KEPT ? f->feat_size[bit] : 0, off = 0;
	static const char *const str_label[] = {
		[PD_FEAT_HOSTNAME] = "hostname", [PD_FEAT_OSRELEASE] = "os release",
		[PD_FEAT_VERSION] = "perf version", [PD_FEAT_ARCH] = "arch",
		[PD_FEAT_CPUDESC] = "cpudesc", [PD_FEAT_CPUID] = "cpuid",
	};

	switch (bit) {
	case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION:
	case PD_FEAT_ARCH: case PD_FEAT_CPUDESC: case PD_FEAT_CPUID: {
		size_t at = out->len;
		sb_addf(out, "# %s : ", str_label[bit]);
		if (!p || !add_string(out, p, size, &off)) {
			sb_setlen(out, at);
			malformed(out, bit, size);
			return;
		}
		sb_addch(out, '\n');
		return;
	}
	case PD_FEAT_NRCPUS:
		if (!p || size < 8)
			break;
		sb_addf(out, "# nrcpus online : %" PRIu32 "\n# nrcpus avail : %" PRIu32 "\n",
			rd32(p + 4), rd32(p));
		return;
	case PD_FEAT_TOTAL_MEM:
		if (!p || size < 8)
			break;
		sb_addf(out, "# total memory : %" PRIu64 " kB\n", rd64(p));
		return;
	case PD_FEAT_CMDLINE: {
		if (!p || size < 4)
			break;
		uint32_t n = rd32(p);
		size_t at = out->len;
		off = 4;
		sb_add(out, "# cmdline : ", 12);
		for (uint32_t i = 0; i < n; i++) {
			if (!add_string_q(out, p, size, &off, true)) {
				sb_setlen(out, at);
				malformed(out, bit, size);
				return;
			}
			sb_addch(out, ' ');
		}
		sb_addch(out, '\n');
		return;
	}
	case PD_FEAT_EVENT_DESC:
		add_events(out, f);
		return;
	case PD_FEAT_CPU_TOPOLOGY: case PD_FEAT_NUMA_TOPOLOGY:
	case PD_FEAT_CACHE: case PD_FEAT_MEM_TOPOLOGY:
		sb_addf(out, "# %s info available, use -I to display\n", feat_names[bit]);
		return;
	case PD_FEAT_BRANCH_STACK:
		sb_addstr(out, "# contains samples with branch stack\n");
		return;
	case PD_FEAT_PMU_MAPPINGS: {
		if (!p || size < 4)
			break;
		uint32_t n = rd32(p);
		size_t at = out->len;
		off = 4;
		sb_add(out, "# pmu mappings: ", 16);
		if (!n)
			sb_addstr(out, "not available");
		for (uint32_t i = 0; i < n; i++) {
			if (off > size - 4)
				goto bad;
			uint32_t type = rd32(p + off);
			off += 4;
			size_t nat = out->len;
			if (!add_string(out, p, size, &off))
				goto bad;
			/* "name = type": the name was added first */
			struct strbuf name = STRBUF_INIT;
			sb_add(&name, out->buf + nat, out->len - nat);
			sb_setlen(out, nat);
			sb_addf(out, "%s%s = %" PRIu32, i ? ", " : "", name.buf, type);
			sb_release(&name);
		}
		sb_addch(out, '\n');
		return;
bad:
		sb_setlen(out, at);
		break;
	}
	case PD_FEAT_GROUP_DESC: {
		if (!p || size < 4)
			break;
		uint32_t n = rd32(p);
		off = 4;
		for (uint32_t i = 0; i < n; i++) {
			struct strbuf name = STRBUF_INIT;
			if (!add_string(&name, p, size, &off) || off > size - 8) {
				sb_release(&name);
				malformed(out, bit, size);
				return;
			}
			uint32_t leader = rd32(p + off), nr = rd32(p + off + 4);
			off += 8;
			if (nr > 1 && leader < f->nr_evsels && nr <= f->nr_evsels - leader) {
				sb_addf(out, "# group: %s{", strcmp(name.buf ? name.buf : "", "{anon_group}") && name.buf ? name.buf : "");
				for (uint32_t k = 0; k < nr; k++) {
					if (k)
						sb_addch(out, ',');
					sb_add_term(out, f->evsels[leader + k].name, strlen(f->evsels[leader + k].name));
				}
				sb_add(out, "}\n", 2);
			}
			sb_release(&name);
		}
		return;
	}
	case PD_FEAT_AUXTRACE:
		sb_addstr(out, "# contains AUX area data (e.g. instruction trace)\n");
		return;
	case PD_FEAT_STAT:
		sb_addstr(out, "# contains stat data\n");
		return;
	case PD_FEAT_SAMPLE_TIME: {
		if (!p || size < 16)
			break;
		uint64_t a = rd64(p), b = rd64(p + 8);
		sb_addf(out, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
			a / 1000000000u, a % 1000000000u / 1000u);
		sb_addf(out, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
			b / 1000000000u, b % 1000000000u / 1000u);
		sb_addf(out, "# sample duration : %10.3f ms\n", ((double)b - (double)a) / 1e6);
		return;
	}
	case PD_FEAT_CLOCKID:
		if (!p || size < 8)
			break;
		sb_addf(out, "# clockid frequency: %" PRIu64 " MHz\n", rd64(p) * 1000);
		return;
	case PD_FEAT_DIR_FORMAT:
		if (!p || size < 8)
			break;
		sb_addf(out, "# directory data version : %" PRIu64 "\n", rd64(p));
		return;
	case PD_FEAT_COMPRESSED:
		if (!p || size < 16)
			break;
		sb_addf(out, "# compressed : %s, level = %d, ratio = %d\n",
			rd32(p + 4) == 1 ? "Zstd" : "Unknown", (int)rd32(p + 8), (int)rd32(p + 12));
		return;
	case PD_FEAT_CLOCK_DATA: {
		if (!p || size < 24)
			break;
		uint32_t id = rd32(p + 4);
		uint64_t tod = rd64(p + 8), clk = rd64(p + 16);
		time_t sec = (time_t)(tod / 1000000000u);
		struct tm tm;
		char date[64] = "";
		if (localtime_r(&sec, &tm))
			strftime(date, sizeof(date), "%F %T", &tm);
		sb_addf(out, "# clockid: %s (%" PRIu32 ")\n", clockid_name(id), id);
		sb_addf(out, "# reference time: %s.%06" PRIu64 " = %" PRIu64 ".%06" PRIu64
			" (TOD) = %" PRIu64 ".%09" PRIu64 " (%s)\n", date,
			tod % 1000000000u / 1000u, tod / 1000000000u, tod % 1000000000u / 1000u,
			clk / 1000000000u, clk % 1000000000u, clockid_name(id));
		return;
	}
	default:   /* TRACING_DATA, BUILD_ID: nothing (perf: nothing without -I);
		      BPF_PROG_INFO, BPF_BTF, CPU_PMU_CAPS, HYBRID_TOPOLOGY,
		      PMU_CAPS: not shown (header.h) */
		return;
	}
	malformed(out, bit, size);
}

void pd_header_text(const struct pd_file *f, time_t captured, struct strbuf *out)
{
	struct tm tm;
	char when[64] = "?";
	uint64_t doff = f->pipe_mode ? 0 : f->hdr_data_offset;
	uint64_t dsize = f->pipe_mode ? 0 : f->hdr_data_size;

	/* ctime's layout, "Tue Dec  1 22:58:47 2026" */
	if (localtime_r(&captured, &tm))
		strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	sb_addf(out, "# ========\n# captured on    : %s\n# header version : 1\n", when);
	sb_addf(out, "# data offset    : %" PRIu64 "\n# data size      : %" PRIu64 "\n"
		"# feat offset    : %" PRIu64 "\n", doff, dsize, f->pipe_mode ? 0 : doff + dsize);
	if (f->pipe_mode) {
		sb_addstr(out, "# ========\n#\n");
		for (int bit = 1; bit < NR_FEAT_NAMES; bit++)
			if (has(f, bit) || (bit == PD_FEAT_EVENT_DESC && f->nr_evsels))
				add_feature(out, f, bit);
		return;
	}
	for (int bit = 1; bit < PD_FEAT_MAX; bit++)
		if (has(f, bit))
			add_feature(out, f, bit);
	sb_addstr(out, "# missing features: ");
	for (int bit = 1; bit < NR_FEAT_NAMES; bit++)
		if (!has(f, bit))
			sb_addf(out, "%s ", feat_names[bit]);
	sb_addstr(out, "\n# ========\n#\n");
}

size_t pd_event_groups(const struct pd_file *f, uint32_t *leader_of, char **name_of)
{
	const uint8_t *p = f->feat_body[PD_FEAT_GROUP_DESC];
	uint64_t size = f->feat_size[PD_FEAT_GROUP_DESC], off = 4;
	size_t taken = 0;
	bool *in = NULL;   /* in a group taken */

	for (size_t i = 0; i < f->nr_evsels; i++) {
		leader_of[i] = (uint32_t)i;
		if (name_of)
			name_of[i] = NULL;
	}
	if (!p || size < 4)
		return 0;
	uint32_t n = rd32(p);

	in = xcalloc(f->nr_evsels + 1, sizeof(*in));
	for (uint32_t g = 0; g < n; g++) {
		struct strbuf name = STRBUF_INIT;

		if (!add_string(&name, p, size, &off) || off > size - 8) {
			sb_release(&name);
			break;
		}
		uint32_t leader = rd32(p + off), nr = rd32(p + off + 4);
		bool free_ = nr > 1 && leader < f->nr_evsels && nr <= f->nr_evsels - leader;

		off += 8;
		for (uint32_t k = 0; free_ && k < nr; k++)
			free_ = !in[leader + k];
		if (free_) {
			for (uint32_t k = 0; k < nr; k++) {
				leader_of[leader + k] = leader;
				in[leader + k] = true;
			}
			if (name_of && strcmp(name.buf ? name.buf : "", "{anon_group}"))   /* "" is a name (perf's) */
				name_of[leader] = xstrdup(name.buf ? name.buf : "");
			taken++;
		}
		sb_release(&name);
	}
	free(in);
	return taken;
}
