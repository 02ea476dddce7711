#!/bin/sh
# l6-verify.sh -- lesson 6 on the H200 with its bar: 5 checks of the reference solution (the
# device's criteria and the speed bar, --no-analysis: no Oclgrind there), the starter, and the
# fixtures whose named criterion the device can judge (correct).  Run from a bundle made by
# tests/gpu/l6-bundle.sh (its r3/ and lib/), like l6-measure.sh.
OUT=${OUT:-/tmp}
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
s() { python3 -c "import json,sys;d=json.load(open(sys.argv[2]));t=d.get('timing') or {};c={x['id']:x['status'] for x in d['criteria']};print(sys.argv[1],d['verdict'],t.get('speedup'),t.get('kernel_ms'),t.get('baseline_ms'),{k:v for k,v in c.items() if v!='pass'})" "$1" "$2"; }
cd r3
for i in 1 2 3 4 5; do
	build/clgrade check 6 kernels/solutions/06-stencil-halo.cl --device NVIDIA --no-analysis \
	  --json $OUT/r.json > $OUT/l6-solution.txt; echo "rc=$?"; s solution $OUT/r.json
done
for f in kernels/starter/06-stencil-halo.cl tests/fixtures/l6_missing_corners.cl \
         tests/fixtures/l6_edge_halo_skipped.cl; do
	build/clgrade check 6 $f --device NVIDIA --no-analysis --json $OUT/r.json \
	  > $OUT/$(basename $f .cl).txt; echo "rc=$?"; s $f $OUT/r.json
done
