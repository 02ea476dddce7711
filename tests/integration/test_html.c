/* test_html.c — the HTML report (issue 20) as a browser shows it.  The pages of every starter
 * and solution, of fixtures that between them need every kind of drawing (a hostile file
 * name and source over the 32-way unpadded transpose, a race) and of a batch's class are
 * built once, in the parent (an unchecked fixture: each kernel is graded once), by the real
 * build/clgrade on PoCL and Oclgrind; then Debian's headless Chromium loads them: one run
 * over a frame page holding every page (console errors and requests, from Chromium's own
 * log), one --dump-dom per page (the elements of each finding, counted against
 * the JSON report), screenshots (decoded with libpng, not blank) and a page `clgrade watch`
 * rewrites.  Without chromium the browser tests say SKIPPED and why. */
#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#ifdef HAVE_PNG
#include <png.h>
#endif

#include "itest.h"

#define FX "tests/fixtures/"
#define HOSTILE "\"><img src=x onerror=alert(1)><b>.cl"   /* no ': the shell quotes it */

static char dir[] = "/tmp/clgrade-html-XXXXXX";
static int chromium;

typedef struct page {
	const char *lesson, *kernel, *name;
	int dump;                 /* --dump-dom it (every page: the findings checked in its DOM) */
	const char *extra;        /* clgrade's options beyond --seed 1 (or NULL)                */
} page;

/* Each page is graded through itest_grade_page, spelled (kernel "" for the starter, the
 * options) as the other binaries grade the same kernel, so that one grading serves both;
 * lesson 4 gets --timeout 60, its three-TILE analysis being under one --timeout. */
static const page pages[] = {
	{ "1", "", "s1", 1, NULL },
	{ "2", "", "s2", 1, NULL },
	{ "3", "", "s3", 1, NULL },
	{ "4", "", "s4", 1, "--timeout 60" },
	{ "5", "", "s5", 1, NULL },
	{ "1", "kernels/solutions/01-naive-matmul.cl", "k1", 1, NULL },
	{ "2", "kernels/solutions/02-tiled-matmul.cl", "k2", 1, NULL },
	{ "3", "kernels/solutions/03-transpose-padding.cl", "k3", 1, NULL },
	{ "4", "kernels/solutions/04-tile-budget.cl", "k4", 1, "--timeout 60" },
	{ "5", "kernels/solutions/05-reduction.cl", "k5", 1, NULL },
	{ "2", FX "l2_no_barrier1.cl", "race", 1, NULL },
	{ "3", "@hostile", "hostile", 1, NULL },
};
enum { NPAGES = sizeof pages / sizeof pages[0] };

/* a profile folder of its own per run (dir, suffix): the runs go four at a time */
#define CHROMIUM "chromium --user-data-dir=%s/profile%s --headless --disable-gpu --no-sandbox " \
	"--no-first-run --disable-background-networking --disable-component-update " \
	"--disable-sync --disable-extensions --no-pings --disable-domain-reliability " \
	"--enable-logging=stderr --v=1"

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *in_dir(const char *rel)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	return itest_slurp(path);
}

static cJSON *json_in(const char *rel)
{
	char *s = in_dir(rel);
	cJSON *j = s ? cJSON_Parse(s) : NULL;
	free(s);
	return j;
}

static int count(const char *from, const char *to, const char *needle)
{
	int n = 0;
	for (const char *p = from; p && (p = strstr(p, needle)) && (!to || p < to); p++)
		n++;
	return n;
}

/* The element that starts at the first `start` in s, up to the `end` after it. */
static const char *after(const char *s, const char *start, const char *end, const char **stop)
{
	const char *a = s ? strstr(s, start) : NULL;
	*stop = a ? strstr(a, end) : NULL;
	return a;
}

/* The hostile kernel: the 32-way unpadded transpose, with markup, quotes and an escape in
 * its source and a name that is markup. */
