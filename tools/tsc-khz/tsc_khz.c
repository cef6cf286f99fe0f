// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_khz: the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over a quarter of a second.
 *
 * Under QEMU's TCG (without icount) a guest's TSC is the host's TSC, so it
 * ticks at this rate; scripts/host/boot.sh hands it to the guest kernel as
 * tsc_early_khz= so that the guest need not calibrate the TSC against the
 * emulated PIT, which fails on a loaded host and leaves the guest on a
 * jiffies clock (design/clocks.md). Prints nothing and exits 1 when the
 * TSC is not usable as a clock (not constant and non-stop).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

/* A (tsc, ns) pair read as close together as possible: the best of 20. */
static void sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX, a, b;
	struct timespec ts;
	int i;

	for (i = 0; i < 20; i++) {
		a = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		}
	}
}

/* Does /proc/cpuinfo list both flags that make the TSC a clock? */
static int tsc_is_clock(void)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int ok = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
			break;
		}
	fclose(f);
	return ok;
}

int main(void)
{
	struct timespec pause = { 0, 250000000 };
	uint64_t t0, n0, t1, n1;

	if (!tsc_is_clock()) {
		fprintf(stderr, "tsc_khz: the host's TSC is not constant and non-stop\n");
		return 1;
	}
	sample(&t0, &n0);
	nanosleep(&pause, NULL);
	sample(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 1;
	printf("%llu\n", (unsigned long long)((t1 - t0) * 1000000ull / (n1 - n0)));
	return 0;
}
