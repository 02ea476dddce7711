/* test_hint.c — Check unit tests for the hints of a lesson (grader/hint.c).
 *
 * Two halves.  The parser and `make hint`'s rotation run against a hints file written here,
 * in a temporary suite root (CLGRADE_ROOT), where every expected string is known exactly.
 * The real lessons/NN-slug/hints.md files (tests run from the repository root) are checked
 * for what the grader relies on: hints exist, every tag is a criterion the lesson uses, every
 * criterion the lesson uses has a hint for the failing report to end with, the README holds
 * no hint, and no hint quotes the solution. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hint.h"
#include "report.h"

/* ---- a README of our own ---- */

static char root[] = "/tmp/test_hint_XXXXXX";
static char readme[512], state[512];

static const char *FIXTURE =
	"# Lesson 1 - a fixture\n"
	"\n"
	"## The concept\n"
	"- [correct] Not a hint: outside the Hints section.\n"
	"\n"
	"## Hints\n"
	"- [correct] First line\n"
	"  continued here\n"
	"\tand with a tab.\n"
	"- [memory_safe] Only one line.\n"
	"- [correct] The second correct hint.\n"
	"- an untagged item is not a hint\n"
	"  and its continuation is not either\n"
	"- [builds]    Leading blanks go.\n"
	"\n"
	"- [runs] After a blank line.\n"
	"   \n"
	"### A sub-heading stays in the section\n"
	"- [race_free] Under the sub-heading.\n"
	"## Next section\n"
	"- [speedup] Not a hint either.\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void make_root(void)
{
	ck_assert_ptr_nonnull(mkdtemp(root));
	char p[512];
	snprintf(p, sizeof p, "%s/lessons", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/lessons/01-naive-matmul", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/lessons/02-tiled-matmul", root);  /* a hints file without hints */
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/lessons/02-tiled-matmul/hints.md", root);
	write_file(p, "# Lesson 2\n\n## The concept\n- [correct] no hints section here\n");
	snprintf(p, sizeof p, "%s/build", root);
	mkdir(p, 0755);
	snprintf(readme, sizeof readme, "%s/lessons/01-naive-matmul/hints.md", root);
	write_file(readme, FIXTURE);
	snprintf(state, sizeof state, "%s/build/hints/01-naive-matmul", root);
}

static void remove_root(void)
{
	char p[600];
	unlink(state);
	snprintf(p, sizeof p, "%s.reported", state);
	unlink(p);
	snprintf(p, sizeof p, "%s/build/hints", root);
	rmdir(p);
	snprintf(p, sizeof p, "%s/build", root);
	rmdir(p);
	unlink(readme);
	snprintf(p, sizeof p, "%s/lessons/02-tiled-matmul/hints.md", root);
	unlink(p);
	snprintf(p, sizeof p, "%s/lessons/02-tiled-matmul", root);
	rmdir(p);
	snprintf(p, sizeof p, "%s/lessons/01-naive-matmul", root);
	rmdir(p);
	snprintf(p, sizeof p, "%s/lessons", root);
	rmdir(p);
	rmdir(root);
}

/* Each fixture test runs in its own process (CK_FORK): lesson_root() reads this first. */
static const lesson *fixture_lesson(void)
{
	setenv("CLGRADE_ROOT", root, 1);
	const lesson *l = lesson_find("1");
	ck_assert_ptr_nonnull(l);
	return l;
}

static void assert_hint(const lesson *l, int i, const char *tag, const char *text)
{
	char buf[1024], t[64];
	ck_assert_int_eq(hint_get(l, i, buf, sizeof buf, t, sizeof t), 0);
	ck_assert_str_eq(t, tag);
	ck_assert_str_eq(buf, text);
}

START_TEST(test_fixture_count)
{
	const lesson *l = fixture_lesson();
	ck_assert_int_eq(hint_count(l), 6);
	ck_assert_int_eq(hint_count(lesson_find("2")), 0);   /* no "## Hints" */
	ck_assert_int_eq(hint_count(lesson_find("3")), 0);   /* no README at all */
}
END_TEST

