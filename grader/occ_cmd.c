/* occ_cmd.c — `clgrade occupancy`: the occupancy calculator of occ.c from the command line.
 *
 * Students (and the lessons' hints) ask "what would this work-group size and this much
 * __local do on a real GPU?"; this subcommand answers for one profile or all of them, as a
 * small table or as JSON for scripts:
 *   clgrade occupancy [--profile P|all] --work-group T [--local-bytes S] [--registers R]
 *                     [--opt-in] [--sub-group N] [--json]
 *   clgrade occupancy --list */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "occ.h"

enum { OPT_OPT_IN = 256, OPT_SUB_GROUP };

static const struct option options[] = {
	{ "profile", required_argument, NULL, 'p' },
	{ "work-group", required_argument, NULL, 'w' },
	{ "local-bytes", required_argument, NULL, 'l' },
	{ "registers", required_argument, NULL, 'r' },
	{ "opt-in", no_argument, NULL, OPT_OPT_IN },
	{ "sub-group", required_argument, NULL, OPT_SUB_GROUP },
	{ "json", no_argument, NULL, 'j' },
	{ "list", no_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: clgrade occupancy [--profile NAME|all] --work-group T [--local-bytes S]\n"
	        "                         [--registers R] [--opt-in] [--sub-group N] [--json]\n"
	        "       clgrade occupancy --list\n"
	        "  --work-group T    work-items per work-group\n"
	        "  --local-bytes S   __local bytes per work-group (default 0)\n"
	        "  --registers R     registers/VGPRs per work-item (default 0 = unknown: not applied)\n"
	        "  --opt-in          NVIDIA: allow more than 48 KiB per block (CUDA opt-in)\n"
	        "  --sub-group N     Intel sub-group size (default 16)\n"
	        "  --profile NAME    one profile (default: all); --list shows them\n");
}

static void list_names(FILE *f)
{
	for (int i = 0; i < occ_profile_count(); i++)
		fprintf(f, "%s%s", i ? ", " : "", occ_profile_at(i)->name);
	fputc('\n', f);
}

/* A non-negative int (long for bytes) or a usage error. */
static int parse_num(const char *opt, const char *s, long max, long *out)
{
	char *end;
	long v;

	v = strtol(s, &end, 0);
	if (*s == '\0' || *end != '\0' || v < 0 || v > max) {
		fprintf(stderr, "clgrade occupancy: %s: not a number in 0..%ld: '%s'\n", opt, max, s);
		return 0;
	}
	*out = v;
	return 1;
}

static void print_list(void)
{
	printf("%-14s %-5s %9s %9s %6s  %s\n", "profile", "warp", "local/CU", "local/WG", "max WG",
	       "label");
	for (int i = 0; i < occ_profile_count(); i++) {
		const occ_profile *p = occ_profile_at(i);
		printf("%-14s %-5d %9ld %9ld %6d  %s\n", p->name, p->warp_size, p->local_per_cu,
		       p->local_per_group, p->max_wg_size, p->label);
	}
}

static void print_row(const occ_profile *p, const occ_result *r)
{
	if (r->status == OCC_DOES_NOT_FIT) {
		printf("%-14s %9s %10s  does not fit: %s needs %ld %s, max %ld\n", p->name, "-", "-",
		       occ_limiter_name(r->limiter), r->needed, r->unit, r->available);
	} else if (r->status == OCC_BAD_INPUT) {
		printf("%-14s %9s %10s  unsupported sub-group size\n", p->name, "-", "-");
	} else {
		printf("%-14s %9d %9.1f%%  %s\n", p->name, r->groups_per_cu, 100.0 * r->occupancy,
		       occ_limiter_name(r->limiter));
	}
}

static void print_table(const occ_profile *one, const occ_input *in)
{
	printf("work-group %d, local %ld bytes, ", in->work_group, in->local_bytes);
	if (in->registers)
		printf("%d registers/work-item\n", in->registers);
	else
		printf("registers unknown (register limit not applied)\n");
	printf("%-14s %9s %10s  %s\n", "profile", "groups/CU", "occupancy", "limiter");
	for (int i = 0; i < occ_profile_count(); i++) {
		const occ_profile *p = occ_profile_at(i);
		occ_result r;

		if (one && p != one)
			continue;
		r = occ_compute(p, in);
		print_row(p, &r);
	}
}

