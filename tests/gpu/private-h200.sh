#!/bin/sh
# private-h200.sh -- on a GPU machine, from the bundle of guarded-h200.sh (same commands, this file
# as run-private.sh): private arrays indexed at run time (tests/fixtures/l5_private_spill*.cl), which
# a GPU keeps in local memory, timed on NVIDIA's OpenCL, three checks each, --no-analysis, to set
# against the model's pricing of them (grader/trace_arith.c, gpumodel.c tally_private)
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
build/clgrade devices | head -3
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status'] not in ('pass','not_checked')]
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), bad)" "$1" "$2"; }
for b in l5_private_spill l5_private_spill32 l5_private_spill8; do
  l=$(echo "$b" | cut -c2)
  for i in 1 2 3; do
    timeout 120 build/clgrade check "$l" "tests/fixtures/$b.cl" --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1
    echo "exit $?"; s "$b-$i" /tmp/r.json
  done
done
