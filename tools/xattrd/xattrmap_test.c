// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of the xattrmap rule engine: the examples of
 * virtiofsd's documentation, every rule type and scope, and malformed rules.
 */
#include <errno.h>
#include <string.h>

#include "xattrmap.h"
#include "kselftest_harness.h"

static void parse_ok(struct __test_metadata *_metadata, const char *rules, struct xmap *m)
{
	char err[256] = "";

	ASSERT_EQ(0, xmap_parse(rules, m, err, sizeof(err))) {
		TH_LOG("%s: %s", rules, err);
	}
}

/* The guest name's host name, or the errno's name. */
static const char *to_host(const struct xmap *m, const char *guest)
{
	static char out[256];
	int ret = xmap_to_host(m, guest, out, sizeof(out));

	if (ret == -EPERM)
		return "EPERM";
	if (ret == -EOPNOTSUPP)
		return "EOPNOTSUPP";
	if (ret)
		return "error";
	return out;
}

/* The host name's guest name, or "hidden". */
static const char *to_guest(const struct xmap *m, const char *host)
{
	static char out[256];
	int ret = xmap_to_guest(m, host, out, sizeof(out));

	return ret == 1 ? out : ret == 0 ? "hidden" : "error";
}

/* virtiofsd's example 1: everything under user.virtiofs. */
TEST(doc_prefix_all)
{
	struct xmap m;

	parse_ok(_metadata, ":prefix:all::user.virtiofs.::bad:all:::", &m);
	ASSERT_EQ(2, m.nr);
	EXPECT_STREQ("user.virtiofs.security.selinux", to_host(&m, "security.selinux"));
	EXPECT_STREQ("user.virtiofs.user.x", to_host(&m, "user.x"));
	EXPECT_STREQ("security.selinux", to_guest(&m, "user.virtiofs.security.selinux"));
	EXPECT_STREQ("hidden", to_guest(&m, "security.selinux"));
	EXPECT_STREQ("hidden", to_guest(&m, "user.x"));
	xmap_free(&m);
}

/* Example 2: '/' as separator, new lines between rules. */
TEST(doc_prefix_trusted_slash_separator)
{
	struct xmap m;

	parse_ok(_metadata, "/prefix/all/trusted./user.virtiofs./\n"
		 " /bad/server//trusted./\n"
		 " /bad/client/user.virtiofs.//\n"
		 " /ok/all///", &m);
	ASSERT_EQ(4, m.nr);
	EXPECT_STREQ("user.virtiofs.trusted.x", to_host(&m, "trusted.x"));
	EXPECT_STREQ("EPERM", to_host(&m, "user.virtiofs.trusted.x"));
	EXPECT_STREQ("user.y", to_host(&m, "user.y"));
	EXPECT_STREQ("trusted.x", to_guest(&m, "user.virtiofs.trusted.x"));
	EXPECT_STREQ("hidden", to_guest(&m, "trusted.host"));
	EXPECT_STREQ("user.y", to_guest(&m, "user.y"));
	xmap_free(&m);
}

/* Example 3: hide security.*, everything else passes. */
TEST(doc_hide_security)
{
	struct xmap m;

	parse_ok(_metadata, "/bad/all/security./security./ /ok/all///", &m);
	EXPECT_STREQ("EPERM", to_host(&m, "security.selinux"));
	EXPECT_STREQ("hidden", to_guest(&m, "security.selinux"));
	EXPECT_STREQ("user.a", to_host(&m, "user.a"));
	EXPECT_STREQ("user.a", to_guest(&m, "user.a"));
	xmap_free(&m);
}

/* The shorthand the comparison uses, and its expansion. */
TEST(map_with_key)
{
	struct xmap m;

	parse_ok(_metadata, ":map:security.selinux:trusted.virtiofs.:", &m);
	ASSERT_EQ(4, m.nr);
	EXPECT_EQ(XMAP_PREFIX, m.rules[0].type);
	EXPECT_EQ(XMAP_CLIENT | XMAP_SERVER, m.rules[0].scope);
	EXPECT_EQ(XMAP_BAD, m.rules[1].type);
	EXPECT_EQ(XMAP_SERVER, m.rules[1].scope);
	EXPECT_STREQ("security.selinux", m.rules[1].prepend);
	EXPECT_EQ(XMAP_BAD, m.rules[2].type);
	EXPECT_EQ(XMAP_CLIENT, m.rules[2].scope);
	EXPECT_STREQ("trusted.virtiofs.", m.rules[2].key);
	EXPECT_EQ(XMAP_OK, m.rules[3].type);
	EXPECT_STREQ("trusted.virtiofs.security.selinux", to_host(&m, "security.selinux"));
	EXPECT_STREQ("EPERM", to_host(&m, "trusted.virtiofs.security.selinux"));
	/* everything else passes through, the host's trusted.* included */
	EXPECT_STREQ("trusted.host.secret", to_host(&m, "trusted.host.secret"));
	EXPECT_STREQ("user.a", to_host(&m, "user.a"));
	EXPECT_STREQ("security.selinux", to_guest(&m, "trusted.virtiofs.security.selinux"));
	EXPECT_STREQ("hidden", to_guest(&m, "security.selinux"));
	EXPECT_STREQ("trusted.host.secret", to_guest(&m, "trusted.host.secret"));
	xmap_free(&m);
}

