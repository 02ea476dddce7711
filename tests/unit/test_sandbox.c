/* test_sandbox.c — Check unit tests for the sandboxed child (grader/sandbox.c).
 *
 * Each test runs a small function in the sandbox and checks how it ended: an exit code, a
 * signal, a timeout that really kills the child and everything it forked, the memory limit,
 * the log file, and shared memory that survives the child's crash.  To see the processes the
 * sandbox killed, the test process makes itself a child subreaper: an orphaned grandchild then
 * becomes its child, and waitpid() says exactly how it died.  About 1.2 s in all (timeouts). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

typedef struct shared_box {
	volatile pid_t child, grandchild;
	volatile int value;
	char text[64];
} shared_box;

static shared_box *box;

static void setup(void)
{
	box = sandbox_shared(sizeof *box);
	ck_assert_ptr_nonnull(box);
}

static void teardown(void)
{
	sandbox_unshare(box, sizeof *box);
	box = NULL;
}

static const sandbox_limits NO_LIMITS = { 0, 0, NULL };

/* ---- child functions ---- */

static int child_return7(void *arg) { return 7; }
static int child_return0(void *arg) { return 0; }

static int child_raise_segv(void *arg)
{
	shared_box *b = arg;
	b->value = 42;
	strcpy(b->text, "written before the crash");
	raise(SIGSEGV);
	return 0;
}

static int child_null_write(void *arg)
{
	volatile int *volatile p = NULL;
	*p = 1;
	return 0;
}

static int child_hang(void *arg)
{
	shared_box *b = arg;
	b->child = getpid();
	for (;;)
		pause();
	return 0;
}

static int child_busy(void *arg)
{
	shared_box *b = arg;
	b->child = getpid();
	for (volatile unsigned long i = 0;; i++)
		;
	return 0;
}

static int child_grandchild_hangs(void *arg)
{
	shared_box *b = arg;
	b->child = getpid();
	pid_t g = fork();
	if (g == 0) {
		for (;;)
			pause();
	}
	b->grandchild = g;
	for (;;)
		pause();
	return 0;
}

static int child_leaves_grandchild(void *arg)
{
	shared_box *b = arg;
	pid_t g = fork();
	if (g == 0) {
		for (;;)
			pause();
	}
	b->grandchild = g;
	return 0;        /* exits at once; the grandchild would live on */
}

static int child_malloc_512m(void *arg)
{
	size_t n = (size_t)512 << 20;
	char *p = malloc(n);
	if (!p)
		return 3;
	memset(p, 1, n);
	return 0;
}

static int child_malloc_512m_untouched(void *arg)
{
	char *volatile p = malloc((size_t)512 << 20);
	return p ? 0 : 3;
}

static int child_malloc_8m(void *arg)
{
	size_t n = (size_t)8 << 20;
	char *p = malloc(n);
	if (!p)
		return 3;
	memset(p, 1, n);
	return 0;
}

static int child_limits(void *arg)
{
	struct rlimit as, core;
	getrlimit(RLIMIT_AS, &as);
	getrlimit(RLIMIT_CORE, &core);
	if (as.rlim_cur != (rlim_t)64 << 20)
		return 1;
	if (core.rlim_cur != 0)
		return 2;
	if (getpgid(0) != getpid())    /* its own process group */
		return 4;
	return 0;
}

static int child_prints(void *arg)
{
	printf("to stdout %d\n", 1);
	fprintf(stderr, "to stderr %d\n", 2);
	return 0;
}

/* stdout, stderr and stdin are /dev/null when log_path is NULL */
static int child_devnull(void *arg)
{
	struct stat null, fd;
	if (stat("/dev/null", &null) != 0)
		return 10;
	for (int i = 0; i < 3; i++) {
		if (fstat(i, &fd) != 0)
			return 20 + i;
		if (!S_ISCHR(fd.st_mode) || fd.st_rdev != null.st_rdev)
			return 30 + i;
	}
	return 0;
}

/* ---- tests ---- */

START_TEST(test_exit_code)
{
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_return7, NULL, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 7);
	ck_assert_str_eq(st.what, "exited with status 7");
	ck_assert(st.wall_s >= 0 && st.wall_s < 1.0);

	ck_assert_int_eq(sandbox_run(child_return0, NULL, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);
	ck_assert_str_eq(st.what, "exited with status 0");
}
END_TEST

START_TEST(test_segfault)
{
	sandbox_status st;
	char want[160];
	snprintf(want, sizeof want, "killed by signal %d (%s)", SIGSEGV, strsignal(SIGSEGV));

	ck_assert_int_eq(sandbox_run(child_raise_segv, box, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_SIGNALED);
	ck_assert_int_eq(st.code, SIGSEGV);
	ck_assert_str_eq(st.what, want);

	ck_assert_int_eq(sandbox_run(child_null_write, NULL, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_SIGNALED);
	ck_assert_int_eq(st.code, SIGSEGV);
}
END_TEST

START_TEST(test_shared_memory_survives_crash)
{
	ck_assert_int_eq(box->value, 0);       /* zeroed */
	ck_assert_str_eq(box->text, "");
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_raise_segv, box, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_SIGNALED);
	ck_assert_int_eq(box->value, 42);
	ck_assert_str_eq(box->text, "written before the crash");
}
END_TEST

START_TEST(test_timeout_kills_hung_child)
{
	sandbox_limits lim = { 0.5, 0, NULL };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_hang, box, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_TIMEOUT);
	ck_assert_msg(st.wall_s >= 0.5 && st.wall_s < 2.0, "wall %g s", st.wall_s);
	ck_assert_str_eq(st.what, "timed out after 0.5 s (killed)");
	pid_t pid = box->child;
	ck_assert_int_gt(pid, 0);
	ck_assert_int_ne(pid, getpid());
	errno = 0;
	ck_assert_int_eq(kill(pid, 0), -1);   /* killed and reaped */
	ck_assert_int_eq(errno, ESRCH);
}
END_TEST

