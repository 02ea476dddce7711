/* main.c — the `clgrade` command line: parse, dispatch, exit with the contract's codes
 * (0 pass, 1 fail, 2 the grader could not run). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bank.h"
#include "batch.h"
#include "check.h"
#include "cliopt.h"
#include "clrun.h"
#include "esc.h"
#include "hint.h"
#include "html.h"
#include "lesson.h"
#include "occ.h"
#include "report.h"
#include "sandbox.h"
#include "watch.h"

static void usage(FILE *f)
{
	fprintf(f,
	"usage: clgrade check [LESSON [KERNEL.cl]] [options]  grade a kernel (default: the starter);\n"
	"                                                     no LESSON: every lesson, as a table\n"
	"         --device SUBSTRING   OpenCL device to use (default: PoCL's CPU device)\n"
	"         --json FILE          also write the JSON report\n"
	"         --seed N             reproduce a run's random inputs\n"
	"         --timeout S          wall-time limit of each sandboxed run (default 20)\n"
	"         --memory MB          address-space limit of each sandboxed run (default 8192)\n"
	"         --profile P          bank model for conflict_free: nvidia (default), amd-cdna,\n"
	"                              amd-rdna, intel\n"
	"         --no-analysis        skip the Oclgrind analysis (races, banks, coalescing)\n"
	"         --local-mem BYTES    judge __local use against this budget per work-group\n"
	"                              (e.g. 49152, NVIDIA's OpenCL limit) when the device has more\n"
	"         --gradescope FILE    also write Gradescope's results.json\n"
	"         --html FILE          also write the report as one self-contained HTML page\n"
	"         --html-reload S      the page reloads itself every S s (clgrade watch gives it)\n"
	"       clgrade batch LESSON DIR [--out DIR] [--force] ...  grade a folder of submissions\n"
	"       clgrade list                                  lessons and their last result\n"
	"       clgrade devices                               OpenCL platforms and devices\n"
	"       clgrade occupancy --profile P --work-group T --local-bytes S [--registers R] [--json]\n"
	"       clgrade hint LESSON                           the lesson's next hint\n"
	"       clgrade watch LESSON [KERNEL.cl] [options]    re-grade on every save (Ctrl-C leaves)\n");
}

static int list_devices_child(void *arg)
{
	(void)arg;
	return clrun_list() > 0 ? 0 : 2;
}

static void status_path(const lesson *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s/build/status/%s", lesson_root(), l->slug);
}

static void save_status(const check_report *rep)
{
	char dir[4200], path[4300];
	snprintf(dir, sizeof dir, "%s/build/status", lesson_root());
	mkdir(dir, 0755);
	status_path(rep->opts.l, path, sizeof path);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	const char *first = check_first_failure(rep);
	fprintf(f, "%s %s %s\n", rep->exit_code == 2 ? "error" : rep->verdict_pass ? "pass" : "fail",
	        first ? first : "-", rep->opts.kernel);
	fclose(f);
}

static int cmd_list(void)
{
	printf("%-3s %-24s %-44s %s\n", "#", "lesson", "topic", "last check");
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char path[4300], verdict[16] = "-", first[64] = "", kernel[4096] = "";
		status_path(l, path, sizeof path);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%15s %63s %4095s", verdict, first, kernel) < 1)
				strcpy(verdict, "-");
			fclose(f);
		}
		char last[4300] = "not checked yet", shown[4096];
		esc_str(shown, sizeof shown, kernel, ESC_LINE, NULL);   /* a file name (esc.h) */
		if (strcmp(verdict, "pass") == 0)
			snprintf(last, sizeof last, "✓ pass (%s)", shown);
		else if (strcmp(verdict, "-") != 0)
			snprintf(last, sizeof last, "✗ %s at %s (%s)", verdict, first, shown);
		printf("%-3d %-24s %-44s %s\n", l->number, l->slug, l->title, last);
	}
	return 0;
}

typedef struct check_args {
	check_opts o;
	const char *json;
	const char *gradescope;
	const char *html;
	int html_reload;          /* --html-reload S: the page reloads itself (clgrade watch) */
	int seed_given;
} check_args;

static int grade(check_args *a, int quiet)
{
	check_report rep;
	int rc = check_lesson(&a->o, &rep);
	if (!quiet)
		report_text(stdout, &rep);
	/* the hint that text showed, if any, for `make hint` not to repeat (the table shows none) */
	hint_reported(a->o.l, quiet ? NULL : check_first_failure(&rep));
	if (a->json && report_write_json(&rep, a->json) != 0) {
		fprintf(stderr, "clgrade: cannot write %s\n", a->json);
		rc = 2;
	}
	html_opts ho = { a->html_reload };
	if (a->html && html_write(&rep, &ho, a->html) != 0) {
		fprintf(stderr, "clgrade: cannot write %s\n", a->html);
		rc = 2;
	}
	if (a->gradescope) {
		cJSON *gs = report_gradescope(&rep);
		if (report_write(gs, a->gradescope) != 0) {
			fprintf(stderr, "clgrade: cannot write %s\n", a->gradescope);
			rc = 2;
		}
		cJSON_Delete(gs);
	}
	if (rep.exit_code != 2)
		save_status(&rep);
	if (quiet) {
		const char *first = check_first_failure(&rep);
		int col = report_color(stdout);
		char why[1200];     /* the grader's error quotes the kernel's path: escaped (esc.h) */
		esc_str(why, sizeof why, rc == 0 ? "pass" : rc == 2 ? rep.grader_error : first,
		        ESC_LINE, NULL);
		printf("  %s%s%s %-3d %-24s %s\n", col ? (rc == 0 ? "\033[32m" : "\033[31m") : "",
		       rc == 0 ? "✓" : "✗", col ? "\033[0m" : "", a->o.l->number, a->o.l->slug, why);
	}
	check_free(&rep);
	return rc;
}

