/* report.c — what the renderers share (report.h): colour on a terminal, the getters of the
 * tracer's JSON they print, the score, the UTF-8 cleaning, and writing a report file safely.
 * The renderers themselves: report_text.c (the terminal), report_json.c (the JSON report),
 * report_gs.c (Gradescope), report_gpum.c (the prediction's lines), html.c (the page).  They
 * format what the stages computed (check.h, check_view.h) and compute nothing again. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "report.h"

int report_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(fileno(f)) && !(nc && *nc);
}

int report_ival(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

double report_dval(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

const char *report_sval(cJSON *o, const char *k)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
	return s ? s : "?";
}

/* The one output step of the JSON and Gradescope renderers: every string of the tree
 * escaped (esc.h; newlines and tabs of multi-line text kept, JSON escapes those), so the
 * files are valid UTF-8 and carry no control character, and the kernel's path, wherever a
 * message quotes it, as one line (or as subs say). */
void report_utf8_clean(cJSON *j)
{
	esc_cjson(j, ESC_TEXT, NULL);
}

int report_score(const check_report *rep, int *score)
{
	int max = 0;
	*score = 0;
	for (int i = 0; i < rep->ncrit; i++) {
		max += !rep->crit[i].env;
		*score += rep->crit[i].status == CRIT_PASS;
	}
	return max;
}

FILE *report_create(const char *path)
{
	unlink(path);   /* whatever is there, a planted link too: the link goes, not its target */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

int report_write(cJSON *j, const char *path)
{
	char *s = cJSON_Print(j);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = s ? report_create(tmp) : NULL;
	int rc = f && fputs(s, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)   /* never a half-written report */
		rc = -1;
	if (rc != 0)
		unlink(tmp);
	free(s);
	return rc;
}

int report_write_json(const check_report *rep, const char *path)
{
	cJSON *j = report_json(rep);
	int rc = report_write(j, path);
	cJSON_Delete(j);
	return rc;
}
