#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install the Debian packages every target needs (lib/env.sh's
# XATTRNS_DEPS), waiting for the dpkg lock, or print the apt-get line to
# run as root. make deps; each top-level script does the same first.
. "$(dirname "$0")/lib.sh"

install_deps
log "all packages present: $(for item in $XATTRNS_DEPS; do echo "${item#*:}"; done | sort -u | tr '\n' ' ')"
