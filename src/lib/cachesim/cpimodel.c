/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpimodel.c — cycles from simulated counts; see cpimodel.h. */
#include "cachesim/cpimodel.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/outfile.h"
#include "base/strbuf.h"

const char *const cpi_class_key[CPI_NCLASS] = { "l1", "l2", "ll", "tlb", "walk", "bmiss" };
const char *const cpi_class_label[CPI_NCLASS] = {
	"L1 misses", "L2 misses", "LL misses", "TLB misses", "page walks", "mispredicts",
};

/* Which events feed which class (cpimodel.h, THE FORMULA). */
static const struct {
	const char *ev;
	int cls;          /* -1: instructions */
} ev_class[] = {
	{ "Ir", -1 },
	{ "I1mr", CPI_L1 }, { "D1mr", CPI_L1 }, { "D1mw", CPI_L1 },
	{ "I2mr", CPI_L2 }, { "D2mr", CPI_L2 }, { "D2mw", CPI_L2 }, { "PW2m", CPI_L2 },
	{ "ILmr", CPI_LL }, { "DLmr", CPI_LL }, { "DLmw", CPI_LL }, { "PWLm", CPI_LL },
	{ "DTmr", CPI_TLB }, { "DTmw", CPI_TLB },
	{ "STmr", CPI_WALK }, { "STmw", CPI_WALK },
	{ "Bcm", CPI_BMISS }, { "Bim", CPI_BMISS }, { "Brm", CPI_BMISS },
};

void cpi_params_default(struct cpi_params *p)
{
	static const double pen[CPI_NCLASS] = { 6, 30, 150, 8, 30, 15 };

	memset(p, 0, sizeof(*p));
	p->base_cpi = 0.40;
	memcpy(p->pen, pen, sizeof(pen));
}

int cpi_counts_from_events(const char *const *names, const uint64_t *vals, size_t n,
			   struct cpi_counts *c)
{
	bool have_ir = false;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(ev_class) / sizeof(ev_class[0]); k++) {
			if (strcmp(names[i], ev_class[k].ev))
				continue;
			if (ev_class[k].cls < 0) {
				c->instr += (double)vals[i];
				have_ir = true;
			} else {
				c->n[ev_class[k].cls] += (double)vals[i];
				c->have[ev_class[k].cls] = true;
			}
		}
	if (!have_ir)
		return pk_error(EINVAL, "no instruction count (event Ir) among the simulated events");
	return 0;
}

double cpi_predict(const struct cpi_params *p, const struct cpi_counts *c,
		   struct cpi_breakdown *b)
{
	struct cpi_breakdown tmp;

	if (!b)
		b = &tmp;
	b->compute = p->base_cpi * c->instr;
	b->total = b->compute;
	for (int k = 0; k < CPI_NCLASS; k++) {
		b->part[k] = c->have[k] ? p->pen[k] * c->n[k] : 0;
		b->total += b->part[k];
	}
	return b->total;
}

double cpi_cachegrind_cycles(const struct cpi_counts *c)
{
	return c->instr + 10 * c->n[CPI_BMISS] + 10 * c->n[CPI_L1] + 100 * c->n[CPI_LL];
}

#define NCOL (CPI_NCLASS + 1)

/* Σ (ln predicted − ln measured)² */
static double log_err(const struct cpi_params *p, const struct cpi_counts *c, const double *y, size_t n)
{
	double e = 0;

	for (size_t i = 0; i < n; i++) {
		double pr = cpi_predict(p, &c[i], NULL);
		double d = log(pr > 1e-12 ? pr : 1e-12) - log(y[i]);
		e += d * d;
	}
	return e;
}

static double *param(struct cpi_params *p, int j)
{
	return j == 0 ? &p->base_cpi : &p->pen[j - 1];
}

/* Coordinate search on the log error: each used constant multiplied or
 * divided by a step (4 down to 1.02), or set to 0 (penalties), or, when 0,
 * to its default; the best single move is taken until none helps. */
