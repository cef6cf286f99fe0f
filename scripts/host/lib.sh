# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the scripts in this directory. Source it; do not run it.

set -eu
# A pipeline fails when any command in it fails, not only the last: several
# feed decisions (build-kernel.sh's stamp, the series hash).
set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/report/ktap.sh
. "$REPO/scripts/report/ktap.sh"
# The helpers, by concern (each file says what it holds):
#   lib/env.sh     the cache and its paths, messages, timings, packages, lock
#   lib/trees.sh   the kernel trees, builds, the series, checkpatch's rules
#   lib/guests.sh  guests (kernel and switches), their resources, boots of several
# shellcheck source=scripts/host/lib/env.sh
. "$REPO/scripts/host/lib/env.sh"
# shellcheck source=scripts/host/lib/trees.sh
. "$REPO/scripts/host/lib/trees.sh"
# shellcheck source=scripts/host/lib/guests.sh
. "$REPO/scripts/host/lib/guests.sh"
