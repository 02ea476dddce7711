#!/bin/sh
# compat-matrix.sh — the tested compatibility matrix: the same kernels graded on every OpenCL
# runtime we can reach, their first failing criteria compared with Debian's PoCL.
#   tests/compat-matrix.sh bundle [DEST]   build clgrade and copy it, the libraries Ubuntu lacks
#                                          (libcjson), the lessons, kernels and fixtures and
#                                          tests/compat-run.sh into DEST (default build/dev-compat)
#   tests/compat-matrix.sh local [OUTDIR]  run the bundle here (Debian's PoCL): OUTDIR/results-*.tsv
#   tests/compat-matrix.sh report DIR...   merge the results-*.tsv found in DIRs into
#                                          tests/compat-results.tsv and tests/compat-results.md
# On another machine (the GPU host): copy the bundle there and run
#   sh DEST/compat-run.sh OUTDIR           (it grades on PoCL and, when present, NVIDIA)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bundle() {
	dest=${1:-build/dev-compat}
	make -j2 build/clgrade >/dev/null
	rm -rf "$dest"
	mkdir -p "$dest/lib" "$dest/root/grader" "$dest/root/tests" "$dest/root/build"
	cp build/clgrade tests/compat-run.sh "$dest/"
	cc -O2 -Wall -o "$dest/compat-localmem" tests/compat-localmem.c -lOpenCL
	# the shared libraries an Ubuntu machine with only an OpenCL runtime lacks
	for lib in libcjson.so.1; do
		p=$(ldd build/clgrade | awk -v l="$lib" '$1 == l { print $3 }')
		[ -n "$p" ] || { echo "compat-matrix: clgrade does not link $lib?" >&2; exit 2; }
		cp -L "$p" "$dest/lib/$lib"
	done
	cp -r lessons kernels "$dest/root/"
	cp -r grader/baselines "$dest/root/grader/"
	cp -r tests/fixtures "$dest/root/tests/"
	echo "bundle: $dest ($(du -sh "$dest" | cut -f1)); on the other machine: sh $dest/compat-run.sh OUTDIR"
}

report() {
	tsv=tests/compat-results.tsv md=tests/compat-results.md
	first=1
	for d in "$@"; do
		for f in "$d"/results-*.tsv; do
			[ -f "$f" ] || continue
			host=$(basename "$f" .tsv | sed 's/^results-//')
			if [ $first = 1 ]; then
				printf 'host\t%s\n' "$(head -n1 "$f")" > "$tsv"
				first=0
			fi
			tail -n +2 "$f" | sed "s/^/$host\t/" >> "$tsv"
		done
	done
	[ $first = 0 ] || { echo "compat-matrix: no results-*.tsv in $*" >&2; exit 2; }
	python3 tests/compat-table.py "$tsv" > "$md"
	echo "report: $tsv, $md"
}

case "${1:-}" in
bundle) shift; bundle "$@" ;;
local) shift; o=${1:-build/compat-local}; bundle build/dev-compat >/dev/null
       sh build/dev-compat/compat-run.sh "$o" ;;
report) shift; report "$@" ;;
*) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
