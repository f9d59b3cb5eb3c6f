/* datadir.c - the one rule for finding the files flowbench ships
 * (datadir.h). */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DIRS 4

typedef struct data_dirs {
    char dir[MAX_DIRS][PATH_MAX];
    char real[MAX_DIRS][PATH_MAX]; /* "" for a folder that does not exist */
    int n;
} data_dirs;

/* A folder reached twice (build/.. is the source tree this file was
 * compiled in; the current folder may be either) is searched and named
 * once. */
static void add_dir(data_dirs *d, const char *dir)
{
    char real[PATH_MAX] = "";
    if (d->n == MAX_DIRS || !*dir) return;
    if (!realpath(dir, real)) real[0] = '\0';
    for (int i = 0; i < d->n && real[0]; ++i)
        if (strcmp(d->real[i], real) == 0) return;
    snprintf(d->dir[d->n], PATH_MAX, "%s", dir);
    snprintf(d->real[d->n], PATH_MAX, "%s", real);
    d->n++;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder above the executable's, from the kernel's link: argv[0] may
 * be a bare name found on PATH, or a symbolic link. */
static int exe_above(char *above, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = '\0';
    for (int up = 0; up < 2; ++up) {
        char *slash = strrchr(exe, '/');
        if (!slash) return 0;
        slash[slash == exe] = '\0'; /* "/flowbench" keeps "/" */
    }
    snprintf(above, len, "%s", exe);
    return 1;
}

/* The source tree: __FILE__ is .../harness/core/datadir.c when the build
 * names its sources by absolute path, as CMake does. */
static void source_tree(char *dir, size_t len)
{
    char source[PATH_MAX];
    snprintf(source, sizeof source, "%s", __FILE__);
    char *cut = strstr(source, "/harness/core/datadir.c");
    if (cut) *cut = '\0';
    snprintf(dir, len, "%s", cut && source[0] == '/' ? source : "");
}

static void search_order(data_dirs *d)
{
    const char *env = getenv("FLOWBENCH_DATA_DIR");
    char above[PATH_MAX], share[PATH_MAX + 32], tree[PATH_MAX];
    d->n = 0;
    add_dir(d, ".");
    if (env && *env) {
        add_dir(d, env);
        return;
    }
    if (exe_above(above, sizeof above)) {
        snprintf(share, sizeof share, "%s/share/flowbench", strcmp(above, "/") ? above : "");
        if (is_dir(share)) {
            add_dir(d, share);
            return;
        }
        add_dir(d, above);
    }
    source_tree(tree, sizeof tree);
    add_dir(d, tree);
}

fb_status fb_data_find(const char *rel, char *out, size_t len)
{
    fb_status status = FB_OK;
    data_dirs *d = malloc(sizeof *d);
    char path[PATH_MAX * 2], searched[MAX_DIRS * (PATH_MAX + 2)] = "";
    int found = 0;
    if (!d) FB_FAIL(FB_ERR_NOMEM, "out of host memory looking for %s", rel);
    search_order(d);
    for (int i = 0; i < d->n && !found; ++i) {
        size_t used = strlen(searched);
        snprintf(searched + used, sizeof searched - used, "%s%s", i ? ", " : "", d->dir[i]);
        /* the current folder stays relative, as the user would type it */
        snprintf(path, sizeof path, "%s/%s", i == 0 ? "." : d->real[i], rel);
        found = d->real[i][0] && access(path, R_OK) == 0;
    }
    if (!found) FB_FAIL(FB_ERR_INPUT, "no %s in %s", rel, searched);
    snprintf(out, len, "%s", path);
fail:
    free(d);
    return status;
}
