/* energy_nvml.c - an NVIDIA GPU's meter through NVML (energy.h).
 *
 * libnvidia-ml is opened with dlopen, as cuda.c opens libcuda, so the one
 * binary runs without the driver and the record says why there is no
 * energy. $FLOWBENCH_NVML_LIB names another library with the same symbols:
 * the tests load tests/fake_nvml/ that way and check the arithmetic and the
 * throttle flag against its scripted counters. Each meter opens the library
 * itself (dlopen counts references) and pairs its nvmlInit_v2 with an
 * nvmlShutdown, which NVML counts too.
 *
 * The GPU is found by its PCI bus id, not its index: CUDA numbers devices
 * fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML in PCI order, so
 * an index could name another board.
 *
 * Joules come from the board's energy counter (millijoules, Volta and
 * newer); where it is missing, from the power reads (milliwatts) integrated
 * over the window's polls. Clocks, temperature and the clock (throttle)
 * reasons are read at every poll.
 */
#include "energy_internal.h"
#include "nvml_abi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVML_TYPE(ret, name, args) typedef ret(*name##_fn) args;
FB_NVML_FUNCTIONS(NVML_TYPE)

typedef struct nvml_impl {
    void *lib;
    int inited;
#define NVML_FIELD(ret, name, args) name##_fn name;
    FB_NVML_FUNCTIONS(NVML_FIELD)
    nvmlDevice_t dev;
    int counter; /* 1: energy counter; 0: power reads */
} nvml_impl;

static const char *library_name(void)
{
    const char *lib = getenv("FLOWBENCH_NVML_LIB");
    return lib && *lib ? lib : "libnvidia-ml.so.1";
}

static const char *error_text(const nvml_impl *n, nvmlReturn_t r)
{
    const char *s = n->nvmlErrorString ? n->nvmlErrorString(r) : NULL;
    return s ? s : "unknown NVML error";
}

/* Looks every function up; the ones a reading needs are checked where
 * they are used, so an old driver still gives what it has. */
static int load(fb_energy_meter *m, nvml_impl *n)
{
    const char *name = library_name();
    n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *why = dlerror();
        snprintf(m->unavailable, sizeof m->unavailable, "NVML: %s not loadable (no NVIDIA driver here?): %s", name,
                 why ? why : "dlopen failed");
        return 0;
    }
#define NVML_LOAD(ret, fn, args) n->fn = (fn##_fn)dlsym(n->lib, #fn);
    FB_NVML_FUNCTIONS(NVML_LOAD)
    /* renamed in newer drivers; the old name is kept for older ones */
    nvmlDeviceGetCurrentClocksThrottleReasons_fn events =
        (nvmlDeviceGetCurrentClocksThrottleReasons_fn)dlsym(n->lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (events) n->nvmlDeviceGetCurrentClocksThrottleReasons = events;
    const char *missing = !n->nvmlInit_v2                        ? "nvmlInit_v2"
                          : !n->nvmlShutdown                     ? "nvmlShutdown"
                          : !n->nvmlDeviceGetHandleByPciBusId_v2 ? "nvmlDeviceGetHandleByPciBusId_v2"
                                                                 : NULL;
    if (missing) {
        snprintf(m->unavailable, sizeof m->unavailable, "NVML: %s lacks %s (driver too old)", name, missing);
        return 0;
    }
    return 1;
}

/* Which reading gives joules on this board. */
static int pick_method(fb_energy_meter *m, nvml_impl *n)
{
    unsigned long long mj;
    unsigned int mw;
    nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED, p = NVML_ERROR_NOT_SUPPORTED;
    if (n->nvmlDeviceGetTotalEnergyConsumption && (r = n->nvmlDeviceGetTotalEnergyConsumption(n->dev, &mj)) == 0) {
        n->counter = 1;
        snprintf(m->method, sizeof m->method, "counter");
        return 1;
    }
    if (n->nvmlDeviceGetPowerUsage && (p = n->nvmlDeviceGetPowerUsage(n->dev, &mw)) == 0) {
        snprintf(m->method, sizeof m->method, "power-integral");
        return 1;
    }
    snprintf(m->unavailable, sizeof m->unavailable,
             "NVML: this GPU gives neither its energy counter (%s) nor its power (%s)", error_text(n, r),
             error_text(n, p));
    return 0;
}

