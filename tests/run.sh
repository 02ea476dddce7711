#!/bin/sh
# run.sh — run the Check test binaries, N at a time, then print one closing line that adds
# them up.
#
#   sh tests/run.sh [-j N] BINARY...
#
# N defaults to the number of cores (nproc).  Each binary's output (stdout and stderr) is kept
# in a file of its own and printed whole, under "== BINARY", in the order the binaries were
# given, as soon as it and every binary before it have finished; so the log reads the same
# at -j 1 and -j 8.  Check prints its own summary per binary ("100%: Checks: 12, Failures: 0,
# Errors: 0"); the last line is "P passed, F failed" over all of them, and the exit status is
# 0 only when nothing failed and every binary exited 0.  A binary that prints no summary
# (crashed, killed) counts as one failure.
#
# The longest binaries start first (their wall times from the last run are kept in
# $TEST_TIMES, default build/tests/.times beside the binaries), so that two long ones do not
# end up last, one after the other.  The line printed after a binary's output says how long
# it took and when, from the start of the run: "-- BINARY: 12.3 s (from 40.2 s to 52.5 s)".
set -u
jobs=""
if [ "${1:-}" = "-j" ]; then
	jobs=${2:?usage: sh tests/run.sh [-j N] BINARY...}
	shift 2
fi
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: -j takes a number of jobs, not '$jobs'" >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "usage: sh tests/run.sh [-j N] BINARY..." >&2; exit 2; }

out=$(mktemp -d "${TMPDIR:-/tmp}/clgrade-run-XXXXXX") || exit 2
times=${TEST_TIMES:-$(dirname "$1")/.times}
# Check's time limits per test case (4 s by default, 60 to 600 s where a test sets its own)
# are there to stop a hung test, not to judge speed: times 3 unless CK_TIMEOUT_MULTIPLIER says
# otherwise, so that a loaded machine does not meet them (under a load of 27 on 2 cores,
# test_esc's and test_guard's 4 s and test_diagnoses' 120 s for the hang were met).
CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-3}
export CK_TIMEOUT_MULTIPLIER
# One cache of graded reports for every integration binary of this run (itest.h): a kernel
# that several binaries grade with the same options is graded once.  ITEST_CACHE= (empty)
# turns it off; a folder given is used as it is.
if [ -z "${ITEST_CACHE+set}" ]; then
	ITEST_CACHE=$out/itcache
	mkdir "$ITEST_CACHE" || exit 2
	export ITEST_CACHE
fi
pids=""
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill $pids 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The i-th binary's files: $out/$i.log (its output), $out/$i.rc (exit status, then seconds;
# written last, when it is whole).
i=0
for t in "$@"; do
	i=$((i + 1))
	printf '%s\n' "$t" > "$out/$i.name"
done

# Start order: by the last run's wall time, longest first; unknown ones first of all (in the
# order given), since nothing says they are short.
order() {
	i=0
	for t in "$@"; do
		i=$((i + 1))
		s=$(awk -v t="$t" '$1 == t { s = $2 } END { print (s == "" ? 1e9 : s) }' "$times" 2>/dev/null)
		printf '%s %s\n' "${s:-1e9}" "$i"
	done | sort -k1,1gr -k2,2n | cut -d' ' -f2
}

# One binary: its output to its log, then its status and wall time.
run_one() {
	t=$(cat "$out/$1.name")
	s0=$(date +%s.%N)
	"$t" < /dev/null > "$out/$1.log" 2>&1   # stdin: not the queue (script(1) reads it)
	rc=$?
	s1=$(date +%s.%N)
	echo "$rc $(awk -v a="$s0" -v b="$s1" -v z="$t0" 'BEGIN { printf "%.1f %.1f %.1f", b - a, a - z, b - z }')" \
		> "$out/$1.rc.tmp"
	mv "$out/$1.rc.tmp" "$out/$1.rc"
}

t0=$(date +%s.%N)
# N workers, each taking the next index from the queue file (a lock-free claim: mkdir).
order "$@" > "$out/queue"
worker() {
	while read -r k <&3; do
		mkdir "$out/$k.claim" 2>/dev/null || continue
		run_one "$k" 3<&-
	done 3< "$out/queue"
}
w=0
while [ $w -lt "$jobs" ] && [ $w -lt $# ]; do
	worker &
	pids="$pids $!"
	w=$((w + 1))
done

passed=0 failed=0 status=0
i=0
: > "$out/times.new"
for t in "$@"; do
	i=$((i + 1))
	while [ ! -f "$out/$i.rc" ]; do
		sleep 0.2
	done
	read -r rc secs from to < "$out/$i.rc"
	echo "== $t"
	cat "$out/$i.log"
	echo "-- $t: $secs s (from $from s to $to s)"
	printf '%s %s\n' "$t" "$secs" >> "$out/times.new"
	line=$(grep -E '^[0-9]+%: Checks: ' "$out/$i.log" | tail -n1)
	if [ -z "$line" ]; then
		echo "$t: no Check summary (exit $rc)"; failed=$((failed + 1)); status=1; continue
	fi
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	passed=$((passed + n - f - e)); failed=$((failed + f + e))
	[ "$rc" -eq 0 ] || status=1
done
wait
pids=""
# keep the other binaries' times from earlier runs (make test T=name runs one)
{ awk 'NR == FNR { new[$1] = 1; next } !($1 in new)' "$out/times.new" "$times" 2>/dev/null
  cat "$out/times.new"; } > "$out/times.all" && cp "$out/times.all" "$times" 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && exit $status
exit 1
