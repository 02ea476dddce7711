/* sandbox.c — fork/limits/wait for sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"

enum { MAX_LIVE = 8 };
static volatile pid_t live[MAX_LIVE];   /* children to take down with us */
static void (*old_int)(int), (*old_term)(int), (*old_hup)(int);
static int nlive;

void *sandbox_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void sandbox_unshare(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Ctrl-C or a kill of the grader takes the children's process groups with it. */
static void forward(int sig)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			kill(-live[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(pid_t pid, int add)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (add ? live[i] == 0 : live[i] == pid) {
			live[i] = add ? pid : 0;
			break;
		}
	if (add && nlive++ == 0) {
		old_int = signal(SIGINT, forward);
		old_term = signal(SIGTERM, forward);
		old_hup = signal(SIGHUP, forward);
	} else if (!add && --nlive == 0) {
		signal(SIGINT, old_int);
		signal(SIGTERM, old_term);
		signal(SIGHUP, old_hup);
	}
}

static void child_setup(const sandbox_limits *lim, pid_t parent)
{
	setpgid(0, 0);
	/* die with the grader, however it ends (SIGKILL, OOM, a closed terminal) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	struct rlimit core = { 0, 0 }, fsize = { 256u << 20, 256u << 20 };
	setrlimit(RLIMIT_CORE, &core);
	setrlimit(RLIMIT_FSIZE, &fsize);
	if (lim->mem_bytes) {
		struct rlimit as = { lim->mem_bytes, lim->mem_bytes };
		setrlimit(RLIMIT_AS, &as);
	}
	int in = open("/dev/null", O_RDONLY);
	if (in >= 0)
		dup2(in, 0);
	if (lim->log_path && !*lim->log_path)
		return;              /* "": keep the parent's stdout and stderr */
	int out = open(lim->log_path ? lim->log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static void describe(sandbox_status *st, int status, double timeout)
{
	if (st->end == SANDBOX_TIMEOUT) {
		snprintf(st->what, sizeof st->what, "timed out after %g s (killed)", timeout);
	} else if (WIFSIGNALED(status)) {
		st->end = SANDBOX_SIGNALED;
		st->code = WTERMSIG(status);
		snprintf(st->what, sizeof st->what, "killed by signal %d (%s)", st->code,
		         strsignal(st->code));
	} else {
		st->end = SANDBOX_EXITED;
		st->code = WEXITSTATUS(status);
		snprintf(st->what, sizeof st->what, "exited with status %d", st->code);
	}
}

int sandbox_spawn(int (*fn)(void *arg), void *arg, const sandbox_limits *lim, sandbox_child *c)
{
	memset(c, 0, sizeof *c);
	c->lim = *lim;
	fflush(NULL);
	c->t0 = now();
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		child_setup(lim, parent);
		int rc = fn(arg);
		fflush(NULL);
		_exit(rc);
	}
	setpgid(pid, pid);       /* also from the parent: no race with the child's own call */
	c->pid = pid;
	track(pid, 1);
	return 0;
}

int sandbox_wait(sandbox_child *c, sandbox_status *st)
{
	memset(st, 0, sizeof *st);
	int status = 0;
	useconds_t nap = 500;
	pid_t pid = c->pid;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			st->end = SANDBOX_FAILED;
			snprintf(st->what, sizeof st->what, "waitpid failed: %s", strerror(errno));
			break;
		}
		if (c->lim.timeout_s > 0 && now() - c->t0 > c->lim.timeout_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			st->end = SANDBOX_TIMEOUT;
			break;
		}
		usleep(nap);
		if (nap < 10000)
			nap *= 2;
	}
	kill(-pid, SIGKILL);     /* anything the child left behind in its group */
	track(pid, 0);
	st->wall_s = now() - c->t0;
	if (st->end != SANDBOX_FAILED)
		describe(st, status, c->lim.timeout_s);
	return st->end == SANDBOX_FAILED ? -1 : 0;
}

int sandbox_run(int (*fn)(void *arg), void *arg, const sandbox_limits *lim, sandbox_status *st)
{
	sandbox_child c;
	if (sandbox_spawn(fn, arg, lim, &c) != 0) {
		memset(st, 0, sizeof *st);
		st->end = SANDBOX_FAILED;
		snprintf(st->what, sizeof st->what, "fork failed: %s", strerror(errno));
		return -1;
	}
	return sandbox_wait(&c, st);
}
