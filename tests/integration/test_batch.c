/* test_batch.c — integration tests of `clgrade batch` as an instructor meets it: a folder
 * holding every kind of odd entry (each gets exactly one row), more submissions than any fixed
 * table, clashing safe names, and parallel grading (-j) that must give the same CSV as -j 1.
 * Runs the real build/clgrade on real PoCL and Oclgrind as a subprocess. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "itest.h"

#define SOL3 "kernels/solutions/03-transpose-padding.cl"
#define FX   "tests/fixtures/"

static int sh(const char *fmt, const char *dir)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, fmt, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *file_in(const char *dir, const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	return itest_slurp(path);
}

/* The CSV line of a student, without its newline (caller frees), or NULL. */
static char *csv_row(const char *csv, const char *student)
{
	char key[300];
	snprintf(key, sizeof key, "\n\"%s\",", student);
	const char *p = strstr(csv, key);
	return p ? strndup(p + 1, strcspn(p + 1, "\n")) : NULL;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

/* A row of student with this path, verdict and (for error rows) a reason containing why. */
static void assert_row(const char *csv, const char *student, const char *path, const char *verdict,
                       const char *why)
{
	char *row = csv_row(csv, student), want[600];
	ck_assert_msg(row != NULL, "no row for %s in\n%s", student, csv);
	snprintf(want, sizeof want, "\"%s\",\"%s\",%s,", student, path, verdict);
	ck_assert_msg(strncmp(row, want, strlen(want)) == 0, "row %s, wanted %s...", row, want);
	ck_assert_msg(!why || strstr(row, why), "row %s does not say %s", row, why);
	free(row);
}

START_TEST(every_odd_entry_gets_one_row)
{
	char dir[] = "/tmp/clgrade-tb-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh("set -e; mkdir %s/in; cd %s/in; S=$OLDPWD/" SOL3 "; "
	   "cp $S alice.cl; cp $S 'bob smith.cl'; cp $S bob_smith.cl; cp $S bob_smith-2.cl; "
	   "cp $S ZED.CL; cp $S bob.cl.txt; cp $S ..dots.cl; cp $S .hidden.cl; mkdir .hdir; "
	   "cp $S .hdir/k.cl; ln -s /etc/passwd link.cl; ln -s $S goodlink.cl; "
	   "head -c 300000 /dev/zero | tr '\\0' a > big.cl; printf 'k\\0x' > bin.cl; "
	   "mkdir multi named empty lonely; cp $S multi/a.cl; cp $S multi/b.cl; cp $S named/x.cl; "
	   "cp $S named/03-transpose-padding.CL; ln -s /etc/passwd empty/k.cl; cp $S lonely/mine.Cl; "
	   "mkfifo fifo.cl; cp $S grades.cl; cp $S \"$(printf 'nl\\nx.cl')\"; "
	   "cp $S \"$(printf 'esc\\033[31m.cl')\"", dir), 0);
	char in[64];
	snprintf(in, sizeof in, "%s/in", dir);
	int entries = count_entries(in);
	ck_assert_int_eq(entries, 21);
	/* error rows make the exit 2: the instructor must look */
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/out --no-analysis -j 2 > %s/log 2>&1",
	                    dir), 2);
	char *csv = file_in(dir, "out/grades.csv");
	ck_assert_ptr_nonnull(csv);
	ck_assert_int_eq(count_lines(csv), entries + 1);           /* a header and one row each */
	ck_assert_ptr_nonnull(strstr(csv, "student,path,verdict,"));
	assert_row(csv, "alice", "alice.cl", "pass", NULL);
	assert_row(csv, "ZED", "ZED.CL", "pass", NULL);            /* .cl in any case */
	assert_row(csv, "lonely", "lonely/mine.Cl", "pass", NULL);
	assert_row(csv, "named", "named/03-transpose-padding.CL", "pass", NULL);
	/* a safe name never takes another file's row */
	assert_row(csv, "bob_smith", "bob_smith.cl", "pass", NULL);
	assert_row(csv, "bob_smith-2", "bob_smith-2.cl", "pass", NULL);
	assert_row(csv, "bob_smith-3", "bob smith.cl", "pass", NULL);
	assert_row(csv, "grades-2", "grades.cl", "pass", NULL);
	assert_row(csv, "bob.cl.txt", "bob.cl.txt", "error", "not a .cl file");
	assert_row(csv, "_.dots", "..dots.cl", "error", "hidden");
	assert_row(csv, "_hidden", ".hidden.cl", "error", "hidden");
	assert_row(csv, "_hdir", ".hdir", "error", "hidden");
	assert_row(csv, "link", "link.cl", "error", "symbolic link");
	assert_row(csv, "goodlink", "goodlink.cl", "error", "symbolic link");
	assert_row(csv, "big", "big.cl", "error", "too large");
	assert_row(csv, "bin", "bin.cl", "error", "not text");
	assert_row(csv, "multi", "multi/", "error", "2 candidate .cl files (a.cl, b.cl)");
	assert_row(csv, "empty", "empty/", "error", "symbolic links are not followed");
	assert_row(csv, "fifo", "fifo.cl", "error", "not a regular file");
	assert_row(csv, "nl_x", "nl\\nx.cl", "pass", NULL);        /* no control byte in the CSV (esc.h) */
	assert_row(csv, "esc__31m", "esc\\x1b[31m.cl", "pass", NULL);
	ck_assert_msg(strstr(csv, "root:") == NULL, "leaked /etc/passwd");
	free(csv);
	/* grades.json: one row per entry, the original path beside the safe name */
	char *js = file_in(dir, "out/grades.json");
	cJSON *all = cJSON_Parse(js), *row;
	ck_assert_int_eq(cJSON_GetArraySize(all), entries);
	int seen = 0;
	cJSON_ArrayForEach(row, all)
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(row, "student")), "bob_smith-3") == 0)
			seen = strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(row, "path")), "bob smith.cl") == 0;
	ck_assert(seen);
	cJSON_Delete(all);
	free(js);
	char *rep = file_in(dir, "out/nl_x.json");
	cJSON *r = cJSON_Parse(rep);
	/* shown escaped as one line (esc.h), as in the CSV */
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "path")), "nl\\nx.cl");
	cJSON_Delete(r);
	free(rep);
	char *log = file_in(dir, "log");
	ck_assert_msg(strchr(log, '\033') == NULL, "an escape byte reached the terminal:\n%s", log);
	free(log);
	sh("rm -rf %s", dir);
}
END_TEST