static void make_hostile(void)
{
	char path[600];
	char *src = itest_slurp(FX "l3_unpadded.cl");
	snprintf(path, sizeof path, "%s/" HOSTILE, dir);
	FILE *f = fopen(path, "w");
	ck_assert_msg(src && f, "cannot write the hostile kernel");
	fprintf(f, "// </td></tr></table><script>alert(1)</script> \"q\" 'q' \033[2J\n%s", src);
	fclose(f);
	free(src);
}

/* Commands, one a line in the file rel, run `jobs` at a time. */
static int parallel(const char *rel, int jobs)
{
	return sh("xargs -d '\\n' -P %d -n 1 sh -c < %s/%s", jobs, dir, rel);
}

static void write_file(const char *rel, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Every page's grading (each kernel graded once in the suite: itest_grade_page), its page,
 * JSON and text in dir as NAME.html, NAME.json and NAME.txt. */
static void grade_pages(void)
{
	for (int i = 0; i < NPAGES; i++) {
		const page *p = &pages[i];
		char kernel[600], html[700], rel[64];
		snprintf(kernel, sizeof kernel, "%s", p->kernel);
		if (p->kernel[0] == '@')
			snprintf(kernel, sizeof kernel, "%s/" HOSTILE, dir);
		snprintf(html, sizeof html, "%s/%s.html", dir, p->name);
		itest_graded g = itest_grade_page(p->lesson, kernel, p->extra, html);
		if (g.exit > 1)
			fprintf(stderr, "test_html: grading %s failed (exit %d)\n", p->name, g.exit);
		char *json = cJSON_Print(g.json);
		snprintf(rel, sizeof rel, "%s.json", p->name);
		write_file(rel, json);
		snprintf(rel, sizeof rel, "%s.txt", p->name);
		write_file(rel, g.text);
		free(json);
		itest_done(&g);
	}
}

/* A class of lesson 3: a pass, a conflicted half warp, an entry that cannot be graded. */
static void grade_class(void)
{
	sh("set -e; mkdir -p %s/class/erin; cp kernels/solutions/03-transpose-padding.cl "
	   "%s/class/alice.cl; cp " FX "l3_half_warp_conflict.cl %s/class/bob.cl; "
	   "build/clgrade batch 3 %s/class --out %s/out -j 2 > %s/batch.txt 2>&1", dir, dir, dir,
	   dir, dir, dir);
}

/* clgrade watch on a copy of starter 3, the solution saved over it once its page is there. */
static void watch_page(void)
{
	sh("mkdir -p %s/w && cp kernels/starter/03-transpose-padding.cl %s/w/k.cl", dir, dir);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "exec build/clgrade watch 3 %s/w/k.cl --seed 1 --html %s/w/page.html "
	         "> %s/w/watch.txt 2>&1", dir, dir, dir);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int first = 0, second = 0;
	for (int t = 0; t < 1200 && !second; t++) {
		usleep(100000);
		char *pg = in_dir("w/page.html");
		if (pg && !first && strstr(pg, "data-verdict=\"fail\"")) {
			first = 1;
			sh("cp %s/w/page.html %s/w/first.html && cp kernels/solutions/03-transpose-padding.cl "
			   "%s/w/new.cl && mv %s/w/new.cl %s/w/k.cl", dir, dir, dir, dir, dir);
		}
		second = first && pg && strstr(pg, "data-verdict=\"pass\"");
		free(pg);
	}
	kill(pid, SIGINT);
	waitpid(pid, NULL, 0);
}

/* The frame page of every page, and two control pages that fetch, so the checks can fail:
 * one without a CSP (a file and a network request), one whose CSP blocks its image (a console
 * message). */
