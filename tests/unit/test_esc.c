/* test_esc.c — Check unit tests for grader/esc.c: untrusted text made safe to show.
 *
 * Every class of control character (C0, DEL, C1 as UTF-8, ESC), invalid UTF-8 of every kind,
 * direction controls, newlines and tabs in one-line and multi-line fields, substitutions
 * (a file name quoted inside a log), truncation that never cuts a unit, and the JSON pass. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"

/* The escaped form of in under flags (static buffer). */
static const char *E(const char *in, unsigned flags)
{
	static char buf[4096];
	esc_str(buf, sizeof buf, in, flags, NULL);
	return buf;
}

/* No byte of s is a control character (but the newlines/tabs allowed) and s is valid UTF-8. */
static int safe(const char *s, int nl, int tab)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++) {
		if ((*p < 0x20 && !(nl && *p == '\n') && !(tab && *p == '\t')) || *p == 0x7f)
			return 0;
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return 0;
	}
	return esc_clean(s) || nl || tab;
}

START_TEST(test_plain_unchanged)
{
	ck_assert_str_eq(E("hello, world: 3 < 4 \"quoted\" `code` \\ back", ESC_LINE),
	                 "hello, world: 3 < 4 \"quoted\" `code` \\ back");
	ck_assert_str_eq(E("ünïcødé ✓ ✗ 漢字 😀", ESC_LINE), "ünïcødé ✓ ✗ 漢字 😀");
	ck_assert_str_eq(E("", ESC_LINE), "");
	ck_assert_str_eq(E(NULL, ESC_LINE), "");
	ck_assert(esc_clean("plain text ✓"));
	ck_assert(!esc_clean("a\x1b[31m"));
}
END_TEST

START_TEST(test_every_c0_and_del)
{
	for (int c = 1; c < 0x20; c++) {
		char in[4] = { 'a', (char)c, 'b', 0 }, want[16];
		if (c == '\n')
			snprintf(want, sizeof want, "a\\nb");
		else if (c == '\t')
			snprintf(want, sizeof want, "a\\tb");
		else
			snprintf(want, sizeof want, "a\\x%02xb", c);
		ck_assert_msg(strcmp(E(in, ESC_LINE), want) == 0, "C0 0x%02x: got %s", c, E(in, ESC_LINE));
		/* multi-line text keeps newline and tab only */
		if (c != '\n' && c != '\t')
			ck_assert_str_eq(E(in, ESC_TEXT), want);
	}
	ck_assert_str_eq(E("a\x7f" "b", ESC_TEXT), "a\\x7fb");
	ck_assert_str_eq(E("\r", ESC_TEXT), "\\x0d");
}
END_TEST

START_TEST(test_escape_sequences)
{
	/* CSI colour, OSC 0 window title, OSC 52 clipboard, clear screen, cursor home */
	ck_assert_str_eq(E("\x1b[31mred\x1b[0m", ESC_LINE), "\\x1b[31mred\\x1b[0m");
	ck_assert_str_eq(E("\x1b]0;pwn\x07", ESC_LINE), "\\x1b]0;pwn\\x07");
	ck_assert_str_eq(E("\x1b]52;c;ZXZpbA==\x1b\\", ESC_LINE), "\\x1b]52;c;ZXZpbA==\\x1b\\");
	ck_assert_str_eq(E("\x1b[H\x1b[2J", ESC_TEXT), "\\x1b[H\\x1b[2J");
	ck_assert_ptr_null(strchr(E("\x1b\x1b\x1b", ESC_TEXT), 0x1b));
}
END_TEST

START_TEST(test_c1_in_utf8)
{
	/* U+0080..U+009F as UTF-8 (C2 80..C2 9F): CSI is U+009B, OSC U+009D, ST U+009C */
	for (int c = 0x80; c <= 0x9f; c++) {
		char in[4] = { (char)0xc2, (char)c, 0 }, want[8];
		snprintf(want, sizeof want, "\\x%02x", c);
		ck_assert_str_eq(E(in, ESC_TEXT), want);
	}
	/* U+00A0 and above are text */
	ck_assert_str_eq(E("\xc2\xa0\xc2\xbf", ESC_LINE), "\xc2\xa0\xc2\xbf");
}
END_TEST

