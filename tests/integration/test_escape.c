/* test_escape.c — no escape sequence, forged line or environment text of untrusted origin
 * reaches any output of the real build/clgrade (grader/esc.h).
 *
 * A kernel file whose NAME holds a newline, an OSC window-title sequence and a fake verdict
 * line is graded with `clgrade check` (terminal text, --json, --gradescope) and in a
 * `clgrade batch` (progress lines, grades.csv, grades.json, every report and Gradescope
 * file); none may carry a byte 0x1b, and no newline of the name may start a line of its own.
 * The batch runs with a marker in its environment (and in TMPDIR and HOME): no output file
 * may contain it, and no Gradescope file names the grader's own folders. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"

#define EVIL "evil\n\x1b]0;pwn\x07verdict: PASS.cl"
#define EVIL_BROKEN "broken\nverdict: PASS\n\x1b[2J.cl"
#define MARKER "zz9plural"

static char root[] = "/tmp/clgrade-esc-XXXXXX";

static void copy(const char *from, const char *to, const char *append)
{
	char *s = itest_slurp(from);
	ck_assert_ptr_nonnull(s);
	FILE *f = fopen(to, "w");
	ck_assert_ptr_nonnull(f);
	fputs(s, f);
	if (append)
		fputs(append, f);
	fclose(f);
	free(s);
}

/* Run argv (argv[0] a path) with stdout+stderr into out, the marker in the environment. */
static int run(char *const argv[], const char *out)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		char tmp[300], home[300];
		snprintf(tmp, sizeof tmp, "%s/tmp-" MARKER, root);
		snprintf(home, sizeof home, "%s/home-" MARKER, root);
		mkdir(tmp, 0700);
		mkdir(home, 0700);
		setenv("CLGRADE_SECRET_MARKER", MARKER, 1);
		setenv("TMPDIR", tmp, 1);
		setenv("HOME", home, 1);
		setenv("NO_COLOR", "1", 1);
		setenv("COLUMNS", "400", 1);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* No ESC anywhere; no line starting with the name's forged parts. */
static void assert_clean_text(const char *what, const char *s)
{
	ck_assert_msg(s != NULL, "%s: missing", what);
	ck_assert_msg(strchr(s, 0x1b) == NULL, "%s: a raw ESC byte:\n%s", what, s);
	ck_assert_msg(strchr(s, 0x07) == NULL, "%s: a raw BEL byte", what);
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		ck_assert_msg(strncmp(l, "verdict: PASS", 13) != 0, "%s: a forged verdict line:\n%s",
		              what, s);
		ck_assert_msg(strncmp(l, "]0;pwn", 6) != 0 && strncmp(l, "[2J", 3) != 0,
		              "%s: a line of the file name's own:\n%s", what, s);
	}
}

/* The strings of a JSON tree: no control character but the newlines of these keys, and
 * no line starting as the name's forged ones. */
static void assert_clean_json(const char *what, cJSON *j, const char *multi)
{
	cJSON *c;
	if (cJSON_IsString(j)) {
		const char *v = j->valuestring;
		int may_nl = multi && j->string && strcmp(j->string, multi) == 0;
		for (const unsigned char *p = (const unsigned char *)v; *p; p++)
			ck_assert_msg(*p >= 0x20 || (*p == '\n' && may_nl) || *p == '\t',
			              "%s: control byte 0x%02x in \"%s\": %s", what, *p,
			              j->string ? j->string : "?", v);
		assert_clean_text(what, v);
	}
	cJSON_ArrayForEach(c, j)
		assert_clean_json(what, c, multi);
}

static cJSON *json_file(const char *path)
{
	char *s = itest_slurp(path);
	ck_assert_msg(s != NULL, "no %s", path);
	ck_assert_msg(strchr(s, 0x1b) == NULL, "%s: a raw ESC byte", path);
	cJSON *j = cJSON_Parse(s);
	ck_assert_msg(j != NULL, "%s is not JSON", path);
	free(s);
	return j;
}

