/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfmap.h — symbols for JIT-compiled code from /tmp/perf-PID.map, the
 * text file JITs (V8/node --perf-basic-prof, the JVM's perf-map-agent,
 * LuaJIT, .NET, …) write for perf.  Format, one entry a line:
 *
 *     START SIZE NAME
 *
 * START and SIZE in hex (with or without 0x), NAME the rest of the line,
 * spaces and any other bytes allowed (trailing '\r'/'\n' dropped).  Lines
 * that do not parse are skipped.  Later entries win over earlier ones that
 * cover the same address (a JIT reuses memory).
 *
 * Lookup is by process id (the map is per process, not per thread).  A map
 * is read on its first lookup and read again when the file has grown since
 * (the JIT appends) and an address was not found.  Names are owned by the
 * cache and live as long as it.
 */
#ifndef PERFKIT_SYMBOL_PERFMAP_H
#define PERFKIT_SYMBOL_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perfmap_cache;

/* dir: where the maps are (NULL: "/tmp"). */
struct perfmap_cache *perfmap_cache_new(const char *dir);
void perfmap_cache_free(struct perfmap_cache *c);
/* The number of processes the cache holds (a map, or the note of none). */
size_t perfmap_cache_nr(const struct perfmap_cache *c);

/* The name of the entry of pid's map covering addr, or NULL.  *name (may
 * be NULL) receives the map's path, "DIR/perf-PID.map", whether or not the
 * file exists: perf's DSO name for a process's JIT code, which it gives to
 * executable anonymous memory (tools/perf/util/map.c); *map_path (may be
 * NULL) the same path when the file exists (also when no entry covers
 * addr), else NULL; *sym_off (may be NULL) addr's offset from the entry's
 * start.  A missing map gives one pk_debug per pid, on the first lookup for
 * that pid with warn set (earlier lookups without it do not use it up): a
 * note shown with -v, as perf (silent otherwise). */
const char *perfmap_lookup(struct perfmap_cache *c, uint32_t pid, uint64_t addr, bool warn,
			   const char **name, const char **map_path, uint64_t *sym_off);
/* Whether path is a JIT map's, "/tmp/perf-PID.map" (any DIR: also that
 * of perfmap_cache_new), and its PID in *pid: perf shows such a DSO as
 * "[JIT] tid PID" (tools/perf/util/dsos.c). */
bool perfmap_path_pid(const char *path, unsigned *pid);
/* perf's short name of a JIT map's path, "[JIT] tid PID", written to buf
 * (size bytes); false (buf untouched) when path is not a JIT map's. */
bool perfmap_jit_name(const char *path, char *buf, size_t size);

#endif
