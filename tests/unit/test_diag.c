/* test_diag.c — Check unit tests for build-log rewriting and the #include policy (grader/diag.c).
 *
 * The logs are real shapes: PoCL's "error: <kcache tempfile>:L:C: msg" followed by its driver
 * chatter, and clang/NVIDIA's "<kernel>:L:C: error: msg".  The include tests are the ways a
 * student's kernel could make the compiler read (and echo into the log) a file outside the
 * lesson's folder; each such spelling was checked to really include the file under PoCL. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

static const char *SRC =
	"__kernel void k(__global float *c)\n"
	"{   const int i = get_global_id(0)\n"
	"    c[i] = 1.0f;\n"
	"}\n";

/* ---- diag_rewrite ---- */

START_TEST(test_rewrite_pocl)
{
	const char *raw =
		"error: /root/.cache/pocl/kcache/tempfile_sioL4h.cl:2:27: expected ';' at end of declaration\n"
		"Device pthread-haswell-AMD EPYC failed to build the program\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "kernels/starter/x.cl", out, sizeof out);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"kernels/starter/x.cl:2:27: error: expected ';' at end of declaration\n"
		"  {   const int i = get_global_id(0)\n"
		"                            ^\n");   /* 2 + 26 spaces: the caret under column 27 */
}
END_TEST

START_TEST(test_rewrite_clang_nvidia)
{
	const char *raw =
		"<kernel>:3:5: error: use of undeclared identifier 'c2'\n"
		"    c2[i] = 1.0f;\n"
		"    ^\n"
		"1 error generated.\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "k.cl", out, sizeof out);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"k.cl:3:5: error: use of undeclared identifier 'c2'\n"
		"      c[i] = 1.0f;\n"
		"      ^\n");
}
END_TEST

START_TEST(test_rewrite_warning)
{
	const char *raw =
		"warning: /root/.cache/pocl/kcache/tempfile_Ab12Cd.cl:1:15: unused parameter\n"
		"<kernel>:3:10: warning: implicit conversion\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "k.cl", out, sizeof out);
	ck_assert_int_eq(n, 0);   /* warnings are not errors */
	ck_assert_str_eq(out,
		"k.cl:1:15: warning: unused parameter\n"
		"  __kernel void k(__global float *c)\n"
		"                ^\n"
		"k.cl:3:10: warning: implicit conversion\n"
		"      c[i] = 1.0f;\n"
		"           ^\n");
}
END_TEST

START_TEST(test_rewrite_other_file_keeps_name)
{
	const char *raw =
		"error: lessons/01-naive-matmul/helper.h:4:1: unknown type name 'flot'\n"
		"error: /root/.cache/pocl/kcache/tempfile_x.cl:1:1: expected something\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "k.cl", out, sizeof out);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(out,
		"lessons/01-naive-matmul/helper.h:4:1: error: unknown type name 'flot'\n"
		"k.cl:1:1: error: expected something\n"
		"  __kernel void k(__global float *c)\n"
		"  ^\n");
}
END_TEST

