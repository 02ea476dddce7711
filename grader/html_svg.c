/* html_svg.c — the drawings of the HTML page (html.h): inline SVG, drawn from the check's
 * JSON report.  Only layout is worked out here (where a box goes, how long a bar is drawn);
 * every figure shown is a value of the JSON.  Each drawing has a <title> and <desc> and a
 * table with the same facts, and marks besides colours (Okabe-Ito palette). */
#include <string.h>

#include "html.h"

enum { CELL = 22, LEFT = 58 };   /* one lane's box, and the room for the row labels */

/* colour and mark of a lane's role (check_sum.c annotate_lanes: bank.h roles) */
static const char *role_fill(const char *role)
{
	return !strcmp(role, "conflict") ? "#E69F00" : !strcmp(role, "broadcast") ? "#56B4E9" :
	       !strcmp(role, "alone") ? "#CDEBE0" : "#ffffff";
}

static const char *role_mark(const char *role)
{
	return !strcmp(role, "conflict") ? "&#x2716;" : !strcmp(role, "broadcast") ? "=" :
	       !strcmp(role, "alone") ? "" : "&#xB7;";
}

static void legend(FILE *f, int y)
{
	static const char *roles[] = { "conflict", "broadcast", "alone", "inactive" };
	static const char *words[] = { "collides on its bank", "shares a word (broadcast)",
	                               "alone on its bank", "takes no part" };
	for (int i = 0; i < 4; i++) {
		int x = LEFT + i * 170;
		html_printf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" "
		            "stroke=\"#333\"%s/><text x=\"%d\" y=\"%d\">%s %s</text>\n", x, y,
		            role_fill(roles[i]), i == 3 ? " stroke-dasharray=\"2,2\"" : "", x + 16, y + 10,
		            role_mark(roles[i]), words[i]);
	}
}

/* One lanes -> banks picture: lanes on top, banks below, a line from each lane to its bank. */
static void lane_grid(FILE *f, const cJSON *banks, const cJSON *roles, int nbanks, int y0,
                      const char *cls)
{
	int n = cJSON_GetArraySize(banks), yb = y0 + 70;
	html_printf(f, "<g class=\"%s\"><text x=\"2\" y=\"%d\">lanes</text><text x=\"2\" y=\"%d\">"
	            "banks</text>\n", cls, y0 + 15, yb + 15);
	for (int b = 0; b < nbanks; b++) {
		int hot = 0;
		for (int l = 0; l < n; l++) {
			const cJSON *v = cJSON_GetArrayItem(banks, l);
			hot |= cJSON_IsNumber(v) && v->valueint == b &&
			       !strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(roles, l)) ?
			               cJSON_GetStringValue(cJSON_GetArrayItem(roles, l)) : "", "conflict");
		}
		html_printf(f, "<rect class=\"bank%s\" data-bank=\"%d\" x=\"%d\" y=\"%d\" width=\"%d\" "
		            "height=\"20\" fill=\"%s\" stroke=\"#333\"/><text x=\"%d\" y=\"%d\">%d</text>\n",
		            hot ? " conflict" : "", b, LEFT + b * CELL, yb, CELL - 2,
		            hot ? "#E69F00" : "#f2f2f2", LEFT + b * CELL + 3, yb + 14, b);
	}
	for (int l = 0; l < n; l++) {
		const cJSON *v = cJSON_GetArrayItem(banks, l);
		const char *r = cJSON_GetStringValue(cJSON_GetArrayItem(roles, l));
		r = r ? r : "inactive";
		int x = LEFT + l * CELL;
		if (cJSON_IsNumber(v))
			html_printf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>\n",
			            x + CELL / 2 - 1, y0 + 20, LEFT + v->valueint * CELL + CELL / 2 - 1, yb,
			            strcmp(r, "conflict") ? "#999" : "#a63c00");
		html_printf(f, "<rect class=\"lane %s\" data-lane=\"%d\" x=\"%d\" y=\"%d\" width=\"%d\" "
		            "height=\"20\" fill=\"%s\" stroke=\"#333\"%s><title>lane %d: ", r, l, x, y0,
		            CELL - 2, role_fill(r), !strcmp(r, "inactive") ? " stroke-dasharray=\"2,2\"" :
		            !strcmp(r, "conflict") ? " stroke-width=\"2\"" : "", l);
		if (cJSON_IsNumber(v))
			html_printf(f, "bank %d, %s</title></rect>", v->valueint, r);
		else
			html_printf(f, "takes no part</title></rect>");
		html_printf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text><text x=\"%d\" "
		            "y=\"%d\" text-anchor=\"middle\" class=\"mark\">%s</text>\n", x + CELL / 2 - 1,
		            y0 + 9, l, x + CELL / 2 - 1, y0 + 18, role_mark(r));
	}
	fputs("</g>\n", f);
}

