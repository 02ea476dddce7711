#!/bin/sh
# gpum-validate.sh -- the GPU time model (grader/gpumodel.c) against H200 timings.
#   sh tests/gpum-validate.sh list                 the kernels: lesson and file, one a line
#   sh tests/gpum-validate.sh predict DIR          here (Oclgrind): one check per kernel on the
#                                                  default device, JSON into DIR (timing.predicted)
#   sh tests/gpum-validate.sh measure DIR [CLGRADE] on the GPU host (no Oclgrind needed): one
#                                                  --no-analysis check per kernel on NVIDIA
#   python3 tests/gpum-join.py PRED MEAS           measured against predicted (GUIDE.md table)
# ONLY=FILE limits either run to the kernel names FILE lists (as the JSON files are named).
# Kernels: every solution, starter, baseline (submitted as a student kernel) and lesson fixture;
# those whose timing runs (a correct kernel) enter the table.  Seed 1 everywhere.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
list() {
	cd "$top"
	for f in kernels/solutions/*.cl kernels/starter/*.cl; do
		echo "$(basename "$f" | sed -E 's/^0?([0-9]+)-.*/\1/') $f"
	done
	echo "1 baseline:matmul_naive.cl:matmul_naive"
	echo "2 baseline:matmul_naive.cl:matmul_tiled"
	echo "3 baseline:transpose_naive.cl:transpose"
	echo "5 baseline:reduce_naive.cl:reduce"
	for f in tests/fixtures/l[1-5]_*.cl tests/gpu/*.cl; do
		echo "$(basename "$f" | sed -E 's/^l([0-9]).*/\1/') $f"
	done
}
# a baseline as a student kernel: its function renamed to the lesson's
kernel_file() {
	case "$1" in
	baseline:*) b=$(echo "$1" | cut -d: -f2); k=$(echo "$1" | cut -d: -f3)
	            o="$2/baseline-$k-$(echo "$b" | sed 's/\.cl$//').cl"
	            sed -E "s/__kernel void [a-z_]+\(/__kernel void $k(/" "$top/grader/baselines/$b" > "$o"
	            echo "$o" ;;
	*) echo "$1" ;;
	esac
}
run() {
	mode=$1 dir=$2 cg=$3
	mkdir -p "$dir"
	list | while read -r l f; do
		k=$(kernel_file "$f" "$dir")
		name=$(echo "$f" | tr '/:' '__' | sed 's/\.cl$//')
		# ONLY=file: just the names it lists (e.g. those the GPU timed)
		[ -n "${ONLY:-}" ] && ! grep -qx "$name" "$ONLY" && continue
		if [ "$mode" = predict ]; then
			nice -n 10 "$cg" check "$l" "$k" --seed 1 --json "$dir/$name.json" > "$dir/$name.txt" 2>&1
		else
			"$cg" check "$l" "$k" --device NVIDIA --no-analysis --seed 1 --json "$dir/$name.json" > "$dir/$name.txt" 2>&1
		fi
		echo "$l $f rc=$?"
	done
}
case "${1:-}" in
list) list ;;
predict) run predict "$2" "${3:-$top/build/clgrade}" ;;
measure) run measure "$2" "${3:-$top/build/clgrade}" ;;
*) sed -n 2,10p "$0"; exit 2 ;;
esac
