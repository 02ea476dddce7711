#!/bin/sh
# gpu-thresholds.sh -- the H200 run behind the GPU speedup bars in grader/lesson.c (GUIDE.md,
# "Speedup thresholds"): 20 checks of each solution through NVIDIA's OpenCL, plus the fixtures.
# Run on a machine with an NVIDIA GPU from the repo root after `make`; needs python3.
# (build/lib may hold libcjson.so.1 and libOpenCL.so.1 for a machine without them.)
OUT=${OUT:-/tmp}
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/build/lib:$LD_LIBRARY_PATH
ldd build/clgrade | grep -i 'not found'; build/clgrade devices
s() { python3 -c "import json,sys;d=json.load(open('/tmp/r.json'));t=d.get('timing') or {};c={x['id']:x['status'] for x in d['criteria']};o=[x for x in d['occupancy'] if x['profile']=='nvidia-sm90'];print(sys.argv[1],d['verdict'],t.get('speedup'),t.get('kernel_ms'),t.get('baseline_ms'),[k for k,v in c.items() if v!='pass'],o and (o[0].get('registers'),o[0]['limiter'],o[0]['occupancy']))" "$1"; }
for l in 2 3; do for i in $(seq 20); do build/clgrade check $l kernels/solutions/0$l-*.cl --device NVIDIA --no-analysis --json /tmp/r.json > $OUT/l$l.txt; s L$l-sol; done; done
for f in tests/fixtures/l3_unpadded.cl tests/fixtures/l3_swizzle.cl kernels/starter/03-transpose-padding.cl; do for i in 1 2 3; do build/clgrade check 3 $f --device NVIDIA --no-analysis --json /tmp/r.json > /dev/null; s "$f"; done; done
for i in 1 2 3; do build/clgrade check 2 kernels/starter/02-tiled-matmul.cl --device NVIDIA --no-analysis --json /tmp/r.json >/dev/null; s L2-starter; done
build/clgrade check 1 kernels/solutions/01-naive-matmul.cl --device NVIDIA --no-analysis --json /tmp/r.json > $OUT/l1.txt; s L1-sol
build/clgrade check 4 kernels/solutions/04-tile-budget.cl --device NVIDIA --no-analysis --json /tmp/r.json > $OUT/l4.txt; s L4-sol
build/clgrade check 2 tests/fixtures/l2_local_64k.cl --device NVIDIA --no-analysis --json /tmp/r.json > $OUT/l64k.txt; s L2-64k
build/clgrade check 1 tests/fixtures/l1_compile_error.cl --device NVIDIA --no-analysis --json /tmp/r.json > $OUT/l1err.txt; s L1-err
build/clgrade check 3 kernels/solutions/03-transpose-padding.cl --device NVIDIA --json /tmp/r.json > $OUT/l3an.txt; s L3-with-analysis-missing
# Lesson 5: 20 checks of the solution (speedup, GB/s, copy of the same bytes), then 3 of each
# variant: float4 loads, one load per turn, the naive baseline as the student's kernel, step 2.
r() { python3 -c "import json,sys;d=json.load(open('/tmp/r.json'));t=d.get('timing') or {};print(sys.argv[1],d['verdict'],t.get('speedup'),t.get('gbps'),t.get('copy_gbps'),t.get('fraction_of_copy'),[x['id'] for x in d['criteria'] if x['status']=='fail'])" "$1"; }
for i in $(seq 20); do build/clgrade check 5 kernels/solutions/05-reduction.cl --device NVIDIA --no-analysis --json /tmp/r.json > $OUT/l5.txt; r L5-sol; done
sed 's/reduce_naive/reduce/' grader/baselines/reduce_naive.cl > /tmp/l5_naive.cl
for f in tests/gpu/l5_float4.cl tests/gpu/l5_one_load.cl /tmp/l5_naive.cl tests/fixtures/l5_strided.cl kernels/starter/05-reduction.cl; do for i in 1 2 3; do build/clgrade check 5 $f --device NVIDIA --no-analysis --json /tmp/r.json > /dev/null; r "$f"; done; done
