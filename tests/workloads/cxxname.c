/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxxname — functions with C++ (mangled) symbol names, written in C with
 * asm labels, for funclatency's BINARY:FUNCTION split at the first ':'
 * and its demangled-name lookup:
 *   ns::Acc<double>::add(double)   _ZN2ns3AccIdE3addEd
 *   ns::over(int), ns::over(double) (overloads: _ZN2ns4overEi, _ZN2ns4overEd)
 *   mid(int)                       _Z3midi (a plain name, no namespace)
 *   cxxname [N]   calls add N times (default 7), 1 ms apart, and each
 *                 overload once, and mid 3 times.
 */
#include <stdlib.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) double acc_add(double x) __asm__("_ZN2ns3AccIdE3addEd");
__attribute__((noinline)) int over_i(int x) __asm__("_ZN2ns4overEi");
__attribute__((noinline)) double over_d(double x) __asm__("_ZN2ns4overEd");
__attribute__((noinline)) int mid_i(int x) __asm__("_Z3midi");

int mid_i(int x)
{
	sink += x;
	return x * 2;
}

double acc_add(double x)
{
	sink += x;
	return sink;
}

int over_i(int x)
{
	sink += x;
	return x + 1;
}

double over_d(double x)
{
	sink += x;
	return x + 1;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 1000 * 1000 };
	int n = argc > 1 ? atoi(argv[1]) : 7;

	for (int i = 0; i < n; i++) {
		acc_add(i);
		nanosleep(&ts, NULL);
	}
	over_i(1);
	over_d(1.0);
	for (int i = 0; i < 3; i++)
		mid_i(i);
	return 0;
}
