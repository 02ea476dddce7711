#!/bin/sh
# bench-batch.sh — `make bench`, second part: throughput of `clgrade batch` on lesson 3 over 40
# mixed submissions (solutions, the starter, fixtures that fail one criterion or do not build,
# each copy made unique so no compiler cache serves it twice), with -j JOBS (default 2), as the
# median of RUNS runs (default 3), each a full regrade (--force).  Goal: >= 60 per minute on a
# 2-core machine.
RUNS=${RUNS:-3}
JOBS=${JOBS:-2}
cd "$(dirname "$0")/.." || exit 2
dir=$(mktemp -d /tmp/clgrade-bench-XXXXXX) || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir "$dir/subs"
set -- kernels/solutions/03-transpose-padding.cl kernels/starter/03-transpose-padding.cl \
	tests/fixtures/l3_unpadded.cl tests/fixtures/l3_swizzle.cl tests/fixtures/l3_square_only.cl \
	tests/fixtures/l3_evade_analysis.cl tests/fixtures/l1_include_passwd.cl \
	kernels/solutions/03-transpose-padding.cl
i=0
while [ "$i" -lt 40 ]; do
	src=$(eval echo "\${$((i % 8 + 1))}")
	{ cat "$src"; echo "/* student $i */"; } > "$dir/subs/student$i.cl"
	i=$((i + 1))
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
cmd="build/clgrade batch 3 $dir/subs --out $dir/out -j $JOBS --force"
# wall seconds and CPU seconds (user + system of the batch and all its children) per run
for r in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	cpu=$(sh -c "$cmd > $dir/log 2>&1; times" | sed -n 2p |
	      awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.1f", s }')
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { printf "%.2f %s\n", b - a, c }'
done | sort -n > "$dir/times"
med=$(awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$dir/times")
cpu=$(awk '{ v[NR] = $2 } END { printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$dir/times")
echo
echo "batch throughput, lesson 3, 40 mixed submissions, -j $JOBS, $(nproc) cores:" \
	"$(awk -v t="$med" 'BEGIN { printf "%.1f", 40 * 60 / t }') per minute" \
	"(median wall time of $RUNS runs: $med s; wall/CPU s of each: $(awk '{ printf "%s/%s ", $1, $2 }' "$dir/times"))"
echo "CPU time of the median run: $cpu s, so at most $(awk -v c="$cpu" -v n="$(nproc)" \
	'BEGIN { printf "%.0f", 40 * 60 * n / c }') per minute if nothing else used the $(nproc) cores;" \
	"load average before the runs: $load"
echo "measured with: $cmd"
grep "class summary" "$dir/log"
