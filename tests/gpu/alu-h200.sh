#!/bin/sh
# alu-h200.sh -- on a GPU machine, from the bundle of guarded-h200.sh (same commands, this file
# as run-alu.sh): the arithmetic family (tests/fixtures/l5_alu_chain*.cl, l3_alu_chain.cl) timed
# on NVIDIA's OpenCL, three checks each, --no-analysis, to set against the arithmetic term of
# the GPU time model (grader/trace_arith.c, gpumodel.c)
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
build/clgrade devices | head -3
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status'] not in ('pass','not_checked')]
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), bad)" "$1" "$2"; }
for b in l5_alu_chain l5_alu_chain_muladd l5_alu_chain_mad l5_alu_chain_float4 l5_alu_chain_double l3_alu_chain; do
  l=$(echo "$b" | cut -c2)
  for i in 1 2 3; do
    timeout 120 build/clgrade check "$l" "tests/fixtures/$b.cl" --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1
    echo "exit $?"; s "$b-$i" /tmp/r.json
  done
done