START_TEST(test_fixture_get)
{
	const lesson *l = fixture_lesson();
	assert_hint(l, 0, "correct", "First line continued here and with a tab.");
	assert_hint(l, 1, "memory_safe", "Only one line.");
	assert_hint(l, 2, "correct", "The second correct hint.");
	assert_hint(l, 3, "builds", "Leading blanks go.");
	assert_hint(l, 4, "runs", "After a blank line.");
	assert_hint(l, 5, "race_free", "Under the sub-heading.");
	char buf[64] = "junk";
	ck_assert_int_eq(hint_get(l, 6, buf, sizeof buf, NULL, 0), -1);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(hint_get(l, -1, buf, sizeof buf, NULL, 0), -1);
	ck_assert_int_eq(hint_get(lesson_find("2"), 0, buf, sizeof buf, NULL, 0), -1);
}
END_TEST

START_TEST(test_fixture_small_buffers)
{
	const lesson *l = fixture_lesson();
	char buf[10], tag[4];
	ck_assert_int_eq(hint_get(l, 0, buf, sizeof buf, tag, sizeof tag), 0);
	ck_assert_str_eq(buf, "First lin");
	ck_assert_str_eq(tag, "cor");
	ck_assert_int_eq(hint_for(l, "memory_safe", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "Only one");   /* "Only one " less its trailing blank */
}
END_TEST

START_TEST(test_fixture_for)
{
	const lesson *l = fixture_lesson();
	char buf[1024];
	ck_assert_int_eq(hint_for(l, "correct", buf, sizeof buf), 0);   /* the first one */
	ck_assert_str_eq(buf, "First line continued here and with a tab.");
	ck_assert_int_eq(hint_for(l, "runs", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "After a blank line.");
	ck_assert_int_eq(hint_for(l, "race_free", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "Under the sub-heading.");
	/* tags outside the section, or absent */
	ck_assert_int_eq(hint_for(l, "speedup", buf, sizeof buf), -1);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(hint_for(l, "tile_choice", buf, sizeof buf), -1);
	ck_assert_int_eq(hint_for(l, "correc", buf, sizeof buf), -1);
	ck_assert_int_eq(hint_for(lesson_find("2"), "correct", buf, sizeof buf), -1);
}
END_TEST

/* Read back and remove a capture file. */
static void slurp(FILE *f, const char *path, char *out, size_t len)
{
	rewind(f);
	size_t n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
	unlink(path);
}

/* Run hint_next with stdout captured into out, stderr into err (may be NULL). */
static int run_next_err(const lesson *l, char *out, size_t len, char *err, size_t errlen)
{
	char opath[600], epath[600];
	snprintf(opath, sizeof opath, "%s/stdout", root);
	snprintf(epath, sizeof epath, "%s/stderr", root);
	fflush(stdout);
	fflush(stderr);
	int saved_out = dup(1), saved_err = dup(2);
	FILE *o = fopen(opath, "w+"), *e = fopen(epath, "w+");
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(e);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	int rc = hint_next(l);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	slurp(o, opath, out, len);
	char dummy[4];
	slurp(e, epath, err ? err : dummy, err ? errlen : sizeof dummy);
	return rc;
}

static int run_next(const lesson *l, char *out, size_t len)
{
	return run_next_err(l, out, len, NULL, 0);
}

static int read_state(void)
{
	FILE *f = fopen(state, "r");
	if (!f)
		return -1;
	int n = -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

START_TEST(test_fixture_next_cycles)
{
	const lesson *l = fixture_lesson();
	unlink(state);
	char out[2048];
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert_str_eq(out, "hint 1 of 6 (01-naive-matmul, about correct):\n"
	                      "  First line continued here and with a tab.\n");
	ck_assert_int_eq(read_state(), 1);
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert_str_eq(out, "hint 2 of 6 (01-naive-matmul, about memory_safe):\n"
	                      "  Only one line.\n");
	ck_assert_int_eq(read_state(), 2);
	for (int i = 3; i <= 5; i++)
		ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert_int_eq(read_state(), 5);
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert_str_eq(out, "hint 6 of 6 (01-naive-matmul, about race_free):\n"
	                      "  Under the sub-heading.\n"
	                      "(that was the last hint; the next `make hint` starts again from the first)\n");
	ck_assert_int_eq(read_state(), 6);
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);   /* back to the first */
	ck_assert(strncmp(out, "hint 1 of 6 ", 12) == 0);
	ck_assert_int_eq(read_state(), 1);
	unlink(state);
}
END_TEST

START_TEST(test_fixture_next_bad_state)
{
	const lesson *l = fixture_lesson();
	char dir[600], out[2048];
	snprintf(dir, sizeof dir, "%s/build/hints", root);
	mkdir(dir, 0755);
	write_file(state, "garbage\n");
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert(strncmp(out, "hint 1 of 6 ", 12) == 0);
	write_file(state, "14\n");                          /* 14 % 6: the third */
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert(strncmp(out, "hint 3 of 6 (01-naive-matmul, about correct)", 44) == 0);
	ck_assert_int_eq(read_state(), 3);
	unlink(state);
}
END_TEST

/* The hint the last report printed is skipped when it would come next, once; a report that
 * printed none (or a criterion without a hint) skips nothing. */
START_TEST(test_fixture_next_skips_the_reported_hint)
{
	const lesson *l = fixture_lesson();
	char out[2048], reported[600];
	snprintf(reported, sizeof reported, "%s.reported", state);
	unlink(state);
	hint_reported(l, "correct");            /* the report printed hint 1 */
	ck_assert_int_eq(access(reported, F_OK), 0);
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert(strncmp(out, "hint 2 of 6 (01-naive-matmul, about memory_safe)", 48) == 0);
	ck_assert_int_eq(read_state(), 2);
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);   /* hint 3 is tagged correct too */
	ck_assert(strncmp(out, "hint 3 of 6 (01-naive-matmul, about correct)", 44) == 0);
	unlink(state);
	hint_reported(l, "runs");               /* hint 5, not next: hint 1 comes */
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert(strncmp(out, "hint 1 of 6 ", 12) == 0);
	unlink(state);
	hint_reported(l, "speedup");            /* no such hint: nothing recorded */
	ck_assert_int_eq(access(reported, F_OK), -1);
	ck_assert_int_eq(run_next(l, out, sizeof out), 0);
	ck_assert(strncmp(out, "hint 1 of 6 ", 12) == 0);
	hint_reported(l, "memory_safe");
	hint_reported(l, NULL);                 /* a report without a hint clears it */
	ck_assert_int_eq(access(reported, F_OK), -1);
	unlink(state);
}
END_TEST

START_TEST(test_fixture_next_no_hints)
{
	fixture_lesson();
	char out[256], err[256];
	ck_assert_int_eq(run_next_err(lesson_find("2"), out, sizeof out, err, sizeof err), 2);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "lesson 02-tiled-matmul has no hints\n");
}
END_TEST

/* ---- the lessons' own READMEs ---- */

START_TEST(test_readmes_have_hints)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		int n = hint_count(l);
		ck_assert_msg(n > 0, "%s: no hints", l->slug);
		for (int h = 0; h < n; h++) {
			char buf[4096], tag[64];
			ck_assert_int_eq(hint_get(l, h, buf, sizeof buf, tag, sizeof tag), 0);
			ck_assert_msg(strlen(buf) > 20, "%s: hint %d is too short: %s", l->slug, h + 1, buf);
			ck_assert_msg(strchr(buf, '\n') == NULL, "%s: hint %d keeps a newline", l->slug, h + 1);
		}
	}
}
END_TEST

