/* classsum.c — how a class did, from its reports (classsum.h): the numbers the batch's class
 * index draws (html_class.c) and writes to class.json, counted here so that no renderer
 * counts anything. */
#include <stdlib.h>
#include <string.h>

#include "classsum.h"
#include "esc.h"

enum { MAX_SCORE = 64 };

typedef struct first_fail {
	char id[32];
	int count;
	char student[128], message[600];   /* the first student who failed first there */
} first_fail;

struct classsum {
	const lesson *l;
	int n, errors, max_score;
	int hist[MAX_SCORE + 1];
	int failed[CRIT_COUNT], judged[CRIT_COUNT];
	first_fail first[CRIT_COUNT + 1];  /* by criterion; the last: could not be graded */
	cJSON *rows;
};

classsum *classsum_new(const lesson *l)
{
	classsum *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->l = l;
	c->rows = cJSON_CreateArray();
	for (int i = 0; i < CRIT_COUNT; i++)
		snprintf(c->first[i].id, sizeof c->first[i].id, "%s", lesson_crit_id(i));
	snprintf(c->first[CRIT_COUNT].id, sizeof c->first[CRIT_COUNT].id, "not graded");
	return c;
}

void classsum_free(classsum *c)
{
	if (c)
		cJSON_Delete(c->rows);
	free(c);
}

static const char *jstr(const cJSON *o, const char *k)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
	return s ? s : "";
}

/* The criteria of one report: judged and failed counts, and the first failing one's index. */
static int criteria_of(classsum *c, const cJSON *report, const char **msg)
{
	const cJSON *cr;
	int first = -1;
	cJSON_ArrayForEach(cr, cJSON_GetObjectItem(report, "criteria"))
		for (int i = 0; i < CRIT_COUNT; i++) {
			const char *st = jstr(cr, "status");
			if (strcmp(jstr(cr, "id"), lesson_crit_id(i)) != 0)
				continue;
			c->judged[i] += !strcmp(st, "pass") || !strcmp(st, "fail");
			c->failed[i] += !strcmp(st, "fail");
			if (first < 0 && !strcmp(st, "fail"))
				first = i, *msg = jstr(cr, "message");
		}
	return first;
}

void classsum_add(classsum *c, const char *student, const char *path, const char *verdict,
                  int score, int max, const char *why, const cJSON *report, int page)
{
	const char *msg = why;
	int error = strcmp(verdict, "error") == 0;
	int first = error ? CRIT_COUNT : criteria_of(c, report, &msg);
	c->n++;
	c->errors += error;
	if (!error)
		c->hist[score < 0 ? 0 : score > MAX_SCORE ? MAX_SCORE : score]++;
	c->max_score = max > c->max_score ? (max > MAX_SCORE ? MAX_SCORE : max) : c->max_score;
	if (first >= 0) {
		first_fail *ff = &c->first[first];
		if (!ff->count++) {
			snprintf(ff->student, sizeof ff->student, "%s", student);
			esc_str(ff->message, sizeof ff->message, msg, ESC_LINE, NULL);
		}
	}
	cJSON *row = cJSON_CreateObject();
	cJSON_AddStringToObject(row, "student", student);
	cJSON_AddStringToObject(row, "path", path);
	cJSON_AddStringToObject(row, "verdict", verdict);
	cJSON_AddNumberToObject(row, "score", score);
	cJSON_AddNumberToObject(row, "max_score", max);
	cJSON_AddStringToObject(row, "first_failure", first >= 0 ? c->first[first].id : "");
	if (page) {
		char name[200];
		snprintf(name, sizeof name, "%s.html", student);
		cJSON_AddStringToObject(row, "page", name);
	}
	cJSON_AddItemToArray(c->rows, row);
}

static int by_count(const void *a, const void *b)
{
	const first_fail *x = *(first_fail *const *)a, *y = *(first_fail *const *)b;
	return y->count - x->count;
}

static void json_firsts(const classsum *c, cJSON *root)
{
	const first_fail *order[CRIT_COUNT + 1];
	int n = 0;
	for (int i = 0; i <= CRIT_COUNT; i++)
		if (c->first[i].count)
			order[n++] = &c->first[i];
	qsort(order, (size_t)n, sizeof *order, by_count);
	cJSON *a = cJSON_AddArrayToObject(root, "first_failures");
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject(), *ex;
		cJSON_AddStringToObject(o, "criterion", order[i]->id);
		cJSON_AddNumberToObject(o, "count", order[i]->count);
		ex = cJSON_AddObjectToObject(o, "example");
		cJSON_AddStringToObject(ex, "student", order[i]->student);
		cJSON_AddStringToObject(ex, "message", order[i]->message);
		cJSON_AddItemToArray(a, o);
	}
}

cJSON *classsum_json(const classsum *c)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "lesson", c->l->slug);
	cJSON_AddNumberToObject(root, "students", c->n);
	cJSON_AddNumberToObject(root, "errors", c->errors);
	cJSON_AddNumberToObject(root, "max_score", c->max_score);
	cJSON *h = cJSON_AddArrayToObject(root, "histogram");
	for (int s = 0; s <= c->max_score; s++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "score", s);
		cJSON_AddNumberToObject(o, "count", c->hist[s]);
		cJSON_AddItemToArray(h, o);
	}
	cJSON *cr = cJSON_AddArrayToObject(root, "criteria");
	for (int i = 0; i < CRIT_COUNT; i++) {
		if (!(c->l->criteria & CRIT_BIT(i)))
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", lesson_crit_id(i));
		cJSON_AddNumberToObject(o, "failed", c->failed[i]);
		cJSON_AddNumberToObject(o, "judged", c->judged[i]);
		cJSON_AddNumberToObject(o, "fail_rate", c->judged[i] ? (double)c->failed[i] / c->judged[i] : 0);
		cJSON_AddItemToArray(cr, o);
	}
	json_firsts(c, root);
	cJSON_AddItemToObject(root, "rows", cJSON_Duplicate(c->rows, 1));
	return root;
}
