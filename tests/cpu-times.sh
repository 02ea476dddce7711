#!/bin/sh
# cpu-times.sh — the CPU each test binary costs, children included, one binary at a time, so
# that the suite's cost can be measured on a machine that is not idle (wall times are not).
#
#   sh tests/cpu-times.sh [OUTDIR] [BINARY...]     (from the repository root, after `make test`
#                                                  has built build/pristine once)
#
# For each binary (default: every build/tests/test_* of an integration test) it runs, in
# build/pristine as `make test` does, `/usr/bin/time -f '%e %U %S'` around it, with Check's
# XML log (each test case's duration) in OUTDIR/NAME.xml, and prints one row per binary
# "NAME wall user sys cpu rc" and a total row.  OUTDIR defaults to build/cpu.  Each grading
# the binaries ask for is logged in OUTDIR/gradings (itest.h, ITEST_LOG: binary, CPU s, wall
# s, run or hit, what); sort -t"$(printf '\t')" -k2,2gr OUTDIR/gradings lists the costly ones.
# ITEST_CACHE=DIR shares one cache of gradings among the binaries, as tests/run.sh does.
# A BINARY may be an absolute path (e.g. a copy of the binaries of an older commit).
set -u
cd "$(dirname "$0")/.." || exit 2
out=${1:-build/cpu}
[ $# -gt 0 ] && shift
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
mkdir -p "$out"
if [ $# -eq 0 ]; then
	set --
	for f in tests/integration/test_*.c; do
		set -- "$@" "build/tests/$(basename "$f" .c)"
	done
fi
export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-3}"   # as tests/run.sh
# PRISTINE=DIR: another tree made by tests/pristine.sh (a `make test` rebuilds build/pristine)
cd "${PRISTINE:-build/pristine}" || { echo "cpu-times.sh: no build/pristine (run make test T=... once)" >&2; exit 2; }
printf '%-28s %7s %7s %7s %7s %s\n' binary wall user sys cpu rc
for t in "$@"; do
	n=$(basename "$t")
	ITEST_LOG="$out/gradings" CK_XML_LOG_FILE_NAME="$out/$n.xml" /usr/bin/time -o "$out/$n.time" -f '%e %U %S' \
		"$t" < /dev/null > "$out/$n.log" 2>&1
	rc=$?
	read -r e u s <<-EOT
	$(tail -n 1 "$out/$n.time")
	EOT
	printf '%-28s %7.1f %7.1f %7.1f %7.1f %s\n' "$n" "$e" "$u" "$s" "$(echo "$u $s" | awk '{print $1 + $2}')" "$rc"
done | tee "$out/table"
awk '{ w += $2; u += $3; s += $4; c += $5 } END { printf "%-28s %7.1f %7.1f %7.1f %7.1f\n", "total", w, u, s, c }' "$out/table"
