/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wakeup.h — ring buffer submission without a wakeup per event (BPF side
 * only).  Waking the reader for every event costs a context switch per
 * traced syscall; instead the reader is woken once RB_WAKEUP_BYTES are
 * waiting, and otherwise finds the events on its next timed poll (the tools
 * poll every 100 ms and then consume whatever is there).
 */
#ifndef PERFKIT_BPF_WAKEUP_H
#define PERFKIT_BPF_WAKEUP_H

#define RB_WAKEUP_BYTES (64 * 1024)

static __always_inline __u64 rb_wakeup_flags(void *rb)
{
	return bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= RB_WAKEUP_BYTES ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

#endif
