/* catalogue.c - what can run here, listed (catalogue.h). */
#include "catalogue.h"

#include <string.h>

#include "families.h"
#include "ns/ns_kernels.h"
#include "spmv/peers.h"
#include "spmv/spmv.h"
#include "spmv/spmv_auto.h"
#include "../../backends/target.h"
#include "../records/results.h"

void fb_catalogue_print_axes(FILE *f, const fb_param_axis *axes, int naxes, const char *indent)
{
    for (int p = 0; p < naxes; ++p) {
        const fb_param_axis *a = &axes[p];
        fprintf(f, "%s%s = {", indent, a->name);
        for (int v = 0; v < a->nvalues; ++v)
            fprintf(f, "%s%d", v ? ", " : "", a->values[v]);
        fprintf(f, "}, default %d: %s%s", a->def, a->help ? a->help : "",
                a->launch_only ? " (host side: the same programs)" : "");
        fprintf(f, a->role != FB_ROLE_OTHER ? " [%s]\n" : "\n", fb_axis_role_name(a->role));
    }
}

/* A family's head: its name and summary, its model and what it is checked
 * against (the descriptor's own words). */
static void print_family(FILE *f, const fb_family *fam)
{
    fprintf(f, "family %s: %s\n", fam->name, fam->summary);
    fprintf(f, "  model: %s\n", fam->model);
    fprintf(f, "  checked against: %s\n", fam->reference);
}

static void print_peers(FILE *f)
{
    for (int i = 0; i < fb_peer_count(); ++i) {
        const fb_peer *p = fb_peer_at(i);
        char why[256] = "";
        int ok = p->available(why, sizeof why);
        fprintf(f, "%s  %s, on the %s backend%s%s%s\n", p->def.name, p->def.summary, p->backend,
                p->double_only ? ", double precision only" : "", ok ? "" : ": ", ok ? "" : why);
    }
}

void fb_catalogue_print_spmv(FILE *f)
{
    print_family(f, &fb_family_spmv);
    for (int i = 0; i < fb_spmv_kernel_count; ++i) {
        const fb_spmv_kernel_def *k = &fb_spmv_kernels[i];
        fprintf(f, "%s  %s\n", k->name, k->summary);
        fb_catalogue_print_axes(f, k->params, k->nparams, "    ");
        if (k->format->blocked) fprintf(f, "    BLOCK_SIZE = the matrix's block size (SRC:block=K)\n");
    }
    print_peers(f);
    fprintf(f,
            "auto  the format, kernel and parameters for the matrix, from %d recorded (device class, precision, "
            "matrix) bests (kernels/spmv/spmv_auto_rule.h)\n",
            fb_spmv_auto_rule_count());
    for (int i = 0; i < fb_family_spmv.kernel_count(); ++i) { /* --kernel-file's, registered before listing */
        const fb_family_kernel *k = fb_family_spmv.kernel(i);
        if (!k->user) continue;
        fprintf(f, "%s  %s\n", k->name, k->summary);
        fb_catalogue_print_axes(f, k->params, k->nparams, "    ");
    }
}

void fb_catalogue_print_grid(FILE *f)
{
    for (int i = 0; i < fb_family_count(); ++i) {
        const fb_family *fam = fb_family_at(i);
        if (!fb_family_is_grid(fam)) continue;
        print_family(f, fam);
        for (int k = 0; k < fam->kernel_count(); ++k) {
            const fb_family_kernel *fk = fam->kernel(k);
            fprintf(f, "  %s  %s\n", fk->name, fk->summary);
            fb_catalogue_print_axes(f, fk->params, fk->nparams, "      ");
        }
    }
}

void fb_catalogue_print_solver(FILE *f)
{
    print_family(f, fb_family_find("ns"));
    fprintf(f, "  its kernels, launched in this order within a step:\n");
    for (int k = 0; k < FB_NS_NKERNELS; ++k)
        fprintf(f, "    %s\n", fb_ns_kernel_names[k]);
    fprintf(f, "  parameters of every kernel (--param NAME=V with --backend opencl or cuda):\n");
    fb_catalogue_print_axes(f, fb_ns_axes, FB_NS_NAXES, "    ");
}

static void print_bytes(FILE *f, const char *label, size_t bytes)
{
    if (!bytes)
        fprintf(f, "%s -", label);
    else if (bytes >= (1u << 30))
        fprintf(f, "%s %.1f GiB", label, (double)bytes / (1u << 30));
    else if (bytes >= (1u << 20))
        fprintf(f, "%s %.1f MiB", label, (double)bytes / (1u << 20));
    else
        fprintf(f, "%s %.0f KiB", label, (double)bytes / 1024.0);
}

static void print_device_text(FILE *f, const fb_device_info *d)
{
    fprintf(f, "%-12s %s (%s)\n", d->id, d->name, d->vendor);
    fprintf(f, "    compute units %d | max work-group ", d->compute_units);
    if (d->max_work_group_size)
        fprintf(f, "%zu", d->max_work_group_size);
    else
        fprintf(f, "-");
    print_bytes(f, " | local mem", d->local_mem_bytes);
    print_bytes(f, " | global mem", d->global_mem_bytes);
    print_bytes(f, " | last-level cache", d->cache_bytes);
    fprintf(f, " | clock %d MHz | double %s", d->clock_mhz, d->double_support ? "yes" : "no");
    if (d->subgroup_size) fprintf(f, " | sub-group %d", d->subgroup_size);
    if (d->simd[0]) fprintf(f, " | vectors %s, %d-bit", d->simd, d->simd_bits);
    fprintf(f, "\n    version %s | driver %s | runtime %s\n", d->device_version, d->driver_version, d->runtime_version);
}

/* One backend: its devices, each said on text when not NULL. */
static json_t *backend_json(const fb_backend_ops *ops, FILE *text)
{
    char why[256] = "";
    int n = ops->probe(why, sizeof why);
    json_t *devs = json_array();
    if (n <= 0 && text) fprintf(text, "%s: %s\n", ops->name, why[0] ? why : "no device");
    for (int i = 0; i < n; ++i) {
        fb_device_info info;
        memset(&info, 0, sizeof info);
        if (ops->device_info(i, &info) != FB_OK) {
            if (text) fprintf(text, "%s:%d: %s\n", ops->name, i, fb_error_message());
            continue;
        }
        if (text) print_device_text(text, &info);
        json_array_append_new(devs, fb_json_device(&info));
    }
    json_t *b = json_pack("{s:s, s:b, s:o}", "name", ops->name, "available", n > 0, "devices", devs);
    if (n <= 0) json_object_set_new(b, "reason", json_string(why[0] ? why : "no device"));
    return b;
}

json_t *fb_catalogue_devices(FILE *text)
{
    json_t *all = json_array();
    for (int i = 0; i < fb_backend_count(); ++i)
        json_array_append_new(all, backend_json(fb_backend_at(i), text));
    return json_pack("{s:o}", "backends", all);
}
