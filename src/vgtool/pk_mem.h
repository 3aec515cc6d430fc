/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pk_mem.h — the c2c / mem mode of the pkcache Valgrind tool (pk_mem.c),
 * selected with --pk-mode=c2c|mem.  pk_main.c parses the options, sets up
 * the cache hierarchy and hands over instrumentation, client requests,
 * thread events and the output at exit.  The model and the output format
 * are described at the top of pk_mem.c.
 */
#ifndef PK_MEM_H
#define PK_MEM_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "cachesim/cachesim.h"

enum pkm_mode { PKM_OFF, PKM_C2C, PKM_MEM };

/* h: the hierarchy to simulate data accesses in (PKM_MEM; NULL for c2c);
 * desc: lines describing its geometry, written to the output as they are. */
void pkm_init(enum pkm_mode mode, struct pk_hier *h);
IRSB *pkm_instrument(IRSB *in, IRType gWordTy, IRType hWordTy);
Bool pkm_client_request(ThreadId tid, UWord *args, UWord *ret);
void pkm_thread_create(ThreadId parent, ThreadId child);
void pkm_thread_exit(ThreadId tid);
void pkm_start_client(ThreadId tid, ULong nblocks);
/* write the output file (the output-file rules: no link followed, a 0600
 * temporary renamed over the path); desc: NULL-terminated header lines */
void pkm_fini(const HChar *path, const HChar *const *desc);

#endif
