#!/bin/sh
# bench.sh — `make bench`: wall time of one `make check LESSON=N` per lesson (its solution
# kernel, warm PoCL cache), as the median of RUNS runs, with and without the Oclgrind analysis,
# so the analysis' own cost shows.  Goal: <= 2 s per lesson on a 2-core machine; 5 s at most.
#
# BASE=<git revision> compares instead: that revision is built in build/bench-base (a detached
# worktree) and `clgrade check N <solution> --seed 1` of the two builds runs alternately, RUNS
# times each, for the lessons both have; it prints both medians and their ratio (after/before).
# The check latency goal of the sandbox (issue 9) is a ratio <= 1.10 against the revision
# before it.
#
# LESSONS="4 5" limits either comparison to those lessons (numbers as in lessons/NN-...).
#
# BENCH_HTML=1 (`make bench HTML=1`) measures the HTML page's cost instead: `clgrade check N
# <solution> --seed 1` with and without `--html FILE`, alternately, RUNS times each; both
# medians and their ratio (issue 20's goal: within 5 %); then, with build/html-cost built (make
# does it for `make bench HTML=1`), html_page() alone on each solution's report.
RUNS=${RUNS:-5}
cd "$(dirname "$0")/.." || exit 2

median() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m }'; }

wall() {  # wall seconds of one command
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' 
}

if [ -n "$BASE" ]; then
	base=build/bench-base
	rev=$(git rev-parse --verify -q "$BASE^{commit}") || { echo "bench: no revision $BASE" >&2; exit 2; }
	if [ "$(git -C "$base" rev-parse HEAD 2>/dev/null)" != "$rev" ]; then
		git worktree remove --force "$base" 2>/dev/null; rm -rf "$base"; git worktree prune
		git worktree add -q --detach "$base" "$rev" || exit 2
	fi
	make -s -C "$base" all >/dev/null 2>&1 || { echo "bench: $BASE does not build" >&2; exit 2; }
	here=$(pwd)
	echo "check wall time, $(git rev-parse --short HEAD) (after) against $(git rev-parse --short "$rev") (before)"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg); command: BASE=$BASE RUNS=$RUNS sh tests/bench.sh"
	printf '%-24s %10s %10s %8s  %s\n' lesson "before (s)" "after (s)" ratio "(median of $RUNS, alternating)"
	for sol in kernels/solutions/*.cl; do
		slug=$(basename "$sol" .cl)
		n=${slug%%-*}
		[ -d "$base/lessons/$slug" ] || continue          # a lesson the base does not have
		case " ${LESSONS:-${n#0}} " in *" ${n#0} "*) ;; *) continue ;; esac   # LESSONS="4 5": those only
		(cd "$base" && build/clgrade check "$n" "$here/$sol" --seed 1 >/dev/null 2>&1)
		build/clgrade check "$n" "$sol" --seed 1 >/dev/null 2>&1
		: > build/bench-a; : > build/bench-b
		for i in $(seq "$RUNS"); do
			(cd "$base" && wall build/clgrade check "$n" "$here/$sol" --seed 1) >> build/bench-a
			wall build/clgrade check "$n" "$sol" --seed 1 >> build/bench-b
		done
		a=$(median < build/bench-a); b=$(median < build/bench-b)
		printf '%-24s %10s %10s %8s\n' "$slug" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')"
	done
	rm -f build/bench-a build/bench-b
	exit 0
fi

if [ -n "${BENCH_HTML:-}" ]; then
	echo "check wall time with --html against without; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "command: BENCH_HTML=1 RUNS=$RUNS sh tests/bench.sh   (make bench HTML=1)"
	printf '%-24s %10s %10s %8s  %s\n' lesson "plain (s)" "--html (s)" ratio "(median of $RUNS, alternating)"
	for sol in kernels/solutions/*.cl; do
		slug=$(basename "$sol" .cl)
		n=${slug%%-*}
		build/clgrade check "$n" "$sol" --seed 1 >/dev/null 2>&1   # warm PoCL's kernel cache
		: > build/bench-a; : > build/bench-b
		for i in $(seq "$RUNS"); do
			wall build/clgrade check "$n" "$sol" --seed 1 >> build/bench-a
			wall build/clgrade check "$n" "$sol" --seed 1 --html build/bench.html >> build/bench-b
		done
		a=$(median < build/bench-a); b=$(median < build/bench-b)
		printf '%-24s %10s %10s %8s\n' "$slug" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')"
	done
	rm -f build/bench-a build/bench-b build/bench.html
	if [ -x build/html-cost ]; then   # the page alone (make build/html-cost)
		for sol in kernels/solutions/*.cl; do
			slug=$(basename "$sol" .cl)
			build/html-cost "${slug%%-*}" "$sol"
		done
	fi
	exit 0
fi

printf '%-24s %12s %14s %10s  %s\n' lesson "check (s)" "no analysis" "analysis" "(median of $RUNS, solution kernel)"
for sol in kernels/solutions/*.cl; do
	slug=$(basename "$sol" .cl)
	n=${slug%%-*}
	build/clgrade check "$n" "$sol" --seed 1 >/dev/null 2>&1   # warm PoCL's kernel cache
	full=$(for i in $(seq "$RUNS"); do wall build/clgrade check "$n" "$sol" --seed 1; done | median)
	bare=$(for i in $(seq "$RUNS"); do wall build/clgrade check "$n" "$sol" --seed 1 --no-analysis; done | median)
	printf '%-24s %12s %14s %10s\n' "$slug" "$full" "$bare" "$(awk -v a="$full" -v b="$bare" 'BEGIN { printf "%.2f", a - b }')"
done
