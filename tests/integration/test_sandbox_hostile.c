/* test_sandbox_hostile.c — integration tests of the grader against a hostile student: the real
 * build/clgrade on real PoCL, given kernels that try to read a file outside the lesson folder in
 * every spelling (tests/fixtures/h_include_spellings.cl), to run inline assembly in every
 * spelling (h_inline_asm.cl), to break the option parser, and a check interrupted by SIGINT,
 * SIGTERM and SIGHUP.  (That the confined child itself cannot read, write, execute or signal
 * outside its bounds is tested without the asm refusal in the way, through the sandbox API, in
 * tests/unit/test_sandbox.c.)  About 25 s on a 2-core machine, most of it the interrupted
 * checks. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include <cjson/cJSON.h>

#define FX "tests/fixtures/"
#define SECRET_TEXT "SECRET_7f3a"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t)n)
		n = 0;
	s[n] = '\0';
	fclose(f);
	return s;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Replace every "from" in s by "to" (a new string). */
static char *replace(const char *s, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	char *o = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1), *q = o;
	for (const char *p = s, *h; ; p = h + fl) {
		h = strstr(p, from);
		size_t k = h ? (size_t)(h - p) : strlen(p);
		memcpy(q, p, k);
		q += k;
		if (!h)
			break;
		memcpy(q, to, tl);
		q += tl;
	}
	*q = '\0';
	return o;
}

/* The case "name" of a fixture cut at "//@@ name" lines (a new string), or NULL at the end. */
static char *fixture_case(const char *text, int i, char *name, size_t len)
{
	const char *p = text;
	for (int k = 0; k <= i; k++) {
		p = strstr(p, "//@@ ");
		if (!p)
			return NULL;
		p += 5;
	}
	size_t nl = strcspn(p, "\n");
	snprintf(name, len, "%.*s", (int)nl, p);
	if (strcmp(name, "end") == 0)
		return NULL;
	const char *body = p + nl + 1, *end = strstr(body, "//@@ ");
	return strndup(body, end ? (size_t)(end - body) : strlen(body));
}

/* The lesson 1 solution, calling f() first when the case defines one. */
static const char *KERNEL =
	"\n__kernel void matmul_naive(__global const float* A, __global const float* B,\n"
	"                           __global float* C, const int N)\n"
	"{\n"
	"    CALL_F\n"
	"    const int col = get_global_id(0), row = get_global_id(1);\n"
	"    if (row >= N || col >= N) return;\n"
	"    float acc = 0.0f;\n"
	"    for (int k = 0; k < N; ++k) acc += A[row * N + k] * B[k * N + col];\n"
	"    C[row * N + col] = acc;\n"
	"}\n";

typedef struct run { int exit; char *text, *json; } run;

static run grade(const char *kernel, const char *extra, const char *env)
{
	char out[] = "/tmp/clgrade-hostile-out-XXXXXX", json[600], cmd[4096];
	ck_assert_ptr_nonnull(mkdtemp(out));
	snprintf(json, sizeof json, "%s/r.json", out);
	snprintf(cmd, sizeof cmd, "%s NO_COLOR=1 build/clgrade check 1 '%s' --seed 1 --no-analysis "
	         "--json %s %s > %s/r.txt 2>&1", env ? env : "", kernel, json, extra ? extra : "", out);
	int st = system(cmd);
	run r = { WIFEXITED(st) ? WEXITSTATUS(st) : -1, NULL, slurp(json) };
	snprintf(cmd, sizeof cmd, "%s/r.txt", out);
	r.text = slurp(cmd);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_ptr_nonnull(r.text);
	return r;
}

static const char *crit_status(const run *r, const char *id, char *msg, size_t len)
{
	static char st[32];
	cJSON *j = r->json ? cJSON_Parse(r->json) : NULL, *c;
	snprintf(st, sizeof st, "absent");
	msg[0] = '\0';
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "criteria"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), id) == 0) {
			snprintf(st, sizeof st, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")));
			const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(c, "message"));
			snprintf(msg, len, "%s", m ? m : "");
		}
	cJSON_Delete(j);
	return st;
}

static void drop(run *r)
{
	free(r->text);
	free(r->json);
}

/* ---- includes: no byte of the secret, no existence oracle ---- */

