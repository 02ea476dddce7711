/* trace_skip.c — why some work-items skip a barrier, and which if guards an access: the
 * student's source scanned for the innermost if around a barrier call (or an early return
 * before it), so that a finding of divergent barriers can name the condition, and for the
 * innermost if around any line, so that an access running past its buffer under a guard is
 * blamed on its index.  Text only, no Oclgrind (see trace.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static void
oom(void)
{
	fprintf(stderr, "cltrace: out of memory\n");
	abort();
}

/* The source with comments and string literals blanked (newlines kept); the caller frees. */
static char *
code_only(const char *src)
{
	size_t n = strlen(src);
	char *s = malloc(n + 1);
	if (s == NULL)
		oom();
	memcpy(s, src, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				s[i++] = ' ';
		} else if (s[i] == '/' && s[i + 1] == '*') {
			s[i++] = ' ';
			s[i++] = ' ';
			while (i < n && !(s[i] == '*' && s[i + 1] == '/'))
				if (s[i] != '\n')
					s[i++] = ' ';
				else
					i++;
			if (i < n)
				s[i] = s[i + 1] = ' ', i++;
		} else if (s[i] == '"' || s[i] == '\'') {
			char q = s[i];
			for (i++; i < n && s[i] != q && s[i] != '\n'; i++)
				s[i] = ' ';
		}
	}
	return s;
}

static int
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Is the identifier word at s[i]? */
static int
word_at(const char *s, size_t i, const char *word)
{
	size_t n = strlen(word);
	return (i == 0 || !ident_char(s[i - 1])) && strncmp(s + i, word, n) == 0 && !ident_char(s[i + n]);
}

static int
line_of(const char *s, size_t i)
{
	int line = 1;
	for (size_t k = 0; k < i; k++)
		line += s[k] == '\n';
	return line;
}

/* The condition in the parentheses that open at s[i] ('('), whitespace collapsed, into out;
 * one longer than out ends in " ..." so that a quote of it shows the cut.  Returns the index
 * after the closing ')'. */
static size_t
paren_text(const char *s, size_t i, char *out, size_t len)
{
	int depth = 0, cut = 0;
	size_t k = 0, start = i;
	for (; s[i]; i++) {
		depth += s[i] == '(';
		depth -= s[i] == ')';
		if (i > start && depth == 0)
			break;
		if (i == start)
			continue;
		char c = s[i] == '\n' || s[i] == '\t' ? ' ' : s[i];
		if (c == ' ' && (k == 0 || out[k - 1] == ' '))
			continue;
		if (k + 1 < len)
			out[k++] = c;
		else
			cut = 1;
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	if (cut && len > 8) {
		for (k = len - 5; k > 0 && out[k - 1] == ' '; k--)
			;
		memcpy(out + k, " ...", 4), k += 4;
	}
	if (len)
		out[k] = '\0';
	return s[i] ? i + 1 : i;
}

/* End (exclusive) of the statement that starts at s[i]: a block, or up to its ';'. */
static size_t
statement_end(const char *s, size_t i)
{
	while (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')
		i++;
	int paren = 0, brace = 0;
	for (; s[i]; i++) {
		paren += (s[i] == '(') - (s[i] == ')');
		if (s[i] == '{')
			brace++;
		if (s[i] == '}' && --brace == 0 && paren == 0)
			return i + 1;
		if (s[i] == ';' && paren == 0 && brace == 0)
			return i + 1;
	}
	return i;
}

/* Does s[from, to) hold the word, at line `line` when line > 0?  Returns its index + 1, or 0. */
static size_t
word_in(const char *s, size_t from, size_t to, const char *word, int line)
{
	for (size_t i = from; i < to; i++)
		if (word_at(s, i, word) && (line <= 0 || line_of(s, i) == line))
			return i + 1;
	return 0;
}

static int
barrier_call_in(const char *s, size_t from, size_t to, int line)
{
	return word_in(s, from, to, "barrier", line) || word_in(s, from, to, "work_group_barrier", line);
}

int
trace_skip_condition(const char *source, int barrier_line, char *cond, size_t len, int *cond_line)
{
	enum { MAXIF = 256 };
	struct { size_t end; char cond[160]; } ifs[MAXIF];
	int nifs = 0, found = 0, ret_line = 0;
	size_t inner = 0;
	char c[160], ret_cond[160] = "";
	char *s = code_only(source);

	cond[0] = '\0';
	*cond_line = 0;
	for (size_t i = 0; s[i]; i++) {
		int is_else = word_at(s, i, "else");
		if (!is_else && !word_at(s, i, "if"))
			continue;
		size_t j = i + (is_else ? 4 : 2);
		while (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r')
			j++;
		if (is_else && word_at(s, j, "if"))
			continue;                   /* "else if": its if comes next */
		if (is_else) {                  /* the negation of the if that ended last */
			int last = -1;
			for (int k = 0; k < nifs; k++)
				if (ifs[k].end <= i && (last < 0 || ifs[k].end > ifs[last].end))
					last = k;
			snprintf(c, sizeof c, "!(%s)", last >= 0 ? ifs[last].cond : "?");
		} else if (s[j] == '(') {
			j = paren_text(s, j, c, sizeof c);
		} else {
			continue;
		}
		size_t end = statement_end(s, j);
		if (!is_else && nifs < MAXIF) {
			ifs[nifs].end = end;
			snprintf(ifs[nifs].cond, sizeof ifs[nifs].cond, "%s", c);
			nifs++;
		}
		if (barrier_call_in(s, j, end, barrier_line)) {
			if (!found || i > inner) {      /* the innermost if around the barrier */
				snprintf(cond, len, "%s", c);
				*cond_line = line_of(s, i);
				inner = i;
				found = 1;
			}
			continue;
		}
		size_t r = word_in(s, j, end, "return", 0);
		if (r && line_of(s, r - 1) < barrier_line && line_of(s, r - 1) >= ret_line) {
			ret_line = line_of(s, r - 1);
			snprintf(ret_cond, sizeof ret_cond, "%s", c);
		}
	}
	free(s);
	if (found)
		return 1;
	if (ret_line) {
		snprintf(cond, len, "%s", ret_cond);
		*cond_line = ret_line;
		return 2;
	}
	return 0;
}

/* Does s[from, to) hold code (anything but blanks and braces) on line `line`? */
static int
code_on_line(const char *s, size_t from, size_t to, int line)
{
	int l = line_of(s, from);
	for (size_t i = from; i < to && l <= line; i++) {
		if (s[i] == '\n')
			l++;
		else if (l == line && !strchr(" \t\r{}", s[i]))
			return 1;
	}
	return 0;
}

int
trace_guard_condition(const char *source, int line, char *cond, size_t len, int *cond_line)
{
	char c[160];
	size_t inner = 0;
	int found = 0;
	char *s = code_only(source);

	cond[0] = '\0';
	*cond_line = 0;
	for (size_t i = 0; s[i]; i++) {
		if (!word_at(s, i, "if"))
			continue;
		size_t j = i + 2;
		while (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r')
			j++;
		if (s[j] != '(')
			continue;
		j = paren_text(s, j, c, sizeof c);
		size_t end = statement_end(s, j);
		if (code_on_line(s, j, end, line) && (!found || i > inner)) {
			snprintf(cond, len, "%s", c);
			*cond_line = line_of(s, i);
			inner = i;
			found = 1;
		}
	}
	free(s);
	return found;
}
