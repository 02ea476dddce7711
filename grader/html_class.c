/* html_class.c — a batch's index.html (html.h): the class at a glance for the instructor,
 * drawn from the class summary (classsum.h, also written as class.json); it opens from the
 * file system and links each student's own page beside it. */
#include <string.h>
#include <unistd.h>

#include "html.h"
#include "report.h"

static void histogram(FILE *f, const cJSON *s)
{
	const cJSON *h = cJSON_GetObjectItem(s, "histogram"), *b;
	int n = cJSON_GetArraySize(h) + 1, most = (int)html_num(s, "errors"), x = 40;
	cJSON_ArrayForEach(b, h)
		most = (int)html_num(b, "count") > most ? (int)html_num(b, "count") : most;
	most = most > 0 ? most : 1;
	int w = 40 + n * 50, ht = 170;
	html_printf(f, "<figure><svg class=\"histogram\" role=\"img\" width=\"%d\" height=\"%d\" "
	            "viewBox=\"0 0 %d %d\"><title>scores of the class</title><desc>one bar per score, "
	            "and one for the entries that could not be graded; the bars add up to the %d "
	            "entries</desc>\n", w, ht, w, ht, (int)html_num(s, "students"));
	for (int i = 0; i < n; i++, x += 50) {
		const cJSON *bin = cJSON_GetArrayItem(h, i);
		int count = bin ? (int)html_num(bin, "count") : (int)html_num(s, "errors");
		int bh = 120 * count / most;
		char label[32];
		snprintf(label, sizeof label, bin ? "%d" : "error", (int)html_num(bin, "score"));
		html_printf(f, "<g class=\"bin\" data-count=\"%d\" data-score=\"%s\"><rect x=\"%d\" "
		            "y=\"%d\" width=\"40\" height=\"%d\" fill=\"%s\"><title>%s: %d</title></rect>"
		            "<text x=\"%d\" y=\"%d\">%d</text><text x=\"%d\" y=\"%d\">%s</text></g>\n",
		            count, label, x, 140 - bh, bh, bin ? "#0072B2" : "#D55E00", label, count,
		            x + 14, 136 - bh, count, x + 8, 156, label);
	}
	fputs("<text x=\"2\" y=\"156\">score</text></svg></figure>\n", f);
	fputs("<details><summary>the same as a table</summary><table><tr><th>score</th>"
	      "<th>entries</th></tr>\n", f);
	cJSON_ArrayForEach(b, h)
		html_printf(f, "<tr><td>%d</td><td>%d</td></tr>\n", (int)html_num(b, "score"),
		            (int)html_num(b, "count"));
	html_printf(f, "<tr><td>not graded</td><td>%d</td></tr></table></details>\n",
	            (int)html_num(s, "errors"));
}

static void criteria(FILE *f, const cJSON *s)
{
	const cJSON *c;
	fputs("<h2>Fail rate per criterion</h2>\n<table id=\"fail-rates\"><tr><th>criterion</th>"
	      "<th>failed</th><th>of judged</th><th></th></tr>\n", f);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "criteria")) {
		html_printf(f, "<tr class=\"rate\"><td>");
		html_put(f, html_str(c, "id"));
		if (html_num(c, "judged") == 0) {   /* left unchecked for everyone (speedup on a CPU) */
			fputs("</td><td>0</td><td>0</td><td>not judged for anyone</td></tr>\n", f);
			continue;
		}
		html_printf(f, "</td><td>%d</td><td>%d</td><td><svg width=\"204\" height=\"14\" "
		            "role=\"img\"><title>%.0f%% failed</title><rect x=\"1\" y=\"1\" width=\"200\" "
		            "height=\"12\" fill=\"#fff\" stroke=\"#333\"/><rect x=\"1\" y=\"1\" width=\"%.0f\" "
		            "height=\"12\" fill=\"#D55E00\"/></svg> %.0f%%</td></tr>\n",
		            (int)html_num(c, "failed"), (int)html_num(c, "judged"),
		            100 * html_num(c, "fail_rate"), 200 * html_num(c, "fail_rate"),
		            100 * html_num(c, "fail_rate"));
	}
	fputs("</table>\n", f);
}

static void link_to(FILE *f, const cJSON *row_or_null, const char *student, const cJSON *s)
{
	const cJSON *r, *row = row_or_null;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(s, "rows"))
		if (!row && strcmp(html_str(r, "student"), student) == 0)
			row = r;
	if (*html_str(row, "page")) {
		fputs("<a href=\"", f);
		html_put(f, html_str(row, "page"));
		fputs("\">", f);
		html_put(f, student);
		fputs("</a>", f);
	} else {
		html_put(f, student);
	}
}

static void firsts(FILE *f, const cJSON *s)
{
	const cJSON *ff;
	fputs("<h2>Most common first failures</h2>\n<table id=\"first-failures\"><tr><th>first "
	      "failure</th><th>entries</th><th>example</th></tr>\n", f);
	cJSON_ArrayForEach(ff, cJSON_GetObjectItem(s, "first_failures")) {
		const cJSON *ex = cJSON_GetObjectItem(ff, "example");
		fputs("<tr class=\"first\"><td>", f);
		html_put(f, html_str(ff, "criterion"));
		html_printf(f, "</td><td>%d</td><td>", (int)html_num(ff, "count"));
		link_to(f, NULL, html_str(ex, "student"), s);
		fputs(": ", f);
		html_put(f, html_str(ex, "message"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void students(FILE *f, const cJSON *s)
{
	const cJSON *r;
	fputs("<h2>Students</h2>\n<table id=\"students\"><tr><th>student</th><th>entry</th>"
	      "<th>verdict</th><th>score</th><th>first failure</th></tr>\n", f);
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(s, "rows")) {
		const char *v = html_str(r, "verdict");
		fputs("<tr class=\"student\"><td>", f);
		link_to(f, r, html_str(r, "student"), s);
		fputs("</td><td><code>", f);
		html_put(f, html_str(r, "path"));
		html_printf(f, "</code></td><td class=\"%s\">%s</td><td>%d / %d</td><td>",
		            !strcmp(v, "pass") ? "pass" : "fail", !strcmp(v, "pass") ? "&#x2714; pass" :
		            !strcmp(v, "fail") ? "&#x2716; fail" : "&#x2716; not graded",
		            (int)html_num(r, "score"), (int)html_num(r, "max_score"));
		html_put(f, html_str(r, "first_failure"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int html_class_write(const cJSON *summary, const char *path)
{
	char tmp[4200], title[200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = report_create(tmp);
	if (!f)
		return -1;
	snprintf(title, sizeof title, "clgrade class: %s", html_str(summary, "lesson"));
	html_head(f, title, NULL);
	fputs("<h1>", f);
	html_put(f, title);
	html_printf(f, "</h1>\n<p id=\"class-size\" data-students=\"%d\">%d entries, %d could not "
	            "be graded</p>\n<h2>Scores</h2>\n", (int)html_num(summary, "students"),
	            (int)html_num(summary, "students"), (int)html_num(summary, "errors"));
	histogram(f, summary);
	criteria(f, summary);
	firsts(f, summary);
	students(f, summary);
	html_tail(f);
	int rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0)
		unlink(tmp);
	return rc;
}
