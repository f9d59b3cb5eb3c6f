/* history_store.c - the SQLite history of CI runs (history_store.h). */
#include "../../core/sysinfo.h"
#include "history_store.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../../core/files.h"
#include "../../core/grow.h"
#include "../../core/hash.h"
#include "../../core/stats.h"
#include "../records/export.h"
#include "../records/quality.h"
#include "../records/results.h"
#include "../../core/json_file.h"

#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)

struct fb_history {
    sqlite3 *db;
    char path[1024];
    int busy_ms; /* how long it waits for another process's transaction */
};

/* FB_HISTORY_BUSY_MS, or $FLOWBENCH_HISTORY_LOCK_WAIT_S (seconds: the
 * tests make a held lock answer in one second, not sixty). */
static int fb_history_busy_ms(void)
{
    const char *env = getenv("FLOWBENCH_HISTORY_LOCK_WAIT_S");
    char *end = NULL;
    double s = env && *env ? strtod(env, &end) : -1;
    return end && !*end && s >= 0 && s <= 86400 ? (int)(1000 * s) : FB_HISTORY_BUSY_MS;
}

/* The tables: runs (one per results file added), configs (one per
 * configuration key and machine) and records (every record of a run). */
static const char *const schema_sql =
    "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, commit_sha TEXT NOT NULL,"
    " branch TEXT NOT NULL, when_s INTEGER NOT NULL, added_s INTEGER NOT NULL, source TEXT NOT NULL, header TEXT);"
    "CREATE TABLE IF NOT EXISTS configs(id INTEGER PRIMARY KEY, key TEXT NOT NULL, machine TEXT NOT NULL,"
    " label TEXT NOT NULL, UNIQUE(key, machine));"
    "CREATE TABLE IF NOT EXISTS records(run INTEGER NOT NULL REFERENCES runs(id), config INTEGER NOT NULL"
    " REFERENCES configs(id), line INTEGER NOT NULL, status TEXT NOT NULL, usable INTEGER NOT NULL,"
    " quality TEXT NOT NULL, quality_why TEXT NOT NULL, median_s REAL, min_s REAL, max_s REAL,"
    " nsamples INTEGER NOT NULL, bytes REAL, host TEXT NOT NULL, environment TEXT, record TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS records_by_config ON records(config, run);"
    "CREATE INDEX IF NOT EXISTS runs_by_commit ON runs(commit_sha);";

const char *fb_history_path(const fb_history *h) { return h->path; }

/* "PATH: WHAT: sqlite's reason" as the status's message. */
/* What SQLite's failure means to the user: another process holding the
 * database past the wait, a file that is damaged or cut short, or one that
 * is no database at all; each said as such, not as "not a history". */
static fb_status db_error(fb_history *h, fb_status st, const char *what)
{
    const int code = sqlite3_errcode(h->db) & 0xff;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        return fb_error_set(FB_ERR_IO, __FILE__, __LINE__,
                            "%s: %s: locked by another process for over %.0f s (a history add or merge still "
                            "running?)",
                            h->path, what, h->busy_ms / 1000.0);
    if (code == SQLITE_CORRUPT)
        return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__,
                            "%s: %s: the database is damaged (%s); restore it from a copy", h->path, what,
                            sqlite3_errmsg(h->db));
    if (code == SQLITE_NOTADB)
        return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__,
                            "%s: not a flowbench history database (not SQLite at all, or its first page cut: %s)",
                            h->path, sqlite3_errmsg(h->db));
    return fb_error_set(st, __FILE__, __LINE__, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

static fb_status exec(fb_history *h, const char *sql, const char *what)
{
    if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK) return db_error(h, FB_ERR_IO, what);
    return FB_OK;
}

static fb_status prepare(fb_history *h, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) return db_error(h, FB_ERR_IO, "cannot query");
    return FB_OK;
}

