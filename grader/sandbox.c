/* sandbox.c — fork/limits/confinement/wait, and private temporary folders, for sandbox.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"

enum { MAX_LIVE = 8, MAX_TMP = 8 };
static volatile pid_t live[MAX_LIVE];   /* children to take down with us */
static char tmps[MAX_TMP][4096];        /* private folders to remove with us */
static volatile sig_atomic_t tmp_used[MAX_TMP];
static int held;                        /* children + folders: the handlers stay while > 0 */
static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction old_sa[4];

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

/* Remove what lies under the open folder fd, then nothing else: raw getdents64 and unlinkat
 * only, so the signal handler may call it.  Symlinks are removed, never followed. */
/* A fresh name for a folder moved up to the top (digits by hand: the signal handlers call it). */
static unsigned flat_count;
static void flat_name(char *buf)
{
	static const char pre[] = "clgrade-flat-";
	unsigned v = flat_count++;
	char dig[12];
	int n = 0;
	memcpy(buf, pre, sizeof pre - 1);
	do
		dig[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (int i = 0; i < n; i++)
		buf[sizeof pre - 1 + i] = dig[n - 1 - i];
	buf[sizeof pre - 1 + n] = '\0';
}

/* Empty the folder fd (under the folder top).  No recursion deeper than 8 levels, whatever a
 * child nested there: a folder that deep is moved up into top under a fresh name and emptied
 * from there, so the stack stays small (the signal handlers call this) and no depth is left
 * behind.  A folder its owner made unreadable is given back u+rwx first. */
static void rm_under(int top, int fd, int depth)
{
	char buf[4096];
	long n;
	int removed = 1;
	while (removed && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		removed = 0;
		for (long off = 0; off < n;) {
			struct { unsigned long long ino; long long off; unsigned short reclen;
			         unsigned char type; char name[]; } *d = (void *)(buf + off);
			off += d->reclen;
			if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
				continue;
			if (unlinkat(fd, d->name, 0) == 0) {
				removed = 1;
				continue;
			}
			if (errno != EISDIR && errno != EPERM)
				continue;
			if (depth >= 8) {
				char fresh[32];
				for (int t = 0; t < 64; t++) {
					flat_name(fresh);
					if (renameat(fd, d->name, top, fresh) == 0) {
						removed = 1;
						break;
					}
					if (errno != EEXIST && errno != ENOTEMPTY)
						break;
				}
				continue;
			}
			int sub = openat(fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0 && errno == EACCES && fchmodat(fd, d->name, 0700, 0) == 0)
				sub = openat(fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				rm_under(top, sub, depth + 1);
				close(sub);
			}
			removed |= unlinkat(fd, d->name, AT_REMOVEDIR) == 0;
		}
		if (removed)
			lseek(fd, 0, SEEK_SET);   /* entries removed or moved up: read the folder again */
	}
}

int sandbox_open_regular(const char *path, int nofollow, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

void sandbox_rmtree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		rm_under(fd, fd, 0);
		close(fd);
	}
	rmdir(path);
}

/* Ctrl-C, a kill or a closed terminal take the children's process groups and the private
 * folders with them. */
static void on_signal(int sig)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			kill(-live[i], SIGKILL);
	for (int i = 0; i < MAX_TMP; i++)
		if (tmp_used[i]) {
			sandbox_rmtree(tmps[i]);
			tmp_used[i] = 0;
		}
	for (int i = 0; i < 4; i++)
		if (sigs[i] == sig) {      /* then what the caller wanted: by default, to die of it */
			sigaction(sig, &old_sa[i], NULL);
			if (old_sa[i].sa_handler != SIG_DFL && old_sa[i].sa_handler != SIG_IGN &&
			    !(old_sa[i].sa_flags & SA_SIGINFO)) {
				old_sa[i].sa_handler(sig);
				return;
			}
		}
	raise(sig);
}

/* The handlers are in place while a child runs or a private folder exists; the caller's own
 * come back after (a signal the caller ignores, as under nohup, stays ignored). */
static void hold(int add)
{
	if (add && held++ == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask);
		for (int i = 0; i < 4; i++) {
			sigaction(sigs[i], NULL, &old_sa[i]);
			if (old_sa[i].sa_handler != SIG_IGN)
				sigaction(sigs[i], &sa, NULL);
		}
	} else if (!add && held > 0 && --held == 0) {
		for (int i = 0; i < 4; i++)
			sigaction(sigs[i], &old_sa[i], NULL);
	}
}

