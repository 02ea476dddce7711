/* test_sandbox.c — Check unit tests for the sandboxed child (grader/sandbox.c).
 *
 * Each test runs a small function in the sandbox and checks how it ended: an exit code, a
 * signal, a timeout that really kills the child and everything it forked, the memory limit,
 * the log file, and shared memory that survives the child's crash.  To see the processes the
 * sandbox killed, the test process makes itself a child subreaper: an orphaned grandchild then
 * becomes its child, and waitpid() says exactly how it died.  About 1.2 s in all (timeouts).
 *
 * The confinement tests run hostile C code inside a confined child through the sandbox API
 * itself (as a kernel's inline assembly would, were it not refused first): raw system calls
 * that read a secret outside the lesson folder, write outside the private folder, overwrite
 * another student's report, start programs, trace or signal the grader, open sockets, make
 * namespaces or in-memory executables.  Each must fail, and what the runtime needs must work.
 * The temp-folder tests kill a process holding a private folder with SIGINT, SIGTERM and SIGHUP
 * and check that nothing is left. */
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include "batch.h"
#include "check.h"
#include "confine.h"
#include "lesson.h"
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

static const sandbox_limits NO_LIMITS = { 0, 0, NULL, NULL, 0 };

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
	sandbox_limits lim = { 0.5, 0, NULL, NULL, 0 };
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
	sandbox_limits lim = { 0.3, 0, NULL, NULL, 0 };
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
	sandbox_limits lim = { 0.3, 0, NULL, NULL, 0 };
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
	sandbox_limits lim = { 5, 0, NULL, NULL, 0 };
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
	sandbox_limits lim = { 10, (size_t)64 << 20, NULL, NULL, 0 };
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
	sandbox_limits lim = { 10, (size_t)64 << 20, NULL, NULL, 0 };
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

	sandbox_limits lim = { 10, 0, path, NULL, 0 };
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


/* ---- confinement: hostile code in a confined child ---- */

enum { A_SECRET, A_LESSON, A_PRIV_WRITE, A_OUT_WRITE, A_REPORT_WRITE, A_REPORT_UNLINK,
       A_REPORT_RENAME, A_PASSWD, A_EXEC_SH, A_EXEC_COPY, A_PTRACE, A_VM_READ, A_KILL_PARENT,
       A_SOCKET_INET, A_SOCKET_UNIX, A_PROC_FD, A_PROC_MEM, A_MEMFD, A_UNSHARE, A_CLONE_USER,
       A_IO_URING, A_PRLIMIT, A_X32, A_NNP, A_CORE, A_NPROC, A_FSIZE, A_SYMLINK_OUT, A_COUNT };

typedef struct attack_box {
	char root[256];            /* the test's folder: lesson/, secret/, priv/, reports/ */
	long rc[A_COUNT];          /* the raw result: >= 0 is success */
	int err[A_COUNT];          /* errno when it failed */
	int done;
} attack_box;

static void note(attack_box *b, int i, long rc)
{
	b->rc[i] = rc;
	b->err[i] = rc < 0 ? errno : 0;
}

static long raw_open(const char *root, const char *rel, int flags)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	long fd = syscall(SYS_openat, AT_FDCWD, p, flags, 0755);
	if (fd >= 0)
		close((int)fd);
	return fd;
}

