/* report_html.h - `flowbench report --html FILE`: the report as one
 * self-contained HTML page, the file a CI system publishes.
 *
 * The page is the markdown report (report.h) turned into HTML, so the two
 * never differ: its tables sortable by a click on a column's head (a small
 * inline script), every number resting on an unstable or contended record
 * (a "?" mark, the words unstable or contended) shown flagged, and each
 * figure `flowbench plot` drew inline as its SVG (ids prefixed per figure,
 * so that two figures' definitions do not collide). Nothing is fetched: no
 * link, font or script from elsewhere. On load the page's own check counts
 * the figures and tables that rendered (a box of non-zero size) against
 * the numbers written into it, and writes the verdict into the title and
 * into <p id="fb-check">: "OK: 12 of 12 figures, 30 of 30 tables
 * rendered" or "FAIL: ..." (tests/e2e/report_html.sh reads it in
 * headless Chromium).
 */
#ifndef FB_REPORT_HTML_H
#define FB_REPORT_HTML_H

#include <stdio.h>

#include "../records/reader.h"

/* The same into path (replaced whole, or left as it was on failure). */
fb_status fb_report_html_file(fb_results_set *set, const char *plots_dir, const char *path);

#endif
