/* SPDX-License-Identifier: GPL-2.0 */
/*
 * switches.h: the series' two sysctls as the guest tools that report KTAP
 * see them (tools/xattr-archive, tools/xattr-containers). Each boot sets
 * both the same: on the command line, or later once from 0 to 1.
 */
#ifndef TOOLS_SWITCHES_H
#define TOOLS_SWITCHES_H

#include <unistd.h>
#include "ktap.h"

#define SW_USER		"/proc/sys/fs/xattr_user_special"
#define SW_TRUSTED	"/proc/sys/fs/xattr_trusted_userns"

/* -1 on a kernel without them (stock), else 0 or 1; bails if they differ */
static int sw_boot(void)
{
	char a[8] = "", b[8] = "";
	FILE *f;

	if (access(SW_USER, F_OK) || access(SW_TRUSTED, F_OK))
		return -1;
	f = fopen(SW_USER, "re");
	if (!f || !fgets(a, sizeof(a), f))
		ktap_bail("%s", SW_USER);
	fclose(f);
	f = fopen(SW_TRUSTED, "re");
	if (!f || !fgets(b, sizeof(b), f))
		ktap_bail("%s", SW_TRUSTED);
	fclose(f);
	if (strcmp(a, b))
		ktap_bail("the switches differ (%.*s, %.*s): boot with both 0 or both 1",
			  (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	return atoi(a);
}

#endif