START_TEST(test_timeout_kills_busy_child)
{
	sandbox_limits lim = { 0.3, 0, NULL };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_busy, box, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_TIMEOUT);
	ck_assert_msg(st.wall_s >= 0.3 && st.wall_s < 1.8, "wall %g s", st.wall_s);
	ck_assert_int_gt(box->child, 0);
	errno = 0;
	ck_assert_int_eq(kill(box->child, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
}
END_TEST

/* The grandchild, reparented to this (subreaper) process, must have died of SIGKILL. */
static void assert_grandchild_killed(void)
{
	pid_t g = box->grandchild;
	ck_assert_int_gt(g, 0);
	int status = 0;
	pid_t r = 0;
	for (int i = 0; i < 200 && r == 0; i++) {   /* up to 1 s for SIGKILL to land */
		r = waitpid(g, &status, WNOHANG);
		if (r == 0)
			usleep(5000);
	}
	if (r == 0) {                                 /* a survivor: clean up, then fail */
		kill(g, SIGKILL);
		waitpid(g, &status, 0);
		ck_abort_msg("grandchild %d outlived the sandbox", (int)g);
	}
	ck_assert_int_eq(r, g);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGKILL);
}

START_TEST(test_timeout_kills_process_group)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	sandbox_limits lim = { 0.3, 0, NULL };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_grandchild_hangs, box, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_TIMEOUT);
	ck_assert(st.wall_s < 1.8);
	errno = 0;
	ck_assert_int_eq(kill(box->child, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	assert_grandchild_killed();
}
END_TEST

START_TEST(test_leftover_grandchild_killed)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	sandbox_limits lim = { 5, 0, NULL };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_leaves_grandchild, box, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);
	ck_assert(st.wall_s < 1.0);
	assert_grandchild_killed();
}
END_TEST

START_TEST(test_memory_limit)
{
	sandbox_limits lim = { 10, (size_t)64 << 20, NULL };
	sandbox_status st;
	/* 512 MiB cannot be had under a 64 MiB address-space limit */
	ck_assert_int_eq(sandbox_run(child_malloc_512m, NULL, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 3);
	/* the same allocation without the limit succeeds (not touched: no real memory used) */
	ck_assert_int_eq(sandbox_run(child_malloc_512m_untouched, NULL, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);
	/* and a small allocation still works under the limit */
	ck_assert_int_eq(sandbox_run(child_malloc_8m, NULL, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);
}
END_TEST

START_TEST(test_child_limits_and_group)
{
	sandbox_limits lim = { 10, (size_t)64 << 20, NULL };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_limits, NULL, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);
}
END_TEST

START_TEST(test_log_path)
{
	char path[] = "/tmp/test_sandbox_log_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "OLD CONTENT THAT MUST GO AWAY\n", 30), 30);
	close(fd);

	sandbox_limits lim = { 10, 0, path };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_prints, NULL, &lim, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);

	char buf[256] = "";
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	ck_assert_msg(strstr(buf, "to stdout 1\n") != NULL, "log: %s", buf);
	ck_assert_msg(strstr(buf, "to stderr 2\n") != NULL, "log: %s", buf);
	ck_assert_ptr_null(strstr(buf, "OLD CONTENT"));
	ck_assert_uint_eq(n, strlen("to stdout 1\n") + strlen("to stderr 2\n"));
}
END_TEST

START_TEST(test_no_log_is_devnull)
{
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_devnull, NULL, &NO_LIMITS, &st), 0);
	ck_assert_int_eq(st.end, SANDBOX_EXITED);
	ck_assert_int_eq(st.code, 0);
}
END_TEST

static void handler(int sig) { (void)sig; }

START_TEST(test_signal_handlers_restored)
{
	signal(SIGINT, handler);
	signal(SIGTERM, handler);
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_return7, NULL, &NO_LIMITS, &st), 0);
	ck_assert(signal(SIGINT, SIG_DFL) == handler);
	ck_assert(signal(SIGTERM, SIG_DFL) == handler);
}
END_TEST

START_TEST(test_shared_is_zeroed_and_shared)
{
	size_t n = 1 << 20;
	unsigned char *p = sandbox_shared(n);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i += 4096)
		ck_assert_int_eq(p[i], 0);
	sandbox_unshare(p, n);
	sandbox_unshare(NULL, 0);    /* harmless */
}
END_TEST

static Suite *sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *t = tcase_create("ends");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_exit_code);
	tcase_add_test(t, test_segfault);
	tcase_add_test(t, test_shared_memory_survives_crash);
	tcase_add_test(t, test_timeout_kills_hung_child);
	tcase_add_test(t, test_timeout_kills_busy_child);
	tcase_add_test(t, test_timeout_kills_process_group);
	tcase_add_test(t, test_leftover_grandchild_killed);
	suite_add_tcase(s, t);

	t = tcase_create("limits");
	tcase_add_test(t, test_memory_limit);
	tcase_add_test(t, test_child_limits_and_group);
	tcase_add_test(t, test_log_path);
	tcase_add_test(t, test_no_log_is_devnull);
	tcase_add_test(t, test_signal_handlers_restored);
	tcase_add_test(t, test_shared_is_zeroed_and_shared);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sandbox_suite());
	/* each test in its own process: the subreaper setting and signal handlers stay there */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
