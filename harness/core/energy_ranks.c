/* energy_ranks.c - fb_energy_sum_ranks (energy.h): the ranks' readings
 * brought together (comm.h) and summed by fb_energy_sum. Apart from
 * energy.c, which knows nothing of ranks. */
#include "energy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

/* One rank's part of fb_energy_sum_ranks: its reading and its meter,
 * named "HOST/ID" so that ranks on two hosts never share a meter. */
typedef struct rank_energy {
    fb_energy_reading reading;
    char meter[256 + 96]; /* host names are at most 255 bytes (comm.c) */
} rank_energy;

fb_status fb_energy_sum_ranks(fb_energy_reading *energy, const fb_energy_meter *m, json_t **meters)
{
    fb_status status = FB_OK;
    const int n = fb_comm_size();
    rank_energy mine, *all = NULL;
    fb_energy_reading *readings = NULL;
    const char **ids = NULL;
    memset(&mine, 0, sizeof mine);
    mine.reading = *energy;
    snprintf(mine.meter, sizeof mine.meter, "%s/%s", fb_comm_host(), fb_energy_meter_id(m));
    FB_CHECK(fb_comm_allgather(&mine, sizeof mine, (void **)&all));
    FB_ALLOC(readings, n, "the ranks' energy readings");
    FB_ALLOC(ids, n, "the ranks' energy meters");
    for (int i = 0; i < n; ++i) {
        readings[i] = all[i].reading;
        ids[i] = all[i].meter;
    }
    fb_energy_sum(readings, ids, n, energy, meters);
fail:
    free(ids);
    free(readings);
    free(all);
    return status;
}
