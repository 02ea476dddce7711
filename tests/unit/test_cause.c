/* test_cause.c — the diagnosis over every criterion's evidence (cause.c), on reports built by
 * hand: which failure is the cause, which are its symptoms, and what they say. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"

static check_report rep;
static check_opts opts;

/* A report of lesson `n` with every criterion of the lesson passing. */
static void report_of(const char *n)
{
	memset(&rep, 0, sizeof rep);
	memset(&opts, 0, sizeof opts);
	opts.l = lesson_find(n);
	opts.kernel = "k.cl";
	rep.opts = opts;
	for (int id = 0; id < CRIT_COUNT; id++)
		if (opts.l->criteria & CRIT_BIT(id)) {
			check_crit *c = &rep.crit[rep.ncrit++];
			c->id = (lesson_crit)id;
			c->status = CRIT_PASS;
		}
	rep.an.state = ANALYSIS_DONE;
	rep.an.summary = 1;
}

static check_crit *crit(lesson_crit id)
{
	for (int i = 0; i < rep.ncrit; i++)
		if (rep.crit[i].id == id)
			return &rep.crit[i];
	return NULL;
}

static void set_fail(lesson_crit id, const char *msg, const char *try_)
{
	check_crit *c = crit(id);
	c->status = CRIT_FAIL;
	snprintf(c->msg, sizeof c->msg, "%s", msg);
	snprintf(c->try_, sizeof c->try_, "%s", try_);
}

static void finding(check_find_kind k, int line)
{
	check_finding *f = &rep.an.find[k][rep.an.nfind[k]++];
	f->line = line;
}

START_TEST(skipped_barrier_explains_wrong_results_and_writes)
{
	report_of("2");
	finding(FIND_BARRIER_DIVERGENCE, 17);
	finding(FIND_UNINITIALIZED, 15);   /* what the skipped barrier leaves */
	set_fail(CRIT_CORRECT, "wrong at 17x17 (seed 1): NaN -- right at 256x256, a multiple of TILE",
	     "guard every global load and store");
	set_fail(CRIT_MEMORY_SAFE, "C: 30 floats written past the end at 1x1", "guard every access");
	set_fail(CRIT_RACE_FREE, "k.cl:17:9: barrier divergence", "every work-item must reach it");
	cause_apply(&opts, &rep);
	ck_assert_int_eq(rep.cause.kind, CAUSE_DIVERGENCE);
	ck_assert_int_eq(rep.cause.crit, CRIT_RACE_FREE);
	ck_assert_int_eq(rep.cause.nexplains, 2);
	ck_assert_str_eq(check_first_failure(&rep), "race_free");
	ck_assert(crit(CRIT_CORRECT)->caused);
	ck_assert(crit(CRIT_MEMORY_SAFE)->caused);
	ck_assert(!crit(CRIT_RACE_FREE)->caused);
	ck_assert_ptr_nonnull(strstr(crit(CRIT_CORRECT)->msg, "a symptom of the barrier on line 17"));
	/* the size pattern read into timing-dependent results goes */
	ck_assert_ptr_null(strstr(crit(CRIT_CORRECT)->msg, "a multiple of TILE"));
	ck_assert_ptr_nonnull(strstr(crit(CRIT_MEMORY_SAFE)->try_, "every work-item must reach it"));
}
END_TEST

START_TEST(out_of_bounds_keeps_the_size_reading)
{
	report_of("3");
	finding(FIND_OUT_OF_BOUNDS, 11);
	set_fail(CRIT_CORRECT, "wrong at 100x37 -- right at 32x96, a multiple of TILE=32",
	     "guard every global load and store with the real size");
	set_fail(CRIT_MEMORY_SAFE, "k.cl:11:5: Invalid read", "check the index");
	cause_apply(&opts, &rep);
	ck_assert_int_eq(rep.cause.kind, CAUSE_OUT_OF_BOUNDS);
	ck_assert_str_eq(check_first_failure(&rep), "memory_safe");
	ck_assert_ptr_nonnull(strstr(crit(CRIT_CORRECT)->msg, "a multiple of TILE=32"));
	ck_assert_ptr_nonnull(strstr(crit(CRIT_CORRECT)->try_, "with the real size"));
}
END_TEST

