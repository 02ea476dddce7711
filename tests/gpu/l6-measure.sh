#!/bin/sh
# l6-measure.sh -- the H200 run behind lesson 6's speedup bar (GUIDE.md "Speedup thresholds",
# lesson 6): the reference solution against the naive baseline at the GPU timing size, for the
# radii R = 3 (the lesson's), 1 and 2, through NVIDIA's OpenCL.  Run from a bundle folder
# that holds lib/ (libcjson.so.1, libseccomp.so.2) and one suite root per radius, rN/, made by
# tests/gpu/l6-bundle.sh: rN/build/clgrade built with -DKIND_STENCIL_R=N, and rN's kernels and
# baseline defining R N.  RUNS3 (default 20) checks at R = 3, RUNSO (default 5) at the others.
OUT=${OUT:-/tmp}
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
ldd r3/build/clgrade | grep -i 'not found'; r3/build/clgrade devices
s() { python3 -c "import json,sys;d=json.load(open(sys.argv[2]));t=d.get('timing') or {};print(sys.argv[1],d['verdict'],t.get('speedup'),t.get('kernel_ms'),t.get('baseline_ms'),t.get('runs'),[x['id'] for x in d['criteria'] if x['status']!='pass'])" "$1" "$2"; }
for R in 3 1 2; do
	n=${RUNSO:-5}; [ $R = 3 ] && n=${RUNS3:-20}
	for i in $(seq $n); do
		(cd r$R && build/clgrade check 6 kernels/solutions/06-stencil-halo.cl --device NVIDIA \
		  --no-analysis --json $OUT/r.json > $OUT/l6-r$R-solution.txt); s "R=$R solution" $OUT/r.json
	done
	[ $R = 3 ] && for i in 1 2; do
		(cd r$R && build/clgrade check 6 kernels/starter/06-stencil-halo.cl --device NVIDIA \
		  --no-analysis --json $OUT/r.json > $OUT/l6-r$R-starter.txt); s "R=$R starter" $OUT/r.json
	done
done
