/* batch_class.h — the last stage of `clgrade batch` (batch.h): the class's tables
 * (grades.csv, grades.json, class.json, index.html) from the reports that are up to date, and
 * the summary printed at the end.  It reads the reports; it grades nothing. */
#ifndef BATCH_CLASS_H
#define BATCH_CLASS_H

#include "batch_run.h"

/* How the class did: printed at the end. */
typedef struct batch_class_summary {
	int n, passed, failed, errors;
	int crit_failed[CRIT_COUNT];
} batch_class_summary;

/* grades.csv and grades.json (and the class pages) from the reports that are up to date into
 * b->out, and how the class did into cs; 0, or -1 when they could not be written. */
int batch_class_write(const batch *b, batch_class_summary *cs);
/* The class summary on stdout. */
void batch_class_print(const batch *b, const batch_class_summary *cs);

#endif
