/* batch.c — grade a folder of submissions (batch.h).  Each submission goes through the same
 * check as a student's own `make check` — sandboxed children, include policy, time limit — in a
 * worker process of its own, -j at a time, so a hostile or broken kernel is a row in the CSV,
 * never a stopped batch.  Every entry of the folder is exactly one row.  Reports are written
 * atomically and reused when the source and the grading key are unchanged, so an interrupted
 * batch resumes; shards of one folder (a Slurm job array) write disjoint reports and a merge
 * writes the class tables. */
/* This file is the command (its options, the order of the stages); the stages: batch_find.c
 * (the folder into rows), batch_run.c (grading them), batch_class.c (the class tables). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bank.h"
#include "batch.h"
#include "batch_class.h"
#include "cliopt.h"
#include "report.h"

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: clgrade batch LESSON DIR [--out DIR] [-j N] [--timeout S] [--device S] "
	        "[--seed N] [--force] [--no-analysis] [--local-mem BYTES] [--memory MB] "
	        "[--profile P] [--shard I/N | --merge] [--unconfined]\n");
	return rc;
}

/* A whole number in [lo, hi], all of s; 0, or -1. */
static int parse_int(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !*s || *end || errno || *v < lo || *v > hi ? -1 : 0;
}

/* -j N (c 'j') or --shard I/N (c 'S') from arg into b.  0, or 2 (said why). */
static int parse_count(int c, char *arg, batch *b)
{
	long v, w;
	if (c == 'j') {
		if (parse_int(arg, 1, 1024, &v) != 0) {
			fprintf(stderr, "clgrade batch: -j takes a number of jobs from 1 to 1024, "
			        "not \"%s\"\n", arg);
			return 2;
		}
		b->jobs = (int)v;
		return 0;
	}
	char *slash = strchr(arg, '/');
	if (!slash || (*slash = '\0', parse_int(arg, 0, 1 << 20, &v) != 0) ||
	    parse_int(slash + 1, 1, 1 << 20, &w) != 0 || v >= w) {
		fprintf(stderr, "clgrade batch: --shard takes I/N with 0 <= I < N (e.g. 0/4)\n");
		return 2;
	}
	b->shard = (int)v, b->nshards = (int)w;
	return 0;
}

/* LESSON and DIR, and the options checked together.  0, or 2 (said why). */
static int parse_operands(int argc, char **argv, batch *b, int unconfined)
{
	if (argc - optind > 2) {
		cliopt_stray("batch", argv[optind + 2]);
		return 2;
	}
	if (argc - optind != 2 || !(b->o.l = lesson_find(argv[optind])) || b->o.timeout_s <= 0 ||
	    !bank_profile_find(b->o.profile) || (b->merge && b->nshards > 1)) {
		fprintf(stderr, "usage: clgrade batch LESSON DIR [--out DIR] ... (see --help)\n");
		return 2;
	}
	const char *missing = confine_missing();
	if (*missing && !unconfined && !b->merge) {
		fprintf(stderr, "clgrade batch: %s, so a submission's kernel could read and write "
		        "whatever you can; refusing to grade (pass --unconfined to grade anyway)\n", missing);
		return 2;
	}
	b->dir = argv[optind + 1];
	if (!realpath(b->dir, b->within))
		b->within[0] = '\0';   /* reported when the folder is listed */
	return 0;
}

static int parse_args(int argc, char **argv, batch *b)
{
	static const struct option opts[] = {
		{ "out", required_argument, 0, 'o' }, { "timeout", required_argument, 0, 't' },
		{ "device", required_argument, 0, 'd' }, { "seed", required_argument, 0, 's' },
		{ "force", no_argument, 0, 'f' }, { "no-analysis", no_argument, 0, 'n' },
		{ "local-mem", required_argument, 0, 'l' }, { "memory", required_argument, 0, 'm' },
		{ "profile", required_argument, 0, 'p' }, { "jobs", required_argument, 0, 'j' },
		{ "shard", required_argument, 0, 'S' }, { "merge", no_argument, 0, 'M' },
		{ "help", no_argument, 0, 'h' }, { "unconfined", no_argument, 0, 'U' }, { 0, 0, 0, 0 },
	};
	int unconfined = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:d:s:fnl:m:p:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': b->out = optarg; break;
		case 't':
			if (cliopt_seconds("batch", "timeout", optarg, &b->o.timeout_s) != 0)
				return 2;
			break;
		case 'd': b->o.device = optarg; break;
		case 's':
			if (cliopt_seed("batch", "seed", optarg, &b->o.seed) != 0)
				return 2;
			break;
		case 'f': b->force = 1; break;
		case 'n': b->o.analysis = 0; break;
		case 'U': unconfined = 1; break;
		case 'l':
			if (cliopt_bytes("batch", "local-mem", optarg, &b->o.local_mem) != 0)
				return 2;
			break;
		case 'm':
			if (cliopt_size_mb("batch", "memory", optarg, &b->o.mem_bytes) != 0)
				return 2;
			break;
		case 'p': b->o.profile = optarg; break;
		case 'j':
		case 'S':
			if (parse_count(c, optarg, b) != 0)
				return 2;
			break;
		case 'M': b->merge = 1; break;
		case 'h': return usage(stdout, 0) - 1;
		default: return usage(stderr, 2);
		}
	}
	return parse_operands(argc, argv, b, unconfined);
}