static void lane_table(FILE *f, const cJSON *banks, const cJSON *roles, const cJSON *after)
{
	int n = cJSON_GetArraySize(banks);
	fputs("<details><summary>the same as a table</summary><table><tr><th>lane</th><th>bank</th>"
	      "<th>role</th>", f);
	if (after)
		fputs("<th>bank after the fix</th><th>role after the fix</th>", f);
	fputs("</tr>\n", f);
	for (int l = 0; l < n; l++) {
		const cJSON *v = cJSON_GetArrayItem(banks, l);
		const char *r = cJSON_GetStringValue(cJSON_GetArrayItem(roles, l));
		html_printf(f, "<tr><td>%d</td><td>", l);
		if (cJSON_IsNumber(v))
			html_printf(f, "%d", v->valueint);
		html_printf(f, "</td><td>%s</td>", r ? r : "");
		if (after) {
			const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(after, "banks"), l);
			const char *ra = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(after,
			                                                         "roles"), l));
			html_printf(f, "<td>");
			if (cJSON_IsNumber(b))
				html_printf(f, "%d", b->valueint);
			html_printf(f, "</td><td>%s</td>", ra ? ra : "");
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></details>\n", f);
}

/* "line 15:34, tile load", escaped */
static void site_name(FILE *f, const cJSON *site)
{
	html_printf(f, "line %d:%d, ", (int)html_num(site, "line"), (int)html_num(site, "column"));
	html_put(f, html_str(site, "variable"));
	fputc(' ', f);
	html_put(f, html_str(site, "access"));
}

static void lanes_svg(FILE *f, const cJSON *site, const cJSON *banks, const cJSON *roles,
                      int nbanks, int n_way, const char *id, const char *what)
{
	int w = LEFT + nbanks * CELL + 4;
	html_printf(f, "<svg class=\"lanes %s\" role=\"img\" aria-labelledby=\"%s-t %s-d\" "
	            "width=\"%d\" height=\"130\" viewBox=\"0 0 %d 130\" data-n-way=\"%d\">"
	            "<title id=\"%s-t\">", what, id, id, w, w, n_way, id);
	site_name(f, site);
	html_printf(f, ": one warp, lanes to banks (%s)</title><desc id=\"%s-d\">%d lanes; the "
	            "busiest bank serves %d different words one after another (%d-way)</desc>\n",
	            what, id, cJSON_GetArraySize(banks), n_way, n_way);
	lane_grid(f, banks, roles, nbanks, 4, what);
	legend(f, 112);
	fputs("</svg>\n", f);
}

void html_svg_lanes(FILE *f, const cJSON *site)
{
	static int seq;
	const cJSON *wl = cJSON_GetObjectItem(site, "worst_lanes");
	const cJSON *banks = cJSON_GetObjectItem(wl, "banks"), *roles = cJSON_GetObjectItem(wl, "roles");
	const cJSON *pd = cJSON_GetObjectItem(wl, "padded");
	int nbanks = (int)html_num(wl, "bank_count");
	if (!cJSON_IsArray(banks) || !cJSON_IsArray(roles) || nbanks < 1 || nbanks > 64)
		return;
	char id[32];
	int conflicted = html_num(wl, "n_way") > 1, worst = cJSON_IsTrue(cJSON_GetObjectItem(site, "worst"));
	snprintf(id, sizeof id, "lanes%d", ++seq);
	/* a conflict-free site's warp is there, folded: its one line says all */
	html_printf(f, "<%s class=\"site local%s\" data-line=\"%d\"><%s>", conflicted ? "figure" :
	            "details", worst ? " worst" : "", (int)html_num(site, "line"),
	            conflicted ? "figcaption" : "summary");
	site_name(f, site);
	html_printf(f, ": %d-way%s (TILE=%d, group %d, warp %d)</%s>\n", (int)html_num(wl, "n_way"),
	            worst && conflicted ? ", the worst site" : conflicted ? "" : ", conflict-free",
	            (int)html_num(site, "tile"), (int)html_num(wl, "group"), (int)html_num(wl, "warp"),
	            conflicted ? "figcaption" : "summary");
	lanes_svg(f, site, banks, roles, nbanks, (int)html_num(wl, "n_way"), id, "now");
	if (cJSON_IsObject(pd)) {
		html_printf(f, "<p>after the fix the report proposes, one word of padding after every "
		            "%d, %d in all (<code>[TILE][TILE+1]</code>): %d-way</p>\n", (int)html_num(pd, "stride"),
		            (int)html_num(pd, "row_words"), (int)html_num(pd, "n_way"));
		strcat(id, "f");
		lanes_svg(f, site, cJSON_GetObjectItem(pd, "banks"), cJSON_GetObjectItem(pd, "roles"),
		          nbanks, (int)html_num(pd, "n_way"), id, "after-fix");
	}
	lane_table(f, banks, roles, cJSON_IsObject(pd) ? pd : NULL);
	fputs(conflicted ? "</figure>\n" : "</details>\n", f);
}