/* The watchdog: a small process of the grader's, in a session of its own, that outlives the
 * grader for one purpose.  Each child runs in a process group of its own that no descendant
 * can leave (confine.c refuses setsid and setpgid), and each child dies with the grader
 * (PR_SET_PDEATHSIG), but a grandchild a taken-over child forked would not: when the grader
 * dies, however (SIGKILL included), its end of a pipe closes, and the watchdog kills every
 * process group the grader had not reaped.  One per process that starts children. */
static int wd_fd = -1;
static pid_t wd_owner;

static void watchdog_main(int in)
{
	pid_t groups[MAX_LIVE] = { 0 };
	int rec;
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (read(in, &rec, sizeof rec) == (ssize_t)sizeof rec)
		for (int i = 0; i < MAX_LIVE; i++)
			if (rec > 0 ? groups[i] == 0 : groups[i] == -rec) {
				groups[i] = rec > 0 ? rec : 0;
				break;
			}
	for (int i = 0; i < MAX_LIVE; i++)
		if (groups[i] > 0)
			kill(-groups[i], SIGKILL);
	_exit(0);
}

static void watchdog_tell(int rec)
{
	if (wd_fd < 0 || wd_owner != getpid()) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) != 0)
			return;
		pid_t w = fork();
		if (w == 0) {
			close(p[1]);
			watchdog_main(p[0]);
		}
		close(p[0]);
		if (w < 0) {
			close(p[1]);
			return;
		}
		wd_fd = p[1], wd_owner = getpid();
	}
	ssize_t n = write(wd_fd, &rec, sizeof rec);
	(void)n;
}

static void track(pid_t pid, int add)
{
	watchdog_tell(add ? pid : -pid);
	hold(add);
	for (int i = 0; i < MAX_LIVE; i++)
		if (add ? live[i] == 0 : live[i] == pid) {
			live[i] = add ? pid : 0;
			break;
		}
}

static const char *tmp_base(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t == '/' ? t : "/tmp";
}

int sandbox_tmp_make(char *dir, size_t len)
{
	int slot = -1;
	for (int i = 0; i < MAX_TMP && slot < 0; i++)
		if (!tmp_used[i])
			slot = i;
	if (slot < 0 || (size_t)snprintf(dir, len, "%s/clgrade-%ld-XXXXXX", tmp_base(),
	                                 (long)getpid()) >= len)
		return -1;
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);   /* made and registered as one step */
	int rc = mkdtemp(dir) ? 0 : -1;
	if (rc == 0 && strlen(dir) < sizeof tmps[slot]) {
		strcpy(tmps[slot], dir);
		tmp_used[slot] = 1;
		hold(1);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void sandbox_tmp_remove(const char *dir)
{
	sandbox_rmtree(dir);
	for (int i = 0; i < MAX_TMP; i++)
		if (tmp_used[i] && strcmp(tmps[i], dir) == 0) {
			tmp_used[i] = 0;
			hold(0);
		}
}

void sandbox_tmp_sweep(void)
{
	DIR *d = opendir(tmp_base());
	struct dirent *e;
	while (d && (e = readdir(d))) {
		long pid;
		char rest[32];
		if (sscanf(e->d_name, "clgrade-%ld-%31s", &pid, rest) != 2 || pid <= 0 ||
		    pid == (long)getpid() || (kill((pid_t)pid, 0) != 0 ? errno != ESRCH : 1))
			continue;          /* its run is alive (or not ours to judge) */
		char path[4200];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", tmp_base(), e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid())
			sandbox_rmtree(path);
	}
	if (d)
		closedir(d);
}

static void child_setup(const sandbox_limits *lim, pid_t parent)
{
	setpgid(0, 0);
	/* die with the grader, however it ends (SIGKILL, OOM, a closed terminal) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	for (int i = 0; i < MAX_TMP; i++)
		tmp_used[i] = 0;    /* the parent removes them, not a child's handler */
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
	int out = open(lim->log_path ? lim->log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_IGN);   /* a full log or cache file is a failed write, not a crash */
}

/* Nothing of the parent's open files (a CSV, another student's report) reaches the child. */
static void close_inherited(void)
{
	if (syscall(SYS_close_range, 3, ~0U, 0) != 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
}

/* A log cut to cap bytes ends with a note saying so. */
static void truncate_log(const char *path, size_t cap)
{
	struct stat s;
	if (stat(path, &s) != 0 || (size_t)s.st_size <= cap)
		return;
	if (truncate(path, (off_t)cap) == 0) {
		int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW);
		if (fd >= 0) {
			dprintf(fd, "\n[output cut at %zu bytes of %lld]\n", cap, (long long)s.st_size);
			close(fd);
		}
	}
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
	} else if (WEXITSTATUS(status) == SANDBOX_CONFINE_FAILED) {
		st->end = SANDBOX_FAILED;
		st->code = SANDBOX_CONFINE_FAILED;
		snprintf(st->what, sizeof st->what, "the sandbox could not confine its child");
	} else {
		st->end = SANDBOX_EXITED;
		st->code = WEXITSTATUS(status);
		snprintf(st->what, sizeof st->what, "exited with status %d", st->code);
	}
}