/* execve in a grandchild; its exit status 0 means the program ran */
static long try_exec(const char *path)
{
	int pfd[2];
	if (pipe(pfd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };
		syscall(SYS_execve, path, argv, NULL);
		int e = errno;
		ck_assert_int_eq(write(pfd[1], &e, sizeof e), sizeof e);
		_exit(99);
	}
	close(pfd[1]);
	int e = 0, status = 0;
	ssize_t n = read(pfd[0], &e, sizeof e);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n == sizeof e) {
		errno = e;
		return -1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int child_attacks(void *arg)
{
	attack_box *b = arg;
	const char *r = b->root;
	char p[512], q[512];
	pid_t parent = getppid();
	note(b, A_SECRET, raw_open(r, "secret/secret.txt", O_RDONLY));
	note(b, A_LESSON, raw_open(r, "lesson/ok.h", O_RDONLY));
	note(b, A_PRIV_WRITE, raw_open(r, "priv/new.txt", O_WRONLY | O_CREAT));
	note(b, A_OUT_WRITE, raw_open(r, "secret/planted.txt", O_WRONLY | O_CREAT));
	note(b, A_REPORT_WRITE, raw_open(r, "reports/bob.json", O_WRONLY | O_TRUNC));
	snprintf(p, sizeof p, "%s/reports/bob.json", r);
	note(b, A_REPORT_UNLINK, syscall(SYS_unlink, p));
	snprintf(q, sizeof q, "%s/priv/bob.json", r);
	note(b, A_REPORT_RENAME, syscall(SYS_rename, p, q));
	note(b, A_PASSWD, raw_open("", "etc/passwd", O_RDONLY));
	note(b, A_EXEC_SH, try_exec("/bin/sh"));
	/* a program copied into the writable folder */
	snprintf(p, sizeof p, "%s/priv/true", r);
	int in = open("/bin/true", O_RDONLY), out = open(p, O_WRONLY | O_CREAT, 0755);
	char buf[65536];
	ssize_t n;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, n) != n)
			break;
	close(in);
	close(out);
	note(b, A_EXEC_COPY, try_exec(p));
	note(b, A_PTRACE, syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, parent, 0, 0));
	struct iovec local = { buf, 16 }, remote = { (void *)b, 16 };
	note(b, A_VM_READ, syscall(SYS_process_vm_readv, parent, &local, 1, &remote, 1, 0));
	note(b, A_KILL_PARENT, syscall(SYS_kill, parent, 0));
	note(b, A_SOCKET_INET, syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
	note(b, A_SOCKET_UNIX, syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0));
	snprintf(p, sizeof p, "/proc/%d/fd/1", (int)parent);
	note(b, A_PROC_FD, raw_open("", p + 1, O_WRONLY));
	snprintf(p, sizeof p, "/proc/%d/mem", (int)parent);
	note(b, A_PROC_MEM, raw_open("", p + 1, O_RDWR));
	note(b, A_MEMFD, syscall(SYS_memfd_create, "x", 0));
	note(b, A_UNSHARE, syscall(SYS_unshare, CLONE_NEWUSER));
	long c = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (c == 0)
		_exit(0);
	if (c > 0)
		waitpid((pid_t)c, NULL, 0);
	note(b, A_CLONE_USER, c);
	char params[120] = { 0 };
	note(b, A_IO_URING, syscall(SYS_io_uring_setup, 4, params));
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	note(b, A_PRLIMIT, syscall(SYS_prlimit64, parent, RLIMIT_NOFILE, NULL, &rl) < 0 ? -1 :
	     syscall(SYS_prlimit64, parent, RLIMIT_CORE, &rl, NULL));
	/* the x32 ABI's numbers (bit 30) are a classic way around a filter: in a grandchild,
	 * since the filter may answer by killing the caller */
	pid_t x = fork();
	if (x == 0)
		_exit(syscall(0x40000000 | SYS_socket, AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1);
	int xs = 0;
	waitpid(x, &xs, 0);
	errno = EPERM;
	note(b, A_X32, WIFEXITED(xs) && WEXITSTATUS(xs) == 0 ? 0 : -1);
	note(b, A_NNP, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : -1);
	getrlimit(RLIMIT_CORE, &rl);
	note(b, A_CORE, rl.rlim_max == 0 ? 0 : -1);
	getrlimit(RLIMIT_NPROC, &rl);
	note(b, A_NPROC, rl.rlim_max != RLIM_INFINITY ? 0 : -1);
	getrlimit(RLIMIT_FSIZE, &rl);
	note(b, A_FSIZE, rl.rlim_max <= (64UL << 20) ? 0 : -1);
	/* a symlink in the writable folder pointing at the secret */
	snprintf(p, sizeof p, "%s/secret/secret.txt", r);
	snprintf(q, sizeof q, "%s/priv/link", r);
	note(b, A_SYMLINK_OUT, symlink(p, q) == 0 ? raw_open(r, "priv/link", O_RDONLY) : -1);
	b->done = 1;
	return 0;
}