/* ---- a global request's sectors ---------------------------------------------------------------- */

static void sector_rows(FILE *f, const cJSON *wr, int cell)
{
	const cJSON *first = cJSON_GetObjectItem(wr, "lane_first"), *t;
	const cJSON *touched = cJSON_GetObjectItem(wr, "touched");
	int n = cJSON_GetArraySize(first), k = 0;
	cJSON_ArrayForEach(t, touched) {
		int x = LEFT + k++ * cell;
		html_printf(f, "<rect class=\"sector touched\" x=\"%d\" y=\"74\" width=\"%d\" "
		            "height=\"20\" fill=\"#E69F00\" stroke=\"#333\"><title>sector +%d</title>"
		            "</rect>\n", x, cell - 2, t->valueint);
		for (int l = 0; l < n; l++) {
			const cJSON *v = cJSON_GetArrayItem(first, l);
			if (cJSON_IsNumber(v) && v->valueint == t->valueint)
				html_printf(f, "<line x1=\"%d\" y1=\"24\" x2=\"%d\" y2=\"74\" stroke=\"#999\"/>\n",
				            LEFT + l * CELL + CELL / 2 - 1, x + cell / 2 - 1);
		}
	}
	for (int i = 0; i < (int)html_num(wr, "ideal"); i++)
		html_printf(f, "<rect class=\"sector ideal\" x=\"%d\" y=\"104\" width=\"%d\" height=\"20\" "
		            "fill=\"#009E73\" stroke=\"#333\"/>\n", LEFT + i * cell, cell - 2);
	for (int l = 0; l < n; l++) {
		const cJSON *v = cJSON_GetArrayItem(first, l);
		html_printf(f, "<rect class=\"lane%s\" x=\"%d\" y=\"4\" width=\"%d\" height=\"20\" "
		            "fill=\"%s\" stroke=\"#333\"%s><title>lane %d", cJSON_IsNumber(v) ? "" :
		            " inactive", LEFT + l * CELL, CELL - 2, cJSON_IsNumber(v) ? "#f2f2f2" : "#fff",
		            cJSON_IsNumber(v) ? "" : " stroke-dasharray=\"2,2\"", l);
		if (cJSON_IsNumber(v))
			html_printf(f, ": sector +%d", v->valueint);
		html_printf(f, "</title></rect><text x=\"%d\" y=\"18\">%d</text>\n", LEFT + l * CELL + 2, l);
	}
}