/* No fixed table: 4100 entries give 4100 rows (4096 used to be the limit, with exit 0).  The
 * output folder inside DIR is the batch's own, not an entry.  -j 32: each entry is an error
 * row of its own worker process, and the batch looks for finished workers every 50 ms, so at
 * the default -j (the cores: 2) this took 100 s on a 2-core machine; the count does not
 * depend on -j. */
START_TEST(no_limit_on_the_count)
{
	char dir[] = "/tmp/clgrade-tb-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh("mkdir %s/in && cd %s/in && seq -w 1 4100 | sed 's/$/.txt/' | "
	                    "xargs touch", dir), 0);
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/in/results -j 32 > %s/log 2>&1", dir),
	                 2);
	char *csv = file_in(dir, "in/results/grades.csv");
	ck_assert_ptr_nonnull(csv);
	ck_assert_int_eq(count_lines(csv), 4101);
	ck_assert_ptr_null(strstr(csv, "\"results"));
	char *row = csv_row(csv, "4100.txt");
	ck_assert_msg(row && strstr(row, ",error,"), "%s", row ? row : "no row 4100.txt");
	free(row);
	free(csv);
	sh("rm -rf %s", dir);
}
END_TEST

/* -j 2 gives the same CSV and JSON tables as -j 1 on a mixed class, with the Oclgrind analysis;
 * the end of the run is a class summary; a rerun keeps every report. */