static void make_file(const char *root, const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_confined_child_cannot_escape)
{
	confine_support sup;
	confine_probe(&sup);
	if (!sup.landlock_abi || !sup.seccomp) {
		fprintf(stderr, "test_confined_child_cannot_escape: %s; skipped\n", confine_missing());
		return;
	}
	attack_box *b = sandbox_shared(sizeof *b);
	ck_assert_ptr_nonnull(b);
	snprintf(b->root, sizeof b->root, "/tmp/test_confine_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(b->root));
	const char *dirs[] = { "lesson", "secret", "priv", "reports" };
	for (int i = 0; i < 4; i++) {
		char p[512];
		snprintf(p, sizeof p, "%s/%s", b->root, dirs[i]);
		ck_assert_int_eq(mkdir(p, 0700), 0);
	}
	make_file(b->root, "lesson/ok.h", "#define OK 1\n");
	make_file(b->root, "secret/secret.txt", "the secret\n");
	make_file(b->root, "reports/bob.json", "{\"score\": 7}\n");
	char lesson[512], priv[512];
	snprintf(lesson, sizeof lesson, "%s/lesson", b->root);
	snprintf(priv, sizeof priv, "%s/priv", b->root);
	confine_policy pol;
	confine_storage cst;
	confine_default(&pol, &cst, lesson, priv, NULL);
	sandbox_limits lim = { 20, 0, NULL, &pol, 0 };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_attacks, b, &lim, &st), 0);
	ck_assert_msg(st.end == SANDBOX_EXITED && st.code == 0 && b->done, "child: %s", st.what);
	static const char *names[] = { "read a secret", "read the lesson folder", "write its folder",
		"write outside", "write a report", "unlink a report", "rename a report", "read /etc/passwd",
		"exec /bin/sh", "exec a copied program", "ptrace the grader", "read the grader's memory",
		"signal the grader", "open a TCP socket", "open a Unix socket", "write the grader's stdout",
		"open the grader's memory", "memfd_create", "unshare a user namespace",
		"clone a user namespace", "io_uring", "change the grader's limits", "x32 system call",
		"no_new_privs", "no core dumps", "a process limit", "a file size limit",
		"follow a symlink out" };
	static const int must_work[] = { A_LESSON, A_PRIV_WRITE, A_NNP, A_CORE, A_NPROC, A_FSIZE };
	for (int i = 0; i < A_COUNT; i++) {
		int want = 0;
		for (size_t k = 0; k < sizeof must_work / sizeof *must_work; k++)
			want |= must_work[k] == i;
		if (want)
			ck_assert_msg(b->rc[i] >= 0, "%s must work: %s", names[i], strerror(b->err[i]));
		else
			ck_assert_msg(b->rc[i] < 0, "the confined child could %s", names[i]);
	}
	/* the report is untouched and nothing was planted */
	char p[512], text[64] = "";
	snprintf(p, sizeof p, "%s/reports/bob.json", b->root);
	FILE *f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(text, sizeof text, f));
	fclose(f);
	ck_assert_str_eq(text, "{\"score\": 7}\n");
	snprintf(p, sizeof p, "%s/secret/planted.txt", b->root);
	ck_assert_int_ne(access(p, F_OK), 0);
	sandbox_rmtree(b->root);
	sandbox_unshare(b, sizeof *b);
}
END_TEST

/* ---- the check's two children: each writes only its own folder ---- */

typedef struct cross_box {
	char own[4200], other[4200];
	long create_other, write_other, unlink_other, rename_other, link_into_other, create_own;
	int done;
} cross_box;

static int child_cross(void *arg)
{
	cross_box *b = arg;
	char p[4300], q[4300];
	snprintf(p, sizeof p, "%s/trace-0.json", b->other);
	b->create_other = syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	snprintf(p, sizeof p, "%s/planted", b->other);
	b->write_other = syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_TRUNC);
	b->unlink_other = syscall(SYS_unlink, p);
	snprintf(q, sizeof q, "%s-moved", b->other);
	b->rename_other = syscall(SYS_rename, b->other, q);
	snprintf(q, sizeof q, "%s/mine", b->own);
	b->create_own = syscall(SYS_openat, AT_FDCWD, q, O_WRONLY | O_CREAT, 0644);
	snprintf(p, sizeof p, "%s/trace-1.json", b->other);
	b->link_into_other = b->create_own >= 0 ? syscall(SYS_link, q, p) : -1;
	b->done = 1;
	return 0;
}

