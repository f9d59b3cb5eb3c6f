/* stream_text.c - stream's results and reference as text (stream_text.h). */
#include "stream_text.h"

void fb_stream_print_header(FILE *f, const fb_device_info *d, const fb_stream_config *cfg)
{
    char note[512];
    const fb_stream_size s = fb_stream_size_of(d, cfg->is_double, cfg->n);
    fprintf(f, "stream on %s (%s), %s, n = %zu (3 arrays, %.1f MiB), work-group %zu%s\n", d->id, d->name,
            cfg->is_double ? "double" : "single", cfg->n, s.working_set_bytes / (1 << 20), cfg->wg,
            cfg->measure.cold ? ", cold cache" : "");
    fb_stream_size_note(d, &s, note, sizeof note);
    if (*note) fprintf(f, "  note: %s\n", note);
    fprintf(f, "  %-6s %9s %9s %11s %8s %7s  %-11s %s\n", "kernel", "GB/s", "best GB/s", "median ms", "samples",
            "spread", "stop", "check");
}

void fb_stream_print_result(FILE *f, const fb_stream_result *r)
{
    fprintf(f, "  %-6s %9.2f %9.2f %11.4f %8d %6.2f%%  %-11s %s (max rel err %.2g)\n", r->model->name, r->gbs,
            r->gbs_best, r->m.stats.median * 1e3, r->m.nsamples, 100.0 * r->m.stats.median_spread,
            fb_stop_reason_name(r->m.stop), r->checked_ok ? "ok" : "WRONG", r->max_rel_error);
    if (r->m.quality != FB_QUALITY_STABLE)
        fprintf(f, "         %s: %s\n", fb_quality_name(r->m.quality), r->m.quality_why);
    fflush(f);
}

void fb_stream_ref_print(FILE *f, const fb_stream_ref *ref, const char *path)
{
    const fb_stream_triad *t = &ref->triad, *p = &ref->passed_over;
    if (ref->has_passed_over)
        fprintf(f, "  measured %.2f GB/s, %s (%s): not stored, and passed over for the stored stable one\n", p->gbs,
                fb_quality_name(p->quality), p->quality_why);
    char ago[64] = "";
    if (ref->stored) snprintf(ago, sizeof ago, ", measured %.0f s ago", ref->age_s);
    fprintf(f, "  %s %.2f GB/s (%.2f-%.2f over %d samples%s), %s\n", ref->stored ? "stored" : "measured", t->gbs,
            t->gbs_min, t->gbs_max, t->samples, ago, path);
    if (t->quality != FB_QUALITY_STABLE)
        fprintf(f,
                "  note: this triad is %s (%s) and nothing stable is stored: it was not stored, and the fractions "
                "below that divide by it are flagged\n",
                fb_quality_name(t->quality), t->quality_why);
}
