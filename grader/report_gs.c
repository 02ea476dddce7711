/* report_gs.c — Gradescope's results.json (report_gradescope in report.h): one test per
 * criterion, the verdict and the findings on the student's source as its output, and no path
 * of the grader's machine in anything a student sees. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "html.h"
#include "report.h"

/* The top-level output: the verdict line, then the findings on the student's source that
 * the HTML page shows at their lines (html_findings_text), one line each. */
static void gradescope_output(cJSON *root, const check_report *rep, const char *verdict)
{
	if (rep->exit_code == 2 || !rep->analysis) {
		cJSON_AddStringToObject(root, "output", verdict);
		return;
	}
	cJSON *j = report_json(rep);
	size_t len = strlen(verdict) + 8300;
	char *out = malloc(len), found[8192];
	html_findings_text(j, found, sizeof found);
	if (out)
		snprintf(out, len, "%s%s%s", verdict, found[0] ? "\nFindings on your source:\n" : "",
		         found);
	cJSON_AddStringToObject(root, "output", out ? out : verdict);
	free(out);
	cJSON_Delete(j);
}

cJSON *report_gradescope(const check_report *rep)
{
	cJSON *root = cJSON_CreateObject(), *tests = cJSON_CreateArray();
	/* what a student sees on Gradescope names no file of the grader's machine: the kernel
	 * by its own name, not where the grader keeps it (the submission folder, the batch's
	 * DIR), and a lesson header by lessons/<slug>, not the grader's install path */
	const char *k = rep->opts.kernel && *rep->opts.kernel ? rep->opts.kernel : NULL;
	const char *base = k && strrchr(k, '/') ? strrchr(k, '/') + 1 : k;
	char dir[4200], real[PATH_MAX], shown[200];
	lesson_path(rep->opts.l, "dir", dir, sizeof dir);
	snprintf(shown, sizeof shown, "lessons/%s", rep->opts.l->slug);
	char kline[1200];   /* the path as the build log writes it (diag.c: one line) */
	esc_str(kline, sizeof kline, k, ESC_LINE, NULL);
	esc_sub subs[5] = { { dir, shown } };
	int n = 1;
	if (realpath(dir, real))
		subs[n++] = (esc_sub){ real, shown };
	if (k)
		subs[n++] = (esc_sub){ k, base };
	if (k && strcmp(kline, k) != 0)
		subs[n++] = (esc_sub){ kline, base };
	subs[n] = (esc_sub){ NULL, NULL };
	int score;
	report_score(rep, &score);   /* the tests' max_score add up to the maximum: Gradescope's
	                                format has no max_score at the top */
	cJSON_AddNumberToObject(root, "score", score);
	/* each message is one line (esc.h), so only the grader's own "\nTry: " breaks a line */
	char out[1400], a[1200], b[600];
	if (rep->exit_code == 2)
		snprintf(out, sizeof out, "the grader could not run: %s",
		         (esc_str(a, sizeof a, rep->grader_error, ESC_LINE, subs), a));
	else
		snprintf(out, sizeof out, "lesson %s: %s%s%s", rep->opts.l->slug,
		         rep->verdict_pass ? "pass" : "fail", rep->analysis_note[0] ? ". Note: " : "",
		         (esc_str(a, sizeof a, rep->analysis_note, ESC_LINE, subs), a));
	gradescope_output(root, rep, out);
	for (int i = 0; i < rep->ncrit; i++) {
		const check_crit *c = &rep->crit[i];
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", lesson_crit_id(c->id));
		cJSON_AddNumberToObject(t, "score", c->status == CRIT_PASS);
		cJSON_AddNumberToObject(t, "max_score", c->env ? 0 : 1);
		if (c->status != CRIT_NOT_CHECKED)  /* "not checked" is neither: score alone tells */
			cJSON_AddStringToObject(t, "status", c->status == CRIT_PASS ? "passed" : "failed");
		esc_str(a, sizeof a, c->msg, ESC_LINE, subs);
		esc_str(b, sizeof b, c->status == CRIT_FAIL ? c->try_ : "", ESC_LINE, subs);
		snprintf(out, sizeof out, "%s%s%s", a, b[0] ? "\nTry: " : "", b);
		cJSON_AddStringToObject(t, "output", out);
		cJSON_AddItemToArray(tests, t);
	}
	cJSON_AddItemToObject(root, "tests", tests);
	esc_cjson(root, ESC_TEXT, subs);   /* valid UTF-8, no control character anywhere */
	return root;
}