START_TEST(test_readme_tags_are_lesson_criteria)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		for (int h = 0; h < hint_count(l); h++) {
			char buf[4096], tag[64];
			ck_assert_int_eq(hint_get(l, h, buf, sizeof buf, tag, sizeof tag), 0);
			int c = lesson_crit_parse(tag);
			ck_assert_msg(c >= 0, "%s: hint %d has the unknown tag [%s]", l->slug, h + 1, tag);
			ck_assert_msg(l->criteria & CRIT_BIT(c), "%s: hint %d is about [%s], which the "
			              "lesson does not check", l->slug, h + 1, tag);
		}
	}
}
END_TEST

/* Every criterion a lesson checks has a hint (true of all four READMEs), and hint_for gives
 * the first hint with that tag. */
START_TEST(test_readme_hint_for_each_criterion)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		for (int c = 0; c < CRIT_COUNT; c++) {
			char buf[4096];
			const char *id = lesson_crit_id((lesson_crit)c);
			int rc = hint_for(l, id, buf, sizeof buf);
			if (!(l->criteria & CRIT_BIT(c))) {
				ck_assert_msg(rc == -1, "%s: a hint about [%s], not checked", l->slug, id);
				continue;
			}
			ck_assert_msg(rc == 0, "%s: no hint about [%s]", l->slug, id);
			int first = -1;
			char text[4096], tag[64];
			for (int h = 0; h < hint_count(l) && first < 0; h++) {
				hint_get(l, h, text, sizeof text, tag, sizeof tag);
				if (strcmp(tag, id) == 0)
					first = h;
			}
			ck_assert_int_ge(first, 0);
			ck_assert_str_eq(buf, text);
		}
	}
}
END_TEST