void html_svg_sectors(FILE *f, const cJSON *site)
{
	const cJSON *wr = cJSON_GetObjectItem(site, "worst_request");
	int bad = cJSON_IsTrue(cJSON_GetObjectItem(site, "uncoalesced"));
	const char *box = bad ? "figure" : "details", *cap = bad ? "figcaption" : "summary";
	html_printf(f, "<%s class=\"site global%s\" data-line=\"%d\"><%s>", box,   /* folded when */
	            bad ? " uncoalesced" : "", (int)html_num(site, "line"), cap);  /* coalesced */
	site_name(f, site);
	html_printf(f, ": %.1f sectors per request on average, ideal %.1f%s</%s>\n",
	            html_num(site, "sectors_per_request"), html_num(site, "ideal"),
	            bad ? " &#x2716; uncoalesced" : " &#x2714; coalesced", cap);
	if (!cJSON_IsObject(wr)) {
		html_printf(f, "</%s>\n", box);
		return;
	}
	int nt = cJSON_GetArraySize(cJSON_GetObjectItem(wr, "touched")), ideal = (int)html_num(wr, "ideal");
	int most = nt > ideal ? nt : ideal, cell = most > 32 ? 32 * CELL / most : CELL;
	int w = LEFT + 32 * CELL + 4;
	html_printf(f, "<svg class=\"sectors\" role=\"img\" width=\"%d\" height=\"130\" viewBox=\"0 0 "
	            "%d 130\" data-sectors=\"%.0f\" data-ideal=\"%d\"><title>", w, w,
	            html_num(wr, "sectors"), ideal);
	site_name(f, site);
	html_printf(f, ": the worst warp request (group %d, warp %d) touches %.0f sectors of 32 bytes; "
	            "the same bytes end to end would take %d</title><desc>lanes on top, the sectors "
	            "they touch in the middle (orange, numbered from the lowest), the ideal below "
	            "(green)</desc>\n<text x=\"2\" y=\"18\">lanes</text><text x=\"2\" y=\"88\">touched"
	            "</text><text x=\"2\" y=\"118\">ideal</text>\n", (int)html_num(wr, "group"),
	            (int)html_num(wr, "warp"), html_num(wr, "sectors"), ideal);
	sector_rows(f, wr, cell);
	html_printf(f, "</svg>\n<p class=\"muted\">this request: %.0f sectors touched, %d ideal</p>"
	            "</%s>\n", html_num(wr, "sectors"), ideal, box);
}

/* ---- occupancy ---------------------------------------------------------------------------------- */

void html_svg_occupancy(FILE *f, const cJSON *occupancy)
{
	int n = cJSON_GetArraySize(occupancy), y = 4, bar = 300;
	const cJSON *o;
	html_printf(f, "<svg class=\"occupancy\" role=\"img\" width=\"760\" height=\"%d\" viewBox=\"0 "
	            "0 760 %d\"><title>theoretical occupancy per GPU profile</title><desc>one bar per "
	            "profile: the share of the compute unit's warp slots this kernel's groups fill, and "
	            "what limits it</desc>\n", n * 22 + 8, n * 22 + 8);
	cJSON_ArrayForEach(o, occupancy) {
		int fits = !strcmp(html_str(o, "status"), "ok");
		html_printf(f, "<g class=\"occ\" data-profile=\"%s\"><text x=\"2\" y=\"%d\">%s</text>"
		            "<rect x=\"110\" y=\"%d\" width=\"%d\" height=\"16\" fill=\"#fff\" stroke=\"#333\"/>",
		            html_str(o, "profile"), y + 12, html_str(o, "profile"), y, bar);
		if (fits)
			html_printf(f, "<rect class=\"bar\" x=\"110\" y=\"%d\" width=\"%.0f\" height=\"16\" "
			            "fill=\"#0072B2\"/><text x=\"%d\" y=\"%d\">%.0f%%, %.0f groups/CU, limited "
			            "by %s</text>", y, bar * html_num(o, "occupancy"), 116 + bar, y + 12,
			            100 * html_num(o, "occupancy"), html_num(o, "groups_per_cu"),
			            html_str(o, "limiter"));
		else
			html_printf(f, "<text x=\"116\" y=\"%d\">&#x2716; does not fit: %s needs %.0f, the "
			            "limit is %.0f</text>", y + 12, html_str(o, "limiter"),
			            html_num(o, "needed"), html_num(o, "available"));
		fputs("</g>\n", f);
		y += 22;
	}
	fputs("</svg>\n", f);
}

/* ---- the predicted GPU time's terms ------------------------------------------------------------ */

static const char *const pred_terms[][2] = {
	{ "dram_ms", "DRAM bandwidth" }, { "l1_pipe_ms", "L1 / shared pipe" },
	{ "loads_in_flight_ms", "too few loads in flight" }, { "latency_ms", "latency of the rounds" },
	{ "flops_ms", "arithmetic" }, { "scattered_stores_ms", "scattered stores" },
};
enum { PRED_TERMS = sizeof pred_terms / sizeof pred_terms[0] };

