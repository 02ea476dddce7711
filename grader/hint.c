/* hint.c — parse a lesson README's "## Hints" list (hint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hint.h"

/* Walk the hints; call back with (index, tag, text).  Returns the count. */
static int scan(const lesson *l, int want, char *buf, size_t len, char *tag, size_t taglen,
                const char *want_tag)
{
	char path[4096], line[2048];
	lesson_path(l, "readme", path, sizeof path);
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

int hint_next(const lesson *l)
{
	int n = hint_count(l);
	if (n == 0) {
		fprintf(stderr, "lesson %s has no hints\n", l->slug);
		return 2;
	}
	char dir[4096], path[4200], text[4096], tag[64];
	snprintf(dir, sizeof dir, "%s/build/hints", lesson_root());
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/%s", dir, l->slug);
	int shown = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &shown) != 1)
			shown = 0;
		fclose(f);
	}
	int i = shown % n;
	hint_get(l, i, text, sizeof text, tag, sizeof tag);
	printf("hint %d of %d (%s, about %s):\n  %s\n", i + 1, n, l->slug, tag, text);
	if (i + 1 == n)
		printf("(that was the last hint; the next `make hint` starts again from the first)\n");
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", i + 1);
		fclose(f);
	}
	return 0;
}