static void frames(void)
{
	char path[600];
	snprintf(path, sizeof path, "%s/frames.html", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("<!DOCTYPE html><html><body>\n", f);
	for (int i = 0; i < NPAGES; i++)
		fprintf(f, "<iframe src=\"%s.html\"></iframe>\n", pages[i].name);
	fputs("<iframe src=\"out/index.html\"></iframe><iframe src=\"out/alice.html\"></iframe>"
	      "<iframe src=\"out/bob.html\"></iframe><iframe src=\"control.html\"></iframe>"
	      "<iframe src=\"control-csp.html\"></iframe></body></html>\n", f);
	fclose(f);
	write_file("control.html", "<!DOCTYPE html><html><body><img src=\"control.png\">"
	           "<img src=\"http://192.0.2.1/x.png\"></body></html>\n");
	write_file("control-csp.html", "<!DOCTYPE html><html><head><meta http-equiv=\"Content-"
	           "Security-Policy\" content=\"default-src 'none'\"></head><body><img src=\""
	           "control.png\"></body></html>\n");
	write_file("control.png", "not a picture");
}

/* Chromium: the frame page with its log, a DOM per page with drawings and the screenshots,
 * four at a time; then the watched page for 4 s: it must load itself again (meta refresh). */
static void browse(void)
{
	char path[600];
	frames();
	snprintf(path, sizeof path, "%s/browse.cmds", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, CHROMIUM " --dump-dom file://%s/frames.html > /dev/null 2> %s/frames.log\n", dir,
	        "-f", dir, dir);
	for (int i = 0; i < NPAGES; i++)
		if (pages[i].dump)
			fprintf(f, CHROMIUM " --dump-dom file://%s/%s.html > %s/%s.dom 2> /dev/null\n",
			        dir, pages[i].name, dir, pages[i].name, dir, pages[i].name);
	fprintf(f, CHROMIUM " --dump-dom file://%s/out/index.html > %s/index.dom 2> /dev/null\n",
	        dir, "-i", dir, dir);
	fprintf(f, CHROMIUM " --window-size=1000,2600 --screenshot=%s/hostile.png file://%s/"
	        "hostile.html > /dev/null 2>&1\n", dir, "-a", dir, dir);
	fprintf(f, CHROMIUM " --window-size=1000,900 --screenshot=%s/index.png file://%s/out/"
	        "index.html > /dev/null 2>&1\n", dir, "-b", dir, dir);
	fclose(f);
	parallel("browse.cmds", 4);
	sh("timeout -s KILL 4 setsid " CHROMIUM " --virtual-time-budget=3000 --dump-dom "
	   "file://%s/w/page.html > /dev/null 2> %s/w/reload.log", dir, "-w", dir, dir);
}

static void build_all(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chromium = system("command -v chromium > /dev/null 2>&1") == 0;
	make_hostile();
	grade_pages();
	grade_class();
	watch_page();
	if (chromium)
		browse();
}

static void remove_all(void)
{
	if (!getenv("TEST_HTML_KEEP"))
		sh("rm -rf %s", dir);
}

#define NEED_CHROMIUM() do { if (!chromium) { \
	printf("test_html: SKIPPED %s: chromium is not installed (sudo make deps)\n", __func__); \
	return; } } while (0)

/* ---- the pages as written ------------------------------------------------------------------ */

START_TEST(every_starter_and_solution_has_a_page)
{
	for (int i = 0; i < NPAGES; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "%s.html", pages[i].name);
		char *h = in_dir(rel);
		ck_assert_msg(h != NULL, "no page for %s", pages[i].kernel);
		ck_assert_msg(strstr(h, "<meta http-equiv=\"Content-Security-Policy\" content=\""
		                        "default-src 'none';") != NULL, "%s: no CSP", rel);
		static const char *fetch[] = { "<script", "<img", "<link", "<iframe", "<object",
		                               "<embed", "url(", "@import", "href=\"http", NULL };
		for (int k = 0; fetch[k]; k++)
			ck_assert_msg(!strstr(h, fetch[k]), "%s holds %s", rel, fetch[k]);
		ck_assert_msg(!strstr(h, "http-equiv=\"refresh\""), "%s reloads outside watch", rel);
		free(h);
	}
}
END_TEST

/* ---- in the browser ------------------------------------------------------------------------- */

