/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * maputil.h — the map steps the BPF programs share (BPF side only; include
 * after vmlinux.h and bpf_helpers.h).
 *
 * map_lookup_or_init(map, key, init): the value of key, created as a copy
 * of *init (BPF_NOEXIST, so a value another CPU created just before is
 * kept) when there is none; NULL only when the map is full.
 *
 * map_add(map, key, n, dropped): add n to the __u64 value of key, creating
 * it with n when absent; when another CPU created it meanwhile, add to
 * theirs; when the map is full, count one in *dropped.
 *
 * start_elapsed(start, key, ms, &delta): the time since the timestamp
 * (bpf_ktime_get_ns) that start holds for key, in microseconds (or
 * milliseconds with ms), the entry deleted; false when there is none or
 * the clock went backwards (a timestamp taken on another CPU).
 */
#ifndef PERFKIT_BPF_MAPUTIL_H
#define PERFKIT_BPF_MAPUTIL_H

static __always_inline void *map_lookup_or_init(void *map, const void *key, const void *init)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void map_add(void *map, const void *key, __u64 n, __u64 *dropped)
{
	__u64 *val = bpf_map_lookup_elem(map, key);

	if (val) {
		__sync_fetch_and_add(val, n);
	} else if (bpf_map_update_elem(map, key, &n, BPF_NOEXIST)) {
		val = bpf_map_lookup_elem(map, key);   /* raced with another CPU */
		if (val)
			__sync_fetch_and_add(val, n);
		else
			__sync_fetch_and_add(dropped, 1);
	}
}

static __always_inline bool start_elapsed(void *start, const void *key, bool ms, __u64 *delta)
{
	__u64 *tsp = bpf_map_lookup_elem(start, key), d;

	if (!tsp)
		return false;
	d = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(start, key);
	if ((__s64)d < 0)
		return false;
	*delta = d / (ms ? 1000000U : 1000U);
	return true;
}

#endif
