#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh [--kernels-only] [KERNEL...]: make kernel, make initramfs (and
# the build step of make shell): install what is missing, prepare the trees,
# build the kernels (default: stock and patched; each only when its inputs
# changed) and, unless --kernels-only, the initramfs.
. "$(dirname "$0")/lib.sh"

install_deps
build_all "$@"