/* Is a requested URL one of Chromium's own (its update, time and account services)? */
static int chromium_own(const char *url)
{
	static const char *own[] = { "http://clients2.google.com/", "https://clients2.google.com/",
		"https://update.googleapis.com/", "http://update.googleapis.com/",
		"https://accounts.google.com/", "https://redirector.gvt1.com/",
		/* its optimisation-guide model download: seen when the browser lives long enough,
		 * i.e. on a loaded machine */
		"https://optimizationguide-pa.googleapis.com/", NULL };
	for (int i = 0; own[i]; i++)
		if (strncmp(url, own[i], strlen(own[i])) == 0)
			return 1;
	return 0;
}

START_TEST(no_console_error_and_no_request)
{
	NEED_CHROMIUM();
	char *log = in_dir("frames.log");
	ck_assert_ptr_nonnull(log);
	int control_console = 0, control_net = 0, control_file = 0, loaded = 0;
	for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n")) {
		const char *u;
		if (strstr(l, ":CONSOLE")) {
			int control = strstr(l, "/control-csp.html") != NULL;
			control_console += control;
			ck_assert_msg(control, "a console message: %s", l);
		} else if ((u = strstr(l, "NotifyBeforeURLRequest: "))) {
			u += strlen("NotifyBeforeURLRequest: ");
			control_net += strncmp(u, "http://192.0.2.1/", 17) == 0;
			ck_assert_msg(chromium_own(u) || !strncmp(u, "http://192.0.2.1/", 17),
			              "a page requested %s", u);
		} else if ((u = strstr(l, "FileURLLoader::Start: "))) {
			u += strlen("FileURLLoader::Start: ");
			control_file += strstr(u, "/control.png") != NULL;
			loaded += strstr(u, ".html") != NULL;
			ck_assert_msg(strstr(u, ".html") || strstr(u, "/control.png"), "a page read %s", u);
		}
	}
	/* the check can fail: the control pages' fetches were all seen */
	ck_assert_msg(control_console >= 1 && control_net >= 1 && control_file == 1,
	              "the control pages' console %d / net %d / file %d", control_console,
	              control_net, control_file);
	ck_assert_int_eq(loaded, 1 + NPAGES + 3 + 2);
	free(log);
}
END_TEST

/* Every finding of the JSON report (its __local and __global sites, Oclgrind's diagnostics
 * and the prediction's warp efficiency below 100 %) is a note in the source view, at its
 * line's row. */
static void assert_findings(const char *name)
{
	char rel[64];
	snprintf(rel, sizeof rel, "%s.dom", name);
	char *dom = in_dir(rel);
	snprintf(rel, sizeof rel, "%s.json", name);
	cJSON *j = json_in(rel), *x;
	ck_assert_msg(dom && j, "%s: no DOM or JSON", name);
	cJSON *pred = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "timing"), "predicted");
	if (!cJSON_IsObject(pred))
		pred = cJSON_GetObjectItem(j, "predicted");
	int want = cJSON_GetArraySize(cJSON_GetObjectItem(j, "diagnostics")) +
	           cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "local_memory"), "sites")) +
	           cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "global_memory"), "sites")) +
	           cJSON_GetArraySize(cJSON_GetObjectItem(pred, "warp_efficiency"));
	ck_assert_msg(want > 0, "%s: nothing to show", name);
	ck_assert_int_eq(count(dom, NULL, "<span class=\"note "), want);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(j, "diagnostics")) {
		char row[64], note[64];
		int line = cJSON_GetObjectItem(x, "line")->valueint;
		snprintf(row, sizeof row, "<tr id=\"L%d\" class=\"hit\">", line);
		snprintf(note, sizeof note, "data-line=\"%d\">", line);
		const char *r = strstr(dom, row), *n = r ? strstr(r, note) : NULL;
		ck_assert_msg(r && n && n < strstr(r, "</tr>\n<tr id=\"L"), "%s: the %s at line %d is "
		              "not at its row", name, cJSON_GetStringValue(cJSON_GetObjectItem(x, "kind")), line);
	}
	ck_assert_int_eq(count(dom, NULL, "<tr class=\"crit "),
	                 cJSON_GetArraySize(cJSON_GetObjectItem(j, "criteria")));
	cJSON_Delete(j);
	free(dom);
}

