#!/bin/sh
# attacks4-h200.sh -- on a GPU machine, from the bundle of guarded-h200.sh (same commands, with
# tests/attacks4 copied too, this file as run-a4.sh): the hostile review of the new model rules
# (tests/attacks4) timed on NVIDIA's OpenCL, two checks each, --no-analysis, to set against
# the verdicts predicted on PoCL (sh tests/attacks4/predict.sh)
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
build/clgrade devices | head -3
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status'] not in ('pass','not_checked')]
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), bad)" "$1" "$2"; }
for f in tests/attacks4/*.cl; do b=$(basename "$f" .cl)
  l=$(echo "$b" | cut -c2)
  for i in 1 2; do
    timeout 120 build/clgrade check "$l" "$f" --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1
    echo "exit $?"; s "$b-$i" /tmp/r.json
  done
done
