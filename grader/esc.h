/* esc.h — untrusted text made safe to show on a terminal, in a text file, a CSV cell or a
 * JSON string that a person (or Gradescope's page) will read.
 *
 * Untrusted text is anything of kernel, file-name or child origin: a kernel's file name, the
 * compiler's log, device strings and every other string copied from a sandboxed child's page
 * (check_child in check.h), the tracer's variable names, messages that quote any of these.
 * The renderers (report_text.c, report_json.c, report_gs.c, batch_class.c, main.c) pass such strings through this module at their
 * point of output; the grader's own text (its colours included) never goes through it.
 *
 * What comes out:
 *   - C0 controls (U+0000..U+001F: ESC, BEL, CR, backspace, ...), DEL and the C1 controls
 *     (U+0080..U+009F, as two-byte UTF-8 C2 80..C2 9F) as `\xNN` (the code point);
 *     a newline as `\n` and a tab as `\t`, unless the flags keep them;
 *   - every byte that is not part of valid UTF-8 (a stray continuation byte, a lone 8-bit C1
 *     such as 0x9b, an overlong form such as C0 9B, a surrogate, beyond U+10FFFF, a sequence
 *     cut short) as `\xNN`: nothing a terminal could take as a control reaches it;
 *   - the Unicode direction controls (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069,
 *     U+061C) and the line and paragraph separators U+2028, U+2029 as `\u{NNNN}`, so text
 *     cannot be reordered or broken into lines that look like the grader's;
 *   - everything else (printable ASCII, valid UTF-8) as it is.
 * The output is always valid UTF-8 with no control character but the newlines and tabs the
 * flags keep.  Truncation (esc_str) never cuts an escape or a UTF-8 sequence in two.
 *
 * Substitutions (esc_sub): occurrences of a known string in the input (the kernel's path
 * inside a build log) are written as another (its name as the student knows it), and always
 * as one line, whatever the flags: a file name with a newline quoted inside multi-line text
 * cannot forge a line there. */
#ifndef ESC_H
#define ESC_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

enum {
	ESC_LINE = 0,          /* one-line field: newline and tab escaped too */
	ESC_KEEP_NL = 1,       /* multi-line text: newlines kept */
	ESC_KEEP_TAB = 2,      /* tabs kept */
	ESC_TEXT = ESC_KEEP_NL | ESC_KEEP_TAB,
};

/* One substitution: each occurrence of from (non-empty) is written as to (NULL: from itself),
 * escaped as one line.  A list ends with { NULL, NULL }; a NULL list is none. */
typedef struct esc_sub {
	const char *from, *to;
} esc_sub;

/* The escaped form of in (NULL: "") into out (outlen > 0; always terminated).  Returns the
 * length written; when it did not fit, the output stops at the last whole unit that did. */
size_t esc_str(char *out, size_t outlen, const char *in, unsigned flags, const esc_sub *subs);

/* Write the escaped form of in (NULL: nothing) to f, however long. */
void esc_put(FILE *f, const char *in, unsigned flags, const esc_sub *subs);

/* The escaped form in a new string (caller frees); NULL when out of memory. */
char *esc_dup(const char *in, unsigned flags, const esc_sub *subs);

/* Every string value of j, recursively, replaced by its escaped form (object keys, which
 * are the grader's own, are left as they are). */
void esc_cjson(cJSON *j, unsigned flags, const esc_sub *subs);

/* Does s need no escaping as a one-line field (printable ASCII or valid, harmless UTF-8)? */
int esc_clean(const char *s);

#endif
