/* batch.h — `clgrade batch`: an instructor grades a folder of untrusted submissions. */
#ifndef BATCH_H
#define BATCH_H

/* clgrade batch LESSON DIR [--out DIR] [-j N] [--timeout S] [--device S] [--seed N] [--force]
 *                          [--no-analysis] [--local-mem BYTES] [--shard I/N | --merge]
 * DIR holds one submission per student: DIR/<student>.cl, or DIR/<student>/ with one .cl file
 * (or one named after the lesson's slug); ".cl" in any case.  Every entry of DIR is one row:
 * one that cannot be graded (hidden, a symlink, not .cl, too large, not text, several
 * candidates ...) is an "error" row saying why.  Writes <out>/<student>.json (the check report
 * plus "student", "path" (relative to DIR), "source_hash" and "grading_key"),
 * <out>/gradescope/<student>.json, and from all of them <out>/grades.csv and grades.json.
 * Resumable: a student whose report exists with the same source hash and grading key (the
 * grader binary's hash and every option) is not graded again unless --force (error rows
 * always are).  Safe names that clash get -2, -3, ...; a name that is already safe keeps it.
 * -j N grades N at a time (default: the cores), each in a worker process; --shard I/N grades
 * entries I, I+N, ... of the sorted list and writes no class tables; --merge grades nothing and
 * writes the tables from the reports that are up to date.  Prints a line per entry, a
 * progress line on a terminal, and a class summary.
 * argv[0] is "batch".  Returns 0 when every entry was graded (pass or fail), 2 on usage
 * errors or when any row is an error. */
int batch_main(int argc, char **argv);

/* 64-bit FNV-1a of a file's bytes as 16 hex digits into out[17] (change detection only,
 * not a security hash); 0 on success. */
int batch_hash_file(const char *path, char out[17]);

#endif
