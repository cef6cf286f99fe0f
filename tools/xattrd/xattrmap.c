// SPDX-License-Identifier: GPL-2.0
/*
 * xattrmap: virtiofsd's --xattrmap rules.
 *
 * Syntax: rules follow each other, optionally separated by white space.
 * Each rule starts with its separator character, which then ends every
 * field of that rule:
 *
 *   <s>type<s>scope<s>key<s>prepend<s>     type: prefix, ok, bad, unsupported
 *                                           scope: client, server, all
 *   <s>map<s>key<s>prepend<s>               shorthand, only as the last rule
 *
 * Client direction (a guest name for set/get/remove): the first rule whose
 * scope includes the client and whose key is a prefix of the name decides:
 * prefix gives prepend + name, ok gives the name, bad EPERM, unsupported
 * EOPNOTSUPP. A name that no rule matches is refused with EPERM, as C
 * virtiofsd does (the Rust virtiofsd panics: "unterminated mapping"); the
 * daemon turns a refused getxattr into ENODATA, as both do.
 *
 * Server direction (a host name from listxattr): the first rule whose scope
 * includes the server and whose prepend is a prefix of the name decides:
 * prefix strips prepend, ok passes the name, bad and unsupported hide it.
 * A name that no rule matches is hidden.
 *
 * ":map:key:prepend:" expands, as in virtiofsd, to
 *   :prefix:all:key:prepend:
 * and, for an empty key (map everything),
 *   :bad:all:::                      (hide the host's unprefixed names)
 * or, for a key,
 *   :bad:server::key:                (hide the host's own key entries)
 *   :bad:client:prepend::            (the guest may not name the target)
 *   :ok:all:::                       (everything else passes)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xattrmap.h"

static void seterr(char *err, size_t len, size_t rule, size_t pos,
		   const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !len)
		return;
	n = snprintf(err, len, "rule %zu, offset %zu: ", rule, pos);
	if (n < 0 || (size_t)n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
}

void xmap_free(struct xmap *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->rules[i].key);
		free(m->rules[i].prepend);
	}
	free(m->rules);
	m->rules = NULL;
	m->nr = 0;
}

static int add(struct xmap *m, enum xmap_type type, int scope,
	       const char *key, const char *prepend)
{
	struct xmap_rule *r = realloc(m->rules, (m->nr + 1) * sizeof(*r));

	if (!r)
		return -1;
	m->rules = r;
	r = &m->rules[m->nr];
	r->type = type;
	r->scope = scope;
	r->key = strdup(key);
	r->prepend = strdup(prepend);
	if (!r->key || !r->prepend) {
		free(r->key);
		free(r->prepend);
		return -1;
	}
	m->nr++;
	return 0;
}

/*
 * Read the field at *p up to the separator into buf; advance *p past the
 * separator. Returns 0, or -1 when the separator is missing.
 */
static int field(const char **p, char sep, char *buf, size_t len)
{
	const char *end = strchr(*p, sep);

	if (!end || (size_t)(end - *p) >= len)
		return -1;
	memcpy(buf, *p, end - *p);
	buf[end - *p] = 0;
	*p = end + 1;
	return 0;
}