static cJSON *json_row(const occ_profile *p, const occ_result *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "profile", p->name);
	cJSON_AddStringToObject(o, "status", occ_status_name(r->status));
	cJSON_AddNumberToObject(o, "groups_per_cu", r->groups_per_cu);
	cJSON_AddNumberToObject(o, "occupancy", r->occupancy);
	cJSON_AddStringToObject(o, "limiter", occ_limiter_name(r->limiter));
	cJSON_AddNumberToObject(o, "active_threads", r->active_threads);
	cJSON_AddNumberToObject(o, "active_warps", r->active_warps);
	cJSON_AddBoolToObject(o, "registers_assumed", r->registers_assumed);
	if (r->status == OCC_DOES_NOT_FIT) {
		cJSON_AddNumberToObject(o, "needed", (double)r->needed);
		cJSON_AddNumberToObject(o, "available", (double)r->available);
		cJSON_AddStringToObject(o, "unit", r->unit);
	}
	return o;
}

static int print_json(const occ_profile *one, const occ_input *in)
{
	cJSON *arr = cJSON_CreateArray();
	char *s;

	for (int i = 0; i < occ_profile_count(); i++) {
		const occ_profile *p = occ_profile_at(i);
		occ_result r;

		if (one && p != one)
			continue;
		r = occ_compute(p, in);
		cJSON_AddItemToArray(arr, json_row(p, &r));
	}
	s = cJSON_Print(arr);
	cJSON_Delete(arr);
	if (!s)
		return 1;
	printf("%s\n", s);
	cJSON_free(s);
	return 0;
}

/* The options into in, *profile, *json, *list, *have_wg.  -1 to go on, else the exit code. */
static int occ_options(int argc, char **argv, occ_input *in, const char **profile, int *json,
                       int *list, int *have_wg)
{
	int c;
	long v;
	optind = 0; /* glibc: full re-initialisation, main() may have run getopt already */
	while ((c = getopt_long(argc, argv, "p:w:l:r:jLh", options, NULL)) != -1) {
		switch (c) {
		case 'p': *profile = optarg; break;
		case 'w':
			if (!parse_num("--work-group", optarg, INT_MAX, &v))
				return 2;
			in->work_group = (int)v;
			*have_wg = 1;
			break;
		case 'l':
			if (!parse_num("--local-bytes", optarg, LONG_MAX, &v))
				return 2;
			in->local_bytes = v;
			break;
		case 'r':
			if (!parse_num("--registers", optarg, INT_MAX, &v))
				return 2;
			in->registers = (int)v;
			break;
		case OPT_SUB_GROUP:
			if (!parse_num("--sub-group", optarg, INT_MAX, &v))
				return 2;
			in->sub_group = (int)v;
			break;
		case OPT_OPT_IN: in->opt_in = 1; break;
		case 'j': *json = 1; break;
		case 'L': *list = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "clgrade occupancy: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

int occ_main(int argc, char **argv)
{
	occ_input in = { 0 };
	const occ_profile *one = NULL;
	const char *profile = NULL;
	int json = 0, list = 0, have_wg = 0;
	int rc = occ_options(argc, argv, &in, &profile, &json, &list, &have_wg);
	if (rc >= 0)
		return rc;
	if (list) {
		print_list();
		return 0;
	}
	if (profile && strcmp(profile, "all") != 0 && !(one = occ_profile_find(profile))) {
		fprintf(stderr, "clgrade occupancy: unknown profile '%s'; valid: all, ", profile);
		list_names(stderr);
		return 2;
	}
	if (!have_wg || in.work_group < 1) {
		fprintf(stderr, "clgrade occupancy: --work-group T (T >= 1) is required\n");
		usage(stderr);
		return 2;
	}
	if (one && occ_compute(one, &in).status == OCC_BAD_INPUT) {
		fprintf(stderr, "clgrade occupancy: %s: unsupported --sub-group %d\n", one->name,
		        in.sub_group);
		return 2;
	}
	if (json)
		return print_json(one, &in);
	print_table(one, &in);
	return 0;
}
