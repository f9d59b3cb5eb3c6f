/* merge.c - joins results files (contracts in merge.h): a pass that
 * checks every input, then a pass that copies their lines. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../core/files.h"
#include "reader.h"

typedef struct merge {
    int into;           /* fb_merge_into: the destination holds records already */
    int quiet;          /* damaged lines not said (the copying pass; the destination) */
    json_t *held;       /* run_id -> {sweep_key: true}: what the destination holds */
    json_t *runs;       /* run ids whose header is in the output */
    json_t *keys;       /* sweep_key -> "FILE: line N" of the record that brings it */
    json_t *identity;   /* the first header's sweep (fb_merge_files) */
    json_t *identities; /* run_id -> its header's sweep (fb_merge_into) */
    char identity_at[1100];
    json_t *shares; /* "N" -> {"I": true}: the shares of an I/N split seen */
    json_t *copied; /* a record without a sweep_key (sorted compact text) -> true: written once */
    int damaged;
    fb_results *dest;      /* fb_merge_into */
    const char *dest_path; /* fb_merge_into */
    FILE *out;             /* fb_merge_files */
    fb_merge_summary *sum;
} merge;

typedef fb_status (*line_fn)(merge *m, const char *where, const char *text, const json_t *rec);

/* ---- reading an input ---- */

static int is_json_text(const char *text)
{
    json_t *rec = json_loads(text, 0, NULL);
    json_decref(rec);
    return rec != NULL;
}

/* A line that is not JSON at all: a cut write, skipped as the readers do
 * (said once, in the checking pass). */
static void skip_damaged(merge *m, const char *where)
{
    if (!m->quiet && m->damaged++ < 3) fprintf(stderr, "%s: not valid JSON (a damaged write?): skipped\n", where);
}

static fb_status one_line(merge *m, const char *path, int line, char *text, line_fn fn)
{
    fb_status status = FB_OK;
    json_t *rec = NULL;
    char where[1100];
    snprintf(where, sizeof where, "%s: line %d", path, line);
    status = fb_results_check_line(text, path, line, &rec);
    if (status != FB_OK && is_json_text(text)) return status; /* a record that breaks the schema */
    if (status != FB_OK) {
        skip_damaged(m, where);
        return FB_OK;
    }
    status = fn(m, where, text, rec);
    json_decref(rec);
    return status;
}

static fb_status each_line(merge *m, const char *path, line_fn fn)
{
    fb_status status = FB_OK;
    FILE *f = NULL;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    FB_CHECK(fb_file_fopen_read_gz(path, "the results file", &f));
    for (int line = 1; (n = getline(&text, &cap, f)) >= 0; ++line) {
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
            text[--n] = '\0';
        if (strspn(text, " \t") == (size_t)n) continue;
        FB_CHECK(one_line(m, path, line, text, fn));
    }
    if (ferror(f)) FB_FAIL(FB_ERR_IO, "%s: read failed", path);
fail:
    free(text);
    if (f) fclose(f);
    return status;
}

static int is_header(const json_t *rec) { return !strcmp(fb_json_str(rec, "type"), "header"); }
static const char *key_of(const json_t *rec) { return json_string_value(json_object_get(rec, "sweep_key")); }

/* ---- the sweep a header describes ---- */

/* What must be equal for two files to be shares of one sweep. */
static json_t *identity_of(const json_t *header)
{
    json_t *sweep = json_deep_copy(json_object_get(header, "sweep"));
    if (json_is_object(sweep)) json_object_del(sweep, "shard");
    return json_pack("{s:O?, s:O?, s:o?}", "command", json_object_get(header, "command"), "suite",
                     json_object_get(header, "suite"), "sweep", sweep);
}

static void value_text(const json_t *v, char *buf, size_t len)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    snprintf(buf, len, "%s", text ? text : "absent");
    free(text);
}

/* The first field of a whose value differs in b, or NULL. */
static const char *first_unequal(const json_t *a, const json_t *b)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)a, key, v)
    {
        if (!json_equal(v, json_object_get(b, key))) return key;
    }
    json_object_foreach((json_t *)b, key, v)
    {
        if (!json_object_get(a, key)) return key;
    }
    return NULL;
}

