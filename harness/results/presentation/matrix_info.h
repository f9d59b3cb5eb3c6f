/* matrix_info.h - what a matrix is before anything runs on it, as `flowbench
 * matrix info` prints it: its source and origin, shape, nonzeros per row,
 * bandwidth (before and after a reordering), symmetry, content hash, load
 * time, and the BCSR fill ratio (stored / true nonzeros) of every r x c
 * block shape for r, c in 1..6. */
#ifndef FB_PRESENTATION_MATRIX_INFO_H
#define FB_PRESENTATION_MATRIX_INFO_H

#include <stdio.h>

#include "../../matrix/source.h"

/* The description onto f: aligned text, or with as_json one JSON document
 * ("rows", "nnz_per_row", "bcsr_fill": [{"r", "c", "blocks", "fill"}],
 * ...). */
fb_status fb_matrix_info_print(FILE *f, const fb_matrix *m, int as_json);

#endif