int xmap_parse(const char *rules, struct xmap *m, char *err, size_t errlen)
{
	const char *p = rules;
	size_t nrule = 0;
	bool after_map = false;

	m->rules = NULL;
	m->nr = 0;
	for (;;) {
		char type[32], scope[32], key[256], prepend[256], sep;
		const char *start;
		enum xmap_type t;
		int s;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		nrule++;
		start = p;
		if (after_map) {
			seterr(err, errlen, nrule, p - rules,
			       "a 'map' rule must be the last rule");
			goto fail;
		}
		sep = *p++;
		if (field(&p, sep, type, sizeof(type))) {
			seterr(err, errlen, nrule, start - rules,
			       "no type (a rule is <sep>type<sep>scope<sep>key<sep>prepend<sep>)");
			goto fail;
		}
		if (!strcmp(type, "map")) {
			if (field(&p, sep, key, sizeof(key)) ||
			    field(&p, sep, prepend, sizeof(prepend))) {
				seterr(err, errlen, nrule, p - rules,
				       "'map' needs a key and a prepend, each ended by '%c'", sep);
				goto fail;
			}
			if (add(m, XMAP_PREFIX, XMAP_CLIENT | XMAP_SERVER, key, prepend))
				goto nomem;
			if (!*key) {
				if (add(m, XMAP_BAD, XMAP_CLIENT | XMAP_SERVER, "", ""))
					goto nomem;
			} else if (add(m, XMAP_BAD, XMAP_SERVER, "", key) ||
				   add(m, XMAP_BAD, XMAP_CLIENT, prepend, "") ||
				   add(m, XMAP_OK, XMAP_CLIENT | XMAP_SERVER, "", "")) {
				goto nomem;
			}
			after_map = true;
			continue;
		}
		if (!strcmp(type, "prefix")) {
			t = XMAP_PREFIX;
		} else if (!strcmp(type, "ok")) {
			t = XMAP_OK;
		} else if (!strcmp(type, "bad")) {
			t = XMAP_BAD;
		} else if (!strcmp(type, "unsupported")) {
			t = XMAP_UNSUPPORTED;
		} else {
			seterr(err, errlen, nrule, start - rules + 1,
			       "unknown type '%s' (prefix, ok, bad, unsupported or map)", type);
			goto fail;
		}
		start = p;
		if (field(&p, sep, scope, sizeof(scope))) {
			seterr(err, errlen, nrule, start - rules,
			       "no scope ended by '%c'", sep);
			goto fail;
		}
		if (!strcmp(scope, "client")) {
			s = XMAP_CLIENT;
		} else if (!strcmp(scope, "server")) {
			s = XMAP_SERVER;
		} else if (!strcmp(scope, "all")) {
			s = XMAP_CLIENT | XMAP_SERVER;
		} else {
			seterr(err, errlen, nrule, start - rules,
			       "unknown scope '%s' (client, server or all)", scope);
			goto fail;
		}
		start = p;
		if (field(&p, sep, key, sizeof(key))) {
			seterr(err, errlen, nrule, start - rules,
			       "no key ended by '%c'", sep);
			goto fail;
		}
		start = p;
		if (field(&p, sep, prepend, sizeof(prepend))) {
			seterr(err, errlen, nrule, start - rules,
			       "no prepend ended by '%c'", sep);
			goto fail;
		}
		if (add(m, t, s, key, prepend))
			goto nomem;
	}
	if (!m->nr) {
		seterr(err, errlen, 0, 0, "no rules");
		return -1;
	}
	return 0;
nomem:
	seterr(err, errlen, nrule, p - rules, "out of memory");
fail:
	xmap_free(m);
	return -1;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int xmap_to_host(const struct xmap *m, const char *guest, char *host, size_t len)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		const struct xmap_rule *r = &m->rules[i];

		if (!(r->scope & XMAP_CLIENT) || !starts(guest, r->key))
			continue;
		switch (r->type) {
		case XMAP_PREFIX:
			if (snprintf(host, len, "%s%s", r->prepend, guest) >= (int)len)
				return -ERANGE;
			return 0;
		case XMAP_OK:
			if (snprintf(host, len, "%s", guest) >= (int)len)
				return -ERANGE;
			return 0;
		case XMAP_BAD:
			return -EPERM;
		case XMAP_UNSUPPORTED:
			return -EOPNOTSUPP;
		}
	}
	return -EPERM;
}

int xmap_to_guest(const struct xmap *m, const char *host, char *guest, size_t len)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		const struct xmap_rule *r = &m->rules[i];

		if (!(r->scope & XMAP_SERVER) || !starts(host, r->prepend))
			continue;
		switch (r->type) {
		case XMAP_PREFIX:
			host += strlen(r->prepend);
			/* fall through */
		case XMAP_OK:
			if (snprintf(guest, len, "%s", host) >= (int)len)
				return -ERANGE;
			return 1;
		case XMAP_BAD:
		case XMAP_UNSUPPORTED:
			return 0;
		}
	}
	return 0;
}
