/* watch.c — re-grade a lesson's kernel on every save (watch.h).
 *
 * Each grading is a fresh `clgrade check` process (this executable, re-run), so a report is
 * exactly what `make check` prints and nothing carries over between saves.  Saves come from
 * inotify(7) on the kernel's folder: close-after-write, rename into place and create events
 * that name the kernel's file.  A burst of events (an editor writing in several steps, or a
 * save while a check runs) is one re-grade, once the folder has been quiet for DEBOUNCE_MS. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "esc.h"
#include "lesson.h"
#include "watch.h"

enum { DEBOUNCE_MS = 300 };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Does the pending inotify data hold an event for name?  Reads (and so drains) what is there. */
static int drain(int fd, const char *name)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	int hit = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (char *p = buf; p < buf + n; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len) {
			struct inotify_event *e = (struct inotify_event *)p;
			if (e->len && strcmp(e->name, name) == 0)
				hit = 1;
		}
	return hit;
}

/* Wait for a save of name: an event for it, then DEBOUNCE_MS of quiet.  0 on a save, -1 when
 * stopped (Ctrl-C) or the watch failed. */
static int wait_for_save(int fd, const char *name)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	int saved = 0;
	while (!stop) {
		int r = poll(&pfd, 1, saved ? DEBOUNCE_MS : -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)          /* quiet after a save: grade now */
			return 0;
		saved |= drain(fd, name);
	}
	return -1;
}

/* One `clgrade check LESSON KERNEL opts...`, the screen cleared first on a terminal. */
static void grade(const char *kernel, char **check_argv)
{
	int tty = isatty(STDOUT_FILENO);
	time_t now = time(NULL);
	char when[16];
	strftime(when, sizeof when, "%H:%M:%S", localtime(&now));
	static int graded;
	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (graded++)    /* a log, not a screen: the reports one after another */
		fputs("\n----------------------------------------------------------------\n", stdout);
	fputs("watching ", stdout);
	esc_put(stdout, kernel, ESC_LINE, NULL);   /* a file name: escaped (esc.h) */
	printf(": every save re-grades it (Ctrl-C to leave); checked at %s\n\n", when);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		execv("/proc/self/exe", check_argv);
		perror("clgrade watch: cannot run clgrade check");
		_exit(2);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	fputs("\nwatching ", stdout);
	esc_put(stdout, kernel, ESC_LINE, NULL);
	fputs(" (Ctrl-C to leave)\n", stdout);
	fflush(stdout);
}

/* clgrade check LESSON KERNEL [options] (argv[first_opt..]): calloc'd, NULL-terminated. */
static char **check_command(int argc, char **argv, int first_opt, const char *kernel)
{
	char **check_argv = calloc((size_t)argc + 6, sizeof *check_argv);
	int n = 0;
	check_argv[n++] = "clgrade";
	check_argv[n++] = "check";
	check_argv[n++] = argv[1];
	check_argv[n++] = (char *)kernel;
	int html = 0;
	for (int i = first_opt; i < argc; i++) {
		html |= strcmp(argv[i], "--html") == 0 || strncmp(argv[i], "--html=", 7) == 0;
		check_argv[n++] = argv[i];
	}
	if (html) {          /* the page reloads itself while this watch rewrites it (html.h) */
		check_argv[n++] = "--html-reload";
		check_argv[n++] = "2";
	}
	return check_argv;
}

int watch_main(int argc, char **argv)
{
	const lesson *l = argc > 1 ? lesson_find(argv[1]) : NULL;
	if (!l) {
		fprintf(stderr, "usage: clgrade watch LESSON [KERNEL.cl] [check options]   "
		        "(make watch LESSON=N)\n");
		return 2;
	}
	static char starter[4096];
	int first_opt = 2;
	const char *kernel = starter;
	if (argc > 2 && argv[2][0] != '-') {
		kernel = argv[2];
		first_opt = 3;
	} else {
		lesson_path(l, "starter", starter, sizeof starter);
	}
	struct stat st;
	if (stat(kernel, &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "clgrade watch: %s is not a file I can watch\n", kernel);
		return 2;
	}
	/* the folder and the file's name within it */
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", kernel);
	char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : kernel;
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
		fprintf(stderr, "clgrade watch: cannot watch %s: %s\n", dir, strerror(errno));
		return 2;
	}
	char **check_argv = check_command(argc, argv, first_opt, kernel);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	grade(kernel, check_argv);
	while (wait_for_save(fd, name) == 0)
		grade(kernel, check_argv);
	fputs("stopped watching ", stdout);
	esc_put(stdout, kernel, ESC_LINE, NULL);
	fputc('\n', stdout);
	close(fd);
	free(check_argv);
	return 0;
}