/* A file that holds tables but not ours is someone else's database. */
static fb_status check_meta(fb_history *h)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    int version = -1,
        rc = sqlite3_prepare_v2(h->db, "SELECT value FROM meta WHERE name = 'flowbench_history'", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) version = sqlite3_column_int(st, 0);
    /* a lock or damage is said as what it is; no meta table is another
     * program's database */
    if (rc != SQLITE_ROW && rc != SQLITE_DONE && (sqlite3_errcode(h->db) & 0xff) != SQLITE_ERROR)
        FB_CHECK(db_error(h, FB_ERR_INPUT, "cannot read"));
    if (version != FB_HISTORY_SCHEMA)
        FB_FAIL(FB_ERR_INPUT, "%s: not a flowbench history database (schema %d expected)", h->path, FB_HISTORY_SCHEMA);
fail:
    sqlite3_finalize(st);
    return status;
}

/* Creates the tables of an empty database; a database with other tables
 * is refused by check_meta. */
static fb_status init_schema(fb_history *h)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    int tables = 0;
    FB_CHECK(exec(h, "BEGIN IMMEDIATE", "cannot lock"));
    FB_CHECK(prepare(h, "SELECT count(*) FROM sqlite_master", &st));
    if (sqlite3_step(st) != SQLITE_ROW) {
        status = db_error(h, FB_ERR_INPUT, "not a readable SQLite database");
        goto rollback;
    }
    tables = sqlite3_column_int(st, 0);
    if (tables == 0) {
        status = exec(h, schema_sql, "cannot create the tables");
        if (status == FB_OK)
            status = exec(h, "INSERT INTO meta VALUES('flowbench_history', '" TEXT(FB_HISTORY_SCHEMA) "')",
                          "cannot create the tables");
        if (status != FB_OK) goto rollback;
    }
    sqlite3_finalize(st);
    st = NULL;
    FB_CHECK(exec(h, "COMMIT", "cannot create the tables"));
    return check_meta(h);
rollback:
    sqlite3_finalize(st);
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
fail:
    return status;
}

fb_status fb_history_open(const char *path, int create, fb_history **out)
{
    fb_status status = FB_OK;
    fb_history *h = NULL;
    struct stat sb;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    *out = NULL;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) FB_FAIL(FB_ERR_INPUT, "%s: not a regular file", path);
    if (!create && access(path, F_OK) != 0)
        FB_FAIL(FB_ERR_INPUT, "%s: no such history database (history add creates it)", path);
    if (create) FB_CHECK(fb_make_parent_dirs(path));
    FB_ALLOC(h, 1, "the history");
    snprintf(h->path, sizeof h->path, "%s", path);
    if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
        status = db_error(h, FB_ERR_IO, "cannot open");
        goto fail;
    }
    h->busy_ms = fb_history_busy_ms();
    sqlite3_busy_timeout(h->db, h->busy_ms);
    /* only a writer creates the tables: a reader takes no write lock */
    FB_CHECK(create ? init_schema(h) : check_meta(h));
    *out = h;
    return FB_OK;
fail:
    fb_history_close(h);
    return status;
}

fb_status fb_history_check_intact(fb_history *h)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    FB_CHECK(prepare(h, "PRAGMA quick_check", &st));
    if (sqlite3_step(st) != SQLITE_ROW) FB_CHECK(db_error(h, FB_ERR_INPUT, "cannot check the database"));
    const char *verdict = (const char *)sqlite3_column_text(st, 0);
    if (!verdict || strcmp(verdict, "ok"))
        FB_FAIL(FB_ERR_INPUT, "%s: the database is damaged (%.200s); restore it from a copy", h->path,
                verdict ? verdict : "no verdict");
fail:
    sqlite3_finalize(st);
    return status;
}

void fb_history_close(fb_history *h)
{
    if (!h) return;
    sqlite3_close(h->db);
    free(h);
}

static int is_measurement(const fb_record *r) { return strcmp(fb_json_str(r->json, "type"), "measurement") == 0; }

fb_status fb_history_run_hash(const fb_results_set *set, char hash[17])
{
    fb_status status = FB_OK;
    uint64_t x = 14695981039346656037ull;
    int n = 0;
    for (int i = 0; i < set->nrecords; ++i) {
        if (!is_measurement(&set->records[i])) continue;
        char *text = json_dumps(set->records[i].json, JSON_SORT_KEYS | JSON_COMPACT);
        if (!text) FB_FAIL(FB_ERR_NOMEM, "out of host memory hashing %s", set->path);
        x = fb_hash_str(x, text);
        x = fb_hash_bytes(x, "\n", 1);
        free(text);
        ++n;
    }
    if (!n) FB_FAIL(FB_ERR_INPUT, "%s: no measurement record to add", set->path);
    snprintf(hash, 17, "%016llx", (unsigned long long)x);
fail:
    return status;
}