static void log_search(struct cpi_params *p, const bool *used, const struct cpi_counts *c,
		       const double *y, size_t n)
{
	static const double steps[] = { 4, 2, 1.5, 1.2, 1.1, 1.05, 1.02 };
	struct cpi_params def;
	double best = log_err(p, c, y, n);

	cpi_params_default(&def);
	for (size_t si = 0; si < sizeof(steps) / sizeof(steps[0]); si++) {
		for (int it = 0; it < 400; it++) {
			struct cpi_params bp = *p;
			double be = best;
			for (int j = 0; j < NCOL; j++) {
				if (!used[j])
					continue;
				double v = *param(p, j), lo = j == 0 ? CPI_BASE_MIN : 0;
				double cand[4] = { v * steps[si], v / steps[si], lo, *param(&def, j) };
				for (int t = 0; t < 4; t++) {
					if (cand[t] < lo || cand[t] == v || (t == 3 && v != 0))
						continue;
					struct cpi_params q = *p;
					*param(&q, j) = cand[t];
					double e = log_err(&q, c, y, n);
					if (e < be - 1e-12) {
						be = e;
						bp = q;
					}
				}
			}
			if (!(be < best))
				break;
			best = be;
			*p = bp;
		}
	}
}

static double col(const struct cpi_counts *c, int j)
{
	return j == 0 ? c->instr : c->n[j - 1];
}

int cpi_fit(const struct cpi_counts *c, const double *y, size_t n, struct cpi_params *p)
{
	double g[NCOL][NCOL] = { { 0 } }, b[NCOL] = { 0 }, x[NCOL], scale[NCOL];
	bool used[NCOL];

	if (n < 2)
		return pk_error(EINVAL, "a fit needs at least two measurements, got %zu", n);
	for (size_t i = 0; i < n; i++)
		if (!(y[i] > 0) || !isfinite(y[i]))
			return pk_error(EINVAL, "measurement %zu is not a positive number of cycles", i + 1);
	/* normal equations of the weighted problem, columns scaled to unit
	 * diagonal so the coordinate steps are well conditioned */
	for (size_t i = 0; i < n; i++) {
		double w = 1.0 / (y[i] * y[i]);
		for (int j = 0; j < NCOL; j++) {
			for (int k = 0; k < NCOL; k++)
				g[j][k] += w * col(&c[i], j) * col(&c[i], k);
			b[j] += w * col(&c[i], j) * y[i];
		}
	}
	for (int j = 0; j < NCOL; j++) {
		used[j] = g[j][j] > 0;
		scale[j] = used[j] ? sqrt(g[j][j]) : 1;
		x[j] = (j == 0 ? p->base_cpi : p->pen[j - 1]) * scale[j];
		if (!used[j])
			x[j] = 0;
	}
	if (used[0] && x[0] < CPI_BASE_MIN * scale[0])
		x[0] = CPI_BASE_MIN * scale[0];
	for (int j = 0; j < NCOL; j++) {
		for (int k = 0; k < NCOL; k++)
			g[j][k] /= scale[j] * scale[k];
		b[j] /= scale[j];
	}
	for (int it = 0; it < 20000; it++) {
		double moved = 0;
		for (int j = 0; j < NCOL; j++) {
			if (!used[j])
				continue;
			double r = b[j];
			for (int k = 0; k < NCOL; k++)
				r -= g[j][k] * x[k];
			double nx = x[j] + r / g[j][j], lo = j == 0 ? CPI_BASE_MIN * scale[0] : 0;
			if (nx < lo)
				nx = lo;
			moved += fabs(nx - x[j]);
			x[j] = nx;
		}
		if (moved < 1e-13)
			break;
	}
	/* the relative-error solution, then the log-error search from the
	 * better of it and the starting values */
	struct cpi_params start = *p, nn = *p;
	if (used[0])
		nn.base_cpi = x[0] / scale[0];
	for (int k = 0; k < CPI_NCLASS; k++) {
		nn.fitted[k] = used[k + 1];
		if (used[k + 1])
			nn.pen[k] = x[k + 1] / scale[k + 1];
	}
	for (int k = 0; k < CPI_NCLASS; k++)
		start.fitted[k] = used[k + 1];
	if (start.base_cpi < CPI_BASE_MIN)
		start.base_cpi = CPI_BASE_MIN;
	*p = log_err(&nn, c, y, n) <= log_err(&start, c, y, n) ? nn : start;
	log_search(p, used, c, y, n);
	return 0;
}

static void ranks(const double *v, size_t n, double *r)
{
	for (size_t i = 0; i < n; i++) {
		size_t less = 0, equal = 0;
		for (size_t j = 0; j < n; j++) {
			if (v[j] < v[i])
				less++;
			else if (v[j] == v[i])
				equal++;
		}
		r[i] = (double)less + (double)(equal + 1) / 2.0;   /* average rank, 1-based */
	}
}

