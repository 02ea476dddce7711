/* test_slurm.c — grading a class on a real Slurm cluster: with Debian's slurmctld, slurmd,
 * slurm-client and munge installed (`make deps`; the test installs nothing), starts a one-node
 * cluster as root (tests/slurm-cluster.sh), submits grader/slurm-batch.sh as a job array over
 * a class folder, waits, merges, and compares the merged grades.csv and grades.json with a
 * local batch's.  Without the packages (grader/deps.sh slurm says which), or without root
 * and without sbatch, it says it was skipped, why, and how to run it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define SOL3 "kernels/solutions/03-transpose-padding.cl"
#define FX   "tests/fixtures/"

static char dir[] = "/tmp/clgrade-slurm-XXXXXX";
static int skipped;
static char why[600];

static int sh(const char *fmt)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, fmt, dir, dir, dir, dir, dir, dir, dir, dir);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *file_in(const char *rel)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	return itest_slurp(path);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Two TCP ports nobody listens on now (the kernel's choice; both sockets open at once, so
 * they differ); 0 on failure. */
static void free_ports(int port[2])
{
	int fd[2] = { -1, -1 };
	for (int i = 0; i < 2; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
		                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof a;
		port[i] = 0;
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (fd[i] >= 0 && bind(fd[i], (struct sockaddr *)&a, sizeof a) == 0 &&
		    getsockname(fd[i], (struct sockaddr *)&a, &len) == 0)
			port[i] = ntohs(a.sin_port);
	}
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* The cluster lives for the whole test case, in the parent: it is stopped even when the test
 * fails. */
static void cluster_up(void)
{
	if (geteuid() != 0 && system("command -v sbatch > /dev/null") != 0) {
		skipped = 1;
		snprintf(why, sizeof why, "not root and no Slurm installed (install it with `sudo make "
		         "deps`, then run `make test T=test_slurm` as root)");
		return;
	}
	FILE *p = popen("sh grader/deps.sh slurm 2>&1", "r");
	char said[500] = "";
	size_t n = p ? fread(said, 1, sizeof said - 1, p) : 0;
	said[n] = '\0';
	said[strcspn(said, "\n")] = '\0';
	if (!p || pclose(p) != 0) {              /* installing them is `make deps`' work */
		skipped = 1;
		snprintf(why, sizeof why, "%s; then run `make test T=test_slurm` as root",
		         *said ? said : "grader/deps.sh slurm failed");
		return;
	}
	if (!mkdtemp(dir) || chmod(dir, 0755) != 0)
		return;                          /* munged runs as munge: it must reach the folder */
	char conf[300];
	snprintf(conf, sizeof conf, "%s/cluster/slurm.conf", dir);
	setenv("SLURM_CONF", conf, 1);
	/* ports of its own: other checkouts may run this test at the same time */
	char cmd[512];
	int port[2];
	free_ports(port);
	snprintf(cmd, sizeof cmd, "sh tests/slurm-cluster.sh start %s/cluster %d %d > %s/cluster.log "
	         "2>&1", dir, port[0], port[1], dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_slurm: the cluster did not start (%s/cluster.log)\n", dir);
}

static void cluster_down(void)
{
	if (skipped)
		return;
	sh("sh tests/slurm-cluster.sh stop %s/cluster; rm -rf %s");
}

START_TEST(array_and_merge_give_the_local_batch)
{
	if (skipped) {
		printf("test_slurm: SKIPPED: %s\n", why);
		return;
	}
	char *log = file_in("cluster.log");
	ck_assert_msg(sh("SLURM_CONF=%s/cluster/slurm.conf sinfo -h -o %%t | grep -q idle") == 0,
	              "no Slurm cluster came up: %s", log ? log : "");
	free(log);
	ck_assert_int_eq(sh("set -e; mkdir %s/in; cd %s/in; R=$OLDPWD; "
	   "cp $R/" SOL3 " alice.cl; cp $R/" FX "l3_unpadded.cl bob.cl; "
	   "cp $R/kernels/starter/03-transpose-padding.cl carol.cl; "
	   "cp $R/" FX "l1_include_passwd.cl 'fay x.cl'; cp $R/" FX "l3_square_only.cl gus.cl; "
	   "mkdir hal; cp $R/" SOL3 " hal/a.cl; cp $R/" SOL3 " hal/b.cl; echo notes > ivy.txt"), 0);
	/* the local batch to compare with (without the Oclgrind analysis, to keep CI short; the
	 * options after OUT reach the array's tasks and the merge) */
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/local -j 2 --no-analysis "
	                    "> %s/local.log 2>&1"), 2);
	/* three shards into one shared folder, then the merge, all through Slurm */
	sh("timeout 150 sbatch --wait --array=0-2 -o %s/task-%%a.log grader/slurm-batch.sh 3 %s/in %s/shared "
	   "--no-analysis > %s/sbatch.log 2>&1");
	char *tasks = NULL;
	ck_assert_int_eq(sh("cat %s/task-0.log %s/task-1.log %s/task-2.log > %s/tasks.log"), 0);
	tasks = file_in("tasks.log");
	for (int i = 0; i < 3; i++) {
		char done[64];
		snprintf(done, sizeof done, "shard %d/3 done", i);
		ck_assert_msg(strstr(tasks, done), "task %d did not finish:\n%s", i, tasks);
	}
	/* every entry graded by exactly one task: no two tasks write one report */
	const char *who[] = { "] alice ", "] bob ", "] carol ", "] fay_x ", "] gus ", "] hal ", "] ivy.txt " };
	for (int i = 0; i < 7; i++)
		ck_assert_msg(count(tasks, who[i]) == 1, "%s graded %d times:\n%s", who[i],
		              count(tasks, who[i]), tasks);
	free(tasks);
	ck_assert_ptr_null(file_in("shared/grades.csv"));           /* the tables are the merge's */
	sh("timeout 60 sbatch --wait -o %s/merge.log grader/slurm-batch.sh --merge 3 %s/in %s/shared "
	   "--no-analysis > /dev/null 2>&1");
	char *local = file_in("local/grades.csv"), *merged = file_in("shared/grades.csv");
	char *mlog = file_in("merge.log");
	ck_assert_msg(merged != NULL, "no merged grades.csv; merge said:\n%s", mlog ? mlog : "");
	ck_assert_msg(strcmp(local, merged) == 0, "local:\n%s\nmerged:\n%s", local, merged);
	ck_assert_int_eq(count(local, "\n"), 8);
	ck_assert_ptr_nonnull(strstr(local, "\"alice\",\"alice.cl\",pass,"));
	ck_assert_ptr_nonnull(strstr(local, "\"gus\",\"gus.cl\",fail,"));
	ck_assert_ptr_nonnull(strstr(local, ",\"correct\","));
	ck_assert_ptr_nonnull(strstr(mlog, "class summary: 2 of 7 passed, 3 failed, 2 errors"));
	free(local), free(merged), free(mlog);
	local = file_in("local/grades.json"), merged = file_in("shared/grades.json");
	ck_assert_msg(merged && strcmp(local, merged) == 0, "grades.json differ");
	free(local), free(merged);
	/* resubmitted, the array keeps every report that is up to date */
	sh("timeout 60 sbatch --wait --array=0-2 -o %s/again-%%a.log grader/slurm-batch.sh 3 %s/in %s/shared "
	   "--no-analysis > /dev/null 2>&1");
	ck_assert_int_eq(sh("cat %s/again-*.log > %s/again.log"), 0);
	char *again = file_in("again.log");
	ck_assert_msg(count(again, "unchanged: kept") == 5, "%s", again);
	free(again);
	/* a merge of a folder no shard wrote: every row says it was not graded */
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/empty --merge --no-analysis "
	                    "> /dev/null 2>&1"), 2);
	char *empty = file_in("empty/grades.csv");
	ck_assert_int_eq(count(empty, ",error,0,0,\"not graded: no up-to-date report"), 5);
	free(empty);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slurm");
	TCase *tc = tcase_create("cluster");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, cluster_up, cluster_down);
	tcase_add_test(tc, array_and_merge_give_the_local_batch);
	suite_add_tcase(s, tc);
	return itest_run(s);
}
