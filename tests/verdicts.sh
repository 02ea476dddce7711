#!/bin/sh
# verdicts.sh — grade every starter, solution and fixture at one seed into a folder of JSON
# reports, and compare two such folders: every verdict and figure, less what the clock gives.
#
#   sh tests/verdicts.sh grade OUTDIR [CLGRADE]   every kernels/*/NN-*.cl and tests/fixtures/*.cl
#                                                 (lesson from the file name or the fixture's
#                                                 first line "lesson N"), --seed 1, into
#                                                 OUTDIR/<folder>-<name>.json (+ .rc)
#   sh tests/verdicts.sh diff OLD NEW             what differs, per kernel, after dropping the
#                                                 measured times (every *_ms, seconds, speedup, gflops,
#                                                 gbps, timing.runs and the numbers in the speedup
#                                                 message), analysis runs and access sites keyed
#                                                 by TILE (and place); exit 1 when anything does
#
# ONLY=regex grades only the kernels whose path matches it (grade).
# The h_* fixtures are templates cut up by test_sandbox_hostile.c, not kernels: skipped.
# Needs python3 for diff.  Run from the repository root after `make`.
set -u
lesson_of() {
	case $(basename "$1") in
	0[1-9]-*) basename "$1" | cut -c2 ;;
	l[1-9]_*) basename "$1" | cut -c2 ;;
	*) head -n1 "$1" | sed -n 's/.*lesson \([0-9]\).*/\1/p' ;;
	esac
}

grade() {
	out=$1 cl=${2:-build/clgrade}
	mkdir -p "$out" || exit 2
	for f in kernels/starter/*.cl kernels/solutions/*.cl tests/fixtures/*.cl; do
		case $(basename "$f") in h_*) continue ;; esac
		[ -z "${ONLY:-}" ] || echo "$f" | grep -Eq "$ONLY" || continue
		n=$(lesson_of "$f")
		[ -n "$n" ] || { echo "verdicts.sh: no lesson for $f" >&2; continue; }
		name=$(basename "$(dirname "$f")")-$(basename "$f" .cl)
		"$cl" check "$n" "$f" --seed 1 --json "$out/$name.json" > "$out/$name.txt" 2>&1
		echo $? > "$out/$name.rc"
		printf '%s %s exit %s\n' "$n" "$f" "$(cat "$out/$name.rc")"
	done
}

diff_dirs() {
	python3 - "$1" "$2" <<'PY'
import json, os, re, sys
old, new = sys.argv[1], sys.argv[2]
TIMED = re.compile(r'(_ms|seconds|speedup|gbps|gflops|fraction_of_copy|samples)$')
def norm(o, key=''):
    if isinstance(o, dict):
        d = {k: norm(v, k) for k, v in o.items() if not TIMED.search(k)}
        if d.get('id') == 'speedup' and 'message' in d:
            d['message'] = re.sub(r'[0-9]+(\.[0-9]+)?', '#', d['message'])
        return d
    if isinstance(o, list):
        return [norm(v, key) for v in o]
    return o
def keyed_sites(r):
    # the access sites as a map, keyed by TILE and place: a run added or moved shows as the
    # sites it adds, not as every later site shifted.  A report without a site's "tile" (before
    # the runs said it) lists its runs' sites in run order: a place seen again starts the next.
    runs = [s.get('tile') for s in (r.get('analysis') or {}).get('sizes') or []] or [None]
    for mem in ('local_memory', 'global_memory'):
        sites = (r.get(mem) or {}).get('sites')
        if not isinstance(sites, list):
            continue
        keyed, run, seen = {}, 0, set()
        for s in sites:
            place = '%s:%s %s %s' % (s.get('line'), s.get('column'), s.get('variable'),
                                     s.get('access'))
            if place in seen:
                run, seen = run + 1, set()
            seen.add(place)
            keyed['%s %s' % (s.get('tile', runs[min(run, len(runs) - 1)]), place)] = s
        r[mem]['sites'] = keyed
    a = r.get('analysis')
    if isinstance(a, dict) and isinstance(a.get('sizes'), list):
        a['sizes'] = {'TILE=%s' % z.get('tile'): z for z in a['sizes']}
    if isinstance(r.get('timing'), dict):
        r['timing'].pop('runs', None)   # how many timed runs fit the time: the clock's
    return r
def load(d, n):
    p = os.path.join(d, n)
    try:
        with open(p) as f:
            return keyed_sites(norm(json.load(f)))
    except (OSError, ValueError):
        return None
def rc(d, n):
    try:
        return open(os.path.join(d, n[:-5] + '.rc')).read().strip()
    except OSError:
        return None
def walk(a, b, path, out):
    if type(a) != type(b):
        out.append(f'  {path}: {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}')
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            walk(a.get(k), b.get(k), f'{path}.{k}', out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f'  {path}: {len(a)} items -> {len(b)}')
        for i, (x, y) in enumerate(zip(a, b)):
            ident = x.get('id') if isinstance(x, dict) and 'id' in x else i
            walk(x, y, f'{path}[{ident}]', out)
    elif a != b:
        out.append(f'  {path}: {json.dumps(a)[:300]} -> {json.dumps(b)[:300]}')
names = sorted(n for n in set(os.listdir(old)) | set(os.listdir(new)) if n.endswith('.json'))
changed = 0
for n in names:
    out = []
    if rc(old, n) != rc(new, n):
        out.append(f'  exit {rc(old, n)} -> {rc(new, n)}')
    walk(load(old, n), load(new, n), '', out)
    if out:
        changed += 1
        print(n[:-5]); print('\n'.join(out))
print(f'{len(names)} reports, {changed} differ')
sys.exit(1 if changed else 0)
PY
}

case ${1:-} in
grade) shift; grade "$@" ;;
diff) shift; diff_dirs "$@" ;;
*) echo "usage: sh tests/verdicts.sh grade OUTDIR [CLGRADE] | diff OLD NEW" >&2; exit 2 ;;
esac
