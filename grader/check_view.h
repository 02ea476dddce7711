/* check_view.h — the view stage of a check: after the device run, the analysis and the model,
 * every figure the renderers (report.h, report_text.c, report_json.c, html.h) print that is
 * computed rather than measured: occupancy per profile, rates, the speedup, the copy kernel's
 * bandwidth, and the TILE sweep's rows.  The criteria and the renderers read them; they
 * compute none of them again. */
#ifndef CHECK_VIEW_H
#define CHECK_VIEW_H

#include "check.h"

/* Occupancy of the kernel through every profile (rep->occ, rep->work_group). */
void check_view_occupancy(const check_opts *o, check_report *rep);
/* The rates, the speedup and the copy kernel's figures (rep->view, rep->copy_gbps,
 * rep->of_copy), and the TILE sweep's rows (rep->view.tiles): after check_view_occupancy. */
void check_view_rates(const check_opts *o, check_report *rep);
/* After the model (gpum_check): the measured time over the predicted one. */
void check_view_predicted(check_report *rep);

#endif
