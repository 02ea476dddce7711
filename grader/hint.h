/* hint.h — the hints of a lesson, read from the "## Hints" section of its README:
 *   - [criterion_id] text, possibly continued on indented lines
 * `make hint` reveals one more each time; a failing report ends with the hint for the
 * failing criterion. */
#ifndef HINT_H
#define HINT_H

#include <stddef.h>
#include "lesson.h"

/* Number of hints of the lesson (0 when the README has none). */
int hint_count(const lesson *l);
/* Hint i (0-based) into buf, and its criterion tag into tag (may be NULL).  0 on success. */
int hint_get(const lesson *l, int i, char *buf, size_t len, char *tag, size_t taglen);
/* The first hint tagged with criterion id; 0 on success, -1 when none. */
int hint_for(const lesson *l, const char *crit_id, char *buf, size_t len);
/* Print the next hint not yet shown (state in build/hints/<slug>); cycles to the first after
 * the last.  Returns 0, or 2 when the lesson has no hints. */
int hint_next(const lesson *l);

#endif