START_TEST(findings_are_at_their_lines)
{
	NEED_CHROMIUM();
	for (int i = 0; i < NPAGES; i++)
		if (pages[i].dump)
			assert_findings(pages[i].name);
	char *dom = in_dir("race.dom");
	ck_assert_msg(dom && strstr(dom, "data_race: "), "the race is not on the race page");
	free(dom);
}
END_TEST

static int roles_in(const cJSON *roles, const char *role)
{
	int n = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, roles)
		n += strcmp(cJSON_GetStringValue(r), role) == 0;
	return n;
}

/* The worst site's figure of the hostile page (the 32-way unpadded transpose). */
START_TEST(worst_lane_grid_has_32_lanes_and_its_collisions_marked)
{
	NEED_CHROMIUM();
	char *dom = in_dir("hostile.dom");
	cJSON *j = json_in("hostile.json"), *s, *worst = NULL;
	ck_assert_msg(dom && j, "no hostile page or report");
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "local_memory"), "sites"))
		if (cJSON_IsTrue(cJSON_GetObjectItem(s, "worst")))
			worst = s;
	ck_assert_ptr_nonnull(worst);
	cJSON *wl = cJSON_GetObjectItem(worst, "worst_lanes");
	const char *end, *fig = after(dom, "<figure class=\"site local worst\"", "</figure>", &end);
	const char *svend, *now = after(fig, "<svg class=\"lanes now\"", "</svg>", &svend);
	ck_assert_msg(fig && now && svend < end, "no lane grid for the worst site");
	ck_assert_int_eq(count(now, svend, "<rect class=\"lane "), 32);
	int conflicts = roles_in(cJSON_GetObjectItem(wl, "roles"), "conflict");
	ck_assert_int_eq(conflicts, 32);          /* l3_unpadded: every lane on bank 0 */
	ck_assert_int_eq(count(now, svend, "<rect class=\"lane conflict\""), conflicts);
	ck_assert_int_eq(count(now, svend, "<rect class=\"bank conflict\""), 1);
	/* after the fix (padding to 33 words): the same warp, conflict-free */
	const char *fend, *fix = after(fig, "<svg class=\"lanes after-fix\"", "</svg>", &fend);
	cJSON *pd = cJSON_GetObjectItem(wl, "padded");
	ck_assert_msg(fix && fend < end && pd, "no after-fix grid");
	ck_assert_int_eq(cJSON_GetObjectItem(pd, "n_way")->valueint, 1);
	ck_assert_int_eq(count(fix, fend, "<rect class=\"lane "), 32);
	ck_assert_int_eq(count(fix, fend, "<rect class=\"lane conflict\""), 0);
	cJSON_Delete(j);
	free(dom);
}
END_TEST

/* Broadcast lanes (lesson 2's solution: a warp reads one word of the A tile) and lanes that
 * take no part (lesson 5's solution: the last steps of the tree) look unlike the others. */
START_TEST(broadcast_and_inactive_lanes_are_distinct)
{
	NEED_CHROMIUM();
	char *k2 = in_dir("k2.dom"), *k5 = in_dir("k5.dom");
	ck_assert_msg(k2 && k5, "no DOM of lesson 2's or 5's solution");
	ck_assert_int_ge(count(k2, NULL, "<rect class=\"lane broadcast\""), 32);
	ck_assert_int_eq(count(k2, NULL, "<rect class=\"lane conflict\""), 0);
	const char *end, *inact = after(k5, "<rect class=\"lane inactive\"", ">", &end);
	ck_assert_msg(inact && strstr(inact, "stroke-dasharray") < end, "no dashed inactive lane");
	ck_assert_int_ge(count(k5, NULL, "<rect class=\"lane inactive\""), 31);
	free(k2);
	free(k5);
}
END_TEST

