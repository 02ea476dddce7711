/* test_fixtures.c — fixtures that register themselves by their first line.
 *
 * A fixture in tests/fixtures/ whose first line says what it must do, in this form, is graded
 * here without any table to edit:
 *
 *   // lesson N - must fail: CRIT (what the kernel does wrong) [clause] [clause] ...
 *
 * and each clause in square brackets is asserted on the real report (build/clgrade on real
 * PoCL and Oclgrind, as every integration test):
 *   [cause CRIT]           the report names CRIT as the cause of the others (JSON "cause")
 *   [CRIT says "TEXT"]     CRIT's message or try holds TEXT
 *   [CRIT not "TEXT"]      neither CRIT's message nor its try holds TEXT
 *   [says "TEXT"]          the terminal report holds TEXT;  [not "TEXT"]: it does not
 *   [passes CRIT]          CRIT passes
 *   [extra "ARGS"]         clgrade gets ARGS too (e.g. "--timeout 3")
 *   [gpu-only]             the criterion is shown failing on a GPU (tests/gpu-l7.sh runs it
 *                          there); here the kernel must be correct, and the clauses hold
 * The criterion after "must fail:" must fail.  Fixtures without a clause are graded by the
 * tests written for them (test_grade.c, test_diagnoses.c, ...), not here. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "itest.h"
#include "lesson.h"

enum { MAX_FIXTURES = 400, MAX_CLAUSES = 12 };

typedef struct clause { char verb[16], crit[32], text[240]; } clause;

typedef struct fixture {
	char path[300], lesson[4], fails[32], extra[120];
	int nclauses, gpu_only;
	clause c[MAX_CLAUSES];
} fixture;

static fixture fx[MAX_FIXTURES];
static int nfx;

/* "[CRIT says "T"]", "[not "T"]", "[cause CRIT]" ...: one clause from p; 0 when malformed. */
static int parse_clause(const char *p, clause *c)
{
	memset(c, 0, sizeof *c);
	char words[2][32] = { "", "" };
	int nw = 0;
	while (*p == ' ')
		p++;
	while (*p && *p != ']' && *p != '"' && nw < 2) {
		int n = (int)strcspn(p, " ]\"");
		snprintf(words[nw++], sizeof words[0], "%.*s", n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
	if (*p == '"') {
		const char *end = strchr(p + 1, '"');
		if (!end)
			return 0;
		snprintf(c->text, sizeof c->text, "%.*s", (int)(end - p - 1), p + 1);
	}
	if (nw == 2)   /* CRIT says/not "T" */
		snprintf(c->crit, sizeof c->crit, "%s", words[0]), snprintf(c->verb, sizeof c->verb, "%s", words[1]);
	else if (nw == 1 && (strcmp(words[0], "cause") == 0 || strcmp(words[0], "passes") == 0))
		return 0;
	else if (nw == 1)
		snprintf(c->verb, sizeof c->verb, "%s", words[0]);
	if (nw == 2 && (strcmp(words[0], "cause") == 0 || strcmp(words[0], "passes") == 0)) {
		snprintf(c->verb, sizeof c->verb, "%s", words[0]);
		snprintf(c->crit, sizeof c->crit, "%s", words[1]);
	}
	return c->verb[0] != '\0';
}

/* Is the bracket at p a clause (a verb, or a criterion and a verb), not code such as C[i] in
 * the description? */
static int is_clause(const char *p)
{
	static const char *const verbs[] = { "cause ", "passes ", "says \"", "not \"", "extra \"",
	                                     "gpu-only]", NULL };
	for (int i = 0; verbs[i]; i++)
		if (strncmp(p, verbs[i], strlen(verbs[i])) == 0)
			return 1;
	char id[32];   /* a criterion id (lesson.h), then a space */
	size_t n = strcspn(p, " ]");
	snprintf(id, sizeof id, "%.*s", (int)(n < sizeof id ? n : sizeof id - 1), p);
	return p[n] == ' ' && lesson_crit_parse(id) >= 0;
}

/* The first line of path, when it registers the fixture here. */
static int parse_fixture(const char *path, fixture *f)
{
	FILE *in = fopen(path, "r");
	char line[2048] = "";
	if (!in)
		return 0;
	if (!fgets(line, sizeof line, in))
		line[0] = '\0';
	fclose(in);
	const char *m = strstr(line, "lesson ");
	const char *br = strchr(line, '[');
	if (!m || !br || !strstr(line, " [") || sscanf(m, "lesson %3s - must fail: %31[a-z_]", f->lesson, f->fails) != 2)
		return 0;
	snprintf(f->path, sizeof f->path, "%s", path);
	for (const char *p = br; p && *p == '[' && f->nclauses < MAX_CLAUSES; p = strchr(p + 1, '[')) {
		clause *c = &f->c[f->nclauses];
		if (!is_clause(p + 1))
			continue;                       /* code in the description */
		if (!parse_clause(p + 1, c))
			snprintf(c->verb, sizeof c->verb, "?");   /* a clause it cannot read fails */
		if (strncmp(p + 1, "gpu-only]", 9) == 0) {
			f->gpu_only = 1;
			continue;
		}
		if (strcmp(c->verb, "extra") == 0) {
			char text[sizeof c->text];
			memcpy(text, c->text, sizeof text);
			snprintf(f->extra, sizeof f->extra, "%s", text);
		}
		else
			f->nclauses++;
	}
	return f->nclauses > 0 || f->gpu_only;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const fixture *)a)->path, ((const fixture *)b)->path);
}

