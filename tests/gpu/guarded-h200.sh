#!/bin/sh
# guarded-h200.sh -- on a GPU machine, from a bundle made here by:
#   D=build/dev-guard; rm -rf $D; mkdir -p $D/build $D/lib $D/grader $D/tests; cp build/clgrade $D/build/;
#   cp /usr/lib/x86_64-linux-gnu/libcjson.so.1 /usr/lib/x86_64-linux-gnu/libseccomp.so.2 $D/lib/;
#   cp -r lessons kernels $D/; cp -r grader/baselines $D/grader/; cp -r tests/fixtures $D/tests/;
#   cp tests/gpu/guarded-h200.sh $D/run.sh   (then on the GPU machine: cd $D && sh run.sh)
# lesson 5's loads behind guards (the family of irmlp's guarded blocks, grader/irmlp.h) timed on
# NVIDIA's OpenCL, three checks each (--no-analysis: the GPU machine has no Oclgrind), beside
# the solution and the one-load fixture, to show whether their loads are in flight together
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
build/clgrade devices | head -3
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status'] not in ('pass','not_checked')]
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), bad)" "$1" "$2"; }
for b in l5_guarded_loads l5_pragma_unroll l5_guarded_loop4 l5_guarded_ternary l5_guard_needs_load \
         l5_chain_private l5_chain_phi l5_chain_local l5_chain_guard_loop l5_chain_straight_private \
         l5_one_load_sequential; do
  for i in 1 2 3; do
    timeout 120 build/clgrade check 5 "tests/fixtures/$b.cl" --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1
    echo "exit $?"; s "$b-$i" /tmp/r.json
  done
done
build/clgrade check 5 kernels/solutions/05-reduction.cl --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1
echo "exit $?"; s "L5-solution" /tmp/r.json