static void pred_bars(FILE *f, const cJSON *pr, const char *who, int y, double top)
{
	const cJSON *b = cJSON_GetObjectItem(pr, "breakdown");
	for (int i = 0; i < PRED_TERMS; i++, y += 18) {
		double ms = html_num(b, pred_terms[i][0]);
		int w = top > 0 ? (int)(300.0 * ms / top + 0.5) : 0;
		html_printf(f, "<g class=\"term %s\" data-term=\"%s\"><text x=\"2\" y=\"%d\">%s: %s</text>"
		            "<rect x=\"250\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>"
		            "<text x=\"%d\" y=\"%d\">%.3g ms</text></g>\n", who, pred_terms[i][0], y + 11,
		            who, pred_terms[i][1], y, w, ms >= html_num(pr, "kernel_ms") * 0.999 ?
		            "#D55E00" : "#0072B2", 256 + w, y + 11, ms);
	}
}

void html_svg_predicted(FILE *f, const cJSON *predicted)
{
	const cJSON *base = cJSON_GetObjectItem(predicted, "baseline");
	double top = html_num(predicted, "kernel_ms");
	if (cJSON_IsObject(base) && html_num(base, "kernel_ms") > top)
		top = html_num(base, "kernel_ms");
	int rows = PRED_TERMS * (cJSON_IsObject(base) ? 2 : 1);
	html_printf(f, "<svg class=\"predicted\" role=\"img\" width=\"760\" height=\"%d\" "
	            "viewBox=\"0 0 760 %d\"><title>predicted GPU time per term</title><desc>each "
	            "term of the model in milliseconds; the time is the slowest one, marked in "
	            "orange</desc>\n", rows * 18 + 8, rows * 18 + 8);
	pred_bars(f, predicted, "yours", 4, top);
	if (cJSON_IsObject(base))
		pred_bars(f, base, "baseline", 4 + PRED_TERMS * 18, top);
	fputs("</svg>\n<table class=\"predicted-terms\"><tr><th>term</th><th>yours (ms)</th>"
	      "<th>baseline (ms)</th></tr>\n", f);
	for (int i = 0; i < PRED_TERMS; i++)
		html_printf(f, "<tr><td>%s</td><td>%.3g</td><td>%.3g</td></tr>\n", pred_terms[i][1],
		            html_num(cJSON_GetObjectItem(predicted, "breakdown"), pred_terms[i][0]),
		            html_num(cJSON_GetObjectItem(base, "breakdown"), pred_terms[i][0]));
	fputs("</table>\n", f);
}

/* ---- lesson 4's TILE sweep ---------------------------------------------------------------------- */

enum { SW_X = 70, SW_GAP = 110, SW_H = 90 };

/* The value a panel plots for one TILE (k: the profile, for occupancy); 0 = no point. */
typedef int (*sweep_val)(const cJSON *tile, int k, double *v);

static int val_ms(const cJSON *t, int k, double *v)
{
	*v = html_num(t, "kernel_ms");
	return cJSON_IsNumber(cJSON_GetObjectItem(t, "kernel_ms"));
}

static int val_local(const cJSON *t, int k, double *v)
{
	*v = html_num(t, "local_bytes");
	return 1;
}

static int val_occ(const cJSON *t, int k, double *v)
{
	const cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "occupancy"), k);
	*v = 100 * html_num(o, "occupancy");
	return o != NULL;
}

/* One panel: a polyline and a point per TILE that has a value, for each of nser series. */
static void sweep_panel(FILE *f, const cJSON *tiles, const char *cls, const char *label,
                        sweep_val get, int nser, int y0)
{
	static const char *colour[] = { "#0072B2", "#D55E00" };
	int n = cJSON_GetArraySize(tiles);
	double top = 0, v;
	for (int k = 0; k < nser; k++)
		for (int i = 0; i < n; i++)
			if (get(cJSON_GetArrayItem(tiles, i), k, &v) && v > top)
				top = v;
	top = top > 0 ? top : 1;
	html_printf(f, "<g class=\"panel %s\"><text x=\"2\" y=\"%d\">%s</text>"
	            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", cls,
	            y0 + 10, label, SW_X - 10, y0 + SW_H, SW_X + n * SW_GAP, y0 + SW_H);
	for (int k = 0; k < nser; k++) {
		html_printf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"", colour[k % 2]);
		for (int i = 0; i < n; i++)
			if (get(cJSON_GetArrayItem(tiles, i), k, &v))
				html_printf(f, "%d,%.1f ", SW_X + i * SW_GAP, y0 + SW_H - (SW_H - 20) * v / top);
		fputs("\"/>\n", f);
		for (int i = 0; i < n; i++) {
			const cJSON *t = cJSON_GetArrayItem(tiles, i);
			if (!get(t, k, &v))
				continue;
			double y = y0 + SW_H - (SW_H - 20) * v / top;
			html_printf(f, "<circle class=\"pt s%d\" data-tile=\"%d\" cx=\"%d\" cy=\"%.1f\" "
			            "r=\"%d\" fill=\"%s\"><title>TILE %d: %.4g</title></circle><text x=\"%d\" "
			            "y=\"%.1f\">%.4g</text>\n", k, (int)html_num(t, "tile"), SW_X + i * SW_GAP, y,
			            k ? 5 : 4, colour[k % 2], (int)html_num(t, "tile"), v,
			            SW_X + i * SW_GAP + 7, y - 4 + 12 * k, v);
		}
	}
	fputs("</g>\n", f);
}

