/* hint.c — parse a lesson's hints file, lessons/NN-slug/hints.md (hint.h).  The hints live
 * apart from the README so that reading the lesson never shows them: `make hint` reveals one
 * at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hint.h"

void hint_path(const lesson *l, char *buf, size_t len)
{
	char dir[4096];
	lesson_path(l, "dir", dir, sizeof dir);
	snprintf(buf, len, "%s/hints.md", dir);
}

/* Walk the hints; call back with (index, tag, text).  Returns the count. */
static int scan(const lesson *l, int want, char *buf, size_t len, char *tag, size_t taglen,
                const char *want_tag)
{
	char path[4200], line[2048];
	hint_path(l, path, sizeof path);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int in = 0, n = 0, cur = -1, match = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "## ", 3) == 0) {
			in = strncmp(line, "## Hints", 8) == 0;
			continue;
		}
		if (!in)
			continue;
		char *p = line;
		if (strncmp(p, "- [", 3) == 0 && strchr(p, ']')) {
			cur = n++;
			char *end = strchr(p, ']');
			char t[64];
			snprintf(t, sizeof t, "%.*s", (int)(end - p - 3), p + 3);
			match = want_tag ? strcmp(t, want_tag) == 0 && !buf[0] : cur == want;
			if (match) {
				if (tag)
					snprintf(tag, taglen, "%s", t);
				p = end + 1;
				while (*p == ' ')
					p++;
				snprintf(buf, len, "%s", p);
			}
		} else if (match && (line[0] == ' ' || line[0] == '\t') && line[strspn(line, " \t")] != '\n') {
			size_t k = strlen(buf);
			if (k && buf[k - 1] == '\n')
				buf[k - 1] = ' ';
			snprintf(buf + k, len - k, "%s", line + strspn(line, " \t"));
		} else if (line[0] != ' ' && line[0] != '\t') {
			match = 0;
		}
	}
	fclose(f);
	size_t k = buf ? strlen(buf) : 0;
	while (k && (buf[k - 1] == '\n' || buf[k - 1] == ' '))
		buf[--k] = '\0';
	return n;
}

int hint_count(const lesson *l)
{
	char b[1] = "";
	return scan(l, -1, b, 1, NULL, 0, NULL);
}

int hint_get(const lesson *l, int i, char *buf, size_t len, char *tag, size_t taglen)
{
	buf[0] = '\0';
	scan(l, i, buf, len, tag, taglen, NULL);
	return buf[0] ? 0 : -1;
}

int hint_for(const lesson *l, const char *crit_id, char *buf, size_t len)
{
	buf[0] = '\0';
	scan(l, -1, buf, len, NULL, 0, crit_id);
	return buf[0] ? 0 : -1;
}

/* Index of the first hint tagged crit_id, or -1. */
static int index_for(const lesson *l, const char *crit_id, int n)
{
	char text[4096], tag[64];
	for (int i = 0; crit_id && i < n; i++)
		if (hint_get(l, i, text, sizeof text, tag, sizeof tag) == 0 && strcmp(tag, crit_id) == 0)
			return i;
	return -1;
}

/* build/hints/<slug><suffix>: the folder made when missing. */
static void state_path(const lesson *l, const char *suffix, char *buf, size_t len)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/build/hints", lesson_root());
	mkdir(dir, 0755);
	snprintf(buf, len, "%s/%s%s", dir, l->slug, suffix);
}

void hint_reported(const lesson *l, const char *crit_id)
{
	char path[4200], text[4096];
	state_path(l, ".reported", path, sizeof path);
	if (!crit_id || hint_for(l, crit_id, text, sizeof text) != 0) {
		unlink(path);
		return;
	}
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", crit_id);
		fclose(f);
	}
}

/* The criterion whose hint the last report printed (hint_reported), into buf; NULL: none. */
static const char *reported(const lesson *l, char *buf, size_t len)
{
	char path[4200], fmt[16];
	state_path(l, ".reported", path, sizeof path);
	FILE *f = fopen(path, "r");
	snprintf(fmt, sizeof fmt, "%%%zus", len - 1);
	int n = f ? fscanf(f, fmt, buf) : 0;
	if (f)
		fclose(f);
	return n == 1 ? buf : NULL;
}

int hint_next(const lesson *l)
{
	int n = hint_count(l);
	if (n == 0) {
		fprintf(stderr, "lesson %s has no hints\n", l->slug);
		return 2;
	}
	char path[4200], text[4096], tag[64], crit[64];
	state_path(l, "", path, sizeof path);
	int shown = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &shown) != 1)
			shown = 0;
		fclose(f);
	}
	int i = shown % n;
	if (n > 1 && i == index_for(l, reported(l, crit, sizeof crit), n))
		i = (i + 1) % n;      /* the report printed that one already: the next */
	hint_get(l, i, text, sizeof text, tag, sizeof tag);
	printf("hint %d of %d (%s, about %s):\n", i + 1, n, l->slug, tag);
	hint_print_wrapped(stdout, text, 2);
	if (i + 1 == n)
		printf("(that was the last hint; the next `make hint` starts again from the first)\n");
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", i + 1);
		fclose(f);
	}
	return 0;
}

/* Terminal width: the terminal's, else $COLUMNS, else 100 (never under 60). */
static int width(FILE *f)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60)
		return ws.ws_col;
	if (cols && atoi(cols) >= 60)
		return atoi(cols);
	return 100;
}

void hint_print_wrapped(FILE *f, const char *text, int indent)
{
	int room = width(f) - indent;
	while (*text) {
		int n = (int)strlen(text), cut = n, ticks = 0, last = -1;
		if (n > room) {          /* the last blank within room that is outside a `code span` */
			for (int k = 0; k < n && (k <= room || last < 0); k++) {
				if (text[k] == '`')
					ticks++;
				else if (text[k] == ' ' && ticks % 2 == 0)
					last = k;
			}
			cut = last > 0 ? last : n;
		}
		fprintf(f, "%*s%.*s\n", indent, "", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}