/* Lesson 3's starter: the store walks down columns, 32 sectors where 4 would do. */
START_TEST(global_request_drawn_as_sectors_against_the_ideal)
{
	NEED_CHROMIUM();
	char *dom = in_dir("s3.dom");
	cJSON *j = json_in("s3.json"), *s;
	ck_assert_msg(dom && j, "no DOM or JSON of starter 3");
	const char *at = dom;
	int bad = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "global_memory"), "sites")) {
		cJSON *wr = cJSON_GetObjectItem(s, "worst_request");
		int unc = cJSON_IsTrue(cJSON_GetObjectItem(s, "uncoalesced"));
		const char *end, *fig = after(at, unc ? "<figure class=\"site global" :  /* coalesced: */
		                              "<details class=\"site global", unc ? "</figure>" :  /* folded */
		                              "</details>", &end);
		ck_assert_msg(fig && wr, "a global site without its drawing");
		bad += unc;
		ck_assert_int_eq(strstr(fig, "class=\"site global uncoalesced\"") == strchr(fig, 'c'), unc);
		ck_assert_int_eq(count(fig, end, "class=\"sector touched\""),
		                 cJSON_GetObjectItem(wr, "sectors")->valueint);
		ck_assert_int_eq(count(fig, end, "class=\"sector touched\""),
		                 cJSON_GetArraySize(cJSON_GetObjectItem(wr, "touched")));
		ck_assert_int_eq(count(fig, end, "class=\"sector ideal\""),
		                 cJSON_GetObjectItem(wr, "ideal")->valueint);
		at = end;
	}
	ck_assert_int_eq(bad, 1);
	cJSON_Delete(j);
	free(dom);
}
END_TEST

START_TEST(sweep_has_one_point_per_tile_and_occupancy_bars)
{
	NEED_CHROMIUM();
	char *dom = in_dir("k4.dom");
	cJSON *j = json_in("k4.json"), *t;
	ck_assert_msg(dom && j, "no DOM or JSON of lesson 4's solution");
	int tiles = cJSON_GetArraySize(cJSON_GetObjectItem(j, "tiles")), timed = 0;
	ck_assert_int_ge(tiles, 3);
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tiles"))
		timed += cJSON_IsNumber(cJSON_GetObjectItem(t, "kernel_ms"));
	const char *end, *p = after(dom, "<g class=\"panel sweep-local\"", "</g>", &end);
	ck_assert_int_eq(count(p, end, "<circle class=\"pt "), tiles);
	p = after(dom, "<g class=\"panel sweep-ms\"", "</g>", &end);
	ck_assert_int_eq(count(p, end, "<circle class=\"pt "), timed);
	p = after(dom, "<g class=\"panel sweep-occ\"", "</g>", &end);
	ck_assert_int_eq(count(p, end, "<circle class=\"pt "), 2 * tiles);   /* sm_90 and sm_86 */
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tiles")) {
		char pt[64];
		snprintf(pt, sizeof pt, "data-tile=\"%d\"", cJSON_GetObjectItem(t, "tile")->valueint);
		ck_assert_int_eq(count(p, end, pt), 2);
	}
	/* occupancy: one bar per profile, with its limiter */
	cJSON *occ = cJSON_GetObjectItem(j, "occupancy"), *o;
	ck_assert_int_eq(count(dom, NULL, "<g class=\"occ\""), cJSON_GetArraySize(occ));
	cJSON_ArrayForEach(o, occ) {
		char bar[200];
		snprintf(bar, sizeof bar, "<g class=\"occ\" data-profile=\"%s\">",
		         cJSON_GetStringValue(cJSON_GetObjectItem(o, "profile")));
		const char *g = after(dom, bar, "</g>", &end);
		ck_assert_msg(g && strstr(g, cJSON_GetStringValue(cJSON_GetObjectItem(o, "limiter"))) < end,
		              "no bar or limiter for %s", bar);
	}
	cJSON_Delete(j);
	free(dom);
}
END_TEST

/* The predicted GPU time: its line, and one bar per term for the kernel and the baseline,
 * the limiting term (the JSON's own) marked, and its table. */