/* "suite \"slow\", not \"e2e\"": the first field in which b differs from
 * a, inside the sweep options when it is they that differ. */
static void difference(const json_t *a, const json_t *b, char *buf, size_t len)
{
    const char *field = first_unequal(a, b);
    const json_t *va = field ? json_object_get(a, field) : NULL, *vb = field ? json_object_get(b, field) : NULL;
    char ta[256], tb[256];
    if (json_is_object(va) && json_is_object(vb) && first_unequal(va, vb)) {
        field = first_unequal(va, vb);
        va = json_object_get(va, field), vb = json_object_get(vb, field);
    }
    value_text(vb, tb, sizeof tb);
    value_text(va, ta, sizeof ta);
    snprintf(buf, len, "%s %s, not %s", field ? field : "sweep", tb, ta);
}

static fb_status check_identity(merge *m, const char *where, const json_t *header)
{
    fb_status status = FB_OK;
    json_t *mine = identity_of(header), *ref = m->identity;
    const char *run = fb_json_str(header, "run_id");
    char why[600];
    if (m->into) ref = json_object_get(m->identities, run);
    if (!ref) {
        if (m->into) json_object_set(m->identities, run, mine);
        if (!m->into) m->identity = json_incref(mine), snprintf(m->identity_at, sizeof m->identity_at, "%s", where);
        goto fail;
    }
    if (json_equal(ref, mine)) goto fail;
    difference(ref, mine, why, sizeof why);
    FB_FAIL(FB_ERR_INPUT, "%s: a header of another sweep (%s as in %s); merge joins the shares of one sweep", where,
            why, m->into ? "the run it continues" : m->identity_at);
fail:
    json_decref(mine);
    return status;
}

/* "I/N" of a header's share, for saying which shares no input holds. */
static void note_share(merge *m, const json_t *header)
{
    const char *share = fb_json_str(header, "sweep.shard"), *slash = strchr(share, '/');
    char n[32];
    if (!slash || (size_t)(slash - share) >= sizeof n) return;
    snprintf(n, sizeof n, "%s", slash + 1);
    if (!json_object_get(m->shares, n)) json_object_set_new(m->shares, n, json_object());
    json_object_set_new(json_object_get(m->shares, n), share, json_true());
}

/* ---- records without a sweep_key ---- */

/* Such a record (spmv --out, solve --out) is told from another by all it
 * says, its run_id and timestamp included: the same text in two inputs is
 * one measurement copied, not two. Sorted keys, so field order is no
 * difference. */
static char *record_identity(const json_t *rec) { return json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS); }

/* 1 when the record was seen before (not to be written again); else notes
 * it. Out of memory, it counts as new: a copy too many, never one lost. */
static int seen_before(merge *m, const json_t *rec)
{
    char *text = record_identity(rec);
    int seen = text && json_object_get(m->copied, text) != NULL;
    if (text && !seen) json_object_set_new(m->copied, text, json_true());
    free(text);
    return seen;
}

/* ---- the checking pass ---- */

/* fb_merge_into joins files of runs the destination holds (an MPI sweep's
 * ranks write in rank 0's run): a file of another run is one an earlier
 * sweep left beside it, whose records must not pass as this file's. */
static fb_status check_run_held(const merge *m, const char *where, const json_t *rec)
{
    fb_status status = FB_OK;
    const char *run = fb_json_str(rec, "run_id");
    if (m->into && !json_object_get(m->runs, run))
        FB_FAIL(FB_ERR_INPUT, "%s: a line of run %s, which %s does not hold (a file another sweep left?)", where, run,
                m->dest_path);
fail:
    return status;
}

static int held(const merge *m, const json_t *rec)
{
    const char *key = key_of(rec);
    return m->into && key && json_object_get(json_object_get(m->held, fb_json_str(rec, "run_id")), key);
}

