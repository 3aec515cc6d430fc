/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata/header.h — a perf.data file's header as text, the lines of perf
 * 6.1's `perf report --header-only` (tools/perf/util/header.c,
 * perf_header__fprintf and the features' print functions; attributes as
 * util/perf_event_attr_fprintf.c prints them):
 *
 *   # ========
 *   # captured on    : <ctime of the file's mtime>
 *   # header version : 1
 *   # data offset    : N          (0 for pipe-mode data, as perf)
 *   # data size      : N
 *   # feat offset    : N          (data offset + data size)
 *   then one block per feature present, in feature-bit order:
 *     hostname, os release, perf version, arch, nrcpus online/avail,
 *     cpudesc, cpuid, total memory ("N kB"), cmdline (each argument
 *     followed by a space), event ("# event : name = NAME, , id = { … },
 *     attr = value, …": every non-zero attribute, in perf's order),
 *     CPU_TOPOLOGY / NUMA_TOPOLOGY / CACHE / MEM_TOPOLOGY ("info available,
 *     use -I to display"), branch stack, pmu mappings, group, AUX area,
 *     stat data, time of first/last sample and duration, clockid
 *     frequency, directory data version, compressed, clockid and
 *     reference time (CLOCK_DATA, in local time as perf);
 *   # missing features: NAME … (the clear bits of 1..31, each + " ")
 *   # ========
 *   #
 * Pipe-mode data has no section table: the first six lines show zeros,
 * then "# ========" and "#", then the features it carried, and no missing
 * list (as perf prints it).
 *
 * Not shown (perf prints them when present): BPF_PROG_INFO and BPF_BTF
 * (programs loaded at record time), CPU_PMU_CAPS, HYBRID_TOPOLOGY,
 * PMU_CAPS.  A feature section too short for its layout is shown as
 * "# NAME : (N-byte section, malformed)".
 */
#ifndef PERFKIT_PERFDATA_HEADER_H
#define PERFKIT_PERFDATA_HEADER_H

#include "base/strbuf.h"
#include "perfdata/perfdata.h"

#include <time.h>

/* Append f's header text to out; captured: the file's modification time
 * (perf's "captured on"). */
void pd_header_text(const struct pd_file *f, time_t captured, struct strbuf *out);

/* Append a's attributes to out as perf prints them
 * (perf_event_attr__fprintf, perf's order): ", NAME<eq>VALUE" for each
 * non-zero one ("type", "size", "config", "{ sample_period, sample_freq }",
 * "sample_type" as IP|TID|..., ...); eq is " = " in the header's
 * "# event :" lines, ": " in `perf evlist -v`. */
void pd_attr_text(const struct perf_event_attr *a, const char *eq, struct strbuf *out);

/* perf's name of feature bit (HEADER_* without the prefix: "EVENT_DESC",
 * "TRACING_DATA"), or NULL for a bit perf 6.1 does not name. */
const char *pd_feature_name(int bit);

/* HEADER_GROUP_DESC's groups of two or more events (perf.data-file-
 * format.txt: a u32 count, then per group a string name, u32 leader index,
 * u32 number of members; perf writes "{anon_group}" for a group without a
 * name): leader_of[i] (f->nr_evsels entries) the index of event i's group
 * leader, i itself outside a group; name_of[i] (may be NULL) for a leader
 * its group's name, a copy to free() ("" for an empty one, as perf
 * prints it), or NULL (anonymous "{anon_group}", or no group).
 * Groups that overlap, run past the events or leave out their leader's
 * index are ignored.  Returns the number of groups taken (0: none, also
 * without the feature or when malformed). */
size_t pd_event_groups(const struct pd_file *f, uint32_t *leader_of, char **name_of);

#endif
