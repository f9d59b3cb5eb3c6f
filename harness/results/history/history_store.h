/* history_store.h - the throughput history of CI runs: every record of
 * every run, in one SQLite file (`flowbench history`, issue 37).
 *
 * A run is one results file added for one commit. Its records are stored
 * with their configuration key (fb_measured_key: what compare pairs on),
 * the machine fingerprint (fb_history_machine), the stability verdict
 * (quality.h) and the record itself as JSON, all in one transaction: a
 * killed add leaves the database as it was. The same run is the same
 * records: a run's identity is a hash of its measurement records' JSON
 * (keys sorted, in file order), so adding a file twice (under any commit,
 * from any path) is refused, while a second run of the same commit - new
 * measurements - is kept. Several processes may write one database:
 * SQLite's locking serialises them, and each waits for the lock (busy
 * timeout, FB_HISTORY_BUSY_MS) rather than failing.
 */
#ifndef FB_HISTORY_STORE_H
#define FB_HISTORY_STORE_H

#include <stdio.h>

#include "../records/reader.h"

#define FB_HISTORY_SCHEMA 1
#define FB_HISTORY_BUSY_MS 60000 /* how long a writer waits for another's transaction */

typedef struct fb_history fb_history;

/* Opens (creating it and its folder when `create`) the database at path.
 * FB_ERR_INPUT when the file is not a flowbench history (or of another
 * schema version), FB_ERR_IO when it cannot be opened. */
fb_status fb_history_open(const char *path, int create, fb_history **out);
void fb_history_close(fb_history *h);
const char *fb_history_path(const fb_history *h);

/* The run being added. when: seconds since the epoch; it orders the
 * commits of a series (ties: the order of adding). */
typedef struct fb_history_run_info {
    const char *commit;
    const char *branch; /* "" when not given */
    long long when;
} fb_history_run_info;

typedef struct fb_history_add_summary {
    long long run;   /* the new run's id */
    char hash[17];   /* the run's identity (hex) */
    int records;     /* records stored */
    int usable;      /* of them: status ok with samples */
    int flagged;     /* of them: unstable or contended (stored, never a baseline) */
    int configs_new; /* configurations the history had not seen */
} fb_history_add_summary;

/* The time of commit's first run in the history (-1 when it has none):
 * a second run of a commit joins its point of the series. */
fb_status fb_history_commit_when(fb_history *h, const char *commit, long long *when);

/* SQLite's quick check of every page: FB_ERR_INPUT "damaged" with what it
 * found. A gate runs it first: a damaged page can read as no baseline,
 * which would pass every configuration as new. */
fb_status fb_history_check_intact(fb_history *h);

/* Stores every measurement record of each of the n sets as one run each
 * (s: n summaries), all in one transaction: FB_ERR_INPUT, and nothing
 * added, when a set has no measurement record, or when the history (or an
 * earlier set of the same call) already holds its run (naming its commit
 * and when it was added). */
fb_status fb_history_add(fb_history *h, fb_results_set *const *sets, int n, const fb_history_run_info *info,
                         fb_history_add_summary *s);

/* The identity of set's run: the hash fb_history_add refuses twice. */
fb_status fb_history_run_hash(const fb_results_set *set, char hash[17]);

/* The machine a record ran on, as baselines group it: the CPU model and
 * logical CPU count of its run's header (or its own "host"), and its
 * backend and device name. Host names are left out: identical CI runners
 * share a baseline. */
void fb_history_machine(const fb_record *r, char *buf, size_t len);

/* The longest commit id a run may carry (history add refuses longer). */
#define FB_HISTORY_COMMIT_MAX 128

/* One commit's point of a configuration's series: the median over the
 * commit's stable (or, when the query says so, all) usable runs of their
 * median times, and the lowest and highest
 * run median (one run: its samples' min and max). */
typedef struct fb_history_point {
    char commit[FB_HISTORY_COMMIT_MAX + 1]; /* whole: a SHA-256 id is 64 characters */
    long long when;
    double median_s, lo_s, hi_s;
    double bytes; /* the record's "bytes" (0 when it has none): GB/s = bytes / time */
    int runs;     /* usable runs behind the point */
    int flagged;  /* unstable or contended runs of the commit (left out unless the query includes them) */
} fb_history_point;

typedef struct fb_history_series {
    char *key;     /* configuration key */
    char *label;   /* fb_record_label of its last record */
    char *machine; /* fb_history_machine */
    fb_history_point *points;
    int npoints;
} fb_history_series;

/* Which configurations fb_history_series_load reads, and which runs. */
typedef struct fb_history_query {
    const char *filter;  /* a POSIX extended regex on key or label; NULL: all */
    const char *key;     /* instead: exactly this key */
    int include_flagged; /* unstable and contended runs count too (a busy machine's only runs) */
} fb_history_query;

/* Every series the query selects, in key order, points in commit order
 * (by when, then order of adding). FB_ERR_USAGE for a bad regex. */
fb_status fb_history_series_load(fb_history *h, const fb_history_query *q, fb_history_series **out, int *n);
void fb_history_series_free(fb_history_series *s, int n);

/* The points of s that have a stable run, as times: idx[k] is the point
 * of values[k] (both with room for s->npoints); returns how many. */
int fb_history_series_values(const fb_history_series *s, double *values, int *idx);

/* The last `lookback` stable usable medians (seconds, newest first) of
 * configuration key on machine, leaving out the run with identity
 * `exclude` (NULL: none): a baseline never holds the run it judges. */
fb_status fb_history_baseline(fb_history *h, const char *key, const char *machine, const char *exclude, int lookback,
                              double *medians, int *n);

typedef struct fb_history_merge_summary {
    int runs;       /* runs copied */
    int duplicates; /* runs the destination held already (by identity) */
    long long records;
} fb_history_merge_summary;

/* Copies the runs of the history at `other` that h lacks into h, in one
 * transaction. */
fb_status fb_history_merge(fb_history *h, const char *other, fb_history_merge_summary *s);

/* Every stored record as CSV (one header line, RFC 4180 quoting). */
fb_status fb_history_export_csv(fb_history *h, FILE *out, long long *rows);

/* Where the history is when --db names none: $FLOWBENCH_HISTORY_DB, else
 * history.db beside the tuning cache (core/json_file.h). */
void fb_history_default_path(char *buf, size_t len);

/* `history add`: every file read and checked before the first is added
 * (a bad file adds nothing), then each file one run, one transaction, a
 * line each to out. info->when < 0: the commit's first run's time (its
 * later runs join its point), else now. */
fb_status fb_history_add_files(fb_history *h, const char *const *paths, int n, const fb_history_run_info *info,
                               FILE *out);

#endif