/* The lessons whose fixtures this binary grades: test_fixtures67.c takes lessons 6 and 7's
 * (their analyses cost 10 to 24 s a grading), so that the suite's schedule runs the two halves
 * side by side. */
#ifndef FIXTURE_LESSONS
#define FIXTURE_LESSONS "12345"
#endif

/* FIXTURES=PREFIX (e.g. l7_) grades only the fixtures whose name starts with it, whatever
 * their lesson; else this binary's lessons (FIXTURE_LESSONS). */
static void discover(void)
{
	DIR *d = opendir("tests/fixtures");
	struct dirent *e;
	const char *only = getenv("FIXTURES");
	while (d && (e = readdir(d)) && nfx < MAX_FIXTURES) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 3, ".cl") != 0 ||
		    (only && strncmp(e->d_name, only, strlen(only)) != 0))
			continue;
		char path[300];
		snprintf(path, sizeof path, "tests/fixtures/%s", e->d_name);
		memset(&fx[nfx], 0, sizeof fx[nfx]);   /* a slot a filtered-out fixture filled */
		if (parse_fixture(path, &fx[nfx]) &&
		    (only || (fx[nfx].lesson[0] && strchr(FIXTURE_LESSONS, fx[nfx].lesson[0]))))
			nfx++;
	}
	if (d)
		closedir(d);
	qsort(fx, (size_t)nfx, sizeof fx[0], by_path);
}

static const char *field(cJSON *c, const char *k)
{
	const char *s = c ? cJSON_GetStringValue(cJSON_GetObjectItem(c, k)) : NULL;
	return s ? s : "";
}

static const char *status(const itest_graded *g, const char *id)
{
	return field(itest_crit(g, id), "status");
}

/* CRIT's message and try hold text? */
static int crit_holds(const itest_graded *g, const char *id, const char *text)
{
	cJSON *c = itest_crit(g, id);
	return strstr(field(c, "message"), text) || strstr(field(c, "try"), text);
}

