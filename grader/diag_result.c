/* diag_result.c — what a wrong result says about its cause, for the correct criterion: the
 * pattern of right and wrong sizes, the wide run's inputs, an output read before it is
 * written (diag.h).  Split from diag.c, which reads the source. */
#include <stdio.h>
#include <string.h>

#include "diag.h"

/* A multiple of TILE in every dimension the kind has (a 1-D size is 1 x n: cols only). */
static int multiple(const kind *k, const diag_size *s, int tile)
{
	return tile > 1 && s->cols % tile == 0 && (k->dims == 1 || s->rows % tile == 0);
}

int diag_sizes(const lesson *l, const diag_size *s, int n, int tile, char *extra, size_t elen,
               char *try_, size_t tlen)
{
	const kind *k = l->kind;
	const diag_size *wrong = NULL, *right = NULL, *right_multiple = NULL;
	int wrong_multiple = 0, square_wrong = 0, square_right = 0, nonsquare_multiple_wrong = 0;
	extra[0] = try_[0] = '\0';
	if (k->sizes_pattern && k->sizes_pattern(s, n, tile, extra, elen, try_, tlen))
		return 1;
	for (int i = 0; i < n; i++) {
		int sq = s[i].rows == s[i].cols, mul = multiple(k, &s[i], tile);
		if (s[i].right) {
			if (!right || (right->rows == 1 && right->cols == 1))
				right = &s[i];
			square_right += sq;
			if (mul && (!right_multiple || (right_multiple->rows == right_multiple->cols && !sq)))
				right_multiple = &s[i];
		} else {
			wrong = wrong ? wrong : &s[i];
			wrong_multiple += mul;
			square_wrong += sq;
			nonsquare_multiple_wrong += mul && !sq;
		}
	}
	if (!wrong)
		return 0;
	if (k->mixup_msg && nonsquare_multiple_wrong && square_right && !square_wrong) {
		snprintf(extra, elen, "%s", k->mixup_msg);
		snprintf(try_, tlen, "%s", k->mixup_try ? k->mixup_try : "");
	} else if (right_multiple && !wrong_multiple) {
		snprintf(extra, elen, " -- right at %s, a multiple of TILE=%d, and wrong only at "
		         "sizes with a partial last work-group: the work-items past the end (the global "
		         "size is rounded up to a multiple of the work-group) %s",
		         KIND_SIZE(k, right_multiple->rows, right_multiple->cols), tile,
		         lesson_say(l, KS_EDGE));
		snprintf(try_, tlen, "%s", lesson_say(l, KS_EDGE_TRY));
	} else if (right && (right->rows > 1 || right->cols > 1)) {
		snprintf(extra, elen, " -- right at %s, so look for a hard-coded size or an "
		         "assumption that the size is a multiple of TILE", KIND_SIZE(k, right->rows,
		         right->cols));
		snprintf(try_, tlen, "%s", lesson_say(l, KS_SIZE_TRY));
	} else {
		return 0;
	}
	return 1;
}

void diag_wide(const lesson *l, int rows, int cols, unsigned long long seed, const char *what,
               char *msg, size_t mlen, char *try_, size_t tlen)
{
	snprintf(msg, mlen, "right at every size on the lesson's inputs, wrong at %s (seed %llu) on "
	         "inputs that need every bit of a float (24-bit mantissas, magnitudes 2^-41 to "
	         "2^-25, signs mixed): %s -- right only for inputs that need few bits: %s",
	         KIND_SIZE(l->kind, rows, cols), seed, what, lesson_say(l, KS_WIDE));
	snprintf(try_, tlen, "%s", lesson_say(l, KS_WIDE_TRY));
}

void diag_reads_output(const char *out_name, size_t n_dep, size_t n, char *buf, size_t len,
                       char *try_, size_t tlen)
{
	snprintf(buf, len, "reads %s before writing it (%s starts as NaN): %zu of %zu elements "
	         "come out NaN, and right when the grader zeroes %s first -- the kernel adds to "
	         "%s (%s[i] += ...) instead of to a private sum", out_name, out_name, n_dep, n,
	         out_name, out_name, out_name);
	snprintf(try_, tlen, "sum into a private variable (float acc = 0.0f;) and write %s once, "
	         "at the end (%s[...] = acc;): the kernel must not read %s, whose old contents are "
	         "not defined", out_name, out_name, out_name);
}
