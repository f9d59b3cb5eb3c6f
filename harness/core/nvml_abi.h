/* nvml_abi.h - the part of NVML's C interface flowbench calls, declared
 * here so that no NVML header is needed at build time (libnvidia-ml is
 * opened with dlopen, as libcuda is). The names, values and signatures are
 * NVML's own (nvml.h, stable since the _v2 entry points of CUDA 5.5); the
 * test library tests/fake_nvml/fake_nvml.c implements the same symbols
 * from this header, so the two cannot drift apart silently.
 */
#ifndef FB_NVML_ABI_H
#define FB_NVML_ABI_H

typedef int nvmlReturn_t; /* an enum in nvml.h; int-sized */
typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_UNKNOWN 999

/* nvmlClockType_t */
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
/* nvmlTemperatureSensors_t */
#define NVML_TEMPERATURE_GPU 0

// clang-format off
#define FB_NVML_FUNCTIONS(X)                                                                                           \
    X(nvmlReturn_t, nvmlInit_v2, (void))                                                                               \
    X(nvmlReturn_t, nvmlShutdown, (void))                                                                              \
    X(const char *, nvmlErrorString, (nvmlReturn_t result))                                                            \
    X(nvmlReturn_t, nvmlDeviceGetHandleByPciBusId_v2, (const char *pciBusId, nvmlDevice_t *device))                    \
    X(nvmlReturn_t, nvmlDeviceGetTotalEnergyConsumption, (nvmlDevice_t device, unsigned long long *energy))            \
    X(nvmlReturn_t, nvmlDeviceGetPowerUsage, (nvmlDevice_t device, unsigned int *power))                               \
    X(nvmlReturn_t, nvmlDeviceGetClockInfo, (nvmlDevice_t device, int type, unsigned int *clock))                      \
    X(nvmlReturn_t, nvmlDeviceGetApplicationsClock, (nvmlDevice_t device, int type, unsigned int *clockMHz))           \
    X(nvmlReturn_t, nvmlDeviceGetTemperature, (nvmlDevice_t device, int sensorType, unsigned int *temp))               \
    X(nvmlReturn_t, nvmlDeviceGetCurrentClocksThrottleReasons, (nvmlDevice_t device, unsigned long long *reasons))    \
    X(nvmlReturn_t, nvmlDeviceGetComputeRunningProcesses_v3, (nvmlDevice_t device, unsigned int *count, void *infos))
// clang-format on

#endif
