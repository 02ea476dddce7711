/* test_words.c — the grader's kind-agnostic files say nothing of matrices.
 *
 * Every sentence that depends on what a lesson computes comes from its kind (kind.h,
 * kind_say): a 1-D lesson must never hear of rows, columns or N x N.  This test reads the
 * string literals of every grader source file except the 2-D kinds' own (kind_matmul.c,
 * kind_transpose.c, their kind_matrix.c, and the image stencil's kind_stencil2d.c) and fails on any that holds the words row,
 * column, matrix or "N x N", outside the few literals that are JSON keys of the report's
 * contract or a source location ("column" of a finding, "row" of a mismatch). */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const matrix_files[] = { "kind_matmul.c", "kind_transpose.c", "kind_matrix.c",
                                            "kind_stencil2d.c", NULL };
/* whole literals allowed: JSON keys and environment names, not sentences */
static const char *const allowed[] = { "\"column\"", "\"row\"", "\"rows\"", "\"COLUMNS\"",
                                       "\"At line %d (column %d)\"", NULL };

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	if (s)
		s[n] = '\0';
	fclose(f);
	return s;
}

/* Does literal lit (with its quotes, len bytes) hold word w, as a word, any case? */
static int has_word(const char *lit, size_t len, const char *w)
{
	size_t n = strlen(w);
	for (size_t i = 0; i + n <= len; i++) {
		if (strncasecmp(lit + i, w, n) != 0)
			continue;
		int before = i > 0 && (isalnum((unsigned char)lit[i - 1]) || lit[i - 1] == '_');
		int after = i + n < len && (isalnum((unsigned char)lit[i + n]) || lit[i + n] == '_');
		if (!before && !after)
			return 1;
	}
	return 0;
}

static int literal_allowed(const char *lit, size_t len)
{
	for (int i = 0; allowed[i]; i++)
		if (strlen(allowed[i]) == len && strncmp(allowed[i], lit, len) == 0)
			return 1;
	return 0;
}

/* The matrix words in the literals of one C source (comments skipped); appends to out. */
static int scan(const char *name, const char *s, char *out, size_t olen)
{
	static const char *const words[] = { "row", "rows", "column", "columns", "matrix",
	                                     "matrices", NULL };
	int bad = 0, line = 1;
	for (const char *p = s; *p; p++) {
		if (*p == '\n')
			line++;
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			for (const char *q = p; q < (e ? e : p + strlen(p)); q++)
				line += *q == '\n';
			p = e ? e + 1 : p + strlen(p) - 1;
			continue;
		}
		if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n") - 1;
			continue;
		}
		if (*p == '\'' ) {              /* a char literal: '"' is no string */
			p += p[1] == '\\' ? 3 : 2;
			continue;
		}
		if (*p != '"')
			continue;
		const char *q = p + 1;
		while (*q && *q != '"' && *q != '\n')
			q += *q == '\\' ? 2 : 1;
		size_t len = (size_t)(q - p) + 1;
		int hit = strstr(p, "N x N") && strstr(p, "N x N") < q;
		for (int i = 0; words[i] && !hit; i++)
			hit = has_word(p, len, words[i]);
		if (hit && !literal_allowed(p, len)) {
			size_t k = strlen(out);
			snprintf(out + k, olen - k, "%s:%d: %.*s\n", name, line, (int)(len > 100 ? 100 : len), p);
			bad++;
		}
		p = *q ? q : q - 1;
	}
	return bad;
}

START_TEST(kind_agnostic_files_hold_no_matrix_word)
{
	DIR *d = opendir("grader");
	ck_assert_msg(d != NULL, "run from the suite's root (no grader/ here)");
	static char out[16384];
	out[0] = '\0';
	int bad = 0, files = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 3 || (strcmp(e->d_name + n - 2, ".c") && strcmp(e->d_name + n - 2, ".h")))
			continue;
		int matrix = 0;
		for (int i = 0; matrix_files[i]; i++)
			matrix |= strcmp(e->d_name, matrix_files[i]) == 0;
		if (matrix)
			continue;
		char path[512];
		snprintf(path, sizeof path, "grader/%s", e->d_name);
		char *s = slurp(path);
		ck_assert_ptr_nonnull(s);
		bad += scan(path, s, out, sizeof out);
		files++;
		free(s);
	}
	closedir(d);
	ck_assert_int_gt(files, 20);
	ck_assert_msg(bad == 0, "%d literals speak of a matrix outside its kinds:\n%s", bad, out);
}
END_TEST

/* The scanner finds what it is for, and skips comments and allowed keys. */
START_TEST(scanner_finds_a_matrix_word)
{
	char out[1024] = "";
	ck_assert_int_eq(scan("x.c", "f(\"pad the row by one\");", out, sizeof out), 1);
	out[0] = '\0';
	ck_assert_int_eq(scan("x.c", "/* a row */ f(\"the array\"); // rows\n", out, sizeof out), 0);
	ck_assert_int_eq(scan("x.c", "k(o, \"column\", 3); g(\"arrows\");", out, sizeof out), 0);
	ck_assert_int_eq(scan("x.c", "g(\"an N x N grid\");", out, sizeof out), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("words");
	TCase *t = tcase_create("kind-agnostic");
	tcase_add_test(t, scanner_finds_a_matrix_word);
	tcase_add_test(t, kind_agnostic_files_hold_no_matrix_word);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