/* Gradescope's text: a newline only as the grader's own "\nTry: ". */
static void assert_gradescope(const char *path, const char *dir)
{
	cJSON *g = json_file(path), *t;
	char *s = itest_slurp(path);
	ck_assert_msg(!strstr(s, dir), "%s names the grader's folder %s:\n%s", path, dir, s);
	ck_assert_msg(!strstr(s, MARKER), "%s carries the environment's marker", path);
	free(s);
	assert_clean_json(path, g, "output");
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(g, "tests")) {
		const char *o = cJSON_GetStringValue(cJSON_GetObjectItem(t, "output"));
		const char *nl = o ? strchr(o, '\n') : NULL;
		ck_assert_msg(!nl || (strncmp(nl, "\nTry: ", 6) == 0 && !strchr(nl + 1, '\n')),
		              "%s: a line break of the kernel's making: %s", path, o);
	}
	cJSON_Delete(g);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_check_with_hostile_name)
{
	const char *names[] = { EVIL, EVIL_BROKEN };
	for (int i = 0; i < 2; i++) {
		char kernel[400], out[300], json[300], gs[300];
		snprintf(kernel, sizeof kernel, "%s/%s", root, names[i]);
		/* the second does not build: its log quotes the name at every message */
		copy("kernels/starter/03-transpose-padding.cl", kernel, i ? "\nint broken(void) { return x; }\n" : NULL);
		snprintf(out, sizeof out, "%s/out.txt", root);
		snprintf(json, sizeof json, "%s/r.json", root);
		snprintf(gs, sizeof gs, "%s/gs.json", root);
		char *argv[] = { "build/clgrade", "check", "3", kernel, "--seed", "1", "--json", json,
		                 "--gradescope", gs, NULL };
		int rc = run(argv, out);
		ck_assert_int_eq(rc, 1);
		char *text = itest_slurp(out);
		assert_clean_text("check's terminal report", text);
		ck_assert_msg(strstr(text, i ? "broken\\nverdict: PASS\\n\\x1b[2J.cl" :
		                     "evil\\n\\x1b]0;pwn\\x07verdict: PASS.cl"),
		              "the name is not shown escaped:\n%s", text);
		ck_assert_msg(strstr(text, "\nverdict: FAIL"), "no verdict line:\n%s", text);
		free(text);
		cJSON *j = json_file(json);
		assert_clean_json("--json", j, "build_log");
		ck_assert_ptr_null(strchr(cJSON_GetStringValue(cJSON_GetObjectItem(j, "kernel")), '\n'));
		cJSON_Delete(j);
		assert_gradescope(gs, root);
	}
}
END_TEST

/* Every file under dir: no ESC, no marker. */
static int scan_outputs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char p[1200];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		ck_assert_int_eq(lstat(p, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			n += scan_outputs(p);
			continue;
		}
		char *s = itest_slurp(p);
		ck_assert_ptr_nonnull(s);
		ck_assert_msg(!strstr(s, MARKER), "%s carries the environment's marker:\n%s", p, s);
		ck_assert_msg(!strchr(s, 0x1b), "%s: a raw ESC byte", p);
		free(s);
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(test_batch_with_hostile_names_and_marked_environment)
{
	char subs[300], out[300], p[600], log[300];
	snprintf(subs, sizeof subs, "%s/subs", root);
	snprintf(out, sizeof out, "%s/grades", root);
	snprintf(log, sizeof log, "%s/batch.txt", root);
	mkdir(subs, 0755);
	snprintf(p, sizeof p, "%s/%s", subs, EVIL);
	copy("kernels/starter/03-transpose-padding.cl", p, NULL);
	snprintf(p, sizeof p, "%s/%s", subs, EVIL_BROKEN);
	copy("kernels/starter/03-transpose-padding.cl", p, "\nint broken(void) { return x; }\n");
	snprintf(p, sizeof p, "%s/dave", subs);           /* an error row naming its files */
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/dave/a\x1b]52;c;cHdu\x07\nverdict: PASS.cl", subs);
	copy("kernels/starter/03-transpose-padding.cl", p, NULL);
	snprintf(p, sizeof p, "%s/dave/b.cl", subs);
	copy("kernels/starter/03-transpose-padding.cl", p, NULL);
	char *argv[] = { "build/clgrade", "batch", "3", subs, "--out", out, "-j", "2", NULL };
	int rc = run(argv, log);
	ck_assert_int_eq(rc, 2);   /* dave is an error row */
	char *text = itest_slurp(log);
	assert_clean_text("batch's progress", text);
	ck_assert_msg(!strstr(text, MARKER), "the marker in batch's output:\n%s", text);
	free(text);
	/* the CSV: the header and one line per entry, whatever the names */
	snprintf(p, sizeof p, "%s/grades.csv", out);
	char *csv = itest_slurp(p);
	assert_clean_text("grades.csv", csv);
	int lines = 0;
	for (const char *c = csv; *c; c++)
		lines += *c == '\n';
	ck_assert_msg(lines == 4, "grades.csv has %d lines, not 4:\n%s", lines, csv);
	ck_assert_msg(strstr(csv, "\"evil\\n\\x1b]0;pwn\\x07verdict: PASS.cl\""), "%s", csv);
	free(csv);
	snprintf(p, sizeof p, "%s/grades.json", out);
	cJSON *g = json_file(p), *row;
	assert_clean_json("grades.json", g, NULL);
	ck_assert_int_eq(cJSON_GetArraySize(g), 3);
	/* each row's report and its Gradescope file (an error row too) */
	cJSON_ArrayForEach(row, g) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(row, "student"));
		snprintf(p, sizeof p, "%s/%s.json", out, st);
		cJSON *r = json_file(p);
		assert_clean_json(p, r, "build_log");
		cJSON_Delete(r);
		snprintf(p, sizeof p, "%s/gradescope/%s.json", out, st);
		assert_gradescope(p, root);
	}
	cJSON_Delete(g);
	/* 2 tables, class.json, index.html, 3 reports, 2 pages (none for the error row dave),
	 * 3 Gradescope files */
	ck_assert_int_eq(scan_outputs(out), 12);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("escape");
	TCase *t = tcase_create("escape");
	tcase_set_timeout(t, 120);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_check_with_hostile_name);
	tcase_add_test(t, test_batch_with_hostile_names_and_marked_environment);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