void fb_history_machine(const fb_record *r, char *buf, size_t len)
{
    const json_t *host = fb_json_get(r->json, "host");
    if (!json_is_object(host) && r->header) host = fb_json_get(r->header, "host");
    double cpus = fb_json_num(host, "logical_cpus");
    snprintf(buf, len, "%s|%.0f cpus|%s:%s", fb_json_str(host, "cpu"), isnan(cpus) ? 0.0 : cpus,
             fb_json_str(r->json, "backend"), fb_json_str(r->json, "device_name"));
}

/* Refuses a run the history holds, naming where it came from. */
static fb_status check_new_run(fb_history *h, const char *hash, const char *source)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    FB_CHECK(prepare(h, "SELECT commit_sha, source, added_s FROM runs WHERE hash = ?", &st));
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        char when[32];
        fb_utc_text(sqlite3_column_int64(st, 2), when, sizeof when);
        FB_FAIL(FB_ERR_INPUT, "%s: this run (records hash %s) is in %s already: added for commit %s from %s at %s",
                source, hash, h->path, (const char *)sqlite3_column_text(st, 0),
                (const char *)sqlite3_column_text(st, 1), when);
    }
fail:
    sqlite3_finalize(st);
    return status;
}

static fb_status insert_run(fb_history *h, const fb_results_set *set, const fb_history_run_info *info, const char *hash,
                            long long *id)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    char *header = set->nheaders ? json_dumps(set->headers[0], JSON_COMPACT) : NULL;
    FB_CHECK(prepare(h,
                     "INSERT INTO runs(hash, commit_sha, branch, when_s, added_s, source, header)"
                     " VALUES(?, ?, ?, ?, ?, ?, ?)",
                     &st));
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, info->commit, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, info->branch ? info->branch : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, info->when);
    sqlite3_bind_int64(st, 5, (long long)time(NULL));
    sqlite3_bind_text(st, 6, set->path, -1, SQLITE_STATIC);
    if (header)
        sqlite3_bind_text(st, 7, header, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 7);
    if (sqlite3_step(st) != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot store the run"));
    *id = sqlite3_last_insert_rowid(h->db);
fail:
    sqlite3_finalize(st);
    free(header);
    return status;
}

/* The id of (key, machine) in configs, added when new (label updated to
 * the newest record's). */