START_TEST(predicted_time_is_drawn_with_its_limiter)
{
	NEED_CHROMIUM();
	char *dom = in_dir("k5.dom");
	cJSON *j = json_in("k5.json");
	ck_assert_msg(dom && j, "no DOM or JSON of lesson 5's solution");
	cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "timing"), "predicted");
	ck_assert_msg(cJSON_IsObject(p), "lesson 5's solution has no prediction");
	ck_assert_ptr_nonnull(strstr(dom, "id=\"predicted-line\""));
	ck_assert_ptr_nonnull(strstr(dom, cJSON_GetStringValue(cJSON_GetObjectItem(p, "limiter_text"))));
	ck_assert_int_eq(count(dom, NULL, "<g class=\"term yours\""), 6);
	ck_assert_int_eq(count(dom, NULL, "<g class=\"term baseline\""), 6);
	ck_assert_ptr_nonnull(strstr(dom, "<table class=\"predicted-terms\">"));
	cJSON_Delete(j);
	free(dom);
}
END_TEST

/* The hostile file name and source come out as text: no element of theirs in the DOM. */
START_TEST(hostile_name_and_source_add_no_markup)
{
	NEED_CHROMIUM();
	char *dom = in_dir("hostile.dom"), *idx = in_dir("index.dom");
	ck_assert_msg(dom && idx, "no hostile page or class index");
	ck_assert_msg(!strstr(dom, "<script") && !strstr(dom, "<img") && !strstr(dom, "<b>.cl"),
	              "the hostile page holds the kernel's markup");
	ck_assert_ptr_nonnull(strstr(dom, "&lt;b&gt;.cl"));
	ck_assert_ptr_nonnull(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	ck_assert_ptr_nonnull(strstr(dom, "&lt;img src=x onerror=alert(1)&gt;"));
	ck_assert_ptr_nonnull(strstr(dom, "\\x1b[2J"));   /* the escape, made visible (esc.h) */
	ck_assert_msg(!strstr(dom, "\033"), "a control character reached the page");
	/* the source view: one row per line, the markup line among them */
	ck_assert_int_eq(count(dom, NULL, "<td class=\"ln\">"), 17);
	ck_assert_msg(!strstr(idx, "<script") && !strstr(idx, "<img"), "the index holds markup");
	free(dom);
	free(idx);
}
END_TEST

START_TEST(class_index_adds_up_and_links_every_page)
{
	cJSON *cj = json_in("out/class.json"), *b, *r;
	char *batch = in_dir("batch.txt");
	ck_assert_msg(cj != NULL, "no class.json; the batch said:\n%s", batch ? batch : "");
	int sum = 0, students = cJSON_GetObjectItem(cj, "students")->valueint;
	ck_assert_int_eq(students, 3);
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(cj, "histogram"))
		sum += cJSON_GetObjectItem(b, "count")->valueint;
	ck_assert_int_eq(sum + cJSON_GetObjectItem(cj, "errors")->valueint, students);
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(cj, "rows")) {
		const char *pg = cJSON_GetStringValue(cJSON_GetObjectItem(r, "page"));
		int error = !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")), "error");
		ck_assert_int_eq(pg == NULL, error);
		char rel[300];
		snprintf(rel, sizeof rel, "out/%s", pg ? pg : "");
		char *h = pg ? in_dir(rel) : NULL;
		ck_assert_msg(!pg || h, "%s is linked but missing", rel);
		free(h);
	}
	char *gs = in_dir("out/gradescope/bob.json");
	ck_assert_msg(gs && strstr(gs, "Findings on your source:") && strstr(gs, "-way bank conflict"),
	              "bob's Gradescope output lacks his page's findings");
	free(gs);
	free(batch);
	NEED_CHROMIUM();
	char *dom = in_dir("index.dom");
	ck_assert_ptr_nonnull(dom);
	int bins = 0;
	for (const char *p = dom; (p = strstr(p, "<g class=\"bin\" data-count=\"")); p++)
		bins += atoi(p + strlen("<g class=\"bin\" data-count=\""));
	ck_assert_int_eq(bins, students);
	ck_assert_int_eq(count(dom, NULL, "<tr class=\"student\">"), students);
	ck_assert_int_eq(count(dom, NULL, "<a href=\""), 2 + 1);   /* 2 students, 1 example */
	cJSON_Delete(cj);
	free(dom);
}
END_TEST