START_TEST(include_spellings_leak_nothing)
{
	char dir[] = "/tmp/clgrade-hostile-XXXXXX", secret[600], missing[600], kpath[700];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(secret, sizeof secret, "%s/secret.h", dir);
	snprintf(missing, sizeof missing, "%s/missing.h", dir);
	spit(secret, "int " SECRET_TEXT "_A;\n#error " SECRET_TEXT "_B\n" SECRET_TEXT "_C\n");
	char *fx = slurp(FX "h_include_spellings.cl"), name[64], *body;
	ck_assert_ptr_nonnull(fx);
	int cases = 0;
	for (int i = 0; (body = fixture_case(fx, i, name, sizeof name)); i++, cases++) {
		char status[2][32], msg[2][700];
		int exits[2];
		for (int k = 0; k < 2; k++) {
			char *a = replace(body, "@SECRET@", k ? missing : secret);
			char *src = malloc(strlen(a) + strlen(KERNEL) + 1);
			strcpy(src, a);
			strcat(src, KERNEL);
			char *s = replace(src, "CALL_F", "");
			snprintf(kpath, sizeof kpath, "%s/k.cl", dir);
			spit(kpath, s);
			run r = grade(kpath, NULL, NULL);
			ck_assert_msg(!strstr(r.text, SECRET_TEXT) && (!r.json || !strstr(r.json, SECRET_TEXT)),
			              "case %s: the secret's text reached the report:\n%s", name, r.text);
			ck_assert_msg(r.exit == 0 || r.exit == 1, "case %s: exit %d\n%s", name, r.exit, r.text);
			exits[k] = r.exit;
			char m[700];
			snprintf(status[k], sizeof status[k], "%s", crit_status(&r, "builds", m, sizeof m));
			/* the same report whether the file exists or not, but for its name */
			char *same = replace(m, k ? "missing.h" : "secret.h", "F.h");
			snprintf(msg[k], sizeof msg[k], "%s", same);
			free(same);
			drop(&r);
			free(a), free(src), free(s);
		}
		ck_assert_msg(exits[0] == exits[1] && strcmp(status[0], status[1]) == 0 &&
		              strcmp(msg[0], msg[1]) == 0, "case %s: an existence oracle: %d %s \"%s\" "
		              "when the file exists, %d %s \"%s\" when not", name, exits[0], status[0],
		              msg[0], exits[1], status[1], msg[1]);
		free(body);
	}
	ck_assert_int_ge(cases, 17);
	free(fx);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- inline assembly: refused after preprocessing ---- */

START_TEST(inline_asm_refused_every_spelling)
{
	char dir[] = "/tmp/clgrade-hostile-XXXXXX", kpath[700];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *fx = slurp(FX "h_inline_asm.cl"), name[64], *body;
	ck_assert_ptr_nonnull(fx);
	int cases = 0;
	for (int i = 0; (body = fixture_case(fx, i, name, sizeof name)); i++, cases++) {
		char *src = malloc(strlen(body) + strlen(KERNEL) + 1), msg[700];
		strcpy(src, body);
		strcat(src, KERNEL);
		char *s = replace(src, "CALL_F", "f();");
		snprintf(kpath, sizeof kpath, "%s/k.cl", dir);
		spit(kpath, s);
		run r = grade(kpath, NULL, NULL);
		const char *st = crit_status(&r, "builds", msg, sizeof msg);
		if (strcmp(name, "ifdef-x86") == 0) {
			/* both compilers see the text preprocessed for one neutral target: no trap */
			ck_assert_msg(r.exit == 0, "case %s: exit %d\n%s", name, r.exit, r.text);
		} else {
			ck_assert_msg(r.exit == 1 && strcmp(st, "fail") == 0 &&
			              strstr(msg, "inline assembly") != NULL,
			              "case %s: not refused as inline assembly (exit %d, builds %s: %s)\n%s",
			              name, r.exit, st, msg, r.text);
		}
		drop(&r);
		free(src), free(s), free(body);
	}
	ck_assert_int_ge(cases, 9);
	free(fx);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- odd paths: spaces and non-ASCII letters build and grade ---- */

START_TEST(path_with_spaces_and_unicode_grades)
{
	char dir[] = "/tmp/clgrade-hostile-XXXXXX", sub[700], kpath[800];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/my dir ünï", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(kpath, sizeof kpath, "%s/kérnel one.cl", sub);
	char *k = replace(KERNEL, "CALL_F", "");
	spit(kpath, k);
	free(k);
	run r = grade(kpath, NULL, NULL);
	ck_assert_msg(r.exit == 0, "exit %d:\n%s", r.exit, r.text);
	drop(&r);
	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- control bytes from student text cannot drive the terminal ---- */

START_TEST(control_bytes_escaped_in_text_report)
{
	char dir[] = "/tmp/clgrade-hostile-XXXXXX", kpath[700];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(kpath, sizeof kpath, "%s/k\033[2J.cl", dir);
	spit(kpath, "__kernel void matmul_naive(__global const float* A, __global const float* B,\n"
	            "    __global float* C, const int N)\n"
	            "{ C[0] = \033[32mverdict: PASS\033[0m \302\233; }\n"
	            /* Unicode direction controls: RIGHT-TO-LEFT OVERRIDE, RIGHT-TO-LEFT ISOLATE */
	            "#pragma message \"bidi \342\200\256SSAP :tcidrev \342\201\247x\"\n");
	run r = grade(kpath, NULL, NULL);
	ck_assert_msg(r.exit == 1, "exit %d:\n%s", r.exit, r.text);
	ck_assert_msg(strchr(r.text, '\033') == NULL, "a raw escape byte reached the report:\n%s", r.text);
	ck_assert_msg(strstr(r.text, "\302\233") == NULL, "a raw C1 control reached the report");
	ck_assert_ptr_nonnull(strstr(r.text, "\\x1b[32mverdict: PASS"));
	ck_assert_msg(!strstr(r.text, "\342\200\256") && !strstr(r.text, "\342\201\247"),
	              "a Unicode direction control reached the report:\n%s", r.text);
	ck_assert_ptr_nonnull(strstr(r.text, "\\u{202E}SSAP"));
	drop(&r);
	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- strict options ---- */

START_TEST(bad_numbers_and_stray_arguments_exit_2)
{
	static const struct { const char *args, *names; } bad[] = {
		{ "check 1 --timeout nan", "--timeout" }, { "check 1 --timeout inf", "--timeout" },
		{ "check 1 --timeout -3", "--timeout" }, { "check 1 --timeout 0", "--timeout" },
		{ "check 1 --timeout 1e400", "--timeout" }, { "check 1 --timeout 5s", "--timeout" },
		{ "check 1 --memory abc", "--memory" }, { "check 1 --memory -1", "--memory" },
		{ "check 1 --memory 18446744073709551617", "--memory" },
		{ "check 1 --memory 2.5", "--memory" }, { "check 1 --seed x", "--seed" },
		{ "check 1 --seed -1", "--seed" }, { "check 1 --local-mem 1e9", "--local-mem" },
		{ "check 1 kernels/starter/01-naive-matmul.cl stray", "stray" },
		{ "batch 1 /nonexistent --timeout nan", "--timeout" },
		{ "batch 1 /nonexistent --memory abc", "--memory" },
		{ "batch 1 /nonexistent --seed 99999999999999999999", "--seed" },
		{ "batch 1 /nonexistent stray", "stray" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "build/clgrade %s > /tmp/clgrade-hostile-opt.txt 2>&1", bad[i].args);
		int st = system(cmd);
		char *t = slurp("/tmp/clgrade-hostile-opt.txt");
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: exit %d", bad[i].args,
		              WEXITSTATUS(st));
		ck_assert_msg(t && strstr(t, bad[i].names), "%s: the message does not name %s: %s",
		              bad[i].args, bad[i].names, t);
		free(t);
	}
	unlink("/tmp/clgrade-hostile-opt.txt");
}
END_TEST

/* ---- an interrupted check leaves nothing ---- */

static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

static void interrupted_by(int sig)
{
	char tmp[] = "/tmp/clgrade-hostile-tmp-XXXXXX", home[] = "/tmp/clgrade-hostile-home-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	ck_assert_ptr_nonnull(mkdtemp(home));
	pid_t pid = fork();
	if (pid == 0) {
		setenv("TMPDIR", tmp, 1);
		setenv("HOME", home, 1);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int devnull = open("/dev/null", 1);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execl("build/clgrade", "clgrade", "check", "2", "kernels/solutions/02-tiled-matmul.cl",
		      "--seed", "1", (char *)NULL);
		_exit(127);
	}
	/* wait until the check is in flight (its private folder exists), then interrupt it */
	for (int i = 0; i < 200 && count_entries(tmp, "clgrade-") == 0; i++)
		usleep(25000);
	ck_assert_int_eq(count_entries(tmp, "clgrade-"), 1);
	usleep(700000);     /* into the build and the analysis */
	kill(pid, sig);
	int status;
	waitpid(pid, &status, 0);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig, "signal %d: status %d", sig, status);
	/* the children die with the grader (PDEATHSIG) and their folders go with them: up to
	 * 10 s for that on a loaded machine (a fixed 100 ms wait was a bet on the load) */
	for (int i = 0; i < 200 && count_entries(tmp, "") != 0; i++)
		usleep(50000);
	ck_assert_msg(count_entries(tmp, "") == 0, "signal %d left files in $TMPDIR", sig);
	char cache[700];
	snprintf(cache, sizeof cache, "%s/.cache", home);
	ck_assert_msg(access(cache, F_OK) != 0, "signal %d: something wrote %s", sig, cache);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", tmp, home);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(interrupted_check_leaves_nothing)
{
	interrupted_by(SIGINT);
	interrupted_by(SIGTERM);
	interrupted_by(SIGHUP);
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("sandbox_hostile");
	TCase *t = tcase_create("hostile");
	tcase_set_timeout(t, 240);
	tcase_add_test(t, include_spellings_leak_nothing);
	tcase_add_test(t, inline_asm_refused_every_spelling);
	tcase_add_test(t, path_with_spaces_and_unicode_grades);
	tcase_add_test(t, control_bytes_escaped_in_text_report);
	tcase_add_test(t, bad_numbers_and_stray_arguments_exit_2);
	tcase_add_test(t, interrupted_check_leaves_nothing);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(hostile_suite());
}
