/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pidseen.h — tell user space about a process while it lives (BPF side
 * only), so its mappings can be read before it exits (bpfutil/ustack.h).
 *
 * pid_seen_note(tgid): the first time a process is seen, and again as it
 * keeps being seen, put its tgid on the pid_events ring buffer, with a
 * wakeup, so the reader takes the snapshot at once.  Mappings change most
 * while a process is young (the dynamic loader maps its libraries after the
 * first switches), so the gap between announcements doubles from
 * PIDSEEN_FIRST_NS (first seen +1 ms, +2, +4, ...) up to PIDSEEN_REFRESH_NS
 * (libraries loaded later): about ten announcements in a process's first
 * second, then one a second.  pid_seen is an LRU map: memory stays
 * bounded however many processes come and go.
 */
#ifndef PERFKIT_BPF_PIDSEEN_H
#define PERFKIT_BPF_PIDSEEN_H

#define PIDSEEN_FIRST_NS   1000000ULL
#define PIDSEEN_REFRESH_NS 1000000000ULL

struct pid_seen_val {
	__u64 first, last;
};

__u64 pid_notes_lost;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct pid_seen_val);
} pid_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} pid_events SEC(".maps");

static __always_inline void pid_seen_note(__u32 tgid)
{
	struct pid_seen_val *v = bpf_map_lookup_elem(&pid_seen, &tgid), nv;
	__u64 now = bpf_ktime_get_ns();
	__u32 *e;

	if (v) {
		__u64 gap = v->last - v->first;
		if (gap < PIDSEEN_FIRST_NS)
			gap = PIDSEEN_FIRST_NS;
		if (gap > PIDSEEN_REFRESH_NS)
			gap = PIDSEEN_REFRESH_NS;
		if (now - v->last < gap)
			return;
		v->last = now;
	} else {
		nv.first = nv.last = now;
		bpf_map_update_elem(&pid_seen, &tgid, &nv, BPF_ANY);
	}
	e = bpf_ringbuf_reserve(&pid_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&pid_notes_lost, 1);
		return;
	}
	*e = tgid;
	bpf_ringbuf_submit(e, 0);
}

#endif