START_TEST(watched_page_is_rewritten_and_reloads)
{
	char *first = in_dir("w/first.html"), *last = in_dir("w/page.html"), *said = in_dir("w/watch.txt");
	ck_assert_msg(first && last, "clgrade watch wrote no page; it said:\n%s", said ? said : "");
	ck_assert_ptr_nonnull(strstr(first, "data-verdict=\"fail\""));
	ck_assert_msg(strstr(last, "data-verdict=\"pass\""), "the save did not rewrite the page");
	ck_assert_ptr_nonnull(strstr(last, "<meta http-equiv=\"refresh\" content=\"2\">"));
	ck_assert_ptr_nonnull(strstr(last, "Content-Security-Policy"));
	free(first);
	free(last);
	free(said);
	NEED_CHROMIUM();
	char *log = in_dir("w/reload.log");
	ck_assert_ptr_nonnull(log);
	char want[700];
	snprintf(want, sizeof want, "FileURLLoader::Start: file://%s/w/page.html", dir);
	ck_assert_int_ge(count(log, NULL, want), 2);
	free(log);
}
END_TEST

#ifdef HAVE_PNG
/* Pixels of a PNG that are not near white, and of those, near colour rgb (within 40 each). */
static int png_count(const char *rel, unsigned rgb, int *near, int *total)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	png_image im = { .version = PNG_IMAGE_VERSION };
	if (!png_image_begin_read_from_file(&im, path))
		return -1;
	im.format = PNG_FORMAT_RGB;
	unsigned char *px = malloc(PNG_IMAGE_SIZE(im));
	if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
		free(px);
		return -1;
	}
	int ink = 0;
	*near = 0, *total = (int)(im.width * im.height);
	for (int i = 0; i < *total; i++) {
		unsigned char *p = px + 3 * i;
		ink += p[0] < 230 || p[1] < 230 || p[2] < 230;
		*near += abs(p[0] - (int)(rgb >> 16)) < 40 && abs(p[1] - (int)(rgb >> 8 & 255)) < 40 &&
		         abs(p[2] - (int)(rgb & 255)) < 40;
	}
	free(px);
	return ink;
}
#endif

START_TEST(screenshots_are_not_blank)
{
	NEED_CHROMIUM();
#ifndef HAVE_PNG
	printf("test_html: SKIPPED %s: libpng is not installed (sudo make deps)\n", __func__);
#else
	int near, total;
	int ink = png_count("hostile.png", 0xE69F00, &near, &total);   /* the conflict orange */
	ck_assert_msg(ink > 0, "no screenshot of the hostile page");
	ck_assert_msg(ink > total / 50 && near > 32 * 100, "the page looks blank: %d of %d pixels "
	              "inked, %d conflict-orange", ink, total, near);
	ink = png_count("index.png", 0x0072B2, &near, &total);          /* the histogram's blue */
	ck_assert_msg(ink > total / 50 && near > 1000, "the class index looks blank: %d of %d "
	              "pixels inked, %d histogram-blue", ink, total, near);
#endif
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("pages");
	tcase_add_unchecked_fixture(tc, build_all, remove_all);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tcase_add_test(tc, every_starter_and_solution_has_a_page);
	tcase_add_test(tc, no_console_error_and_no_request);
	tcase_add_test(tc, findings_are_at_their_lines);
	tcase_add_test(tc, worst_lane_grid_has_32_lanes_and_its_collisions_marked);
	tcase_add_test(tc, broadcast_and_inactive_lanes_are_distinct);
	tcase_add_test(tc, global_request_drawn_as_sectors_against_the_ideal);
	tcase_add_test(tc, sweep_has_one_point_per_tile_and_occupancy_bars);
	tcase_add_test(tc, predicted_time_is_drawn_with_its_limiter);
	tcase_add_test(tc, hostile_name_and_source_add_no_markup);
	tcase_add_test(tc, class_index_adds_up_and_links_every_page);
	tcase_add_test(tc, watched_page_is_rewritten_and_reloads);
	tcase_add_test(tc, screenshots_are_not_blank);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
