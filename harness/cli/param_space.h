/* param_space.h - `--param NAME=V1,V2 ...` lists over a kernel's axes as
 * the space a search runs over (tune/search.h): `solve --param/--tune`
 * and `tune --family ns --param` narrow the solver's axes with them. */
#ifndef FB_CLI_PARAM_SPACE_H
#define FB_CLI_PARAM_SPACE_H

#include "cli.h"
#include "../tune/search.h"

/* Each --param names an axis of axes and lists its values (the last
 * --param of an axis wins), values the axis declares when `declared` (a
 * search covers the declared space; one run may take another); an axis no --param names takes every
 * declared value (whole = 1) or only its default (whole = 0). Values
 * ascending, as search.h's neighbourhoods want; the space starts at the
 * default where the lists hold it, else at each list's smallest value.
 * FB_ERR_USAGE, one
 * line naming the axis or value, `owner` ("the solver") and `hint`
 * (where the axes are listed). */
fb_status fb_cli_param_space(const fb_parsed *args, const fb_param_axis *axes, int naxes, int whole, int declared,
                             const char *owner, const char *hint, fb_search_space *space);

#endif