/* The build-and-run child (native kernel code on PoCL) cannot create, overwrite, remove or
 * move the analysis child's files (the trace summaries the parent trusts), and the other way
 * round: check_confine gives each its own folder. */
START_TEST(test_check_children_write_only_their_own_folder)
{
	confine_support sup;
	confine_probe(&sup);
	if (!sup.landlock_abi) {
		fprintf(stderr, "test_check_children_write_only_their_own_folder: %s; skipped\n",
		        confine_missing());
		return;
	}
	char tmp[4096];
	ck_assert_int_eq(sandbox_tmp_make(tmp, sizeof tmp), 0);
	check_opts o = { .l = lesson_find("3") };
	check_confinement *cc = malloc(sizeof *cc);
	ck_assert_int_eq(check_confine(&o, tmp, NULL, cc), 0);
	for (int k = 0; k < 2; k++) {
		cross_box *b = sandbox_shared(sizeof *b);
		ck_assert_ptr_nonnull(b);
		snprintf(b->own, sizeof b->own, "%s", k == 0 ? cc->run : cc->an);
		snprintf(b->other, sizeof b->other, "%s", k == 0 ? cc->an : cc->run);
		char planted[4300];
		snprintf(planted, sizeof planted, "%s/planted", b->other);
		FILE *f = fopen(planted, "w");
		ck_assert_ptr_nonnull(f);
		fputs("{\"complete\": true}\n", f);
		fclose(f);
		sandbox_limits lim = { 20, 0, NULL, k == 0 ? &cc->run_pol : &cc->an_pol, 0 };
		sandbox_status st;
		ck_assert_int_eq(sandbox_run(child_cross, b, &lim, &st), 0);
		ck_assert_msg(st.end == SANDBOX_EXITED && b->done, "child: %s", st.what);
		const char *who = k == 0 ? "the build-and-run child" : "the analysis child";
		ck_assert_msg(b->create_own >= 0, "%s cannot write its own folder", who);
		ck_assert_msg(b->create_other < 0, "%s created a file in the other's folder", who);
		ck_assert_msg(b->write_other < 0, "%s overwrote the other's file", who);
		ck_assert_msg(b->unlink_other < 0, "%s removed the other's file", who);
		ck_assert_msg(b->rename_other < 0, "%s moved the other's folder", who);
		ck_assert_msg(b->link_into_other < 0, "%s linked a file into the other's folder", who);
		ck_assert_int_eq(access(planted, F_OK), 0);
		sandbox_unshare(b, sizeof *b);
	}
	free(cc);
	sandbox_tmp_remove(tmp);
}
END_TEST

/* ---- batch never follows a submission that became a link ---- */

/* A submission swapped, after batch listed it, for a link to a secret (or a FIFO, a file under
 * a folder linked outside, a hard link to a secret, a folder swapped for a link to another
 * student's): check_lesson with check_opts.within refuses it without reading a byte, and
 * batch_hash_file neither follows nor blocks. */