int cpi_spearman(const double *x, const double *y, size_t n, double *rho)
{
	if (n < 2)
		return pk_error(EINVAL, "a rank correlation needs at least two points, got %zu", n);
	double *rx = calloc(2 * n, sizeof(double));
	if (!rx)
		return pk_error(ENOMEM, "out of memory");
	double *ry = rx + n, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

	ranks(x, n, rx);
	ranks(y, n, ry);
	for (size_t i = 0; i < n; i++) {
		mx += rx[i];
		my += ry[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	free(rx);
	if (!(sxx > 0) || !(syy > 0))
		return pk_error(EINVAL, "a rank correlation of a constant series is undefined");
	*rho = sxy / sqrt(sxx * syy);
	return 0;
}

int cpi_params_path(char *buf, size_t len)
{
	const char *e = getenv("PERFKIT_CPIMODEL"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int n;

	if (e && *e)
		n = snprintf(buf, len, "%s", e);
	else if (x && *x == '/')
		n = snprintf(buf, len, "%s/perfkit/cpimodel", x);
	else if (h && *h == '/')
		n = snprintf(buf, len, "%s/.cache/perfkit/cpimodel", h);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= len)
		return pk_error(ENAMETOOLONG, "the calibration file's path is too long");
	return 0;
}

static void copy_text(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = (src[i] == '\n' || src[i] == '\r') ? ' ' : src[i];
	dst[i] = 0;
}

int cpi_params_read(const char *path, struct cpi_params *p)
{
	FILE *f = fopen(path, "re");
	char line[512];
	unsigned lineno = 0;
	bool seen[CPI_NCLASS + 1] = { false }, version = false;

	if (!f) {
		int err = errno;
		if (err == ENOENT)
			return -ENOENT;
		return pk_error(err, "cannot read '%s': %s", path, strerror(err));
	}
	cpi_params_default(p);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t l = strlen(line);
		if (l && line[l - 1] != '\n' && !feof(f)) {
			fclose(f);
			return pk_error(EINVAL, "%s:%u: line longer than %zu bytes", path, lineno, sizeof(line) - 2);
		}
		line[strcspn(line, "\r\n")] = 0;
		char *k = line + strspn(line, " \t");
		if (!*k || *k == '#')
			continue;
		char *v = k + strcspn(k, " \t");
		if (*v)
			*v++ = 0;
		v += strspn(v, " \t");
		if (!strcmp(k, "host")) {
			copy_text(p->host, sizeof(p->host), v);
			continue;
		}
		if (!strcmp(k, "date")) {
			copy_text(p->date, sizeof(p->date), v);
			continue;
		}
		if (!strcmp(k, "freq_source")) {
			copy_text(p->freq_source, sizeof(p->freq_source), v);
			continue;
		}
		if (!strcmp(k, "spearman")) {
			copy_text(p->spearman, sizeof(p->spearman), v);
			continue;
		}
		char *end;
		errno = 0;
		double d = strtod(v, &end);
		if (!*v || *end || errno || !isfinite(d) || d < 0) {
			fclose(f);
			return pk_error(EINVAL, "%s:%u: '%s' expects a non-negative number, got '%s'",
					path, lineno, k, v);
		}
		if (!strcmp(k, "version")) {
			if (d != 1) {
				fclose(f);
				return pk_error(EINVAL, "%s:%u: version %s is not one this perfkit reads (1)",
						path, lineno, v);
			}
			version = true;
		} else if (!strcmp(k, "base_cpi")) {
			p->base_cpi = d;
			seen[0] = true;
		} else if (!strcmp(k, "freq_mhz")) {
			p->freq_mhz = d;
		} else {
			int c = 0;
			while (c < CPI_NCLASS && strcmp(k, cpi_class_key[c]))
				c++;
			if (c == CPI_NCLASS) {
				fclose(f);
				return pk_error(EINVAL, "%s:%u: unknown key '%s'", path, lineno, k);
			}
			p->pen[c] = d;
			seen[c + 1] = true;
		}
	}
	bool rerr = ferror(f);
	fclose(f);
	if (rerr)
		return pk_error(EIO, "cannot read '%s'", path);
	if (!version)
		return pk_error(EINVAL, "%s: no 'version' line: not a perfkit calibration file", path);
	for (int c = 0; c <= CPI_NCLASS; c++)
		if (!seen[c])
			return pk_error(EINVAL, "%s: no '%s' line", path, c ? cpi_class_key[c - 1] : "base_cpi");
	p->calibrated = true;
	for (int c = 0; c < CPI_NCLASS; c++)
		p->fitted[c] = true;
	return 0;
}

int cpi_params_write(const char *path, const struct cpi_params *p)
{
	struct outfile of;
	int err = of_open(&of, path);

	if (err)
		return err;
	fprintf(of.f, "# perfkit CPI model calibration (perfkit calibrate); see src/lib/cachesim/cpimodel.h\n");
	fprintf(of.f, "version 1\n");
	if (p->host[0])
		fprintf(of.f, "host %s\n", p->host);
	if (p->date[0])
		fprintf(of.f, "date %s\n", p->date);
	fprintf(of.f, "freq_mhz %.3f\n", p->freq_mhz);
	if (p->freq_source[0])
		fprintf(of.f, "freq_source %s\n", p->freq_source);
	if (p->spearman[0])
		fprintf(of.f, "spearman %s\n", p->spearman);
	fprintf(of.f, "base_cpi %.6g\n", p->base_cpi);
	for (int c = 0; c < CPI_NCLASS; c++)
		fprintf(of.f, "%s %.6g\n", cpi_class_key[c], p->pen[c]);
	if (ferror(of.f)) {
		of_abort(&of);
		return pk_error(EIO, "cannot write '%s'", path);
	}
	return of_commit(&of);
}

int cpi_host_mhz(const char *root, double *mhz, const char **source)
{
	char path[4096], line[256];
	double sum = 0;
	int n = 0;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root ? root : "");
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		double v;
		if (!strncmp(line, "cpu MHz", 7) && sscanf(line + strcspn(line, ":"), ": %lf", &v) == 1 &&
		    v > 0 && isfinite(v)) {
			sum += v;
			n++;
		}
	}
	if (f)
		fclose(f);
	if (n) {
		*mhz = sum / n;
		*source = "/proc/cpuinfo \"cpu MHz\"";
		return 0;
	}
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
		 root ? root : "");
	f = fopen(path, "re");
	double khz = 0;
	if (f) {
		if (fscanf(f, "%lf", &khz) != 1)
			khz = 0;
		fclose(f);
	}
	if (khz > 0 && isfinite(khz)) {
		*mhz = khz / 1000;
		*source = "cpufreq cpuinfo_max_freq";
		return 0;
	}
	return -ENOENT;
}

