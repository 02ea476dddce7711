/* hint.h — the hints of a lesson, read from the "## Hints" section of lessons/NN-slug/hints.md
 * (never the README, which teaches without giving answers away):
 *   - [criterion_id] text, possibly continued on indented lines
 * `make hint` reveals one more each time, gentlest first; a failing report ends with the
 * first hint about the failing criterion. */
#ifndef HINT_H
#define HINT_H

#include <stddef.h>
#include <stdio.h>
#include "lesson.h"

/* Path of the lesson's hints file into buf. */
void hint_path(const lesson *l, char *buf, size_t len);
/* Number of hints of the lesson (0 when the README has none). */
int hint_count(const lesson *l);
/* Hint i (0-based) into buf, and its criterion tag into tag (may be NULL).  0 on success. */
int hint_get(const lesson *l, int i, char *buf, size_t len, char *tag, size_t taglen);
/* The first hint tagged with criterion id; 0 on success, -1 when none. */
int hint_for(const lesson *l, const char *crit_id, char *buf, size_t len);
/* Print the next hint not yet shown (state in build/hints/<slug>); cycles to the first after
 * the last.  The hint the lesson's last report printed (hint_reported) is skipped when it
 * would come next, so the first `make hint` after a failing check never repeats what is on
 * the screen.  Returns 0, or 2 when the lesson has no hints. */
int hint_next(const lesson *l);
/* A report of the lesson was printed that showed the hint for crit_id (its first failing
 * criterion; NULL: it showed none): kept in build/hints/<slug>.reported for hint_next. */
void hint_reported(const lesson *l, const char *crit_id);
/* Print text wrapped at the terminal's width, every line indented by indent; a line is never
 * broken inside a `code span` (a command must stay copyable). */
void hint_print_wrapped(FILE *f, const char *text, int indent);

#endif
