/* test_guard.c — Check unit tests for the guard zones around device buffers (grader/guard.c).
 *
 * A buffer is [GUARD_FLOATS guard | payload | GUARD_FLOATS guard]; each test writes where a
 * buggy kernel would and checks the exact counts, farthest distances and the sentence. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "guard.h"

enum { PAYLOAD = 100 };

static float *whole;

static void setup(void)
{
	whole = malloc((PAYLOAD + 2 * GUARD_FLOATS) * sizeof *whole);
	ck_assert_ptr_nonnull(whole);
	for (size_t i = 0; i < PAYLOAD + 2 * GUARD_FLOATS; i++)
		whole[i] = 1.5f;
	guard_fill(whole, PAYLOAD);
}

static void teardown(void)
{
	free(whole);
	whole = NULL;
}

static uint32_t bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

/* element k of the payload, or k < 0 before it, k >= PAYLOAD after it */
static float *at(long k)
{
	return &whole[GUARD_FLOATS + k];
}

START_TEST(test_fill)
{
	for (size_t i = 0; i < GUARD_FLOATS; i++) {
		ck_assert_uint_eq(bits(whole[i]), GUARD_BITS);
		ck_assert_uint_eq(bits(whole[GUARD_FLOATS + PAYLOAD + i]), GUARD_BITS);
	}
	for (long k = 0; k < PAYLOAD; k++)
		ck_assert(*at(k) == 1.5f);          /* the payload is not touched */
	ck_assert(isnan(whole[0]));              /* an out-of-bounds read shows up as NaN */
	ck_assert_uint_eq(GUARD_FLOATS * sizeof(float) % 4096, 0);
}
END_TEST

START_TEST(test_intact)
{
	guard_violation v;
	memset(&v, 0xff, sizeof v);
	*at(0) = 7.0f;                   /* writes inside the payload, both ends */
	*at(PAYLOAD - 1) = NAN;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 0);
	ck_assert_uint_eq(v.before, 0);
	ck_assert_uint_eq(v.after, 0);
	ck_assert_uint_eq(v.farthest_before, 0);
	ck_assert_uint_eq(v.farthest_after, 0);
	char buf[200] = "junk";
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_one_past_end)
{
	guard_violation v;
	*at(PAYLOAD) = 0.0f;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.after, 1);
	ck_assert_uint_eq(v.farthest_after, 1);
	ck_assert_uint_eq(v.before, 0);
	ck_assert_uint_eq(v.farthest_before, 0);
	char buf[200];
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "1 float written past the end (up to 4 bytes beyond)");
}
END_TEST

START_TEST(test_twelve_past_end)
{
	guard_violation v;
	for (long k = PAYLOAD; k < PAYLOAD + 12; k++)
		*at(k) = (float)k;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.after, 12);
	ck_assert_uint_eq(v.farthest_after, 12);
	ck_assert_uint_eq(v.before, 0);
	char buf[200];
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "12 floats written past the end (up to 48 bytes beyond)");
}
END_TEST

START_TEST(test_single_write_twelve_past_end)
{
	guard_violation v;
	*at(PAYLOAD + 11) = 3.0f;        /* one float, 12 floats beyond the end */
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.after, 1);
	ck_assert_uint_eq(v.farthest_after, 12);
	char buf[200];
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "1 float written past the end (up to 48 bytes beyond)");
}
END_TEST

START_TEST(test_before_start)
{
	guard_violation v;
	*at(-1) = 2.0f;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.before, 1);
	ck_assert_uint_eq(v.farthest_before, 1);
	ck_assert_uint_eq(v.after, 0);
	ck_assert_uint_eq(v.farthest_after, 0);
	char buf[200];
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "1 float written before the start (up to 4 bytes before)");

	*at(-3) = 2.0f;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.before, 2);
	ck_assert_uint_eq(v.farthest_before, 3);
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "2 floats written before the start (up to 12 bytes before)");
}
END_TEST