START_TEST(parallel_equals_serial)
{
	char dir[] = "/tmp/clgrade-tb-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh("set -e; mkdir %s/in; cd %s/in; R=$OLDPWD; "
	   "cp $R/" SOL3 " alice.cl; cp $R/" FX "l3_unpadded.cl bob.cl; "
	   "cp $R/kernels/starter/03-transpose-padding.cl carol.cl; "
	   "cp $R/" FX "l3_evade_analysis.cl eve.cl; cp $R/" FX "l1_include_passwd.cl fay.cl; "
	   "mkdir hal; cp $R/" SOL3 " hal/a.cl; "
	   "cp $R/" SOL3 " hal/b.cl; echo notes > ivy.txt", dir), 0);
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/j1 -j 1 > %s/log1 2>&1", dir), 2);
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/j2 -j 2 > %s/log2 2>&1", dir), 2);
	char *c1 = file_in(dir, "j1/grades.csv"), *c2 = file_in(dir, "j2/grades.csv");
	ck_assert_ptr_nonnull(c1);
	ck_assert_ptr_nonnull(c2);
	ck_assert_int_eq(count_lines(c1), 8);
	ck_assert_msg(strcmp(c1, c2) == 0, "-j 1:\n%s\n-j 2:\n%s", c1, c2);
	assert_row(c1, "alice", "alice.cl", "pass", NULL);
	assert_row(c1, "bob", "bob.cl", "fail", "conflict_free");
	assert_row(c1, "eve", "eve.cl", "fail", NULL);
	assert_row(c1, "hal", "hal/", "error", "candidate");
	free(c1);
	free(c2);
	c1 = file_in(dir, "j1/grades.json"), c2 = file_in(dir, "j2/grades.json");
	ck_assert_msg(strcmp(c1, c2) == 0, "grades.json differ:\n%s\n%s", c1, c2);
	free(c1);
	free(c2);
	/* the class summary: how many passed, and per criterion how many failed */
	char *log = file_in(dir, "log2");
	ck_assert_msg(strstr(log, "class summary: 1 of 7 passed, 4 failed, 2 errors"), "%s", log);
	ck_assert_msg(strstr(log, "conflict_free 2,") && strstr(log, "builds 1,"), "%s", log);
	ck_assert_msg(strstr(log, "2 at a time"), "%s", log);
	free(log);
	/* resumed: nothing is graded again but the error rows */
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/j2 -j 2 > %s/log3 2>&1", dir), 2);
	log = file_in(dir, "log3");
	ck_assert_msg(strstr(log, "7 entries: 2 graded, 5 unchanged (kept), 2 errors"), "%s", log);
	free(log);
	sh("rm -rf %s", dir);
}
END_TEST

/* On a terminal a progress line (done/total, failures, elapsed, ETA) is redrawn in place; in a
 * pipe there are only plain lines.  `script` gives the batch a terminal. */
START_TEST(progress_line_only_on_a_terminal)
{
	char dir[] = "/tmp/clgrade-tb-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh("mkdir %s/in && touch %s/in/a.txt %s/in/b.txt %s/in/c.txt", dir), 0);
	ck_assert_int_eq(sh("script -qec 'build/clgrade batch 3 %s/in --out %s/out' %s/tty "
	                    "> /dev/null 2>&1", dir), 2);
	ck_assert_int_eq(sh("build/clgrade batch 3 %s/in --out %s/out > %s/pipe 2>&1", dir), 2);
	char *tty = file_in(dir, "tty"), *pipe = file_in(dir, "pipe");
	ck_assert_ptr_nonnull(tty);
	ck_assert_msg(strstr(tty, "\r\033[K[3/3] 0 failed, 3 errors, ") && strstr(tty, "ETA"),
	              "no progress line on a terminal:\n%s", tty);
	ck_assert_msg(strstr(pipe, "[3/3] c.txt") && !strchr(pipe, '\033') && !strstr(pipe, "ETA"),
	              "%s", pipe);
	free(tty);
	free(pipe);
	sh("rm -rf %s", dir);
}
END_TEST

/* The output folder: links planted in it are replaced, never written through; a folder other
 * users can write in is refused (they could plant links or edit the grades). */
START_TEST(output_folder_cannot_be_turned_against_the_grader)
{
	char dir[] = "/tmp/clgrade-batch-out-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh("cd %s && mkdir subs out && cp $OLDPWD/kernels/starter/01-naive-matmul.cl "
	                    "subs/bob.cl && echo INSTRUCTOR > victim && ln -s %s/victim "
	                    "out/grades.csv.tmp && ln -s %s/victim out/bob.json.tmp && "
	                    "$OLDPWD/build/clgrade batch 1 subs --out out --no-analysis > log 2>&1", dir),
	                 0);
	char *victim = file_in(dir, "victim"), *csv = file_in(dir, "out/grades.csv");
	ck_assert_str_eq(victim, "INSTRUCTOR\n");
	ck_assert_msg(csv && strstr(csv, "\"bob\""), "no row for bob");
	free(victim);
	free(csv);
	/* a folder group or others can write in */
	ck_assert_int_eq(sh("cd %s && chmod 0777 out && $OLDPWD/build/clgrade batch 1 subs --out out "
	                    "--no-analysis > log 2>&1", dir), 2);
	char *log = file_in(dir, "log");
	ck_assert_msg(log && strstr(log, "other users can write in it"), "%s", log ? log : "");
	free(log);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("batch");
	TCase *rows = tcase_create("rows");
	tcase_set_timeout(rows, 180);
	suite_add_tcase(s, rows);
	tcase_add_test(rows, every_odd_entry_gets_one_row);
	tcase_add_test(rows, no_limit_on_the_count);
	tcase_add_test(rows, parallel_equals_serial);
	tcase_add_test(rows, progress_line_only_on_a_terminal);
	tcase_add_test(rows, output_folder_cannot_be_turned_against_the_grader);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
