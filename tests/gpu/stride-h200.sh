#!/bin/sh
# stride-h200.sh -- on a GPU machine, from the bundle of guarded-h200.sh (same commands, this
# file as run-stride.sh): lesson 5's one-load grid-stride loop with each kind of stride, timed on
# NVIDIA's OpenCL, two checks each (--no-analysis), to show which ones its compiler unrolls at
# run time (ircode.cpp runtimeUnrolled).  tests/gpu/results/stride-h200-2026-12-01.txt was taken
# from the same kernels under their first names: l5_for_int_stride, l5_dowhile_int_stride,
# l5_for_uint_stride, l5_dowhile_sizet_stride, l5_for_sizet_stride (that last one is
# tests/fixtures/l5_one_load_sequential.cl's loop); stride2-h200-2026-12-02.txt from
# l5_stride_int_nounroll, l5_stride_int_two and l5_stride_int_three, under their names;
# stride3-h200-2026-12-02.txt from l5_stride_int_body13 and _body19 as l5_one_m1 and l5_one_m3
# (with l5_one_m2 and l5_one_scaled, 15 and 10 instructions, not kept: 1.69-1.72x).
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status'] not in ('pass','not_checked')]
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), bad)" "$1" "$2"; }
for b in l5_stride_int_for l5_stride_int_dowhile l5_stride_uint_for l5_stride_sizet_dowhile \
         l5_one_load_sequential l5_stride_int_nounroll l5_stride_int_two l5_stride_int_three \
         l5_stride_int_body13 l5_stride_int_body19; do
  for i in 1 2; do
    timeout 120 build/clgrade check 5 "tests/fixtures/$b.cl" --device NVIDIA --no-analysis \
      --json /tmp/r.json > /tmp/r.txt 2>&1
    echo "exit $?"; s "$b-$i" /tmp/r.json
  done
done
