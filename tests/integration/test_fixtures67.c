/* test_fixtures67.c — test_fixtures.c for lessons 6 and 7's fixtures: a binary of its own, so
 * that `make test` runs them beside lessons 1-5's (one binary ran 352 s alone, the suite's
 * longest).  `FIXTURES=PREFIX` works in either binary, whatever the lesson. */
#define FIXTURE_LESSONS "67"
#include "test_fixtures.c"
