#!/bin/sh
# slurm-batch.sh — grade a class on a Slurm cluster: a job array whose task I of N grades shard
# I/N of DIR into one shared OUT folder (each student's report is written by one task only;
# the class tables are the merge's), then one merge writes grades.csv and grades.json, the same
# files a single-machine `clgrade batch` writes.  Resumable: a resubmitted array keeps every
# report that is up to date.  Submit from the repository root (or set CLGRADE):
#
#   jid=$(sbatch --parsable --array=0-7 grader/slurm-batch.sh 3 /class/subs /shared/grades)
#   sbatch --dependency=afterany:$jid grader/slurm-batch.sh --merge 3 /class/subs /shared/grades
#
# Extra arguments after OUT go to `clgrade batch` (--timeout, --seed ...): give the array and
# the merge the same ones.  Each task grades with -j $SLURM_CPUS_PER_TASK (sbatch -c N).
#SBATCH --job-name=clgrade
#SBATCH --output=clgrade-%A_%a.log
set -eu
clgrade=${CLGRADE:-${SLURM_SUBMIT_DIR:-.}/build/clgrade}
if [ "${1:-}" = "--merge" ]; then
	shift
	lesson=$1 dir=$2 out=$3
	shift 3
	exec "$clgrade" batch "$lesson" "$dir" --out "$out" --merge "$@"
fi
: "${SLURM_ARRAY_TASK_ID:?submit as a job array: sbatch --array=0-N grader/slurm-batch.sh ...}"
lesson=$1 dir=$2 out=$3
shift 3
# array indices may start anywhere (--array=1-8): the shard is the index within the array
shard=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))
exec "$clgrade" batch "$lesson" "$dir" --out "$out" --shard "$shard/${SLURM_ARRAY_TASK_COUNT:-1}" \
	-j "${SLURM_CPUS_PER_TASK:-1}" "$@"