static void assert_clause(const fixture *f, const itest_graded *g, const clause *c)
{
	const char *p = f->path;
	if (strcmp(c->verb, "cause") == 0) {
		const char *got = field(cJSON_GetObjectItem(g->json, "cause"), "criterion");
		ck_assert_msg(strcmp(got, c->crit) == 0, "%s: the cause is \"%s\", not %s\n%.1500s", p, got,
		              c->crit, g->text);
	} else if (strcmp(c->verb, "passes") == 0) {
		ck_assert_msg(strcmp(status(g, c->crit), "pass") == 0, "%s: %s is %s, not pass\n%.1500s", p,
		              c->crit, status(g, c->crit), g->text);
	} else if (strcmp(c->verb, "says") == 0 && c->crit[0]) {
		ck_assert_msg(crit_holds(g, c->crit, c->text), "%s: %s does not say \"%s\": %.1200s; "
		              "try: %.600s", p, c->crit, c->text, field(itest_crit(g, c->crit), "message"),
		              field(itest_crit(g, c->crit), "try"));
	} else if (strcmp(c->verb, "not") == 0 && c->crit[0]) {
		ck_assert_msg(!crit_holds(g, c->crit, c->text), "%s: %s says \"%s\": %.1200s; try: "
		              "%.600s", p, c->crit, c->text, field(itest_crit(g, c->crit), "message"),
		              field(itest_crit(g, c->crit), "try"));
	} else if (strcmp(c->verb, "says") == 0) {
		ck_assert_msg(strstr(g->text, c->text) != NULL, "%s: the report lacks \"%s\"\n%.1500s", p,
		              c->text, g->text);
	} else if (strcmp(c->verb, "not") == 0) {
		ck_assert_msg(strstr(g->text, c->text) == NULL, "%s: the report says \"%s\"\n%.1500s", p,
		              c->text, g->text);
	} else {
		ck_abort_msg("%s: unknown clause [%s %s \"%s\"]", p, c->crit, c->verb, c->text);
	}
}

START_TEST(fixture_as_its_first_line_says)
{
	const fixture *f = &fx[_i];
	itest_graded g = itest_grade(f->lesson, f->path, f->extra[0] ? f->extra : NULL);
	if (f->gpu_only)     /* right here; its criterion is judged on the GPU */
		ck_assert_msg(strcmp(status(&g, "correct"), "pass") == 0, "%s (GPU-only): correct is "
		              "%s\n%.1500s", f->path, status(&g, "correct"), g.text);
	else
		ck_assert_msg(strcmp(status(&g, f->fails), "fail") == 0, "%s: %s is %s, not fail\n%.1500s",
		              f->path, f->fails, status(&g, f->fails), g.text);
	for (int i = 0; i < f->nclauses; i++)
		assert_clause(f, &g, &f->c[i]);
	itest_done(&g);
}
END_TEST

/* The runner itself: it finds the fixtures, and a clause it cannot read fails, not passes. */
START_TEST(fixtures_are_found)
{
	ck_assert_msg(nfx >= (getenv("FIXTURES") ? 1 : 10), "only %d self-registering fixtures found", nfx);
	/* the reader stops at MAX_FIXTURES: one more would be dropped without a word */
	ck_assert_msg(nfx < MAX_FIXTURES, "%d fixtures: raise MAX_FIXTURES", nfx);
	clause c;
	ck_assert(parse_clause("correct says \"a symptom of\"]", &c));
	ck_assert_str_eq(c.crit, "correct");
	ck_assert_str_eq(c.verb, "says");
	ck_assert_str_eq(c.text, "a symptom of");
	ck_assert(parse_clause("cause race_free]", &c));
	ck_assert_str_eq(c.verb, "cause");
	ck_assert_str_eq(c.crit, "race_free");
	ck_assert(!parse_clause("cause]", &c));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fixtures");
	TCase *t = tcase_create("first-line");
	tcase_set_timeout(t, 600);
	tcase_add_test(t, fixtures_are_found);
	tcase_add_loop_test(t, fixture_as_its_first_line_says, 0, nfx);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	discover();
	return itest_run(suite());
}