/* The options of `clgrade check` into a.  -1 to go on, else the exit code (--help: 0). */
static int check_options(int argc, char **argv, check_args *a)
{
	static const struct option opts[] = {
		{ "device", required_argument, 0, 'd' }, { "json", required_argument, 0, 'j' },
		{ "seed", required_argument, 0, 's' }, { "timeout", required_argument, 0, 't' },
		{ "memory", required_argument, 0, 'm' }, { "profile", required_argument, 0, 'p' },
		{ "no-analysis", no_argument, 0, 'n' }, { "local-mem", required_argument, 0, 'l' },
		{ "gradescope", required_argument, 0, 'g' }, { "help", no_argument, 0, 'h' },
		{ "html", required_argument, 0, 'H' }, { "html-reload", required_argument, 0, 'R' },
		{ 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "d:j:s:t:m:p:nl:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': a->o.device = optarg; break;
		case 'j': a->json = optarg; break;
		case 's':
			if (cliopt_seed("check", "seed", optarg, &a->o.seed) != 0)
				return 2;
			a->seed_given = 1;
			break;
		case 't':
			if (cliopt_seconds("check", "timeout", optarg, &a->o.timeout_s) != 0)
				return 2;
			break;
		case 'm':
			if (cliopt_size_mb("check", "memory", optarg, &a->o.mem_bytes) != 0)
				return 2;
			break;
		case 'p': a->o.profile = optarg; break;
		case 'n': a->o.analysis = 0; break;
		case 'l':
			if (cliopt_bytes("check", "local-mem", optarg, &a->o.local_mem) != 0)
				return 2;
			break;
		case 'g': a->gradescope = optarg; break;
		case 'H': a->html = optarg; break;
		case 'R': a->html_reload = atoi(optarg) > 0 ? atoi(optarg) : 2; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!bank_profile_find(a->o.profile)) {
		fprintf(stderr, "clgrade: unknown bank profile \"%s\" (nvidia, amd-cdna, amd-rdna, intel)\n",
		        a->o.profile);
		return 2;
	}
	if (a->o.timeout_s <= 0) {
		fprintf(stderr, "clgrade: --timeout must be positive\n");
		return 2;
	}
	if (!a->seed_given)
		a->o.seed = ((unsigned long long)time(NULL) ^ (unsigned long long)getpid() << 16) % 1000000;
	return -1;
}

/* `clgrade check` without a LESSON: every lesson's starter, one line each, and where the
 * student is. */
static int check_all(check_args *a)
{
	char path[4096];
	int worst = 0;
	const lesson *at = NULL;     /* the first lesson not passed yet: where the student is */
	printf("progress (each lesson's kernels/starter file; details: make check LESSON=N)\n");
	for (int i = 0; i < lesson_count(); i++) {
		a->o.l = lesson_at(i);
		lesson_path(a->o.l, "starter", path, sizeof path);
		a->o.kernel = path;
		int rc = grade(a, 1);
		worst = rc > worst ? rc : worst;
		if (rc != 0 && !at)
			at = a->o.l;
	}
	if (at)
		printf("you are at lesson %d, %s: read lessons/%s/README.md, then `make check LESSON=%d`"
		       " (or `make watch LESSON=%d`)\n", at->number, at->title, at->slug, at->number,
		       at->number);
	else
		printf("every lesson passes: well done\n");
	return worst;
}

static int cmd_check(int argc, char **argv)
{
	check_args a = { .o = { .timeout_s = 20, .mem_bytes = (size_t)8192 << 20,
	                        .profile = "nvidia", .analysis = 1 } };
	int rc = check_options(argc, argv, &a);
	if (rc >= 0)
		return rc;
	char path[4096];
	if (optind < argc) {
		a.o.l = lesson_find(argv[optind]);
		if (!a.o.l) {
			fprintf(stderr, "clgrade: no lesson \"%s\" (see `clgrade list`)\n", argv[optind]);
			return 2;
		}
		if (optind + 2 < argc) {
			cliopt_stray("check", argv[optind + 2]);
			return 2;
		}
		if (optind + 1 < argc)
			a.o.kernel = argv[optind + 1];
		else {
			lesson_path(a.o.l, "starter", path, sizeof path);
			a.o.kernel = path;
		}
		return grade(&a, 0);
	}
	if (a.json || a.gradescope || a.html) {
		fprintf(stderr, "clgrade: --json, --gradescope and --html need a LESSON\n");
		return 2;
	}
	return check_all(&a);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(cmd, "list") == 0)
		return cmd_list();
	if (strcmp(cmd, "batch") == 0)
		return batch_main(argc - 1, argv + 1);
	if (strcmp(cmd, "watch") == 0)
		return watch_main(argc - 1, argv + 1);
	if (strcmp(cmd, "occupancy") == 0)
		return occ_main(argc - 1, argv + 1);
	if (strcmp(cmd, "devices") == 0) {
		/* OpenCL only in a child: the grader process itself never initialises it */
		sandbox_status st;
		sandbox_run(list_devices_child, NULL, &(sandbox_limits){ 20, 0, "", NULL, 0 }, &st);
		return st.end == SANDBOX_EXITED ? st.code : 2;
	}
	if (strcmp(cmd, "hint") == 0) {
		const lesson *l = argc > 2 ? lesson_find(argv[2]) : NULL;
		if (!l) {
			fprintf(stderr, "usage: clgrade hint LESSON   (make hint LESSON=N)\n");
			return 2;
		}
		return hint_next(l);
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "clgrade: unknown command \"%s\"\n", cmd);
	usage(stderr);
	return 2;
}