static fb_status check_line(merge *m, const char *where, const char *text, const json_t *rec)
{
    fb_status status = FB_OK;
    const char *key = key_of(rec);
    const json_t *first;
    (void)text;
    FB_CHECK(check_run_held(m, where, rec));
    if (is_header(rec)) {
        note_share(m, rec);
        return check_identity(m, where, rec);
    }
    if (!key) return FB_OK; /* not a sweep's record: a copy of it is written once (copy_line) */
    if (held(m, rec)) {
        m->sum->present++;
        return FB_OK;
    }
    if ((first = json_object_get(m->keys, key)) != NULL)
        FB_FAIL(FB_ERR_INPUT, "sweep_key '%s' is recorded twice: %s and %s", key, json_string_value(first), where);
    json_object_set_new(m->keys, key, json_string(where));
fail:
    return status;
}

/* The destination's records (fb_merge_into): what is held, by run. */
static fb_status hold_line(merge *m, const char *where, const char *text, const json_t *rec)
{
    const char *run = fb_json_str(rec, "run_id"), *key = key_of(rec);
    (void)text;
    if (is_header(rec)) {
        json_object_set_new(m->runs, run, json_true());
        return check_identity(m, where, rec);
    }
    if (!key) {
        seen_before(m, rec); /* held: a copy in an input is not appended again */
        return FB_OK;
    }
    if (!json_object_get(m->held, run)) json_object_set_new(m->held, run, json_object());
    return json_object_set_new(json_object_get(m->held, run), key, json_true()) ? FB_ERR_NOMEM : FB_OK;
}

/* ---- the copying pass ---- */

static fb_status copy_line(merge *m, const char *where, const char *text, const json_t *rec)
{
    fb_status status = FB_OK;
    const char *run = fb_json_str(rec, "run_id");
    (void)where;
    if (is_header(rec) && json_object_get(m->runs, run)) return FB_OK; /* one header per run */
    if (!is_header(rec) && held(m, rec)) return FB_OK;
    if (!is_header(rec) && !key_of(rec) && seen_before(m, rec)) {
        m->sum->duplicates++;
        return FB_OK;
    }
    if (m->dest)
        FB_CHECK(fb_results_copy_line(m->dest, text));
    else
        fprintf(m->out, "%s\n", text);
    if (is_header(rec)) json_object_set_new(m->runs, run, json_true());
    if (is_header(rec))
        m->sum->headers++;
    else
        m->sum->records++;
fail:
    return status;
}

static fb_status each_input(merge *m, const char *const *inputs, int n, line_fn fn)
{
    fb_status status = FB_OK;
    m->quiet = fn == copy_line;
    for (int i = 0; i < n; ++i)
        FB_CHECK(each_line(m, inputs[i], fn));
fail:
    return status;
}

static fb_status merge_init(merge *m, fb_merge_summary *sum)
{
    memset(m, 0, sizeof *m);
    memset(sum, 0, sizeof *sum);
    m->sum = sum;
    m->held = json_object(), m->runs = json_object(), m->keys = json_object();
    m->identities = json_object(), m->shares = json_object(), m->copied = json_object();
    if (!m->held || !m->runs || !m->keys || !m->identities || !m->shares || !m->copied)
        return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory merging results files");
    return FB_OK;
}

static void merge_free(merge *m)
{
    json_t *objects[] = {m->held, m->runs, m->keys, m->identity, m->identities, m->shares, m->copied};
    for (size_t i = 0; i < sizeof objects / sizeof *objects; ++i)
        json_decref(objects[i]);
}

static fb_status check_idle(const char *const *inputs, int n)
{
    fb_status status = FB_OK;
    for (int i = 0; i < n; ++i)
        FB_CHECK(fb_results_check_idle(inputs[i]));
fail:
    return status;
}

/* ---- fb_merge_files ---- */

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* An input named twice would be refused as every one of its keys recorded
 * twice; an OUT that is no input would be replaced and lost. */
