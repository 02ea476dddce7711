#!/bin/sh
# gpu-l7.sh -- lesson 7's H200 runs (GUIDE.md "Speedup thresholds", lesson 7): RUNS checks of the
# reference solution through NVIDIA's OpenCL (--no-analysis), FIXRUNS (3) of the starter, the baseline as
# the student's kernel and each fixture, and NVIDIA's build log (registers, spills) of the
# solution and the spill fixture.  Run on the GPU machine from a bundle made by
#   tests/gpu-l7.sh bundle DEST      (clgrade, libcjson, lessons, kernels, baselines, fixtures)
# as  sh DEST/gpu-l7.sh run  (results under $OUT, default /tmp).  Needs python3 there.
set -u
if [ "${1:-}" = bundle ]; then
	d=${2:?DEST}
	rm -rf "$d" && mkdir -p "$d/lib" "$d/root/grader" "$d/root/tests"
	cp build/clgrade tests/gpu-l7.sh "$d/"
	cp -L "$(ldd build/clgrade | awk '$1 == "libcjson.so.1" { print $3 }')" "$d/lib/"
	cp -r lessons kernels "$d/root/" && cp -r grader/baselines "$d/root/grader/"
	cp -r tests/fixtures "$d/root/tests/" && mkdir -p "$d/root/tests/gpu" && cp tests/gpu/l7_*.cl "$d/root/tests/gpu/"
	exit 0
fi
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp}
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}" CLGRADE_ROOT="$B/root"
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
R=$CLGRADE_ROOT
s() { python3 -c "
import json,sys
d=json.load(open('$OUT/r.json'));t=d.get('timing') or {}
o=[x for x in d.get('occupancy',[]) if x['profile']=='nvidia-sm90']
print(sys.argv[1],d['verdict'],'speedup',t.get('speedup'),'ms',t.get('kernel_ms'),'base',t.get('baseline_ms'),
      'TFLOP/s',round((t.get('gflops') or 0)/1000,2),[x['id'] for x in d['criteria'] if x['status']=='fail'],
      o and (o[0].get('registers'),o[0]['limiter'],o[0]['occupancy']),d.get('registers'))" "$1"; }
ck() { "$B/clgrade" check 7 "$1" --device NVIDIA --no-analysis --json "$OUT/r.json" > "$OUT/last.txt" 2>&1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in $(seq "${RUNS:-20}"); do ck "$R/kernels/solutions/07-register-blocking.cl"; s L7-sol; done
cp "$OUT/last.txt" "$OUT/l7-sol.txt"
sed 's/matmul_tiled_blocked/matmul_blocked/' "$R/grader/baselines/matmul_tiled_blocked.cl" > "$OUT/base.cl"
for f in "$R/kernels/starter/07-register-blocking.cl" "$OUT/base.cl" "$R"/tests/fixtures/l7_*.cl \
	"$R/tests/gpu/l7_block_from_global_all.cl"; do
	for i in $(seq "${FIXRUNS:-3}"); do ck "$f"; s "$(basename "$f")"; done
	case $f in *l7_spill*) cp "$OUT/last.txt" "$OUT/l7-spill.txt" ;; esac
done
