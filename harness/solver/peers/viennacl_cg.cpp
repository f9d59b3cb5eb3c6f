/* viennacl_cg.cpp - the ViennaCL peer (contracts in viennacl_cg.h): the one
 * C++ file of flowbench, kept thin. It sees no flowbench type but the C
 * structs of its header, and lets no exception out: each becomes an
 * fb_status with ViennaCL's message. */
#include "solver/peers/viennacl_cg.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/linalg/jacobi_precond.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/ocl/backend.hpp>
#include <viennacl/vector.hpp>
#include <viennacl/version.hpp>

namespace
{

using Matrix = viennacl::compressed_matrix<double>;
using Vector = viennacl::vector<double>;
using Jacobi = viennacl::linalg::jacobi_precond<Matrix>;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/* The device as the opencl backend numbers it: platform P in the ICD
 * loader's order, device D of all its types. */
cl_device_id find_device(int platform, int device)
{
    cl_uint np = 0, nd = 0;
    std::vector<cl_platform_id> platforms(64);
    if (clGetPlatformIDs(64, platforms.data(), &np) != CL_SUCCESS || platform < 0 || (cl_uint)platform >= np)
        throw std::runtime_error("opencl:" + std::to_string(platform) + "." + std::to_string(device) +
                                 ": no such OpenCL platform");
    std::vector<cl_device_id> devices(64);
    if (clGetDeviceIDs(platforms[platform], CL_DEVICE_TYPE_ALL, 64, devices.data(), &nd) != CL_SUCCESS || device < 0 ||
        (cl_uint)device >= nd)
        throw std::runtime_error("opencl:" + std::to_string(platform) + "." + std::to_string(device) +
                                 ": no such OpenCL device");
    return devices[device];
}

/* A ViennaCL context per device (id 1 + 64 P + D; 0 is ViennaCL's default,
 * which would pick a GPU of the first platform), set up once: ViennaCL
 * keeps its contexts for the life of the process. */
viennacl::context open_context(int platform, int device)
{
    static std::set<long> ready;
    const long id = 1 + 64L * platform + device;
    if (!ready.count(id)) {
        viennacl::ocl::setup_context(id, std::vector<cl_device_id>(1, find_device(platform, device)));
        ready.insert(id);
    }
    viennacl::ocl::switch_context(id);
    return viennacl::context(viennacl::ocl::get_context(id));
}

void upload(const fb_viennacl_system &S, Matrix &A, Vector &b)
{
    if (S.n < 1 || S.nnz < 1) throw std::runtime_error("empty matrix");
    std::vector<unsigned int> rows(S.rowptr, S.rowptr + S.n + 1), cols(S.col, S.col + S.nnz);
    A.set(rows.data(), cols.data(), S.val, (std::size_t)S.n, (std::size_t)S.n, (std::size_t)S.nnz);
    viennacl::fast_copy(S.b, S.b + S.n, b.begin());
    viennacl::backend::finish();
}

/* Median seconds of y = A x, each product waited for. */
double time_spmv(const Matrix &A, const Vector &x, Vector &y, int repeats)
{
    std::vector<double> t;
    y = viennacl::linalg::prod(A, x); /* compiled by the solve already; one more for the caches */
    viennacl::backend::finish();
    for (int k = 0; k < std::max(repeats, 1); ++k) {
        const double start = now();
        y = viennacl::linalg::prod(A, x);
        viennacl::backend::finish();
        t.push_back(now() - start);
    }
    std::sort(t.begin(), t.end());
    const size_t m = t.size() / 2;
    return t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
}

void run(int platform, int device, const fb_viennacl_system &S, double tol, int max_its, int repeats, double *x,
         fb_viennacl_result &out)
{
    viennacl::context ctx = open_context(platform, device);
    std::snprintf(out.device, sizeof out.device, "%s", viennacl::ocl::current_device().name().c_str());
    if (!viennacl::ocl::current_device().double_support())
        throw std::runtime_error(std::string(out.device) + " has no double precision");
    Matrix A(S.n, S.n, S.nnz, ctx);
    Vector b(S.n, ctx), y(S.n, ctx);
    double start = now();
    upload(S, A, b);
    out.upload_s = now() - start;
    const Jacobi jacobi(A, viennacl::linalg::jacobi_tag());
    /* ViennaCL compiles its OpenCL programs at their first use: a 2-iteration
     * solve first keeps the compiles out of the timed one. */
    Vector warm = viennacl::linalg::solve(A, b, viennacl::linalg::cg_tag(tol, 2), jacobi);
    viennacl::backend::finish();
    const viennacl::linalg::cg_tag tag(tol, (unsigned int)max_its);
    start = now();
    Vector sol = viennacl::linalg::solve(A, b, tag, jacobi);
    viennacl::backend::finish();
    out.solve_s = now() - start;
    out.its = (int)tag.iters();
    out.est_res = tag.error();
    viennacl::fast_copy(sol.begin(), sol.end(), x);
    out.spmv_s = time_spmv(A, sol, y, repeats);
}

} // namespace

extern "C" int fb_viennacl_available(char *why, size_t len)
{
    if (len) why[0] = '\0';
    return 1;
}

extern "C" fb_status fb_viennacl_cg(int platform, int device, const fb_viennacl_system *A, double tol, int max_its,
                                    int spmv_repeats, double *x, fb_viennacl_result *out)
{
    *out = fb_viennacl_result();
    std::snprintf(out->version, sizeof out->version, "%d.%d.%d", VIENNACL_MAJOR_VERSION, VIENNACL_MINOR_VERSION,
                  VIENNACL_PATCH_VERSION);
    try {
        run(platform, device, *A, tol, max_its, spmv_repeats, x, *out);
        return FB_OK;
    } catch (const std::exception &e) {
        return fb_error_set(FB_ERR_BACKEND, __FILE__, __LINE__, "viennacl on opencl:%d.%d: %s", platform, device,
                            e.what());
    } catch (...) {
        return fb_error_set(FB_ERR_BACKEND, __FILE__, __LINE__, "viennacl on opencl:%d.%d: an unknown C++ exception",
                            platform, device);
    }
}