START_TEST(test_readme_counts)
{
	/* the number of "- [" items in each README's Hints section, counted here directly */
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char path[4200], line[4096];
		hint_path(l, path, sizeof path);
		FILE *f = fopen(path, "r");
		ck_assert_msg(f != NULL, "%s missing", path);
		int in = 0, n = 0;
		while (fgets(line, sizeof line, f)) {
			if (strncmp(line, "## ", 3) == 0)
				in = strncmp(line, "## Hints", 8) == 0;
			else if (in && strncmp(line, "- [", 3) == 0)
				n++;
		}
		fclose(f);
		ck_assert_int_eq(hint_count(l), n);
	}
	ck_assert_int_eq(hint_count(lesson_find("4")) > 0, 1);
	char buf[4096];
	ck_assert_int_eq(hint_for(lesson_find("4"), "tile_choice", buf, sizeof buf), 0);
}
END_TEST

static char *read_whole(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s missing", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

/* The README teaches; it holds no hints section and no tagged hint line. */
START_TEST(test_readmes_hold_no_hints)
{
	for (int i = 0; i < lesson_count(); i++) {
		char path[512];
		lesson_path(lesson_at(i), "readme", path, sizeof path);
		char *text = read_whole(path);
		ck_assert_msg(strstr(text, "\n## Hints") == NULL, "%s has a Hints section", path);
		ck_assert_msg(strstr(text, "\n- [") == NULL, "%s has a tagged hint line", path);
		free(text);
	}
}
END_TEST

/* Squeeze out blanks: "acc += A[row * N + k]" -> "acc+=A[row*N+k]". */
static void squeeze(const char *in, char *out, size_t len)
{
	size_t k = 0;
	for (; *in && k + 1 < len; in++)
		if (*in != ' ' && *in != '\t' && *in != '\n')
			out[k++] = *in;
	out[k] = '\0';
}

/* No hint gives the solution away: the last hint quotes no statement of the solution, and
 * all the hints together quote at most one (a statement is a code line of the solution
 * file, blanks squeezed out, at least 18 characters, not a comment, a #define or the
 * kernel's signature). */
START_TEST(test_hints_never_quote_the_solution)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char path[512], all[1 << 15] = "", last[4096] = "", buf[4096], tag[64], sq[4096];
		int n = hint_count(l);
		for (int h = 0; h < n; h++) {
			hint_get(l, h, buf, sizeof buf, tag, sizeof tag);
			squeeze(buf, sq, sizeof sq);
			strncat(all, sq, sizeof all - strlen(all) - 2);
			strcat(all, "|");
			if (h == n - 1)
				snprintf(last, sizeof last, "%s", sq);
		}
		lesson_path(l, "solution", path, sizeof path);
		char *code = read_whole(path), *save = NULL, quoted = 0;
		for (char *line = strtok_r(code, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *t = line + strspn(line, " \t");
			if (t[0] == '/' || t[0] == '*' || t[0] == '#' || strncmp(t, "__kernel", 8) == 0 ||
			    strncmp(t, "__global", 8) == 0 || strncmp(t, "const int", 9) == 0)
				continue;
			squeeze(t, sq, sizeof sq);
			if (strlen(sq) < 18)
				continue;
			ck_assert_msg(strstr(last, sq) == NULL, "%s: the last hint quotes the solution's "
			              "\"%s\"", l->slug, t);
			quoted += strstr(all, sq) != NULL;
		}
		ck_assert_msg(quoted <= 1, "%s: the hints quote %d statements of the solution",
		              l->slug, quoted);
		free(code);
	}
}
END_TEST