START_TEST(test_both_sides)
{
	guard_violation v;
	for (long k = PAYLOAD; k < PAYLOAD + 12; k++)
		*at(k) = 0.0f;
	*at(-1) = 0.0f;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.before, 1);
	ck_assert_uint_eq(v.after, 12);
	char buf[200];
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "12 floats written past the end (up to 48 bytes beyond); "
	                 "1 float written before the start (up to 4 bytes before)");
}
END_TEST

START_TEST(test_farthest_edges)
{
	guard_violation v;
	whole[0] = 0.0f;                                        /* GUARD_FLOATS before the start */
	whole[GUARD_FLOATS + PAYLOAD + GUARD_FLOATS - 1] = 0.0f; /* GUARD_FLOATS past the end */
	*at(-2) = 0.0f;
	*at(PAYLOAD + 4) = 0.0f;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.before, 2);
	ck_assert_uint_eq(v.after, 2);
	ck_assert_uint_eq(v.farthest_before, GUARD_FLOATS);
	ck_assert_uint_eq(v.farthest_after, GUARD_FLOATS);
	char buf[200], want[200];
	guard_describe(&v, buf, sizeof buf);
	snprintf(want, sizeof want, "2 floats written past the end (up to %zu bytes beyond); "
	         "2 floats written before the start (up to %zu bytes before)",
	         GUARD_FLOATS * sizeof(float), GUARD_FLOATS * sizeof(float));
	ck_assert_str_eq(buf, want);
}
END_TEST

START_TEST(test_nan_with_other_bits_detected)
{
	guard_violation v;
	*at(PAYLOAD + 1) = NAN;           /* a NaN, but not the guard's NaN */
	ck_assert_uint_ne(bits(NAN), GUARD_BITS);
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	ck_assert_uint_eq(v.after, 1);
	ck_assert_uint_eq(v.farthest_after, 2);
}
END_TEST

START_TEST(test_refill_clears)
{
	guard_violation v;
	*at(-1) = 0.0f;
	*at(PAYLOAD) = 0.0f;
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 1);
	guard_fill(whole, PAYLOAD);
	ck_assert_int_eq(guard_check(whole, PAYLOAD, &v), 0);
}
END_TEST

START_TEST(test_empty_payload)
{
	float *w = malloc(2 * GUARD_FLOATS * sizeof *w);
	guard_violation v;
	guard_fill(w, 0);
	ck_assert_int_eq(guard_check(w, 0, &v), 0);
	w[GUARD_FLOATS] = 1.0f;               /* the first float "past the end" of nothing */
	ck_assert_int_eq(guard_check(w, 0, &v), 1);
	ck_assert_uint_eq(v.after, 1);
	ck_assert_uint_eq(v.farthest_after, 1);
	ck_assert_uint_eq(v.before, 0);
	free(w);
}
END_TEST

START_TEST(test_describe_truncates)
{
	guard_violation v = { .before = 1, .after = 12, .farthest_before = 1, .farthest_after = 12 };
	char buf[10];
	memset(buf, 'x', sizeof buf);
	guard_describe(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "12 floats");
	char one[1] = { 'x' };
	guard_describe(&v, one, 1);
	ck_assert_int_eq(one[0], '\0');
	/* only before, in a buffer just big enough */
	guard_violation b = { .before = 3, .farthest_before = 5 };
	char exact[sizeof "3 floats written before the start (up to 20 bytes before)"];
	guard_describe(&b, exact, sizeof exact);
	ck_assert_str_eq(exact, "3 floats written before the start (up to 20 bytes before)");
}
END_TEST

static Suite *guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *t = tcase_create("zones");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_fill);
	tcase_add_test(t, test_intact);
	tcase_add_test(t, test_one_past_end);
	tcase_add_test(t, test_twelve_past_end);
	tcase_add_test(t, test_single_write_twelve_past_end);
	tcase_add_test(t, test_before_start);
	tcase_add_test(t, test_both_sides);
	tcase_add_test(t, test_farthest_edges);
	tcase_add_test(t, test_nan_with_other_bits_detected);
	tcase_add_test(t, test_refill_clears);
	suite_add_tcase(s, t);

	t = tcase_create("other");
	tcase_add_test(t, test_empty_payload);
	tcase_add_test(t, test_describe_truncates);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(guard_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
