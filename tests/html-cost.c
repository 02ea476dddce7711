/* html-cost.c — what writing the HTML page costs by itself: grade one kernel (clgrade check
 * LESSON KERNEL --seed 1), then render its page 200 times to /dev/null and print the median,
 * minimum and maximum time of one html_page().  Built by `make build/html-cost`; run by
 * `make bench HTML=1` (tests/bench.sh) for every lesson's solution. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "html.h"
#include "lesson.h"

enum { RENDERS = 200 };

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const lesson *l = argc == 3 ? lesson_find(argv[1]) : NULL;
	if (!l) {
		fprintf(stderr, "usage: html-cost LESSON KERNEL.cl\n");
		return 2;
	}
	check_opts o = { .l = l, .kernel = argv[2], .seed = 1, .timeout_s = 20,
	                 .mem_bytes = (size_t)8192 << 20, .profile = "nvidia", .analysis = 1 };
	check_report rep;
	check_lesson(&o, &rep);
	static double t[RENDERS];
	html_opts ho = { 0 };
	for (int i = 0; i < RENDERS; i++) {
		FILE *f = fopen("/dev/null", "w");
		double a = now();
		html_page(f, &rep, &ho);
		t[i] = now() - a;
		fclose(f);
	}
	qsort(t, RENDERS, sizeof *t, by_value);
	printf("%-24s html_page %.2f ms median (min %.2f, max %.2f) of %d renders\n", l->slug,
	       t[RENDERS / 2] * 1e3, t[0] * 1e3, t[RENDERS - 1] * 1e3, RENDERS);
	check_free(&rep);
	return 0;
}
