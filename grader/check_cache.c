/* check_cache.c — the PoCL kernel cache of a check (check_cache.h): the seed of the grader's
 * own kernels, and the probe's builds kept per text, so a check compiles only what is new. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_cache.h"
#include "check_ctx.h"
#include "sandbox.h"

/* PoCL's kernel cache.  Every check has its own, in its private folder: the children that
 * build and launch the student's kernel write it, so no entry a student's code could have
 * written is read by another check.  It starts as a copy of build/pocl-seed, a cache that
 * only the grader's own code fills (devrun_seed_main: the lesson's baseline, the copy kernel,
 * the runtime's fill, each launched once), once per lesson, device and baseline source, under
 * a lock (two graders of a batch).  The seed is cleared when over 64 MiB. */
static long long cache_bytes;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	cache_bytes += flag == FTW_F ? st->st_size : 0;
	return 0;
}

/* build/<name>, emptied when over cap bytes, made when missing: 0, or -1 when unusable. */
static int cache_folder(const char *name, long long cap, char *buf, size_t len)
{
	snprintf(buf, len, "%s/build/%s", lesson_root(), name);
	cache_bytes = 0;
	nftw(buf, add_size, 16, FTW_PHYS);
	if (cache_bytes > cap)
		sandbox_rmtree(buf);
	return mkdir(buf, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The stamp that says the seed holds the lesson's kernels for this device and baseline. */
static void seed_stamp(const check_opts *o, const char *seed, char *buf, size_t len)
{
	char path[4096], src[8192] = "";
	lesson_path(o->l, "baseline", path, sizeof path);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(src, 1, sizeof src - 1, f) : 0;
	if (f)
		fclose(f);
	unsigned long long h = check_hash(CHECK_HASH_INIT, src, n);
	const char *dev = o->device ? o->device : "";
	h = check_hash(h, dev, strlen(dev));
	snprintf(buf, len, "%s/.seeded-%s-%d-%016llx", seed, o->l->slug, o->l->tile, h);
}

/* build/pocl-seed into seed, held under its lock (two graders of a batch): the lock's
 * descriptor, or -1 when the seed cannot be used (a read-only suite: every check compiles
 * everything). */
static int seed_locked(char *seed, size_t len)
{
	char lock[4300];
	if (cache_folder("pocl-seed", 64LL << 20, seed, len) != 0)
		return -1;
	snprintf(lock, sizeof lock, "%s/.lock", seed);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void check_cache_seed(const check_opts *o, const devrun_src *s, const confine_policy *run_pol)
{
	char seed[4200], stamp[4400];
	int fd = seed_locked(seed, sizeof seed);
	if (fd < 0)
		return;
	seed_stamp(o, seed, stamp, sizeof stamp);
	if (access(stamp, F_OK) != 0) {
		/* the first check of a lesson: say why it is slow (stderr: the report is the same) */
		fprintf(stderr, "clgrade: compiling the grader's own kernels for lesson %d into "
		        "build/pocl-seed (once per lesson and device: later checks start from it)\n",
		        o->l->number);
		devrun_src ss = *s;
		ss.pocl_cache = seed;
		confine_policy pol = *run_pol;
		pol.write[1] = seed;
		devrun_ctx x = { &ss, NULL, NULL, NULL, check_memory_share(o), NULL };
		sandbox_limits lim = { o->timeout_s, 0, NULL, &pol, 0 };
		sandbox_status st;
		if (sandbox_run(devrun_seed_main, &x, &lim, &st) == 0 && st.end == SANDBOX_EXITED &&
		    st.code == 0) {
			int t = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
			if (t >= 0)
				close(t);
		}
	}
	sandbox_copytree(seed, s->pocl_cache);
	flock(fd, LOCK_UN);
	close(fd);
}

void check_cache_seed_copy(const devrun_src *s)
{
	char seed[4200];
	int fd = seed_locked(seed, sizeof seed);
	if (fd < 0)
		return;
	sandbox_copytree(seed, s->pocl_cache);
	flock(fd, LOCK_UN);
	close(fd);
}

void check_cache_make(const char *tmp, char *buf, size_t len)
{
	snprintf(buf, len, "%s/pocl", tmp);
	mkdir(buf, 0700);
}

/* The probe's builds, kept for the next check of the same text: build/pocl-builds/<key>, a copy
 * of the check's cache taken right after the probe, before any student code has run in this
 * check (the probe only compiles), keyed by every text it compiled, the options' TILEs, the
 * device asked for and the work-group method.  The next check of that text starts its cache
 * from it, so its probe loads instead of compiling; what the run child writes (the launch-time
 * work-group functions) is never kept.  Cleared past 256 MiB. */
static void build_key(const check_opts *o, const devrun_src *s, char *buf, size_t len)
{
	unsigned long long h = CHECK_HASH_INIT;
	for (int i = 0; i < s->npre; i++) {
		h = check_hash(h, s->pre[i], strlen(s->pre[i]) + 1);
		h = check_hash(h, &s->pre_tile[i], sizeof s->pre_tile[i]);
	}
	const char *dev = o->device ? o->device : "", *wg = s->wg_method ? s->wg_method : "";
	h = check_hash(h, dev, strlen(dev) + 1);
	h = check_hash(h, wg, strlen(wg) + 1);
	snprintf(buf, len, "%s/build/pocl-builds/%016llx", lesson_root(), h);
}

/* 1 when a kept copy of the probe's builds was copied into the check's cache. */
int check_cache_restore(const check_opts *o, const devrun_src *s)
{
	char kept[4300];
	build_key(o, s, kept, sizeof kept);
	struct stat st;
	if (lstat(kept, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return sandbox_copytree(kept, s->pocl_cache) == 0;
}

void check_cache_keep(const check_opts *o, const devrun_src *s)
{
	char kept[4300], part[4400], root[4200];
	if (cache_folder("pocl-builds", 256LL << 20, root, sizeof root) != 0)
		return;
	build_key(o, s, kept, sizeof kept);
	snprintf(part, sizeof part, "%s.part-%d", kept, (int)getpid());
	if (sandbox_copytree(s->pocl_cache, part) != 0 || rename(part, kept) != 0)
		sandbox_rmtree(part);     /* another grader kept it first, or the disk is full */
}