static int open_device(fb_energy_meter *m, nvml_impl *n, const char *pci_bus_id)
{
    nvmlReturn_t r = n->nvmlInit_v2();
    unsigned int mhz;
    if (r != NVML_SUCCESS) {
        snprintf(m->unavailable, sizeof m->unavailable, "NVML: nvmlInit_v2 failed: %s", error_text(n, r));
        return 0;
    }
    n->inited = 1;
    if ((r = n->nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id, &n->dev)) != NVML_SUCCESS) {
        snprintf(m->unavailable, sizeof m->unavailable, "NVML: no GPU at PCI bus id %s: %s", pci_bus_id,
                 error_text(n, r));
        return 0;
    }
    if (n->nvmlDeviceGetApplicationsClock && n->nvmlDeviceGetApplicationsClock(n->dev, NVML_CLOCK_SM, &mhz) == 0)
        m->app_sm_mhz = mhz;
    if (!n->nvmlDeviceGetCurrentClocksThrottleReasons && !n->nvmlDeviceGetClockInfo)
        snprintf(m->throttle_unavailable, sizeof m->throttle_unavailable,
                 "NVML: the library gives neither clocks nor throttle reasons");
    return pick_method(m, n);
}

/* How many processes hold a compute context on the GPU (this one among
 * them): asked with room for none, NVML answers the count alone
 * (NVML_ERROR_INSUFFICIENT_SIZE when there are some). Only the count is
 * read because the per-process struct has changed size between drivers. */
static void read_processes(nvml_impl *n, fb_energy_sample *s)
{
    unsigned int count = 0;
    if (!n->nvmlDeviceGetComputeRunningProcesses_v3) return;
    nvmlReturn_t r = n->nvmlDeviceGetComputeRunningProcesses_v3(n->dev, &count, NULL);
    if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE) s->has_procs = 1, s->procs = count;
}

static void read_nvml(void *impl, fb_energy_sample *s)
{
    nvml_impl *n = impl;
    unsigned long long mj, reasons;
    unsigned int v;
    if (n->counter && n->nvmlDeviceGetTotalEnergyConsumption(n->dev, &mj) == NVML_SUCCESS)
        s->has_joules = 1, s->joules = (double)mj / 1e3;
    if (!n->counter && n->nvmlDeviceGetPowerUsage(n->dev, &v) == NVML_SUCCESS) s->has_watts = 1, s->watts = v / 1e3;
    if (n->nvmlDeviceGetClockInfo && n->nvmlDeviceGetClockInfo(n->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        s->has_sm = 1, s->sm_mhz = v;
    if (n->nvmlDeviceGetClockInfo && n->nvmlDeviceGetClockInfo(n->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
        s->has_mem = 1, s->mem_mhz = v;
    if (n->nvmlDeviceGetTemperature && n->nvmlDeviceGetTemperature(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
        s->has_temp = 1, s->temp_c = v;
    if (n->nvmlDeviceGetCurrentClocksThrottleReasons &&
        n->nvmlDeviceGetCurrentClocksThrottleReasons(n->dev, &reasons) == NVML_SUCCESS)
        s->has_reasons = 1, s->reasons = reasons;
    read_processes(n, s);
}

static void close_nvml(void *impl)
{
    nvml_impl *n = impl;
    if (!n) return;
    if (n->inited) n->nvmlShutdown();
    if (n->lib) dlclose(n->lib);
    free(n);
}

fb_status fb_energy_open_nvml(const char *pci_bus_id, fb_energy_meter **out)
{
    fb_status status = FB_OK;
    fb_energy_meter *m = NULL;
    nvml_impl *n = NULL;
    FB_CHECK(fb_energy_meter_new(&m));
    FB_ALLOC(n, 1, "the NVML meter");
    snprintf(m->source, sizeof m->source, "nvml");
    snprintf(m->id, sizeof m->id, "nvml:%s", pci_bus_id);
    m->min_window_s = FB_ENERGY_NVML_WINDOW_S;
    m->impl = n;
    m->close_impl = close_nvml;
    if (load(m, n) && open_device(m, n, pci_bus_id))
        m->read = read_nvml;
    else
        snprintf(m->throttle_unavailable, sizeof m->throttle_unavailable, "%s", m->unavailable);
    *out = m;
    return FB_OK;
fail:
    fb_energy_close(m);
    return status;
}
