#!/bin/sh
# slurm-cluster.sh start DIR CTLD_PORT SLURMD_PORT | stop DIR — a one-node Slurm cluster on
# this machine, for the Slurm
# test (tests/integration/test_slurm.c).  Needs root and the packages of `grader/deps.sh slurm`.
# Everything lives under DIR: slurm.conf, state, logs, pid files and munge's socket, so it
# touches no system configuration.  Commands find the cluster through SLURM_CONF=DIR/slurm.conf.
# The two ports are the caller's (free ones): several clusters may run side by side.
set -eu
verb=${1:?usage: slurm-cluster.sh start DIR CTLD_PORT SLURMD_PORT | stop DIR}
dir=${2:?usage: slurm-cluster.sh start DIR CTLD_PORT SLURMD_PORT | stop DIR}
case "$verb" in
start)
	ctld_port=${3:?the slurmctld port}
	slurmd_port=${4:?the slurmd port}
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 755 "$dir"            # munged runs as munge and must reach its folder
	chown munge:munge "$dir/munge"
	node=$(hostname -s)
	cpus=$(nproc)
	mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
	cat > "$dir/slurm.conf" <<CONF
ClusterName=clgradetest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
	runuser -u munge -- munged --socket="$dir/munge/munge.socket" \
		--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
		--seed-file="$dir/munge/munged.seed"
	export SLURM_CONF="$dir/slurm.conf"
	slurmctld -f "$SLURM_CONF"
	slurmd -f "$SLURM_CONF"
	# ready when the node is idle
	for i in $(seq 60); do
		sinfo -h -o %t 2>/dev/null | grep -q idle && exit 0
		sleep 0.5
	done
	echo "slurm-cluster: the node did not come up; logs in $dir" >&2
	sinfo >&2 || true
	exit 1 ;;
stop)
	for p in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
		[ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
	done
	sleep 0.5 ;;
*)
	echo "usage: slurm-cluster.sh start DIR CTLD_PORT SLURMD_PORT | stop DIR" >&2; exit 2 ;;
esac
