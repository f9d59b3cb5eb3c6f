/* fake_nvml.c - a stand-in for libnvidia-ml with the symbols flowbench
 * calls (harness/core/nvml_abi.h), loaded through the same dlopen path by
 * pointing FLOWBENCH_NVML_LIB at it. It returns scripted values, read from
 * the environment at every call so that one test program can run several
 * scripts:
 *
 *   FAKE_NVML_MJ_START     energy counter's first value, mJ (default 5000000)
 *   FAKE_NVML_MJ_PER_CALL  the counter rises by this after each read (default 1000)
 *   FAKE_NVML_NO_ENERGY    set: the counter is not supported (pre-Volta)
 *   FAKE_NVML_POWER_MW     power reading, mW (default 250000)
 *   FAKE_NVML_SM_MHZ, FAKE_NVML_MEM_MHZ, FAKE_NVML_APP_SM_MHZ, FAKE_NVML_TEMP_C
 *   FAKE_NVML_THROTTLE     clock (throttle) reason bits (strtoull, base 0; default 0)
 *   FAKE_NVML_BUS_ID       the one GPU's PCI bus id (default 0000:65:00.0)
 *   FAKE_NVML_INIT_FAIL    set: nvmlInit_v2 fails as with no driver loaded
 *   FAKE_NVML_PROCS        processes with a compute context on the GPU (default 1: the caller)
 *
 * fake_nvml_live_inits() (inits minus shutdowns) and fake_nvml_energy_reads()
 * let a test check the library was used as NVML asks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/nvml_abi.h"

struct nvmlDevice_st {
    int unused;
};

static struct nvmlDevice_st the_gpu;
static int live_inits;
static unsigned long long energy_reads;

static unsigned long long env_number(const char *name, unsigned long long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 0) : dflt;
}

int fake_nvml_live_inits(void) { return live_inits; }
unsigned long long fake_nvml_energy_reads(void) { return energy_reads; }

nvmlReturn_t nvmlInit_v2(void)
{
    if (getenv("FAKE_NVML_INIT_FAIL")) return NVML_ERROR_DRIVER_NOT_LOADED;
    live_inits++;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
    if (live_inits == 0) return NVML_ERROR_UNINITIALIZED;
    live_inits--;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    const char *bus = getenv("FAKE_NVML_BUS_ID");
    if (!live_inits) return NVML_ERROR_UNINITIALIZED;
    if (strcmp(pciBusId, bus && *bus ? bus : "0000:65:00.0") != 0) return NVML_ERROR_NOT_FOUND;
    *device = &the_gpu;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    if (device != &the_gpu) return NVML_ERROR_INVALID_ARGUMENT;
    if (getenv("FAKE_NVML_NO_ENERGY")) return NVML_ERROR_NOT_SUPPORTED;
    *energy = env_number("FAKE_NVML_MJ_START", 5000000) + energy_reads * env_number("FAKE_NVML_MJ_PER_CALL", 1000);
    energy_reads++;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    if (device != &the_gpu) return NVML_ERROR_INVALID_ARGUMENT;
    *power = (unsigned int)env_number("FAKE_NVML_POWER_MW", 250000);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock)
{
    if (device != &the_gpu) return NVML_ERROR_INVALID_ARGUMENT;
    if (type == NVML_CLOCK_SM || type == NVML_CLOCK_GRAPHICS)
        *clock = (unsigned int)env_number("FAKE_NVML_SM_MHZ", 1980);
    else if (type == NVML_CLOCK_MEM)
        *clock = (unsigned int)env_number("FAKE_NVML_MEM_MHZ", 2619);
    else
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, int type, unsigned int *clockMHz)
{
    if (device != &the_gpu) return NVML_ERROR_INVALID_ARGUMENT;
    if (type != NVML_CLOCK_SM) return NVML_ERROR_NOT_SUPPORTED;
    *clockMHz = (unsigned int)env_number("FAKE_NVML_APP_SM_MHZ", 1980);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp)
{
    if (device != &the_gpu || sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    *temp = (unsigned int)env_number("FAKE_NVML_TEMP_C", 45);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    if (device != &the_gpu) return NVML_ERROR_INVALID_ARGUMENT;
    *reasons = env_number("FAKE_NVML_THROTTLE", 0);
    return NVML_SUCCESS;
}

/* NVML's contract: with room for fewer than there are, the count and
 * NVML_ERROR_INSUFFICIENT_SIZE. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, void *infos)
{
    const unsigned int have = (unsigned int)env_number("FAKE_NVML_PROCS", 1), room = *count;
    if (device != &the_gpu) return NVML_ERROR_INVALID_ARGUMENT;
    *count = have;
    if (have > room) return NVML_ERROR_INSUFFICIENT_SIZE;
    if (have) memset(infos, 0, have * 24);
    return NVML_SUCCESS;
}

/* Every function has the type flowbench calls it with. */
#define SAME_TYPE(ret, name, args)                                                                                     \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) args), #name " differs from nvml_abi.h");
FB_NVML_FUNCTIONS(SAME_TYPE)