START_TEST(test_batch_source_never_followed)
{
	char root[] = "/tmp/test_within_XXXXXX", p[600], q[600], subs[600], real[4096];
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(subs, sizeof subs, "%s/subs", root);
	ck_assert_int_eq(mkdir(subs, 0700), 0);
	snprintf(p, sizeof p, "%s/outside", root);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	make_file(root, "secret.txt", "secret_marker_42 = 1;\n");
	make_file(root, "outside/k.cl", "secret_marker_43 = 1;\n");
	snprintf(p, sizeof p, "%s/secret.txt", root);
	snprintf(q, sizeof q, "%s/zed.cl", subs);
	ck_assert_int_eq(symlink(p, q), 0);
	snprintf(p, sizeof p, "%s/outside", root);
	snprintf(q, sizeof q, "%s/dir", subs);
	ck_assert_int_eq(symlink(p, q), 0);
	snprintf(q, sizeof q, "%s/fifo.cl", subs);
	ck_assert_int_eq(mkfifo(q, 0600), 0);
	/* a hard link to the secret; carol's folder swapped for a link to bob's */
	snprintf(p, sizeof p, "%s/secret.txt", root);
	snprintf(q, sizeof q, "%s/eve.cl", subs);
	ck_assert_int_eq(link(p, q), 0);
	snprintf(q, sizeof q, "%s/bob", subs);
	ck_assert_int_eq(mkdir(q, 0700), 0);
	make_file(subs, "bob/k.cl", "secret_marker_44 = 1;\n");
	snprintf(q, sizeof q, "%s/carol", subs);
	ck_assert_int_eq(symlink("bob", q), 0);
	ck_assert_ptr_nonnull(realpath(subs, real));
	static const char *entries[] = { "zed.cl", "dir/k.cl", "fifo.cl", "eve.cl", "carol/k.cl" };
	/* which guard refused it: the open (no link followed, no FIFO), the real path, the names */
	static const char *why[] = { "not a readable file, or a link", "no longer the file it listed",
	                             "not a readable file, or a link", "more than one name",
	                             "no longer the file it listed" };
	for (int i = 0; i < 5; i++) {
		char want[4200];
		snprintf(q, sizeof q, "%s/%s", subs, entries[i]);
		snprintf(want, sizeof want, "%s/%s", real, entries[i]);   /* batch: within/entry */
		check_opts o = { .l = lesson_find("1"), .kernel = q, .within = want, .timeout_s = 5 };
		check_report *rep = malloc(sizeof *rep);
		ck_assert_int_eq(check_lesson(&o, rep), 2);
		ck_assert_msg(strstr(rep->grader_error, why[i]) != NULL, "%s: %s", entries[i],
		              rep->grader_error);
		ck_assert_str_eq(rep->source_hash, "");
		ck_assert_ptr_null(strstr(rep->refused, "secret_marker"));
		ck_assert_ptr_null(strstr(rep->grader_error, "secret_marker"));
		check_free(rep);
		free(rep);
		char h[17];   /* the hash of a file under a linked folder reveals nothing: not tested */
		if (i == 0 || i == 2)
			ck_assert_msg(batch_hash_file(q, h) == -1, "batch_hash_file read %s", entries[i]);
	}
	sandbox_rmtree(root);
}
END_TEST

/* A process holding a private folder, killed by sig: the folder goes with it. */
static void killed_with(int sig)
{
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char dir[512], f[600];
		signal(SIGINT, SIG_DFL);   /* as in a grader started from a shell */
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (sandbox_tmp_make(dir, sizeof dir) != 0)
			_exit(3);
		snprintf(f, sizeof f, "%s/sub", dir);
		mkdir(f, 0700);
		snprintf(f, sizeof f, "%s/sub/log", dir);
		FILE *o = fopen(f, "w");
		fputs("x", o);
		fclose(o);
		ck_assert_int_eq(write(pfd[1], dir, sizeof dir), sizeof dir);
		for (;;)
			pause();
	}
	close(pfd[1]);
	char dir[512];
	ck_assert_int_eq(read(pfd[0], dir, sizeof dir), sizeof dir);
	close(pfd[0]);
	ck_assert_int_eq(access(dir, F_OK), 0);
	kill(pid, sig);
	int status;
	waitpid(pid, &status, 0);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == sig);
	ck_assert_msg(access(dir, F_OK) != 0, "%s left after signal %d", dir, sig);
}

START_TEST(test_tmp_removed_on_signals)
{
	killed_with(SIGINT);
	killed_with(SIGTERM);
	killed_with(SIGHUP);
}
END_TEST

START_TEST(test_tmp_sweep_takes_dead_runs_only)
{
	char mine[512], dead[600];
	ck_assert_int_eq(sandbox_tmp_make(mine, sizeof mine), 0);
	pid_t pid = fork();       /* a pid that is surely gone after the wait */
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	const char *t = getenv("TMPDIR");
	snprintf(dead, sizeof dead, "%s/clgrade-%d-AbCdEf", t && *t == '/' ? t : "/tmp", (int)pid);
	ck_assert_int_eq(mkdir(dead, 0700), 0);
	sandbox_tmp_sweep();
	ck_assert_msg(access(dead, F_OK) != 0, "a killed run's folder stays: %s", dead);
	ck_assert_msg(access(mine, F_OK) == 0, "a live run's folder went: %s", mine);
	sandbox_tmp_remove(mine);
	ck_assert_int_ne(access(mine, F_OK), 0);
}
END_TEST


