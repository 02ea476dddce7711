/* test_hints.c — integration test: a hint that quotes the report ("...") quotes words the
 * grader really prints.  Every double-quoted span of every lesson's hints.md is listed below
 * with a kernel whose real report (build/clgrade on PoCL) holds it; a quote the table does not
 * list, or a row whose quote no hint holds any more, fails as well, so a hint cannot quote a
 * report line that nothing prints. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hint.h"
#include "itest.h"

#define FX "tests/fixtures/"

static const struct quote {
	const char *lesson, *kernel, *text;
} quotes[] = {
	/* lesson 1, the second [correct] hint: the patterns of the correct line */
	{ "1", FX "l1_wrong_index.cl",
	  "row and column are swapped: the result is the transpose of the right one" },
	{ "1", FX "l1_wrong_index.cl", "wrong at 17x17" },
	{ "1", "kernels/starter/01-naive-matmul.cl",
	  "every element of C is 0: the kernel stores without accumulating anything" },
};
#define NQUOTES ((int)(sizeof quotes / sizeof quotes[0]))

/* s with every run of blanks and newlines as one space (the report wraps its lines). */
static char *squeeze(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	ck_assert_ptr_nonnull(out);
	for (; *s; s++)
		if (!strchr(" \t\n", *s))
			*o++ = *s;
		else if (o > out && o[-1] != ' ')
			*o++ = ' ';
	*o = '\0';
	return out;
}

/* Is "text" one of the lesson's quotes?  (-1: no such row.) */
static int row_of(const char *lesson, const char *text)
{
	for (int i = 0; i < NQUOTES; i++)
		if (strcmp(quotes[i].lesson, lesson) == 0 && strcmp(quotes[i].text, text) == 0)
			return i;
	return -1;
}

/* Call back with each quoted span of each hint of lesson l; how many there were. */
static int each_quote(const lesson *l, void (*fn)(const lesson *, int, const char *, void *),
                      void *arg)
{
	int n = 0;
	for (int h = 0; h < hint_count(l); h++) {
		char buf[4096], tag[64], q[1024];
		ck_assert_int_eq(hint_get(l, h, buf, sizeof buf, tag, sizeof tag), 0);
		for (char *a = strchr(buf, '"'), *b; a && (b = strchr(a + 1, '"')); a = strchr(b + 1, '"')) {
			snprintf(q, sizeof q, "%.*s", (int)(b - a - 1), a + 1);
			fn(l, h, q, arg);
			n++;
		}
	}
	return n;
}

static void listed(const lesson *l, int h, const char *q, void *arg)
{
	char num[8];
	snprintf(num, sizeof num, "%d", l->number);
	ck_assert_msg(row_of(num, q) >= 0, "%s: hint %d quotes \"%s\", which no report of "
	              "test_hints.c's table shows: quote only what the grader prints", l->slug, h + 1, q);
	(void)arg;
}

/* Every quote of every hint is a row of the table. */
START_TEST(every_quote_is_listed)
{
	int n = 0;
	for (int i = 0; i < lesson_count(); i++)
		n += each_quote(lesson_at(i), listed, NULL);
	ck_assert_int_ge(n, NQUOTES);
}
END_TEST

/* Clears *seen (a row) when the quote q is its own. */
static void seen_row(const lesson *l, int h, const char *q, void *arg)
{
	const struct quote **seen = arg;
	char num[8];
	snprintf(num, sizeof num, "%d", l->number);
	if (*seen && strcmp(num, (*seen)->lesson) == 0 && strcmp(q, (*seen)->text) == 0)
		*seen = NULL;
	(void)h;
}

/* Each row: some hint of its lesson quotes it, and its kernel's real report prints it. */
START_TEST(quote_is_in_the_report)
{
	const struct quote *r = &quotes[_i], *seen = r;
	each_quote(lesson_find(r->lesson), seen_row, &seen);
	ck_assert_msg(seen == NULL, "lesson %s: no hint quotes \"%s\" any more: remove its row",
	              r->lesson, r->text);
	itest_graded g = itest_grade(r->lesson, r->kernel, "--no-analysis");
	char *text = squeeze(g.text);
	ck_assert_msg(strstr(text, r->text) != NULL, "lesson %s, %s: the report lacks \"%s\":\n%s",
	              r->lesson, r->kernel, r->text, g.text);
	free(text);
	itest_done(&g);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hints");
	TCase *t = tcase_create("hints");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, every_quote_is_listed);
	tcase_add_loop_test(t, quote_is_in_the_report, 0, NQUOTES);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
