#!/bin/sh
# bench.sh — `make bench`: wall time of one `make check LESSON=N` per lesson (its solution
# kernel, warm PoCL cache), as the median of RUNS runs, with and without the Oclgrind analysis,
# so the analysis' own cost shows.  Goal: <= 2 s per lesson on a 2-core machine; 5 s at most.
RUNS=${RUNS:-5}
cd "$(dirname "$0")/.." || exit 2

median() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m }'; }

wall() {  # wall seconds of one command
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' 
}

printf '%-24s %12s %14s %10s  %s\n' lesson "check (s)" "no analysis" "analysis" "(median of $RUNS, solution kernel)"
for sol in kernels/solutions/*.cl; do
	slug=$(basename "$sol" .cl)
	n=${slug%%-*}
	build/clgrade check "$n" "$sol" --seed 1 >/dev/null 2>&1   # warm PoCL's kernel cache
	full=$(for i in $(seq "$RUNS"); do wall build/clgrade check "$n" "$sol" --seed 1; done | median)
	bare=$(for i in $(seq "$RUNS"); do wall build/clgrade check "$n" "$sol" --seed 1 --no-analysis; done | median)
	printf '%-24s %12s %14s %10s\n' "$slug" "$full" "$bare" "$(awk -v a="$full" -v b="$bare" 'BEGIN { printf "%.2f", a - b }')"
done
