# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# ktap.sh: the one KTAP emitter of the shell scripts (the host's static
# checks, harness self-tests and mutations, the e2e guest's init), beside
# the one parser (ktap.awk). POSIX sh: the guests source it too.
#   ktap_begin                               the header
#   ktap_result OK|FAIL|SKIP DESCRIPTION [REASON]
#                                            one result, numbered
#   ktap_end                                 the plan; status 1 when any
#                                            result failed
# KTAP_N and KTAP_FAILED count the results and the failures.
KTAP_N=0
KTAP_FAILED=0

ktap_begin() {
	KTAP_N=0
	KTAP_FAILED=0
	echo "TAP version 13"
}

ktap_result() {
	KTAP_N=$((KTAP_N + 1))
	case $1 in
	OK) echo "ok $KTAP_N $2" ;;
	SKIP) echo "ok $KTAP_N $2 # SKIP ${3:-no reason given}" ;;
	*)
		echo "not ok $KTAP_N $2"
		KTAP_FAILED=$((KTAP_FAILED + 1))
		;;
	esac
}

ktap_end() {
	echo "1..$KTAP_N"
	[ "$KTAP_FAILED" = 0 ]
}