static void sweep_table(FILE *f, const cJSON *tiles)
{
	const cJSON *t, *o;
	fputs("<table class=\"sweep\"><tr><th>TILE</th><th>__local bytes</th><th>time ms</th>"
	      "<th>occupancy</th><th>ran</th></tr>\n", f);
	cJSON_ArrayForEach(t, tiles) {
		html_printf(f, "<tr><td>%d</td><td>%.0f</td><td>", (int)html_num(t, "tile"),
		            html_num(t, "local_bytes"));
		if (cJSON_IsNumber(cJSON_GetObjectItem(t, "kernel_ms")))
			html_printf(f, "%.3g", html_num(t, "kernel_ms"));
		fputs("</td><td>", f);
		cJSON_ArrayForEach(o, cJSON_GetObjectItem(t, "occupancy"))
			html_printf(f, "%s: %.0f%% (%s) ", html_str(o, "profile"), 100 * html_num(o, "occupancy"),
			            html_str(o, "limiter"));
		html_printf(f, "</td><td>%s</td></tr>\n", cJSON_IsTrue(cJSON_GetObjectItem(t, "ran")) ?
		            (cJSON_IsTrue(cJSON_GetObjectItem(t, "correct")) ? "&#x2714; correct" :
		             "&#x2716; wrong result") : "not run on this device");
	}
	fputs("</table>\n", f);
}

void html_svg_sweep(FILE *f, const cJSON *tiles)
{
	int n = cJSON_GetArraySize(tiles), w = SW_X + n * SW_GAP + 200, h = 3 * (SW_H + 10) + 40;
	const cJSON *occ = cJSON_GetObjectItem(cJSON_GetArrayItem(tiles, 0), "occupancy");
	int nser = cJSON_GetArraySize(occ) > 2 ? 2 : cJSON_GetArraySize(occ);
	html_printf(f, "<figure class=\"sweep\"><svg class=\"sweep\" role=\"img\" width=\"%d\" "
	            "height=\"%d\" viewBox=\"0 0 %d %d\"><title>the TILE sweep: time, __local bytes "
	            "and occupancy per TILE</title><desc>one point per TILE in each panel (time only "
	            "where the TILE ran here); occupancy: ", w, h, w, h);
	for (int k = 0; k < nser; k++)
		html_printf(f, "%s%s (%s)", k ? ", " : "", html_str(cJSON_GetArrayItem(occ, k), "profile"),
		            k ? "larger dots, vermillion" : "dots, blue");
	fputs("</desc>\n", f);
	sweep_panel(f, tiles, "sweep-ms", "time ms", val_ms, 1, 4);
	sweep_panel(f, tiles, "sweep-local", "__local B", val_local, 1, SW_H + 14);
	sweep_panel(f, tiles, "sweep-occ", "occupancy %", val_occ, nser, 2 * SW_H + 24);
	for (int k = 0; k < nser; k++)   /* the occupancy panel's key: which profile is which */
		html_printf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s %s</text>\n",
		            SW_X + n * SW_GAP + 10, 2 * SW_H + 60 + 14 * k, k ? "#D55E00" : "#0072B2",
		            k ? "&#x2B24; large:" : "&#x25CF; small:",
		            html_str(cJSON_GetArrayItem(occ, k), "profile"));
	for (int i = 0; i < n; i++)
		html_printf(f, "<text x=\"%d\" y=\"%d\">TILE %d</text>\n", SW_X + i * SW_GAP - 15,
		            h - 8, (int)html_num(cJSON_GetArrayItem(tiles, i), "tile"));
	fputs("</svg>\n", f);
	sweep_table(f, tiles);
	fputs("</figure>\n", f);
}