/* May a confined child keep this NAME=value?  What the OpenCL runtimes, the tracer and the
 * preprocessor read (their own settings, the library and program paths, the locale), and
 * nothing else of the grader's environment. */
static int env_kept(const char *e)
{
	static const char *const exact[] = { "PATH", "LD_LIBRARY_PATH", "TMPDIR", "LANG",
	                                     "LANGUAGE", NULL };
	static const char *const prefix[] = { "POCL_", "OCLGRIND_", "OCL_ICD_", "CLTRACE_", "CUDA_",
	                                      "__GL_", "NVIDIA_", "GPU_", "AMD_", "HSA_", "ROCR_",
	                                      "LC_", NULL };
	size_t n = strcspn(e, "=");
	for (int i = 0; exact[i]; i++)
		if (strlen(exact[i]) == n && strncmp(e, exact[i], n) == 0)
			return 1;
	for (int i = 0; prefix[i]; i++)
		if (strncmp(e, prefix[i], strlen(prefix[i])) == 0)
			return 1;
	return 0;
}

void sandbox_scrub_env(void)
{
	extern char **environ;
	size_t k = 0;
	for (size_t i = 0; environ && environ[i]; i++) {
		if (env_kept(environ[i]))
			environ[k++] = environ[i];
		else   /* wiped, not only unlinked: the bytes stay readable in memory and in
		          /proc/self/environ, which a confined child may read */
			explicit_bzero(environ[i], strlen(environ[i]));
	}
	if (environ)
		environ[k] = NULL;
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
		close_inherited();
		char err[256];
		if (lim->confine)   /* a child that runs student code holds none of our environment */
			sandbox_scrub_env();
		if (lim->confine && confine_apply(lim->confine, err, sizeof err) != 0) {
			dprintf(2, "clgrade: cannot confine the child: %s\n", err);
			_exit(SANDBOX_CONFINE_FAILED);
		}
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
	/* woken the moment it ends (a pidfd is readable then), not at the next nap's end */
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
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
		if (pfd >= 0) {
			struct pollfd pf = { pfd, POLLIN, 0 };
			poll(&pf, 1, 20);
		} else {
			usleep(nap);
			if (nap < 10000)
				nap *= 2;
		}
	}
	if (pfd >= 0)
		close(pfd);
	kill(-pid, SIGKILL);     /* anything the child left behind in its group */
	track(pid, 0);
	if (c->lim.log_cap && c->lim.log_path && *c->lim.log_path)
		truncate_log(c->lim.log_path, c->lim.log_cap);
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

size_t sandbox_address_space(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static int copy_file(int from_dir, int to_dir, const char *name)
{
	int in = openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out = in >= 0 ? openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
	if (in >= 0 && out < 0 && errno == EEXIST) {   /* already there: kept as it is */
		close(in);
		return 0;
	}
	char buf[65536];
	ssize_t n = 0;
	int rc = in >= 0 && out >= 0 ? 0 : -1;
	while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0)
		rc = write(out, buf, (size_t)n) == n ? 0 : -1;
	if (n < 0)
		rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static int copy_under(int from_dir, int to_dir, int depth)
{
	DIR *d = fdopendir(dup(from_dir));
	struct dirent *e;
	int rc = d ? 0 : -1;
	while (d && (e = readdir(d)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.' || fstatat(from_dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			rc |= copy_file(from_dir, to_dir, e->d_name);
		} else if (S_ISDIR(st.st_mode) && depth < 16) {
			mkdirat(to_dir, e->d_name, 0700);
			int f = openat(from_dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int t = openat(to_dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			rc |= f >= 0 && t >= 0 ? copy_under(f, t, depth + 1) : -1;
			if (f >= 0)
				close(f);
			if (t >= 0)
				close(t);
		}
	}
	if (d)
		closedir(d);
	return rc;
}

int sandbox_copytree(const char *from, const char *to)
{
	mkdir(to, 0700);
	int f = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int t = open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = f >= 0 && t >= 0 ? copy_under(f, t, 0) : -1;
	if (f >= 0)
		close(f);
	if (t >= 0)
		close(t);
	return rc;
}

char *sandbox_slurp(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *s = f ? malloc(max + 1) : NULL;
	size_t n = s ? fread(s, 1, max + 1, f) : 0;
	if (f)
		fclose(f);
	if (s)
		s[n > max ? max : n] = '\0';
	*len = n;
	return s;
}