static fb_status check_paths(const char *out, const char *const *inputs, int n)
{
    fb_status status = FB_OK;
    struct stat so, si, sj;
    int out_exists = stat(out, &so) == 0, out_is_input = 0;
    for (int i = 0; i < n; ++i) {
        if (stat(inputs[i], &si) != 0) continue; /* the reader says why */
        out_is_input |= out_exists && same_file(&so, &si);
        for (int j = 0; j < i; ++j)
            if (stat(inputs[j], &sj) == 0 && same_file(&si, &sj))
                FB_FAIL(FB_ERR_USAGE, "merge: %s is given twice (as %s and %s)", inputs[i], inputs[j], inputs[i]);
    }
    if (out_exists && S_ISREG(so.st_mode) && !out_is_input)
        FB_FAIL(FB_ERR_USAGE, "merge: %s exists: name it among the inputs to add to it, or remove it", out);
fail:
    return status;
}

#define SHOWN_MISSING 5 /* shares named in the line; the rest counted */

/* How many of seen's keys are shares 1..total of the split "/n". */
static long shares_held(json_t *seen, const char *n, long total)
{
    const char *key;
    json_t *v;
    long held = 0;
    json_object_foreach(seen, key, v)
    {
        char canon[64];
        long i = strtol(key, NULL, 10);
        snprintf(canon, sizeof canon, "%ld/%s", i, n);
        held += i >= 1 && i <= total && !strcmp(key, canon);
    }
    return held;
}

/* Which shares of an I/N split no input holds: said, not refused (joining
 * what has finished so far is a use, too), in one line per split, the
 * first few named: a header of 1/99999 is not 99,998 lines. */
static void say_missing_shares(const merge *m, const char *out)
{
    const char *n;
    json_t *seen;
    json_object_foreach(m->shares, n, seen)
    {
        long total = strtol(n, NULL, 10), missing = total > 0 ? total - shares_held(seen, n, total) : 0;
        char share[64], list[SHOWN_MISSING * (64 + 2)] = ""; /* room for every share shown and ", " */
        size_t used = 0;
        for (long i = 1, shown = 0; i <= total && shown < SHOWN_MISSING && shown < missing; ++i) {
            snprintf(share, sizeof share, "%ld/%s", i, n);
            if (json_object_get(seen, share)) continue;
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", shown++ ? ", " : "", share);
        }
        if (missing == 1)
            fprintf(stderr, "merge: no input holds shard %s: %s lacks its configurations\n", list, out);
        else if (missing > 1)
            fprintf(stderr, "merge: no input holds %ld of the %ld shards (%s%s): %s lacks their configurations\n",
                    missing, total, list, missing > SHOWN_MISSING ? ", ..." : "", out);
    }
}

fb_status fb_merge_files(const char *out, const char *const *inputs, int n, fb_merge_summary *sum)
{
    fb_status status = FB_OK;
    fb_file_writer w = {0};
    merge m;
    int opened = 0;
    FB_CHECK(merge_init(&m, sum));
    sum->inputs = n;
    FB_CHECK(check_paths(out, inputs, n));
    FB_CHECK(check_idle(inputs, n));
    FB_CHECK(each_input(&m, inputs, n, check_line));
    FB_CHECK(fb_file_writer_open(out, &w));
    opened = 1;
    m.out = w.f;
    FB_CHECK(each_input(&m, inputs, n, copy_line));
    say_missing_shares(&m, out);
fail:
    if (opened) {
        fb_status closed = fb_file_writer_close(&w, status == FB_OK);
        if (status == FB_OK) status = closed;
    }
    merge_free(&m);
    return status;
}

/* ---- fb_merge_into ---- */

fb_status fb_merge_into(fb_results *dest, const char *dest_path, const char *const *inputs, int n,
                        fb_merge_summary *sum)
{
    fb_status status = FB_OK;
    merge m;
    FB_CHECK(merge_init(&m, sum));
    m.into = 1, m.dest = dest, m.dest_path = dest_path;
    sum->inputs = n;
    FB_CHECK(check_idle(inputs, n));
    m.quiet = 1; /* the destination's damaged lines are its readers' to say */
    FB_CHECK(each_line(&m, dest_path, hold_line));
    FB_CHECK(each_input(&m, inputs, n, check_line));
    FB_CHECK(each_input(&m, inputs, n, copy_line));
    FB_CHECK(fb_results_sync(dest));
fail:
    merge_free(&m);
    return status;
}