TEST(map_everything)
{
	struct xmap m;

	parse_ok(_metadata, ":map::user.virtiofs.:", &m);
	ASSERT_EQ(2, m.nr);
	EXPECT_STREQ("user.virtiofs.trusted.a", to_host(&m, "trusted.a"));
	EXPECT_STREQ("trusted.a", to_guest(&m, "user.virtiofs.trusted.a"));
	EXPECT_STREQ("hidden", to_guest(&m, "user.other"));
	xmap_free(&m);
}

/* Rules before a map, and scopes that apply to one direction only. */
TEST(scopes_and_first_match)
{
	struct xmap m;

	parse_ok(_metadata, ":ok:client:user.::"
		 ":unsupported:client:system.::"
		 ":prefix:server::user.host.:"
		 ":map:security.:user.guest.:", &m);
	EXPECT_STREQ("user.x", to_host(&m, "user.x"));
	EXPECT_STREQ("EOPNOTSUPP", to_host(&m, "system.posix_acl_access"));
	/* the server-only prefix rule does not touch client names */
	EXPECT_STREQ("user.guest.security.ima", to_host(&m, "security.ima"));
	/* the first server rule that matches wins */
	EXPECT_STREQ("z", to_guest(&m, "user.host.z"));
	EXPECT_STREQ("security.y", to_guest(&m, "user.guest.security.y"));
	xmap_free(&m);
}

/* A name that no rule matches is refused (client) or hidden (server). */
TEST(no_rule_matches)
{
	struct xmap m;

	parse_ok(_metadata, ":prefix:client:user.:user.vm.:", &m);
	EXPECT_STREQ("user.vm.user.a", to_host(&m, "user.a"));
	EXPECT_STREQ("EPERM", to_host(&m, "trusted.a"));
	EXPECT_STREQ("hidden", to_guest(&m, "user.vm.user.a"));
	xmap_free(&m);
}

TEST(too_long)
{
	struct xmap m;
	char name[256], out[64];

	parse_ok(_metadata, ":prefix:all::user.virtiofs.:", &m);
	memset(name, 'a', 255);
	name[255] = 0;
	EXPECT_EQ(-ERANGE, xmap_to_host(&m, name, out, sizeof(out)));
	xmap_free(&m);
}

/* Malformed rules: refused with the rule and the offset named. */
static const struct {
	const char *rules;
	const char *msg;
} bad_rules[] = {
	{ "", "rule 0, offset 0: no rules" },
	{ "   \n ", "rule 0, offset 0: no rules" },
	{ ":prefix", "rule 1, offset 0: no type" },
	{ ":frobnicate:all:::", "rule 1, offset 1: unknown type 'frobnicate'" },
	{ ":ok:everybody:::", "rule 1, offset 4: unknown scope 'everybody'" },
	{ ":ok:all", "rule 1, offset 4: no scope" },
	{ ":ok:all:", "rule 1, offset 8: no key" },
	{ ":ok:all::", "rule 1, offset 9: no prepend" },
	{ ":ok:all::: :bad", "rule 2, offset 11: no type" },
	{ ":map:security.selinux", "rule 1, offset 5: 'map' needs a key and a prepend" },
	{ ":map:a:b: :ok:all:::", "rule 2, offset 10: a 'map' rule must be the last rule" },
};

TEST(malformed)
{
	size_t i;

	for (i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++) {
		struct xmap m = { (void *)1, 99 };
		char err[256] = "";

		EXPECT_EQ(-1, xmap_parse(bad_rules[i].rules, &m, err, sizeof(err)));
		EXPECT_EQ(0, m.nr);
		EXPECT_EQ(NULL, m.rules);
		EXPECT_EQ(0, strncmp(err, bad_rules[i].msg, strlen(bad_rules[i].msg))) {
			TH_LOG("\"%s\": got \"%s\", want \"%s...\"", bad_rules[i].rules,
			       err, bad_rules[i].msg);
		}
	}
}

TEST_HARNESS_MAIN
