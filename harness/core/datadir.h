/* datadir.h - where the files flowbench ships are found: the suites
 * (cases/), the matrices they name (matrices/) and the gnuplot scripts
 * (plots/). One rule for every reader, so that a checkout, a build folder
 * and an installed binary agree on it (docs/architecture.md, "Installed").
 */
#ifndef FB_CORE_DATADIR_H
#define FB_CORE_DATADIR_H

#include <stddef.h>

#include "status.h"

/* REL ("cases/quick.suite", "plots/stream.gp") in the first of these
 * folders that holds it, into out ("./REL" for the current folder, else an
 * absolute path):
 *   1. the current folder (a checkout, or a user's own cases/);
 *   2. $FLOWBENCH_DATA_DIR, alone, when it is set and not empty;
 *   3. else PREFIX/share/flowbench when the executable is PREFIX/bin/X and
 *      that folder exists (an installed binary reads only its own data,
 *      never the source tree it was compiled in);
 *   4. else the folder above the executable (build/flowbench: the tree the
 *      build folder is in) and the source tree this file was compiled in.
 * Not found: FB_ERR_INPUT, "no REL in DIR, DIR, ..." naming every folder
 * searched, in order. */
fb_status fb_data_find(const char *rel, char *out, size_t len);

#endif