/* Every line of text holds an even number of backticks: no `code span` is broken. */
static void assert_spans_whole(const char *text)
{
	int ticks = 0;
	for (const char *p = text; *p; p++) {
		if (*p == '`')
			ticks++;
		if (*p == '\n') {
			ck_assert_msg(ticks % 2 == 0, "a code span is broken across lines:\n%s", text);
			ticks = 0;
		}
	}
}

/* Wrapping at 60 columns: hints and report lines break at blanks outside code spans, and a
 * command longer than the line is kept whole (the line runs long instead). */
START_TEST(test_wrapping_keeps_code_spans_whole)
{
	static const char *LONG = "the limiter is local_memory: check `build/clgrade occupancy "
		"--profile nvidia-sm86 --work-group 256 --local-bytes 2048 --registers 32` and "
		"then write `#define CHOSEN_LIMITER_SM86 warps` on its own line, outside comments";
	setenv("COLUMNS", "60", 1);
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	hint_print_wrapped(f, LONG, 2);
	fclose(f);
	ck_assert_msg(strchr(strchr(buf, '\n') + 1, '\n') != NULL, "not wrapped: %s", buf);
	assert_spans_whole(buf);
	ck_assert_ptr_nonnull(strstr(buf, "`build/clgrade occupancy --profile nvidia-sm86 "
	                                  "--work-group 256 --local-bytes 2048 --registers 32`"));

	static check_report rep;
	memset(&rep, 0, sizeof rep);
	rep.opts.l = lesson_find("4");
	rep.opts.kernel = "k.cl";
	rep.exit_code = 1;
	rep.ncrit = 1;
	rep.crit[0].id = CRIT_TILE_CHOICE;
	rep.crit[0].status = CRIT_FAIL;
	snprintf(rep.crit[0].msg, sizeof rep.crit[0].msg, "%s", LONG);
	snprintf(rep.crit[0].try_, sizeof rep.crit[0].try_, "%s", LONG);
	char out[16384];
	f = fmemopen(out, sizeof out, "w");
	report_text(f, &rep);
	fclose(f);
	assert_spans_whole(out);
	ck_assert_ptr_nonnull(strstr(out, "`build/clgrade occupancy --profile nvidia-sm86 "
	                                  "--work-group 256 --local-bytes 2048 --registers 32`"));
}
END_TEST

static Suite *hint_suite(void)
{
	Suite *s = suite_create("hint");
	TCase *t = tcase_create("fixture");
	tcase_add_unchecked_fixture(t, make_root, remove_root);
	tcase_add_test(t, test_fixture_count);
	tcase_add_test(t, test_fixture_get);
	tcase_add_test(t, test_fixture_small_buffers);
	tcase_add_test(t, test_fixture_for);
	tcase_add_test(t, test_fixture_next_cycles);
	tcase_add_test(t, test_fixture_next_bad_state);
	tcase_add_test(t, test_fixture_next_skips_the_reported_hint);
	tcase_add_test(t, test_fixture_next_no_hints);
	suite_add_tcase(s, t);

	t = tcase_create("readmes");
	tcase_add_test(t, test_readmes_have_hints);
	tcase_add_test(t, test_readme_tags_are_lesson_criteria);
	tcase_add_test(t, test_readme_hint_for_each_criterion);
	tcase_add_test(t, test_readme_counts);
	tcase_add_test(t, test_readmes_hold_no_hints);
	tcase_add_test(t, test_hints_never_quote_the_solution);
	tcase_add_test(t, test_wrapping_keeps_code_spans_whole);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hint_suite());
	/* lesson_root() caches its answer: each test in its own process sees its own root */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
