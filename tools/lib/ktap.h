/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h: the KTAP output of the C tools that report test results
 * (tools/xattr-archive, tools/xattr-containers); scripts/report/ktap.awk
 * reads it, as it reads the kselftests'. The shell scripts have theirs in
 * scripts/report/ktap.sh.
 *   ktap_result(ok, fmt, ...)  "ok N ..." or "not ok N ..."
 *   ktap_bail(fmt, ...)        "Bail out! ...: <errno's text>", exit 1
 *   ktap_count                 the results so far (the plan, when it is
 *                              printed last)
 */
#ifndef TOOLS_KTAP_H
#define TOOLS_KTAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ktap_count;

static void ktap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void ktap_bail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fflush(stdout);
	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(err));
	exit(1);
}

static void ktap_result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ktap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++ktap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#endif
