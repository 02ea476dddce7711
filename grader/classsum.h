/* classsum.h — how a class did, counted once from the batch's rows (batch_class.c, batch_class_write): the
 * score histogram (one bin per score, and the entries that could not be graded apart, so the
 * bins add up to the class), each criterion's fail rate among the reports that judged it, the
 * most common first failures with the first student's message as an example, and one row per
 * student with the name of their page.  batch_class.c writes it to class.json; html_class.c draws
 * index.html from that JSON. */
#ifndef CLASSSUM_H
#define CLASSSUM_H

#include <cjson/cJSON.h>

#include "lesson.h"

typedef struct classsum classsum;

classsum *classsum_new(const lesson *l);
void classsum_free(classsum *c);

/* One entry: its student name, entry path (one line, escaped), verdict ("pass", "fail",
 * "error"), score and maximum, why it is an error ("" otherwise), its report (NULL when none)
 * and whether its page (<student>.html) exists. */
void classsum_add(classsum *c, const char *student, const char *path, const char *verdict,
                  int score, int max, const char *why, const cJSON *report, int page);

/* The summary as JSON (caller deletes): lesson, students, errors, max_score,
 * histogram [{score, count}], criteria [{id, failed, judged, fail_rate}],
 * first_failures [{criterion, count, example {student, message}}] (most common first),
 * rows [{student, path, verdict, score, max_score, first_failure, page}]. */
cJSON *classsum_json(const classsum *c);

#endif
