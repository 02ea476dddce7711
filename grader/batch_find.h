/* batch_find.h — the first stage of `clgrade batch` (batch.h): the submissions folder read
 * into one row per entry, each with the kernel file to grade or why it cannot be graded, and a
 * file-system-safe name unique in the batch.  Nothing in a submission is run here. */
#ifndef BATCH_FIND_H
#define BATCH_FIND_H

#include <sys/stat.h>

#include "lesson.h"

enum { BATCH_MAX_SOURCE = 256 * 1024 };   /* check_prep.c reads no more of a kernel than this */

/* One entry of the submissions folder: every entry is one row, usable or not. */
typedef struct submission {
	char student[128];   /* file-system-safe name, unique in the batch */
	char rel[1024];      /* the entry as found, relative to DIR: "bob smith.cl", "carol/k.cl" */
	char path[4096];     /* the kernel file; "" when the entry cannot be graded */
	char problem[400];   /* why it cannot be graded */
	int exact;           /* the safe name is the entry's own name: it wins a clash */
} submission;

/* A growing list of submissions (no limit on the count). */
typedef struct sublist {
	submission *v;
	int n, cap;
} sublist;

/* Every entry of dir, sorted by student, into subs (free subs->v); own: the output folder,
 * never a submission.  The count, or -1 when dir cannot be read. */
int batch_find(const lesson *l, const char *dir, const struct stat *own, sublist *subs);

#endif
