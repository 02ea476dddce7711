#!/bin/sh
# attacks3-h200.sh -- on a GPU machine, from a bundle made here by:
#   D=build/dev-a3; rm -rf $D; mkdir -p $D/build $D/lib $D/grader $D/tests; cp build/clgrade $D/build/;
#   cp /usr/lib/x86_64-linux-gnu/libcjson.so.1 /usr/lib/x86_64-linux-gnu/libseccomp.so.2 $D/lib/;
#   cp -r lessons kernels $D/; cp -r grader/baselines $D/grader/; cp -r tests/fixtures tests/attacks3 $D/tests/;
#   cp tests/gpu/attacks3-h200.sh $D/run.sh   (then on the GPU machine: cd $D && sh run.sh)
# the hostile review's predicted-speedup attacks (tests/attacks3) timed on NVIDIA's OpenCL,
# three checks each (--no-analysis: the GPU machine has no Oclgrind), and the solutions of the
# lessons with a speedup bar once, to show their GPU verdicts
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
build/clgrade devices | head -3
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status']!='pass']
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), bad)" "$1" "$2"; }
for f in tests/attacks3/*.cl; do
  b=$(basename "$f" .cl); l=$(echo "$b" | cut -c2)
  for i in 1 2 3; do
    timeout 120 build/clgrade check "$l" "$f" --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1
    echo "exit $?"; s "$b-$i" /tmp/r.json
  done
done
for l in 2 3 5 6 7; do build/clgrade check $l kernels/solutions/0$l-*.cl --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1; echo "exit $?"; s "L$l-solution" /tmp/r.json; done