static fb_status config_id(fb_history *h, sqlite3_stmt *find, sqlite3_stmt *add, const char *key, const char *machine,
                           const char *label, long long *id, int *added)
{
    fb_status status = FB_OK;
    sqlite3_reset(find);
    sqlite3_bind_text(find, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(find, 2, machine, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(find) == SQLITE_ROW) {
        *id = sqlite3_column_int64(find, 0);
        return FB_OK;
    }
    sqlite3_reset(add);
    sqlite3_bind_text(add, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(add, 2, machine, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(add, 3, label, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(add) != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot store a configuration"));
    *id = sqlite3_last_insert_rowid(h->db);
    ++*added;
fail:
    return status;
}

static void bind_number(sqlite3_stmt *st, int col, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_double(st, col, v);
}

/* The samples' median, min and max (NAN without samples). */
static void sample_stats(const fb_record *r, int usable, double *median, double *lo, double *hi)
{
    *median = usable ? fb_record_median(r) : NAN;
    *lo = *hi = NAN;
    for (int i = 0; usable && i < r->nsamples; ++i) {
        if (isnan(*lo) || r->samples[i] < *lo) *lo = r->samples[i];
        if (isnan(*hi) || r->samples[i] > *hi) *hi = r->samples[i];
    }
}

/* One record's row; its configuration is config. */
static fb_status insert_record(fb_history *h, sqlite3_stmt *st, long long run, long long config, const fb_record *r,
                               fb_history_add_summary *s)
{
    fb_status status = FB_OK;
    const char *why = "";
    int usable = fb_record_usable(r);
    fb_quality q = fb_json_quality(r->json, &why);
    double median, lo, hi;
    char *text = json_dumps(r->json, JSON_COMPACT), *env = NULL;
    const json_t *environment = fb_json_get(r->json, "environment");
    if (!text) FB_FAIL(FB_ERR_NOMEM, "out of host memory storing the record of line %d", r->line);
    if (environment) env = json_dumps(environment, JSON_COMPACT);
    sample_stats(r, usable, &median, &lo, &hi);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, config);
    sqlite3_bind_int(st, 3, r->line);
    sqlite3_bind_text(st, 4, fb_json_str(r->json, "status"), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 5, usable);
    sqlite3_bind_text(st, 6, fb_quality_name(q), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, why ? why : "", -1, SQLITE_TRANSIENT);
    bind_number(st, 8, median);
    bind_number(st, 9, lo);
    bind_number(st, 10, hi);
    sqlite3_bind_int(st, 11, r->nsamples);
    bind_number(st, 12, fb_json_num(r->json, "bytes"));
    sqlite3_bind_text(st, 13, fb_record_host(r), -1, SQLITE_TRANSIENT);
    if (env)
        sqlite3_bind_text(st, 14, env, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 14);
    sqlite3_bind_text(st, 15, text, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot store a record"));
    ++s->records;
    s->usable += usable;
    s->flagged += fb_quality_flagged(q);
fail:
    free(text);
    free(env);
    return status;
}

static fb_status insert_records(fb_history *h, const fb_results_set *set, long long run, fb_history_add_summary *s)
{
    fb_status status = FB_OK;
    sqlite3_stmt *find = NULL, *add = NULL, *rec = NULL;
    FB_CHECK(prepare(h, "SELECT id FROM configs WHERE key = ? AND machine = ?", &find));
    FB_CHECK(prepare(h, "INSERT INTO configs(key, machine, label) VALUES(?, ?, ?)", &add));
    FB_CHECK(prepare(h,
                     "INSERT INTO records(run, config, line, status, usable, quality, quality_why, median_s, min_s,"
                     " max_s, nsamples, bytes, host, environment, record)"
                     " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     &rec));
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        char machine[1024], label[512];
        long long config;
        if (!is_measurement(r)) continue;
        char *key = fb_measured_key(r->json, FB_KEY_PARAMS | FB_KEY_FILE);
        if (!key) FB_FAIL(FB_ERR_NOMEM, "out of host memory keying %s line %d", set->path, r->line);
        fb_history_machine(r, machine, sizeof machine);
        fb_record_label(r, label, sizeof label);
        status = config_id(h, find, add, key, machine, label, &config, &s->configs_new);
        free(key);
        FB_CHECK(status);
        FB_CHECK(insert_record(h, rec, run, config, r, s));
    }
fail:
    sqlite3_finalize(find);
    sqlite3_finalize(add);
    sqlite3_finalize(rec);
    return status;
}

fb_status fb_history_add(fb_history *h, fb_results_set *const *sets, int n, const fb_history_run_info *info,
                         fb_history_add_summary *s)
{
    fb_status status = FB_OK;
    for (int i = 0; i < n; ++i) {
        memset(&s[i], 0, sizeof s[i]);
        FB_CHECK(fb_history_run_hash(sets[i], s[i].hash));
    }
    /* IMMEDIATE: the write lock from the start, so two adders never both
     * pass the duplicate check before either has written; every file of
     * one command in one transaction, so a refused one adds none */
    FB_CHECK(exec(h, "BEGIN IMMEDIATE", "cannot lock for writing"));
    for (int i = 0; i < n && status == FB_OK; ++i) {
        status = check_new_run(h, s[i].hash, sets[i]->path);
        if (status == FB_OK) status = insert_run(h, sets[i], info, s[i].hash, &s[i].run);
        if (status == FB_OK) status = insert_records(h, sets[i], s[i].run, &s[i]);
    }
    if (status != FB_OK) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        goto fail;
    }
    FB_CHECK(exec(h, "COMMIT", "cannot commit the run"));
fail:
    return status;
}

/* ---- reading series ---------------------------------------------------- */

/* The rows of every record in series order; filtered in C (SQLite has no
 * regex). A commit's place is its earliest run's time: runners that added
 * the same commits at other times (then merged) give c1, c1, c2, c2, never
 * c1, c2, c1, c2. */
static const char *const series_sql =
    "WITH cw AS (SELECT commit_sha, MIN(when_s) AS w FROM runs GROUP BY commit_sha)"
    " SELECT c.key, c.machine, c.label, r.commit_sha, cw.w, x.median_s, x.min_s, x.max_s, x.bytes, x.usable,"
    " x.quality FROM records x JOIN runs r ON x.run = r.id JOIN configs c ON x.config = c.id"
    " JOIN cw ON cw.commit_sha = r.commit_sha"
    " ORDER BY c.key, c.machine, cw.w, r.commit_sha, r.id";

typedef struct series_builder {
    fb_history_series *v;
    int n, cap;
    double *medians; /* the current point's stable run medians */
    int nmedians, medians_cap;
    double lo, hi; /* the current point's one-run spread */
    /* the current point's commit whole: the point keeps at most
     * FB_HISTORY_COMMIT_MAX characters, and a longer id stored before add
     * refused it would otherwise start a new point at every run */
    char *commit;
} series_builder;

/* The current point's median and spread from the stable runs collected. */
static void point_close(series_builder *b)
{
    fb_history_point *p;
    if (!b->n || !b->v[b->n - 1].npoints) return;
    p = &b->v[b->n - 1].points[b->v[b->n - 1].npoints - 1];
    p->runs = b->nmedians;
    if (b->nmedians == 0) {
        p->median_s = p->lo_s = p->hi_s = NAN;
    } else {
        int m = b->nmedians;
        fb_sort_doubles(b->medians, (size_t)m);
        p->median_s = fb_median_sorted(b->medians, (size_t)m);
        p->lo_s = m > 1 ? b->medians[0] : b->lo;
        p->hi_s = m > 1 ? b->medians[m - 1] : b->hi;
    }
    b->nmedians = 0;
}

static fb_status series_start(series_builder *b, sqlite3_stmt *st)
{
    fb_status status = FB_OK;
    point_close(b);
    fb_history_series *v = fb_grow(b->v, &b->cap, b->n + 1, sizeof *v);
    if (!v) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading the history");
    b->v = v;
    fb_history_series *s = &b->v[b->n++];
    memset(s, 0, sizeof *s);
    s->key = strdup((const char *)sqlite3_column_text(st, 0));
    s->machine = strdup((const char *)sqlite3_column_text(st, 1));
    s->label = strdup((const char *)sqlite3_column_text(st, 2));
    if (!s->key || !s->machine || !s->label) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading the history");
fail:
    return status;
}

static fb_status point_start(series_builder *b, sqlite3_stmt *st)
{
    fb_status status = FB_OK;
    fb_history_series *s = &b->v[b->n - 1];
    point_close(b);
    if ((s->npoints & (s->npoints - 1)) == 0) { /* grown at powers of two */
        fb_history_point *p = realloc(s->points, (size_t)(s->npoints ? 2 * s->npoints : 8) * sizeof *p);
        if (!p) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading the history");
        s->points = p;
    }
    fb_history_point *p = &s->points[s->npoints++];
    memset(p, 0, sizeof *p);
    snprintf(p->commit, sizeof p->commit, "%s", (const char *)sqlite3_column_text(st, 3));
    p->when = sqlite3_column_int64(st, 4);
    free(b->commit);
    b->commit = strdup((const char *)sqlite3_column_text(st, 3));
    if (!b->commit) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading the history");
fail:
    return status;
}

/* One record row into the current point: stable usable runs count, the
 * others are only counted as left out. */
static fb_status point_add(series_builder *b, sqlite3_stmt *st, int include_flagged)
{
    fb_status status = FB_OK;
    fb_history_point *p = &b->v[b->n - 1].points[b->v[b->n - 1].npoints - 1];
    int stable = strcmp((const char *)sqlite3_column_text(st, 10), "stable") == 0;
    if (sqlite3_column_int(st, 9) && sqlite3_column_type(st, 5) != SQLITE_NULL && !stable) ++p->flagged;
    if (!sqlite3_column_int(st, 9) || (!stable && !include_flagged) || sqlite3_column_type(st, 5) == SQLITE_NULL)
        return FB_OK;
    double *m = fb_grow(b->medians, &b->medians_cap, b->nmedians + 1, sizeof *m);
    if (!m) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading the history");
    b->medians = m;
    b->medians[b->nmedians++] = sqlite3_column_double(st, 5);
    b->lo = sqlite3_column_double(st, 6);
    b->hi = sqlite3_column_double(st, 7);
    if (sqlite3_column_type(st, 8) != SQLITE_NULL) p->bytes = sqlite3_column_double(st, 8);
fail:
    return status;
}

/* Whether the row's configuration is wanted. */
static int row_matches(sqlite3_stmt *st, const regex_t *re, const char *exact)
{
    const char *key = (const char *)sqlite3_column_text(st, 0), *label = (const char *)sqlite3_column_text(st, 2);
    if (exact) return strcmp(key, exact) == 0;
    return !re || regexec(re, key, 0, NULL, 0) == 0 || regexec(re, label, 0, NULL, 0) == 0;
}

static int same_text(sqlite3_stmt *st, int col, const char *text)
{
    return strcmp((const char *)sqlite3_column_text(st, col), text) == 0;
}

static fb_status read_rows(fb_history *h, sqlite3_stmt *st, const regex_t *re, const fb_history_query *q,
                           series_builder *b)
{
    fb_status status = FB_OK;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fb_history_series *s = b->n ? &b->v[b->n - 1] : NULL;
        int same_config = s && same_text(st, 0, s->key) && same_text(st, 1, s->machine);
        if (!same_config && !row_matches(st, re, q->key)) continue;
        if (!same_config) FB_CHECK(series_start(b, st));
        s = &b->v[b->n - 1];
        /* one point per commit: runs of a commit share its time (history add) */
        if (!same_config || !same_text(st, 3, b->commit)) FB_CHECK(point_start(b, st));
        FB_CHECK(point_add(b, st, q->include_flagged));
    }
    if (rc != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot read the history"));
    point_close(b);
fail:
    return status;
}

fb_status fb_history_series_load(fb_history *h, const fb_history_query *q, fb_history_series **out, int *n)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    series_builder b = {0};
    regex_t re;
    int have_re = 0, rc;
    *out = NULL;
    *n = 0;
    if (q->filter && !q->key) {
        if ((rc = regcomp(&re, q->filter, REG_EXTENDED | REG_NOSUB)) != 0) {
            char why[200];
            regerror(rc, &re, why, sizeof why);
            FB_FAIL(FB_ERR_USAGE, "--filter: '%s' is not a regular expression (%s)", q->filter, why);
        }
        have_re = 1;
    }
    FB_CHECK(prepare(h, series_sql, &st));
    FB_CHECK(read_rows(h, st, have_re ? &re : NULL, q, &b));
    *out = b.v;
    *n = b.n;
    b.v = NULL;
fail:
    if (have_re) regfree(&re);
    sqlite3_finalize(st);
    fb_history_series_free(b.v, b.n);
    free(b.medians);
    free(b.commit);
    return status;
}

void fb_history_series_free(fb_history_series *s, int n)
{
    for (int i = 0; s && i < n; ++i) {
        free(s[i].key);
        free(s[i].label);
        free(s[i].machine);
        free(s[i].points);
    }
    free(s);
}

int fb_history_series_values(const fb_history_series *s, double *values, int *idx)
{
    int n = 0;
    for (int i = 0; i < s->npoints; ++i) {
        if (s->points[i].runs == 0) continue;
        values[n] = s->points[i].median_s;
        idx[n++] = i;
    }
    return n;
}

fb_status fb_history_baseline(fb_history *h, const char *key, const char *machine, const char *exclude, int lookback,
                              double *medians, int *n)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    *n = 0;
    FB_CHECK(prepare(h,
                     "SELECT x.median_s FROM records x JOIN runs r ON x.run = r.id JOIN configs c ON x.config = c.id"
                     " WHERE c.key = ? AND c.machine = ? AND x.usable = 1 AND x.quality = 'stable'"
                     " AND x.median_s IS NOT NULL AND r.hash != ? ORDER BY r.when_s DESC, r.id DESC LIMIT ?",
                     &st));
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, machine, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, exclude ? exclude : "", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, lookback);
    int rc = SQLITE_DONE;
    while (*n < lookback && (rc = sqlite3_step(st)) == SQLITE_ROW)
        medians[(*n)++] = sqlite3_column_double(st, 0);
    /* a damaged page is no empty history: every configuration would pass as new */
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot read the baseline"));
fail:
    sqlite3_finalize(st);
    return status;
}

/* ---- merge and export ---------------------------------------------------- */

/* The other database's runs that this one lacks (by identity), their
 * configurations, then their records with both ids mapped. */
static const char *const merge_sql[] = {
    "INSERT OR IGNORE INTO main.configs(key, machine, label) SELECT key, machine, label FROM other.configs",
    "INSERT INTO main.runs(hash, commit_sha, branch, when_s, added_s, source, header)"
    " SELECT hash, commit_sha, branch, when_s, added_s, source, header FROM other.runs"
    " WHERE hash NOT IN (SELECT hash FROM main.runs) ORDER BY id",
    "INSERT INTO main.records(run, config, line, status, usable, quality, quality_why, median_s, min_s, max_s,"
    " nsamples, bytes, host, environment, record)"
    " SELECT mr.id, mc.id, x.line, x.status, x.usable, x.quality, x.quality_why, x.median_s, x.min_s, x.max_s,"
    " x.nsamples, x.bytes, x.host, x.environment, x.record FROM other.records x"
    " JOIN other.runs orun ON x.run = orun.id JOIN main.runs mr ON mr.hash = orun.hash"
    " JOIN other.configs oc ON x.config = oc.id JOIN main.configs mc ON mc.key = oc.key AND mc.machine = oc.machine"
    " WHERE mr.id > ?",
};

static long long count_of(fb_history *h, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static fb_status merge_rows(fb_history *h, fb_history_merge_summary *s)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    long long last = count_of(h, "SELECT coalesce(max(id), 0) FROM main.runs");
    long long theirs = count_of(h, "SELECT count(*) FROM other.runs");
    long long before = count_of(h, "SELECT count(*) FROM main.records");
    FB_CHECK(exec(h, merge_sql[0], "cannot merge the configurations"));
    FB_CHECK(exec(h, merge_sql[1], "cannot merge the runs"));
    s->runs = (int)sqlite3_changes(h->db);
    s->duplicates = (int)(theirs - s->runs);
    FB_CHECK(prepare(h, merge_sql[2], &st));
    sqlite3_bind_int64(st, 1, last);
    if (sqlite3_step(st) != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot merge the records"));
    s->records = count_of(h, "SELECT count(*) FROM main.records") - before;
fail:
    sqlite3_finalize(st);
    return status;
}

fb_status fb_history_merge(fb_history *h, const char *other, fb_history_merge_summary *s)
{
    fb_status status = FB_OK;
    fb_history *o = NULL;
    sqlite3_stmt *st = NULL;
    memset(s, 0, sizeof *s);
    FB_CHECK(fb_history_open(other, 0, &o)); /* checks it is a history of this schema */
    fb_history_close(o);
    FB_CHECK(prepare(h, "ATTACH DATABASE ? AS other", &st));
    sqlite3_bind_text(st, 1, other, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot open the history to merge"));
    FB_CHECK(exec(h, "BEGIN IMMEDIATE", "cannot lock for writing"));
    status = merge_rows(h, s);
    if (status != FB_OK)
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    else
        status = exec(h, "COMMIT", "cannot commit the merge");
    sqlite3_exec(h->db, "DETACH DATABASE other", NULL, NULL, NULL);
fail:
    sqlite3_finalize(st);
    return status;
}

/* A CSV field (export.h), then a comma or, after the last, the line's end. */
static void csv_field(FILE *out, const char *text, int last)
{
    fb_csv_field(out, text);
    fputc(last ? '\n' : ',', out);
}

/* A time no calendar year up to 9999 holds (stored by other means than
 * add) is exported as its seconds, as show says it, not as an empty field. */
static const char *const export_sql =
    "SELECT r.commit_sha, r.branch, COALESCE(strftime('%Y-%m-%dT%H:%M:%SZ', r.when_s, 'unixepoch'), r.when_s || 's'),"
    " r.hash, c.key, c.label,"
    " c.machine, x.host, x.status, x.quality, x.quality_why, x.median_s, x.min_s, x.max_s, x.nsamples, x.bytes,"
    " x.bytes / x.median_s / 1e9 FROM records x JOIN runs r ON x.run = r.id JOIN configs c ON x.config = c.id"
    " ORDER BY r.when_s, r.id, x.line";

fb_status fb_history_export_csv(fb_history *h, FILE *out, long long *rows)
{
    static const char *const names[] = {"commit",  "branch", "when",     "run",     "key",         "label",
                                        "machine", "host",   "status",   "quality", "quality_why", "median_s",
                                        "min_s",   "max_s",  "nsamples", "bytes",   "gbs"};
    const int ncols = (int)(sizeof names / sizeof names[0]);
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    int rc;
    *rows = 0;
    FB_CHECK(prepare(h, export_sql, &st));
    for (int c = 0; c < ncols; ++c)
        csv_field(out, names[c], c == ncols - 1);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < ncols; ++c) {
            const unsigned char *v = sqlite3_column_text(st, c);
            csv_field(out, v ? (const char *)v : "", c == ncols - 1);
        }
        ++*rows;
    }
    if (rc != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot read the history"));
fail:
    sqlite3_finalize(st);
    return status;
}

fb_status fb_history_commit_when(fb_history *h, const char *commit, long long *when)
{
    fb_status status = FB_OK;
    sqlite3_stmt *st = NULL;
    *when = -1;
    FB_CHECK(prepare(h, "SELECT when_s FROM runs WHERE commit_sha = ? ORDER BY id LIMIT 1", &st));
    sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *when = sqlite3_column_int64(st, 0);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) FB_CHECK(db_error(h, FB_ERR_IO, "cannot read the commit's time"));
fail:
    sqlite3_finalize(st);
    return status;
}

void fb_history_default_path(char *buf, size_t len)
{
    fb_cache_sibling_path("FLOWBENCH_HISTORY_DB", "history.db", "history.db", buf, len);
}

fb_status fb_history_add_files(fb_history *h, const char *const *paths, int n, const fb_history_run_info *info,
                               FILE *out)
{
    fb_status status = FB_OK;
    fb_results_set **sets = NULL;
    fb_history_add_summary *sums = NULL;
    fb_history_run_info run = *info;
    /* without a time, a commit's later runs join its point: its first run's time, else now */
    if (run.when < 0) FB_CHECK(fb_history_commit_when(h, run.commit, &run.when));
    if (run.when < 0) run.when = (long long)time(NULL);
    FB_ALLOC(sets, n, "the results files");
    FB_ALLOC(sums, n, "the results files");
    for (int i = 0; i < n; ++i) {
        FB_CHECK(fb_results_check_idle(paths[i]));
        FB_CHECK(fb_results_load(paths[i], &sets[i]));
    }
    FB_CHECK(fb_history_add(h, sets, n, &run, sums));
    for (int i = 0; i < n; ++i) {
        const fb_history_add_summary *s = &sums[i];
        fprintf(out,
                "history add: %s: run %s of commit %s: %d record(s), %d usable, %d unstable or contended (kept out "
                "of baselines), %d new configuration(s) -> %s\n",
                sets[i]->path, s->hash, run.commit, s->records, s->usable, s->flagged, s->configs_new,
                fb_history_path(h));
    }
fail:
    free(sums);
    for (int i = 0; sets && i < n; ++i)
        fb_results_set_free(sets[i]);
    free(sets);
    return status;
}
