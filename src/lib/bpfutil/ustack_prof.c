/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ustack_prof.c — the eBPF tools' stacks in the aggregation model (see ustack_prof.h). */
#include "bpfutil/ustack_prof.h"

#include <stdio.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "bpfutil/ustack.h"

/* The markers' dso strings: the pointer tells a marker. */
static const char MISSING_USER[] = "[Missed User Stack]";
static const char MISSING_KERNEL[] = "[Missed Kernel Stack]";
static const char NO_FRAMES[] = "[no frames]";

static const char *const marker_dso[] = {
	[USTACK_MISSING_USER] = MISSING_USER,
	[USTACK_MISSING_KERNEL] = MISSING_KERNEL,
	[USTACK_NO_FRAMES] = NO_FRAMES,
};

void ustack_marker(struct pk_frame *f, enum ustack_marker_kind kind, const char *why)
{
	memset(f, 0, sizeof(*f));
	f->dso = marker_dso[kind];
	f->sym = why ? why : "";
	f->kernel = kind == USTACK_MISSING_KERNEL;
}

bool ustack_is_marker(const struct pk_frame *f, enum ustack_marker_kind kind)
{
	return f->dso == marker_dso[kind];
}

/* A frame's name as bcc's profile prints it (ustack.h): a user symbol's
 * ';' made ':', "[unknown]"; a kernel address without a symbol "0x...". */
static void add_name(struct strbuf *sb, const struct pk_frame *f)
{
	if (f->kernel && !f->sym) {
		sb_addf(sb, "0x%llx", (unsigned long long)f->ip);
		return;
	}
	size_t at = sb->len;
	sb_addstr(sb, f->sym ? f->sym : "[unknown]");
	if (!f->kernel)
		for (size_t i = at; i < sb->len; i++)
			if (sb->buf[i] == ';')
				sb->buf[i] = ':';
}

/* One stack of the model as ustack_render() lays it out (frames root
 * first: user marker, user outer..leaf, kernel marker, kernel outer..leaf). */
char *ustack_prof_render(const struct prof *p, uint32_t thread, const uint32_t *ids, size_t n, unsigned how)
{
	const struct prof_thread *t = prof_thread(p, thread);
	struct strbuf sb = STRBUF_INIT;
	char comm[17];
	size_t nk = 0, nu = 0;

	snprintf(comm, sizeof(comm), "%s", t->comm);
	if (how & USTACK_FOLDED) {
		bool user = false, delim = false;

		/* bcc's -d: "-" between the parts when both were collected */
		for (size_t i = 0; (how & USTACK_DELIMITED) && i < n; i++) {
			const struct pk_frame *f = prof_frame(p, ids[i]);

			if (f->dso == MISSING_USER || f->dso == MISSING_KERNEL) {
				delim = false;
				break;
			}
			user |= f->dso != NO_FRAMES && !f->kernel;
			delim |= user && f->kernel;
		}
		for (char *q = comm; *q; q++)
			if (*q == ';' || *q == ' ')
				*q = '_';
		sb_addstr(&sb, comm);
		for (size_t i = 0; i < n; i++) {
			const struct pk_frame *f = prof_frame(p, ids[i]);

			if (f->dso == NO_FRAMES)
				continue;
			if (delim && f->kernel) {
				sb_addstr(&sb, ";-");
				delim = false;
			}
			sb_addch(&sb, ';');
			if (f->dso == MISSING_USER || f->dso == MISSING_KERNEL)
				sb_addf(&sb, "[Missed %s Stack: %s]", f->dso == MISSING_USER ? "User" : "Kernel", f->sym);
			else
				add_name(&sb, f);
			if ((how & USTACK_ANNOTATE) && f->kernel && f->dso != MISSING_KERNEL)
				sb_addstr(&sb, "_[k]");
		}
		sb_term_escape_from(&sb, 0);   /* one stack, one line */
	} else {
		for (size_t i = 0; i < n; i++) {
			const struct pk_frame *f = prof_frame(p, ids[i]);

			if (f->dso != NO_FRAMES)
				*(f->kernel ? &nk : &nu) += 1;
		}
		/* kernel frames leaf first, then the user ones */
		for (int part = 1; part >= 0; part--) {
			if (!part && nk && nu && (how & USTACK_DELIMITED))
				sb_addstr(&sb, "    --\n");   /* -d, as libbpf-tools' */
			for (size_t i = n; i-- > 0;) {
				const struct pk_frame *f = prof_frame(p, ids[i]);

				if (f->dso == NO_FRAMES || f->kernel != (bool)part)
					continue;
				if (f->dso == MISSING_USER || f->dso == MISSING_KERNEL) {
					sb_addf(&sb, "    [Missed %s Stack: %s]\n",
						f->dso == MISSING_USER ? "User" : "Kernel", f->sym);
					continue;
				}
				sb_addstr(&sb, "    ");
				size_t at = sb.len;
				add_name(&sb, f);
				sb_term_escape_from(&sb, at);
				if ((how & USTACK_ANNOTATE) && f->kernel)
					sb_addstr(&sb, "_[k]");
				sb_addch(&sb, '\n');
			}
		}
		sb_addstr(&sb, "    -                ");
		sb_add_term(&sb, comm, strlen(comm));
		sb_addf(&sb, " (%d)\n", (int)t->pid);
	}
	return sb_detach(&sb, NULL);
}

static const char *intern(struct hashmap *names, const char *s)
{
	return s ? hm_intern(names, s, strlen(s)) : NULL;
}

void ustack_prof_frame(struct ustack_cache *c, struct hashmap *names, int pid, uint64_t ip, bool leaf,
		       bool kernel, struct pk_frame *f, const char **file)
{
	const char *dso = NULL;

	memset(f, 0, sizeof(*f));
	f->ip = ip;
	f->kernel = kernel;
	if (file)
		*file = NULL;
	if (kernel) {
		f->sym = intern(names, ustack_kernel_sym(c, ip, &f->sym_off));
		f->dso = "[kernel.kallsyms]";
		return;
	}
	f->sym = intern(names, ustack_user_sym(c, pid, ip, leaf, &f->sym_off, &dso, file));
	f->dso = dso ? intern(names, dso) : "[unknown]";
	if (!f->sym)
		f->sym_off = 0;
}

void ustack_prof_add(struct prof *p, struct hashmap *names, struct ustack_cache *c, const struct ustack_trace *t,
		     uint32_t pid, uint32_t tid, uint64_t period)
{
	size_t max = (size_t)(t->nk > 0 ? t->nk : 0) + (size_t)(t->nu > 0 ? t->nu : 0) + 2, n = 0;
	struct pk_frame *fr = xmalloc(max * sizeof(*fr));
	char comm[17];

	for (int i = 0; i < t->nk; i++)
		ustack_prof_frame(c, names, t->pid, t->kips[i], false, true, &fr[n++], NULL);
	if (t->kmissing)
		ustack_marker(&fr[n++], USTACK_MISSING_KERNEL, t->kmissing);
	for (int i = 0; i < t->nu; i++)
		ustack_prof_frame(c, names, t->pid, t->uips[i], i == 0, false, &fr[n++], NULL);
	if (t->umissing)
		ustack_marker(&fr[n++], USTACK_MISSING_USER, t->umissing);
	if (!n)
		ustack_marker(&fr[n++], USTACK_NO_FRAMES, NULL);
	snprintf(comm, sizeof(comm), "%.*s", 16, t->comm);
	prof_add(p, intern(names, comm), pid, tid, fr, n, period);
	free(fr);
}
