/* cliopt.c — strict parsing of the numeric options (see cliopt.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"

static int bad(const char *cmd, const char *opt, const char *takes, const char *arg)
{
	fprintf(stderr, "clgrade %s: --%s takes %s (got \"%.40s\")\n", cmd, opt, takes, arg);
	return -1;
}

/* Decimal digits only, no sign, no blanks, no junk, no overflow. */
static int whole(const char *arg, unsigned long long max, unsigned long long *v)
{
	if (!arg || !isdigit((unsigned char)arg[0]))
		return -1;
	for (const char *p = arg; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	errno = 0;
	*v = strtoull(arg, NULL, 10);
	return errno == ERANGE || *v > max ? -1 : 0;
}

int cliopt_seconds(const char *cmd, const char *opt, const char *arg, double *out)
{
	char *end;
	errno = 0;
	double v = arg && *arg && !isspace((unsigned char)*arg) ? strtod(arg, &end) : NAN;
	if (!arg || !*arg || isspace((unsigned char)*arg) || *end || errno == ERANGE || !isfinite(v) ||
	    v <= 0 || v > 86400 || strpbrk(arg, "xXpP"))
		return bad(cmd, opt, "a number of seconds above 0 and at most 86400, e.g. 20 or 2.5", arg);
	*out = v;
	return 0;
}

int cliopt_size_mb(const char *cmd, const char *opt, const char *arg, size_t *bytes)
{
	unsigned long long v;
	if (whole(arg, 1ULL << 24, &v) != 0 || v < 64)
		return bad(cmd, opt, "a whole number of MiB from 64 to 16777216, e.g. 8192", arg);
	*bytes = (size_t)v << 20;
	return 0;
}

int cliopt_bytes(const char *cmd, const char *opt, const char *arg, size_t *bytes)
{
	unsigned long long v;
	if (whole(arg, 1ULL << 40, &v) != 0 || v == 0)
		return bad(cmd, opt, "a whole number of bytes above 0, e.g. 49152", arg);
	*bytes = (size_t)v;
	return 0;
}

int cliopt_seed(const char *cmd, const char *opt, const char *arg, uint64_t *seed)
{
	unsigned long long v;
	if (whole(arg, UINT64_MAX, &v) != 0)
		return bad(cmd, opt, "a whole number from 0 to 18446744073709551615", arg);
	*seed = v;
	return 0;
}

int cliopt_stray(const char *cmd, const char *arg)
{
	fprintf(stderr, "clgrade %s: unexpected argument \"%.60s\" (see clgrade %s --help)\n", cmd,
	        arg, cmd);
	return -1;
}
