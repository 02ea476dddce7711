/* esc.c — untrusted text made safe to show (esc.h). */
#include <stdlib.h>
#include <string.h>

#include "esc.h"

/* Where escaped text goes: a bounded buffer (stops at the first unit that does not fit) or a
 * stream. */
typedef struct sink {
	char *buf;
	size_t len, pos;
	int full;
	FILE *f;
} sink;

static void put(sink *k, const char *s, size_t n)
{
	if (k->f) {
		fwrite(s, 1, n, k->f);
		return;
	}
	if (k->full || k->pos + n + 1 > k->len) {
		k->full = 1;       /* a unit is written whole or not at all */
		return;
	}
	memcpy(k->buf + k->pos, s, n);
	k->pos += n;
	k->buf[k->pos] = '\0';
}

static void put_hex(sink *k, unsigned v)
{
	static const char hx[] = "0123456789abcdef";
	char b[4] = { '\\', 'x', hx[(v >> 4) & 15], hx[v & 15] };
	put(k, b, 4);
}

/* The code point of the valid UTF-8 sequence at s (at most left bytes) into *cp; its length,
 * or 0 when the bytes there are not valid UTF-8 (overlong, surrogate, too large, cut short). */
static int utf8_seq(const unsigned char *s, size_t left, unsigned *cp)
{
	unsigned c = s[0], v;
	int n;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;          /* a continuation byte, C0/C1 (overlong), F5..FF */
	if ((size_t)n > left)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Code points shown as \u{NNNN}: direction controls, line/paragraph separators and the other
 * invisible format characters. */
static int shown_as_u(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 ||
	       /* the other format characters (Unicode category Cf): invisible, so an identifier
	        * or a message could hide text in them (soft hyphen, zero-width space and joiners,
	        * word joiner, invisible operators, deprecated format controls, byte-order mark,
	        * interlinear annotations, tags) */
	       cp == 0x00ad || cp == 0x180e || (cp >= 0x200b && cp <= 0x200d) ||
	       (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

static void escape(sink *k, const char *in, size_t n, unsigned flags, const esc_sub *subs)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0;
	while (i < n && !k->full) {
		if (subs) {
			const esc_sub *hit = NULL;
			for (const esc_sub *u = subs; u->from; u++) {
				size_t m = strlen(u->from);
				if (m && m <= n - i && memcmp(in + i, u->from, m) == 0 &&
				    (!hit || m > strlen(hit->from)))
					hit = u;   /* the longest one that matches here */
			}
			if (hit) {
				const char *to = hit->to ? hit->to : hit->from;
				escape(k, to, strlen(to), ESC_LINE, NULL);
				i += strlen(hit->from);
				continue;
			}
		}
		unsigned cp;
		int m = utf8_seq(s + i, n - i, &cp);
		if (m == 0) {
			put_hex(k, s[i]);
			i++;
			continue;
		}
		if (cp == '\n')
			put(k, flags & ESC_KEEP_NL ? "\n" : "\\n", flags & ESC_KEEP_NL ? 1 : 2);
		else if (cp == '\t')
			put(k, flags & ESC_KEEP_TAB ? "\t" : "\\t", flags & ESC_KEEP_TAB ? 1 : 2);
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			put_hex(k, cp);
		else if (shown_as_u(cp)) {
			char b[16];
			int w = snprintf(b, sizeof b, "\\u{%04X}", cp);
			put(k, b, (size_t)w);
		} else
			put(k, in + i, (size_t)m);
		i += (size_t)m;
	}
}

size_t esc_str(char *out, size_t outlen, const char *in, unsigned flags, const esc_sub *subs)
{
	if (!outlen)
		return 0;
	sink k = { out, outlen, 0, 0, NULL };
	out[0] = '\0';
	if (in)
		escape(&k, in, strlen(in), flags, subs);
	return k.pos;
}

void esc_put(FILE *f, const char *in, unsigned flags, const esc_sub *subs)
{
	sink k = { NULL, 0, 0, 0, f };
	if (in && f)
		escape(&k, in, strlen(in), flags, subs);
}

char *esc_dup(const char *in, unsigned flags, const esc_sub *subs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	esc_put(m, in ? in : "", flags, subs);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void esc_cjson(cJSON *j, unsigned flags, const esc_sub *subs)
{
	cJSON *c;
	if (!j)
		return;
	if (cJSON_IsString(j) && j->valuestring) {
		char *clean = esc_dup(j->valuestring, flags, subs);
		if (!clean || (strcmp(clean, j->valuestring) != 0 && !cJSON_SetValuestring(j, clean)))
			j->valuestring[0] = '\0';   /* out of memory: nothing rather than raw text */
		free(clean);
	}
	cJSON_ArrayForEach(c, j)
		esc_cjson(c, flags, subs);
}

int esc_clean(const char *s)
{
	char *e = esc_dup(s, ESC_LINE, NULL);
	int same = e && strcmp(e, s ? s : "") == 0;
	free(e);
	return same;
}