START_TEST(edge_stores_onto_another_element_are_the_bounds)
{
	/* work-items past the edge store onto the next row: a __global race, and its fix is the
	 * guard, never "make the store's index different" */
	report_of("1");
	finding(FIND_OUT_OF_BOUNDS, 11);
	finding(FIND_DATA_RACE, 12);
	rep.an.races_global = 1;
	set_fail(CRIT_MEMORY_SAFE, "k.cl:11: Invalid read of A", "guard every access (if (row < N))");
	set_fail(CRIT_RACE_FREE, "two work-items write one element of C", "make the store's index "
	     "different for every work-item");
	cause_apply(&opts, &rep);
	ck_assert_int_eq(rep.cause.crit, CRIT_MEMORY_SAFE);
	ck_assert(crit(CRIT_RACE_FREE)->caused);
	ck_assert_ptr_null(strstr(crit(CRIT_RACE_FREE)->try_, "make the store's index"));
	ck_assert_ptr_nonnull(strstr(crit(CRIT_RACE_FREE)->try_, "if (row < N)"));
}
END_TEST

START_TEST(edge_uninitialised_read_explains_only_edge_results)
{
	/* lesson 3: an unwritten tile element read by edge work-items explains a result that is
	 * right at 64x64 (no edge) and wrong at 100x37, never one wrong at 64x64 too */
	report_of("3");
	finding(FIND_UNINITIALIZED, 32);
	set_fail(CRIT_MEMORY_SAFE, "k.cl:32: Uninitialized value", "check");
	set_fail(CRIT_CORRECT, "wrong at 100x37", "try");
	rep.child.nruns = 2;
	rep.child.runs[0] = (check_run){ .rows = 100, .cols = 37, .tile = 32, .done = 1 };
	rep.child.runs[1] = (check_run){ .rows = 64, .cols = 64, .tile = 32, .done = 1 };
	cause_apply(&opts, &rep);
	ck_assert(!crit(CRIT_CORRECT)->caused);              /* wrong at 64x64 as well */
	report_of("3");
	finding(FIND_UNINITIALIZED, 32);
	set_fail(CRIT_MEMORY_SAFE, "k.cl:32: Uninitialized value", "check");
	set_fail(CRIT_CORRECT, "wrong at 100x37", "try");
	rep.child.nruns = 2;
	rep.child.runs[0] = (check_run){ .rows = 100, .cols = 37, .tile = 32, .done = 1 };
	rep.child.runs[1] = (check_run){ .rows = 64, .cols = 64, .tile = 32, .done = 1 };
	rep.child.runs[1].cmp.passed = 1;
	cause_apply(&opts, &rep);
	ck_assert(crit(CRIT_CORRECT)->caused);               /* right where no edge exists */
}
END_TEST

START_TEST(no_cause_without_a_symptom)
{
	/* a race that explains nothing else: reported as it is, first failure unchanged */
	report_of("5");
	finding(FIND_DATA_RACE, 21);
	set_fail(CRIT_RACE_FREE, "k.cl:21: race", "barrier");
	set_fail(CRIT_CONFLICT_FREE, "8-way", "pad");
	cause_apply(&opts, &rep);
	ck_assert_int_eq(rep.cause.kind, CAUSE_NONE);
	ck_assert_str_eq(check_first_failure(&rep), "race_free");
	ck_assert(!crit(CRIT_CONFLICT_FREE)->caused);
}
END_TEST

START_TEST(a_finding_whose_criterion_passes_is_no_cause)
{
	report_of("5");
	finding(FIND_OUT_OF_BOUNDS, 9);         /* memory_safe still passes: not this report's */
	set_fail(CRIT_CORRECT, "wrong at n=255", "try");
	cause_apply(&opts, &rep);
	ck_assert_int_eq(rep.cause.kind, CAUSE_NONE);
	ck_assert_str_eq(check_first_failure(&rep), "correct");
	ck_assert_ptr_null(check_first_failure(&(check_report){ 0 }));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cause");
	TCase *t = tcase_create("diagnosis");
	tcase_add_test(t, skipped_barrier_explains_wrong_results_and_writes);
	tcase_add_test(t, out_of_bounds_keeps_the_size_reading);
	tcase_add_test(t, edge_stores_onto_another_element_are_the_bounds);
	tcase_add_test(t, no_cause_without_a_symptom);
	tcase_add_test(t, edge_uninitialised_read_explains_only_edge_results);
	tcase_add_test(t, a_finding_whose_criterion_passes_is_no_cause);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
