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
cmd="build/clgrade batch 3 $dir/subs --out $dir/out -j $JOBS --force"
for r in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	$cmd > "$dir/log" 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
done | sort -n > "$dir/times"
med=$(awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$dir/times")
echo
echo "batch throughput, lesson 3, 40 mixed submissions, -j $JOBS, $(nproc) cores:" \
	"$(awk -v t="$med" 'BEGIN { printf "%.1f", 40 * 60 / t }') per minute" \
	"(median of $RUNS: $med s; runs: $(tr '\n' ' ' < "$dir/times"))"
echo "measured with: $cmd"
grep "class summary" "$dir/log"