START_TEST(test_rewrite_error_count)
{
	const char *raw =
		"<kernel>:1:1: error: one\n"
		"<kernel>:2:2: warning: not counted\n"
		"<kernel>:2:3: note: not counted either\n"
		"<kernel>:3:1: error: two\n"
		"<kernel>:4:1: fatal error: three\n"
		"3 errors generated.\n";
	char out[4096];
	ck_assert_int_eq(diag_rewrite(raw, SRC, "k.cl", out, sizeof out), 3);
	ck_assert_ptr_nonnull(strstr(out, "k.cl:2:3: note: not counted either\n"));
	ck_assert_ptr_nonnull(strstr(out, "k.cl:4:1: fatal error: three\n"));
	ck_assert_ptr_null(strstr(out, "generated"));
	ck_assert_int_eq(diag_rewrite("", SRC, "k.cl", out, sizeof out), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(diag_rewrite(NULL, SRC, "k.cl", out, sizeof out), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_rewrite_tab_and_missing_line)
{
	const char *src = "x\n\tint y = z;\n";
	char out[1024];
	ck_assert_int_eq(diag_rewrite("<kernel>:2:10: error: bad\n<kernel>:9:1: error: past the end\n",
	                              src, "k.cl", out, sizeof out), 2);
	/* the tab stays a tab so the caret lines up; a line the source lacks has no excerpt */
	ck_assert_str_eq(out,
		"k.cl:2:10: error: bad\n"
		"  \tint y = z;\n"
		"  \t        ^\n"
		"k.cl:9:1: error: past the end\n");
}
END_TEST

START_TEST(test_rewrite_small_buffer)
{
	const char *raw = "<kernel>:3:5: error: use of undeclared identifier 'c2'\n";
	char out[20];
	memset(out, 'x', sizeof out);
	ck_assert_int_eq(diag_rewrite(raw, SRC, "k.cl", out, sizeof out), 1);
	ck_assert_uint_eq(strlen(out), sizeof out - 1);
	ck_assert_str_eq(out, "k.cl:3:5: error: us");
}
END_TEST

/* ---- diag_first_error ---- */

START_TEST(test_first_error)
{
	char out[512];
	diag_first_error("k.cl:1:15: warning: unused\n  src\n  ^\n"
	                 "k.cl:2:27: error: expected ';'\n  src\n  ^\n"
	                 "k.cl:3:1: error: second\n", out, sizeof out);
	ck_assert_str_eq(out, "k.cl:2:27: error: expected ';'");
	diag_first_error("k.cl:1:15: warning: unused\n", out, sizeof out);
	ck_assert_str_eq(out, "");
	diag_first_error("", out, sizeof out);
	ck_assert_str_eq(out, "");
	diag_first_error("k.cl:2:27: error: expected ';'", out, 10);
	ck_assert_str_eq(out, "k.cl:2:27");
}
END_TEST

START_TEST(test_first_error_fatal_and_excerpt)
{
	char out[512];
	/* a fatal error is an error */
	diag_first_error("k.cl:1:10: fatal error: 'x.h' file not found\n  #include \"x.h\"\n  ^\n",
	                 out, sizeof out);
	ck_assert_str_eq(out, "k.cl:1:10: fatal error: 'x.h' file not found");
	/* the student's source echoed under a warning is not the compiler's error */
	diag_first_error("k.cl:1:5: warning: unused variable 'x'\n"
	                 "  int x; // TODO: error: fix this\n"
	                 "      ^\n"
	                 "k.cl:4:2: error: the real one\n", out, sizeof out);
	ck_assert_str_eq(out, "k.cl:4:2: error: the real one");
}
END_TEST

START_TEST(test_rewrite_then_first_error)
{
	const char *raw =
		"error: /root/.cache/pocl/kcache/tempfile_sioL4h.cl:2:27: expected ';' at end of declaration\n"
		"Device pthread-haswell-AMD EPYC failed to build the program\n";
	char out[2048], first[512];
	diag_rewrite(raw, SRC, "kernels/starter/x.cl", out, sizeof out);
	diag_first_error(out, first, sizeof first);
	ck_assert_str_eq(first, "kernels/starter/x.cl:2:27: error: expected ';' at end of declaration");
}
END_TEST

/* ---- diag_check_includes ---- */

static char lesson_dir[] = "/tmp/test_diag_XXXXXX";

static void make_lesson_dir(void)
{
	ck_assert_ptr_nonnull(mkdtemp(lesson_dir));
	char p[256];
	snprintf(p, sizeof p, "%s/tile.h", lesson_dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#define TILE_PAD 1\n", f);
	fclose(f);
}

static void remove_lesson_dir(void)
{
	char p[256];
	snprintf(p, sizeof p, "%s/tile.h", lesson_dir);
	unlink(p);
	rmdir(lesson_dir);
}

static int check(const char *src, char *msg, size_t len)
{
	msg[0] = '\0';
	return diag_check_includes(src, "k.cl", lesson_dir, msg, len);
}

#define REFUSED(src, want)                                                                   \
	do {                                                                                 \
		char msg_[512];                                                               \
		ck_assert_int_eq(check(src, msg_, sizeof msg_), -1);                          \
		ck_assert_str_eq(msg_, want);                                                 \
	} while (0)

#define ACCEPTED(src)                                                                        \
	do {                                                                                 \
		char msg_[512];                                                               \
		ck_assert_msg(check(src, msg_, sizeof msg_) == 0, "refused: %s", msg_);       \
	} while (0)

static const char *NOT_PLAIN = "only plain file names from the lesson's own folder may be included";

START_TEST(test_inc_absolute_path)
{
	char want[512];
	snprintf(want, sizeof want, "k.cl:2: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	REFUSED("// lesson 1\n#include \"/etc/passwd\"\n__kernel void k() {}\n", want);
}
END_TEST

START_TEST(test_inc_system_header)
{
	REFUSED("#include <stdio.h>\n",
	        "k.cl:1: #include <stdio.h> refused: only headers from the lesson's own folder may be "
	        "included");
}
END_TEST

START_TEST(test_inc_macro)
{
	REFUSED("#define F \"/etc/passwd\"\n#include F\n",
	        "k.cl:2: #include F refused: an include must name a file in quotes (no macros)");
}
END_TEST

START_TEST(test_inc_parent_dir)
{
	char want[512];
	snprintf(want, sizeof want, "k.cl:1: #include \"../x.h\" refused: %s", NOT_PLAIN);
	REFUSED("#include \"../x.h\"\n", want);
	snprintf(want, sizeof want, "k.cl:1: #include \"..\" refused: %s", NOT_PLAIN);
	REFUSED("#include \"..\"\n", want);
	snprintf(want, sizeof want, "k.cl:1: #include \"\" refused: %s", NOT_PLAIN);
	REFUSED("#include \"\"\n", want);
}
END_TEST

START_TEST(test_inc_backslash_newline)
{
	char want[512];
	snprintf(want, sizeof want, "k.cl:1: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	REFUSED("#inc\\\nlude \"/etc/passwd\"\n", want);
	REFUSED("#\\\ninclude \\\n\"/etc/passwd\"\n", want);
	/* line numbers after a split line stay those of the file */
	snprintf(want, sizeof want, "k.cl:3: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	REFUSED("#define X 1 \\\n  + 2\n#include \"/etc/passwd\"\n", want);
}
END_TEST

START_TEST(test_inc_spaces)
{
	char want[512];
	snprintf(want, sizeof want, "k.cl:1: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	REFUSED("  #   include   \"/etc/passwd\"\n", want);
	REFUSED("\t#\tinclude\t\"/etc/passwd\"\n", want);
	REFUSED("#include\"/etc/passwd\"\n", want);
	REFUSED("/* a */ # /* b */ include /* c */ \"/etc/passwd\"\n", want);
}
END_TEST

START_TEST(test_inc_other_directives)
{
	char want[512];
	snprintf(want, sizeof want, "k.cl:1: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	REFUSED("#import \"/etc/passwd\"\n", want);
	REFUSED("#include_next \"/etc/passwd\"\n", want);
	REFUSED("#embed \"/etc/passwd\"\n", want);
}
END_TEST

START_TEST(test_inc_in_comments_ignored)
{
	ACCEPTED("/* #include \"/etc/passwd\" */\n__kernel void k() {}\n");
	ACCEPTED("/*\n#include \"/etc/passwd\"\n*/\n");
	ACCEPTED("// #include \"/etc/passwd\"\n");
	ACCEPTED("int x; // see #include <stdio.h>\n");
	/* a // comment ended by a backslash-newline swallows the next line (C, and PoCL, agree) */
	ACCEPTED("// x \\\n#include \"/etc/passwd\"\n__kernel void k() {}\n");
	/* not at the start of a line: not a directive */
	ACCEPTED("constant char s[] = \"#include \\\"/etc/passwd\\\"\";\n");
}
END_TEST

START_TEST(test_inc_line_after_comment)
{
	char want[512];
	snprintf(want, sizeof want, "k.cl:5: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	REFUSED("/* one\n two\n three */\n\n#include \"/etc/passwd\"\n", want);
}
END_TEST

START_TEST(test_inc_plain_name_in_lesson_dir)
{
	ACCEPTED("#include \"tile.h\"\n__kernel void k() {}\n");
	ACCEPTED("  #  include \"tile.h\" // the lesson's header\n");
	ACCEPTED("__kernel void k() {}\n");
	ACCEPTED("");
	REFUSED("#include \"tile.h\"\n#include \"nothere.h\"\n",
	        "k.cl:2: #include \"nothere.h\" refused: no such file in the lesson's folder");
}
END_TEST

START_TEST(test_inc_message_fits)
{
	char msg[16];
	ck_assert_int_eq(diag_check_includes("#include <stdio.h>\n", "kernels/starter/x.cl", lesson_dir,
	                                     msg, sizeof msg), -1);
	ck_assert_uint_eq(strlen(msg), sizeof msg - 1);
	ck_assert_str_eq(msg, "kernels/starter");
}
END_TEST

/* Spellings clang (PoCL) preprocesses as an #include of /etc/passwd: each was refused by none
 * of the checks above before diag.c learned them. */
START_TEST(test_inc_compiler_spellings)
{
	char want1[512], want2[512];
	snprintf(want1, sizeof want1, "k.cl:1: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	snprintf(want2, sizeof want2, "k.cl:2: #include \"/etc/passwd\" refused: %s", NOT_PLAIN);
	/* (?\? in these strings keeps this file's own compiler from reading a trigraph) */
	REFUSED("%:include \"/etc/passwd\"\n", want1);             /* digraph of # */
	REFUSED("?\?=include \"/etc/passwd\"\n", want1);            /* trigraph of # */
	REFUSED("#inc?\?/\nlude \"/etc/passwd\"\n", want1);         /* trigraph backslash splice */
	REFUSED("#inc\\  \nlude \"/etc/passwd\"\n", want1);        /* blanks before the newline */
	REFUSED("#inc\\\r\nlude \"/etc/passwd\"\r\n", want1);      /* CRLF splice */
	REFUSED("__kernel void k(){}\r#include \"/etc/passwd\"\n", want2); /* a lone CR ends a line */
	REFUSED("\f#include \"/etc/passwd\"\n", want1);
	REFUSED("\v#include \"/etc/passwd\"\n", want1);
	REFUSED("#\vinclude \"/etc/passwd\"\n", want1);
	/* a comment opener inside a string literal opens no comment */
	REFUSED("constant char s[] = \"/*\";\n#include \"/etc/passwd\"\n// */\n", want2);
	REFUSED("constant char c = '\"';\n#include \"/etc/passwd\"\n", want2);
}
END_TEST

START_TEST(test_inc_crlf_file_accepted)
{
	ACCEPTED("#include \"tile.h\"\r\n__kernel void k()\r\n{\r\n}\r\n");
	ACCEPTED("#define A(x) \\\r\n  (x)\r\n#include \"tile.h\"\r\n");
}
END_TEST

START_TEST(include_behind_utf8_bom_refused)
{
	char msg[512];
	const char *src = "\xef\xbb\xbf#include \"/etc/passwd\"\n__kernel void k(void) {}\n";
	ck_assert_int_eq(diag_check_includes(src, "k.cl", "/nonexistent", msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "k.cl:1:"));
}
END_TEST

static Suite *diag_suite(void)
{
	Suite *s = suite_create("diag");
	TCase *t = tcase_create("rewrite");
	tcase_add_test(t, include_behind_utf8_bom_refused);
	tcase_add_test(t, test_rewrite_pocl);
	tcase_add_test(t, test_rewrite_clang_nvidia);
	tcase_add_test(t, test_rewrite_warning);
	tcase_add_test(t, test_rewrite_other_file_keeps_name);
	tcase_add_test(t, test_rewrite_error_count);
	tcase_add_test(t, test_rewrite_tab_and_missing_line);
	tcase_add_test(t, test_rewrite_small_buffer);
	tcase_add_test(t, test_first_error);
	tcase_add_test(t, test_first_error_fatal_and_excerpt);
	tcase_add_test(t, test_rewrite_then_first_error);
	suite_add_tcase(s, t);

	t = tcase_create("includes");
	tcase_add_unchecked_fixture(t, make_lesson_dir, remove_lesson_dir);
	tcase_add_test(t, test_inc_absolute_path);
	tcase_add_test(t, test_inc_system_header);
	tcase_add_test(t, test_inc_macro);
	tcase_add_test(t, test_inc_parent_dir);
	tcase_add_test(t, test_inc_backslash_newline);
	tcase_add_test(t, test_inc_spaces);
	tcase_add_test(t, test_inc_other_directives);
	tcase_add_test(t, test_inc_in_comments_ignored);
	tcase_add_test(t, test_inc_line_after_comment);
	tcase_add_test(t, test_inc_plain_name_in_lesson_dir);
	tcase_add_test(t, test_inc_message_fits);
	tcase_add_test(t, test_inc_compiler_spellings);
	tcase_add_test(t, test_inc_crlf_file_accepted);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(diag_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