/* A confined child holds none of the grader's environment but what its runtime reads: not
 * through getenv, not in /proc/self/environ, not anywhere in the bytes its environment had. */
typedef struct env_box {
	int getenv_found, proc_found, kept, done;
} env_box;

static int child_env(void *arg)
{
	env_box *b = arg;
	extern char **environ;
	b->getenv_found = getenv("CLGRADE_SECRET_MARKER") != NULL;
	b->kept = getenv("POCL_TEST_KEPT") != NULL && getenv("PATH") != NULL;
	for (char **e = environ; *e; e++)
		b->getenv_found |= strstr(*e, "zz9plural") != NULL;
	FILE *f = fopen("/proc/self/environ", "r");
	char buf[65536];
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	b->proc_found = memmem(buf, n, "zz9plural", 9) != NULL;
	b->done = f != NULL;
	return 0;
}

START_TEST(test_confined_child_has_no_grader_environment)
{
	env_box *b = sandbox_shared(sizeof *b);
	ck_assert_ptr_nonnull(b);
	char root[] = "/tmp/test_env_XXXXXX", priv[64];
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(priv, sizeof priv, "%s/priv", root);
	ck_assert_int_eq(mkdir(priv, 0700), 0);
	/* the marker set after start (heap) and at start would be the same to the child: both go */
	setenv("CLGRADE_SECRET_MARKER", "zz9plural", 1);
	setenv("POCL_TEST_KEPT", "1", 1);
	confine_policy pol;
	confine_storage cst;
	confine_default(&pol, &cst, root, priv, NULL);
	sandbox_limits lim = { 20, 0, NULL, &pol, 0 };
	sandbox_status st;
	ck_assert_int_eq(sandbox_run(child_env, b, &lim, &st), 0);
	ck_assert_msg(st.end == SANDBOX_EXITED && st.code == 0 && b->done, "child: %s", st.what);
	ck_assert_msg(!b->getenv_found, "the confined child sees the grader's environment");
	ck_assert_msg(!b->proc_found, "the grader's environment is in the child's /proc/self/environ");
	ck_assert_msg(b->kept, "the runtime's own settings (POCL_*, PATH) must stay");
	ck_assert_str_eq(getenv("CLGRADE_SECRET_MARKER"), "zz9plural");   /* the parent keeps its own */
	unsetenv("CLGRADE_SECRET_MARKER");
	unsetenv("POCL_TEST_KEPT");
	rmdir(priv);
	rmdir(root);
	sandbox_unshare(b, sizeof *b);
}
END_TEST

/* A child that nests folders far deeper than any recursion should follow, and makes one
 * unreadable, leaves nothing behind (attack review: 33 levels once outlived the check). */
START_TEST(test_rmtree_any_depth)
{
	char top[] = "/tmp/clgrade-rmtree-XXXXXX", path[8192];
	ck_assert_ptr_nonnull(mkdtemp(top));
	int n = snprintf(path, sizeof path, "%s", top);
	for (int i = 0; i < 1000 && n < (int)sizeof path - 4; i++) {
		n += snprintf(path + n, sizeof path - n, "/d");
		ck_assert_int_eq(mkdir(path, 0700), 0);
	}
	int fd = open(strcat(path, "/f"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(path, sizeof path, "%s/locked", top);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/locked/inner", top);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/locked", top);
	chmod(path, 0);
	sandbox_rmtree(top);
	ck_assert_int_ne(access(top, F_OK), 0);
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
	tcase_add_test(t, test_confined_child_cannot_escape);
	tcase_add_test(t, test_check_children_write_only_their_own_folder);
	tcase_add_test(t, test_confined_child_has_no_grader_environment);
	tcase_add_test(t, test_batch_source_never_followed);
	tcase_add_test(t, test_tmp_removed_on_signals);
	tcase_add_test(t, test_tmp_sweep_takes_dead_runs_only);
	tcase_add_test(t, test_rmtree_any_depth);
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
