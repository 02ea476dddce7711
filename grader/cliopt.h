/* cliopt.h — the numbers `clgrade check` and `clgrade batch` take on their command lines, each
 * validated in one place: a non-number, NaN, an infinity, a negative, an overflow or trailing
 * junk is a usage error that names the option and what it takes ("--timeout nan" used to
 * disable the time limit, "--memory abc" the memory limit). */
#ifndef CLIOPT_H
#define CLIOPT_H

#include <stddef.h>
#include <stdint.h>

/* Each stores the value and returns 0, or prints "clgrade CMD: --OPT takes ... (got "ARG")" on
 * stderr and returns -1 (the caller exits 2).  Seconds: finite, > 0, <= 86400 (one day).
 * MiB: whole, 64 to 2^24.  Bytes: whole, 1 to 2^40.  Seed: whole, 0 to 2^64-1. */

int cliopt_seconds(const char *cmd, const char *opt, const char *arg, double *out);
int cliopt_size_mb(const char *cmd, const char *opt, const char *arg, size_t *bytes);
int cliopt_bytes(const char *cmd, const char *opt, const char *arg, size_t *bytes);
int cliopt_seed(const char *cmd, const char *opt, const char *arg, uint64_t *seed);

/* "clgrade CMD: unexpected argument "ARG" (see --help)" for a stray positional; returns -1. */
int cliopt_stray(const char *cmd, const char *arg);

#endif