static double share(double part, double total)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.0f", total > 0 ? 100 * part / total : 0);
	return strtod(buf, NULL);
}

void cpi_reading(const struct cpi_breakdown *b, struct strbuf *out)
{
	if (!(b->total > 0))
		return;
	double miss = 0, top = 0;
	int topk = CPI_L1;

	for (int k = 0; k < CPI_NCLASS; k++) {
		if (k == CPI_BMISS)
			continue;
		miss += b->part[k];
		if (b->part[k] > top) {
			top = b->part[k];
			topk = k;
		}
	}
	double m = share(miss, b->total), br = share(b->part[CPI_BMISS], b->total);
	double cp = share(b->compute, b->total);
	bool said = false;

	if (m >= CPI_MEMORY_BOUND_PCT) {
		sb_addf(out, "memory-bound: %.0f%% of the model's cycles wait on cache and TLB misses (at least %d%%), the most on %s (%.0f%%); look at data layout and access order.\n",
			m, CPI_MEMORY_BOUND_PCT, cpi_class_label[topk], share(top, b->total));
		said = true;
	}
	if (br >= CPI_BRANCHY_PCT) {
		sb_addf(out, "branchy: %.0f%% of the model's cycles are mispredicted branches (at least %d%%); make the branch predictable (sort the data) or remove it (branchless code).\n",
			br, CPI_BRANCHY_PCT);
		said = true;
	}
	if (!said && cp >= CPI_COMPUTE_PCT)
		sb_addf(out, "compute-bound: %.0f%% of the model's cycles are instructions executing (at least %d%%), %.0f%% misses, %.0f%% mispredicts; to go faster, do less work.\n",
			cp, CPI_COMPUTE_PCT, m, br);
	else if (!said)
		sb_addf(out, "mixed: %.0f%% of the model's cycles compute, %.0f%% wait on misses (the most on %s), %.0f%% mispredicts; no single limit.\n",
			cp, m, cpi_class_label[topk], br);
}