START_TEST(test_invalid_utf8)
{
	ck_assert_str_eq(E("\x9b" "31m", ESC_LINE), "\\x9b31m");          /* 8-bit CSI, alone */
	ck_assert_str_eq(E("caf\xe9", ESC_LINE), "caf\\xe9");             /* Latin-1 é */
	ck_assert_str_eq(E("\xc0\x9b", ESC_LINE), "\\xc0\\x9b");           /* overlong ESC-ish */
	ck_assert_str_eq(E("\xc1\xbf", ESC_LINE), "\\xc1\\xbf");           /* overlong */
	ck_assert_str_eq(E("\xe0\x80\x9b", ESC_LINE), "\\xe0\\x80\\x9b");   /* overlong 3-byte */
	ck_assert_str_eq(E("\xf0\x80\x80\x9b", ESC_LINE), "\\xf0\\x80\\x80\\x9b");
	ck_assert_str_eq(E("\xed\xa0\x80", ESC_LINE), "\\xed\\xa0\\x80");   /* surrogate D800 */
	ck_assert_str_eq(E("\xf4\x90\x80\x80", ESC_LINE), "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	ck_assert_str_eq(E("\xf5\xff\xfe", ESC_LINE), "\\xf5\\xff\\xfe");
	ck_assert_str_eq(E("\xe2\x82", ESC_LINE), "\\xe2\\x82");           /* cut short */
	ck_assert_str_eq(E("\xe2\x82" "A", ESC_LINE), "\\xe2\\x82A");
	ck_assert_str_eq(E("\x80\xbf", ESC_LINE), "\\x80\\xbf");           /* lone continuations */
	ck_assert_str_eq(E("\xe2\x82\xac", ESC_LINE), "€");                 /* valid stays */
}
END_TEST

START_TEST(test_direction_and_separators)
{
	ck_assert_str_eq(E("a\xe2\x80\xae" "b", ESC_LINE), "a\\u{202E}b");   /* RLO */
	ck_assert_str_eq(E("\xe2\x81\xa6\xe2\x81\xa9", ESC_LINE), "\\u{2066}\\u{2069}");
	ck_assert_str_eq(E("\xe2\x80\x8e\xe2\x80\x8f", ESC_LINE), "\\u{200E}\\u{200F}");
	ck_assert_str_eq(E("\xd8\x9c", ESC_LINE), "\\u{061C}");
	ck_assert_str_eq(E("x\xe2\x80\xa8y\xe2\x80\xa9", ESC_TEXT), "x\\u{2028}y\\u{2029}");
	/* invisible format characters in an identifier (attack review): word joiner, zero-width
	 * space, a deprecated format control, the byte-order mark, soft hyphen, a tag */
	ck_assert_str_eq(E("a\xe2\x81\xa0" "b", ESC_LINE), "a\\u{2060}b");
	ck_assert_str_eq(E("\xe2\x80\x8b\xe2\x81\xae", ESC_LINE), "\\u{200B}\\u{206E}");
	ck_assert_str_eq(E("\xef\xbb\xbf\xc2\xad", ESC_LINE), "\\u{FEFF}\\u{00AD}");
	ck_assert_str_eq(E("\xf3\xa0\x80\x81", ESC_LINE), "\\u{E0001}");
	ck_assert_str_eq(E("\xc3\xa9\xe2\x82\xac", ESC_LINE), "\xc3\xa9\xe2\x82\xac");   /* kept */
}
END_TEST

START_TEST(test_newlines_per_field)
{
	ck_assert_str_eq(E("evil\nverdict: PASS", ESC_LINE), "evil\\nverdict: PASS");
	ck_assert_str_eq(E("line 1\nline 2\n", ESC_TEXT), "line 1\nline 2\n");
	ck_assert_str_eq(E("a\tb", ESC_KEEP_TAB), "a\tb");
	ck_assert_str_eq(E("a\tb\nc", ESC_KEEP_TAB), "a\tb\\nc");
}
END_TEST

START_TEST(test_substitution_is_one_line)
{
	const char *path = "/subs/evil\n\x1b]0;pwn\x07verdict: PASS.cl";
	char log[512], out[1024];
	snprintf(log, sizeof log, "%s:10:43: error: boom\n  x = 1;\n%s:11:1: note: here\n", path, path);
	esc_sub same[] = { { path, NULL }, { NULL, NULL } };
	esc_str(out, sizeof out, log, ESC_TEXT, same);
	ck_assert_str_eq(out, "/subs/evil\\n\\x1b]0;pwn\\x07verdict: PASS.cl:10:43: error: boom\n"
	                      "  x = 1;\n/subs/evil\\n\\x1b]0;pwn\\x07verdict: PASS.cl:11:1: note: here\n");
	esc_sub renamed[] = { { "/home/prof/lessons/03-x", "lessons/03-x" }, { path, "evil\nk.cl" },
	                      { NULL, NULL } };
	esc_str(out, sizeof out, "/home/prof/lessons/03-x/README.md:1:3: error; in /subs/evil\n"
	        "\x1b]0;pwn\x07verdict: PASS.cl", ESC_TEXT, renamed);
	ck_assert_str_eq(out, "lessons/03-x/README.md:1:3: error; in evil\\nk.cl");
	/* the longest match wins; an empty from never matches */
	esc_sub nested[] = { { "/a", "A" }, { "/a/b", "B" }, { "", "X" }, { NULL, NULL } };
	esc_str(out, sizeof out, "/a/b/c /a/c", ESC_LINE, nested);
	ck_assert_str_eq(out, "B/c A/c");
}
END_TEST

START_TEST(test_truncation_never_cuts_a_unit)
{
	/* a long input of escapes, multi-byte characters and plain bytes: every prefix length */
	char in[3000];
	size_t k = 0;
	while (k + 8 < sizeof in) {
		memcpy(in + k, "\x1b" "é\xc2\x9b" "a\xe2\x80\xae", 9 > sizeof in - k - 1 ? 0 : 9);
		k += 9;
		if (k + 9 >= sizeof in)
			break;
	}
	in[k] = '\0';
	char full[20000];
	size_t n = esc_str(full, sizeof full, in, ESC_LINE, NULL);
	ck_assert_uint_eq(n, strlen(full));
	ck_assert(esc_clean(full));
	for (size_t len = 1; len < 200; len++) {
		char out[200];
		size_t m = esc_str(out, len, in, ESC_LINE, NULL);
		ck_assert_uint_lt(m, len);
		ck_assert_uint_eq(m, strlen(out));
		ck_assert(strncmp(out, full, m) == 0);   /* a prefix of the whole ... */
		ck_assert(esc_clean(out));               /* ... that is itself whole units */
		ck_assert(safe(out, 0, 0));
	}
	char one[1] = { 'x' };
	ck_assert_uint_eq(esc_str(one, 1, "\x1b", ESC_LINE, NULL), 0);
	ck_assert_str_eq(one, "");
	/* a megabyte of hostile bytes through esc_dup: whole, safe */
	size_t big = 1 << 20;
	char *b = malloc(big + 1);
	for (size_t i = 0; i < big; i++)
		b[i] = (char)(i * 131 % 255 + 1);
	b[big] = '\0';
	char *e = esc_dup(b, ESC_LINE, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert(safe(e, 0, 0));
	ck_assert(esc_clean(e));
	free(e);
	free(b);
}
END_TEST

START_TEST(test_idempotent)
{
	const char *in = "a\x1b[2J\n\xc2\x9b\xff\xe2\x80\xae\tz";
	char once[256], twice[256];
	esc_str(once, sizeof once, in, ESC_TEXT, NULL);
	esc_str(twice, sizeof twice, once, ESC_TEXT, NULL);
	ck_assert_str_eq(once, twice);
	esc_str(once, sizeof once, in, ESC_LINE, NULL);
	esc_str(twice, sizeof twice, once, ESC_LINE, NULL);
	ck_assert_str_eq(once, twice);
}
END_TEST

START_TEST(test_put_and_json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	esc_put(m, "x\x1b]0;t\x07y\n", ESC_LINE, NULL);
	esc_put(m, NULL, ESC_LINE, NULL);
	fclose(m);
	ck_assert_str_eq(buf, "x\\x1b]0;t\\x07y\\n");
	free(buf);

	cJSON *j = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(j, "list");
	cJSON_AddStringToObject(j, "name", "evil\n\x1b]0;pwn\x07verdict: PASS.cl");
	cJSON_AddStringToObject(j, "log", "one\ntwo\xff\x1b[2J");
	cJSON_AddItemToArray(a, cJSON_CreateString("\xc2\x9b" "deep"));
	cJSON_AddNumberToObject(j, "n", 3);
	esc_cjson(j, ESC_TEXT, NULL);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "log")), "one\ntwo\\xff\\x1b[2J");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(a, 0)), "\\x9bdeep");
	esc_cjson(j, ESC_LINE, NULL);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "name")),
	                 "evil\\n\\x1b]0;pwn\\x07verdict: PASS.cl");
	char *txt = cJSON_PrintUnformatted(j);
	ck_assert_ptr_null(strchr(txt, 0x1b));
	ck_assert_ptr_null(strchr(txt, '\n'));
	free(txt);
	cJSON_Delete(j);
	esc_cjson(NULL, ESC_LINE, NULL);
}
END_TEST

static Suite *esc_suite(void)
{
	Suite *s = suite_create("esc");
	TCase *t = tcase_create("classes");
	tcase_add_test(t, test_plain_unchanged);
	tcase_add_test(t, test_every_c0_and_del);
	tcase_add_test(t, test_escape_sequences);
	tcase_add_test(t, test_c1_in_utf8);
	tcase_add_test(t, test_invalid_utf8);
	tcase_add_test(t, test_direction_and_separators);
	tcase_add_test(t, test_newlines_per_field);
	suite_add_tcase(s, t);
	t = tcase_create("use");
	tcase_add_test(t, test_substitution_is_one_line);
	tcase_add_test(t, test_truncation_never_cuts_a_unit);
	tcase_add_test(t, test_idempotent);
	tcase_add_test(t, test_put_and_json);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(esc_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