/* An output folder another user owns or can write in (no sticky bit saves it: the files are
 * ours to replace): 1. */
static int out_unsafe(const char *dir)
{
	struct stat st;
	return lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	       (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* The submissions folder listed into list (b->subs, b->n), the output folders (out and its
 * gradescope/ folder gs) made and ours alone.  0, or -1 (said why). */
static int open_folders(batch *b, const char *gs, sublist *list)
{
	struct stat own;
	if (stat(b->dir, &own) != 0 || !S_ISDIR(own.st_mode) || access(b->dir, R_OK | X_OK) != 0 ||
	    (mkdir(b->out, 0755) && access(b->out, W_OK)) || (mkdir(gs, 0755) && access(gs, W_OK)) ||
	    stat(b->out, &own) != 0 || (b->n = batch_find(b->o.l, b->dir, &own, list)) < 0) {
		fprintf(stderr, "clgrade batch: cannot read %s or write %s\n", b->dir, b->out);
		return -1;
	}
	b->subs = list->v;
	const char *unsafe = out_unsafe(b->out) ? b->out : out_unsafe(gs) ? gs : NULL;
	if (unsafe) {
		fprintf(stderr, "clgrade batch: %s belongs to another user or other users can write in "
		        "it: they could plant links there or edit the grades; use an output folder only "
		        "you can write (chmod go-w, or another --out)\n", unsafe);
		return -1;
	}
	return 0;
}

/* What a kept report must have been graded with: the grader itself and every option. */
static void grading_key(batch *b)
{
	char self[17] = "";
	batch_hash_file("/proc/self/exe", self);
	snprintf(b->key, sizeof b->key, "grader %s lesson %s seed %llu device %s analysis %d "
	         "local-mem %zu timeout %g memory %zu profile %s", self, b->o.l->slug,
	         (unsigned long long)b->o.seed, b->o.device ? b->o.device : "default", b->o.analysis,
	         b->o.local_mem, b->o.timeout_s, b->o.mem_bytes, b->o.profile);
}

int batch_main(int argc, char **argv)
{
	static batch b = { .o = { .timeout_s = 20, .mem_bytes = (size_t)8192 << 20,
	                          .profile = "nvidia", .analysis = 1, .seed = 1 },
	                   .nshards = 1 };
	int rc = parse_args(argc, argv, &b);
	if (rc)
		return rc < 0 ? 0 : rc;
	char outbuf[4200], gs[4300];
	if (!b.out) {
		snprintf(outbuf, sizeof outbuf, "grades-%s", b.o.l->slug);
		b.out = outbuf;
	}
	int cores = batch_cpu_count();
	if (!b.jobs)
		b.jobs = cores;
	batch_share_threads(cores, b.jobs);
	sublist list = { 0 };
	snprintf(gs, sizeof gs, "%s/gradescope", b.out);
	if (open_folders(&b, gs, &list) != 0) {
		free(list.v);
		return 2;
	}
	grading_key(&b);
	int errors = 0;
	if (!b.merge)
		errors = batch_run_all(&b);
	if (b.nshards > 1) {       /* the tables are the merge's: no two shards write one file */
		printf("shard %d/%d done -> %s; when every shard is, merge: clgrade batch %s %s --out %s "
		       "--merge (with the same options)\n", b.shard, b.nshards, b.out, b.o.l->slug,
		       b.dir, b.out);
		free(list.v);
		return errors ? 2 : 0;
	}
	batch_class_summary cs;
	if (batch_class_write(&b, &cs) != 0) {
		fprintf(stderr, "clgrade batch: cannot write %s/grades.csv, grades.json, class.json or "
		        "index.html\n", b.out);
		free(list.v);
		return 2;
	}
	batch_class_print(&b, &cs);
	printf("-> %s/grades.csv, %s/grades.json, %s/index.html, %s/gradescope/\n", b.out, b.out,
	       b.out, b.out);
	free(list.v);
	return errors || cs.errors ? 2 : 0;
}
