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

# The markdown table of a merged TSV: one row per kernel, one column per (host, runtime), the
# first failing criterion compared with Debian's PoCL, then the __local bytes per runtime.
table() {
	awk -F '\t' -v cmd="tests/compat-matrix.sh report $2" -v when="$(date -u '+%Y-%m-%d %H:%M UTC')" '
	function runtime(p) { return p ~ /Portable|not opened: default/ ? "PoCL" : p ~ /NVIDIA/ ? "NVIDIA" : p }
	NR == 1 { next }
	{
		col = $1 " " runtime($2)
		key = $4 "\t" $5
		if (!(key in seen)) { seen[key] = 1; keys[++nk] = key; expect[key] = $6 }
		if (!(col in known)) { known[col] = 1; cols[++nc] = col }
		if ($3 != "?") dev[col] = $3
		res[key, col] = $8 == "pass" ? "pass" : $8 == "error" ? "error" : "fail: " $9
		bytes[key, col] = $10 == "?" || $11 == "-" ? "-" : $10 " (" $11 (($11 != "runtime") ? "; runtime " $12 : "") ")"
		wall[col] += $17; n[col]++
	}
	END {
		base = ""
		for (c = 1; c <= nc; c++) if (cols[c] ~ /^debian.* PoCL$/) base = cols[c]
		print "# Compatibility matrix: last results\n"
		print "Every lesson solution, starter and fixture graded with `--no-analysis` on each runtime"
		print "(written " when " by `" cmd "`; the raw rows are in `tests/compat-results.tsv`)."
		print "A cell is the verdict and the first failing criterion; **bold** where it differs from " base "."
		print "Devices:"
		for (c = 1; c <= nc; c++) printf "- %s: %s (%d runs, %.0f s in all)\n", cols[c], dev[cols[c]], n[cols[c]], wall[cols[c]]
		for (c = 1; c <= nc; c++) {
			same = 0
			for (k = 1; k <= nk; k++) same += res[keys[k], cols[c]] == res[keys[k], base]
			if (cols[c] != base)
				printf "- %s: the same verdict and first failing criterion as %s for %d of %d kernels\n", cols[c], base, same, nk
		}
		printf "\n| lesson | kernel | must |"
		for (c = 1; c <= nc; c++) printf " %s |", cols[c]
		printf "\n|---|---|---|"
		for (c = 1; c <= nc; c++) printf "---|"
		print ""
		for (k = 1; k <= nk; k++) {
			split(keys[k], f, "\t")
			printf "| %s | %s | %s |", f[1], f[2], expect[keys[k]] == "" ? "(see file)" : expect[keys[k]]
			for (c = 1; c <= nc; c++) {
				v = res[keys[k], cols[c]]
				diff = base != "" && cols[c] != base && v != res[keys[k], base]
				printf " %s |", diff ? "**" v "**" : v
			}
			print ""
		}
		print "\n## `__local` bytes per work-group\n"
		print "What the report judged, with its source (`runtime`: CL_KERNEL_LOCAL_MEM_SIZE; `declarations`:"
		print "the kernel'"'"'s own `__local` arrays at its TILE) and what the runtime answered when it was not the source.\n"
		printf "| lesson | kernel |"
		for (c = 1; c <= nc; c++) printf " %s |", cols[c]
		printf "\n|---|---|"
		for (c = 1; c <= nc; c++) printf "---|"
		print ""
		for (k = 1; k <= nk; k++) {
			split(keys[k], f, "\t")
			printf "| %s | %s |", f[1], f[2]
			for (c = 1; c <= nc; c++) printf " %s |", bytes[keys[k], cols[c]] == "" ? "-" : bytes[keys[k], cols[c]]
			print ""
		}
	}' "$1"
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
	table "$tsv" "$*" > "$md"
	echo "report: $tsv, $md"
}

case "${1:-}" in
bundle) shift; bundle "$@" ;;
local) shift; o=${1:-build/compat-local}; bundle build/dev-compat >/dev/null
       sh build/dev-compat/compat-run.sh "$o" ;;
report) shift; report "$@" ;;
*) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
