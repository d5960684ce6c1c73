// main.cpp: the host side of a two-file CPU twin; the kernel is axpy_custom.cpp, compiled with it.
// Style: CANN's KernelLaunch samples' main.cpp in its CPU-debug build: under ASCENDC_CPU_DEBUG it includes
// tikicpulib.h, declares the kernel that the other file defines, allocates GM with AscendC::GmAlloc, reads
// ./input/*.bin, runs the kernel with ICPU_RUN_KF and writes ./output/*.bin (the NPU branch, with ACL and the
// kernel file's axpy_custom_do wrapper, is left out: the .asc programs show that side).
//     usage: main [totalLength tileNum]   (default 8 * 2048 floats in 4 tiles per core)
#include <cstdio>
#include <cstdint>
#include <cstdlib>

#include "axpy_custom_tiling.h"

#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void axpy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling);
#endif

// what the samples' data_utils.h provides
static bool ReadFile(const char *path, size_t size, void *buf)
{
    FILE *f = std::fopen(path, "rb");
    bool ok = f != nullptr && std::fread(buf, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    return ok;
}
static bool WriteFile(const char *path, const void *buf, size_t size)
{
    FILE *f = std::fopen(path, "wb");
    bool ok = f != nullptr && std::fwrite(buf, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    return ok;
}

int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 8;
    AxpyCustomTilingData tilingHost{8 * 2048, 4};
    if (argc == 3) {
        tilingHost.totalLength = (uint32_t)std::atoi(argv[1]);
        tilingHost.tileNum = (uint32_t)std::atoi(argv[2]);
    }
    size_t byteSize = tilingHost.totalLength * sizeof(float);
    std::printf("axpy_custom: %u floats on %u cores, alpha %g\n", tilingHost.totalLength, blockDim, (double)AXPY_ALPHA);

#ifdef ASCENDC_CPU_DEBUG
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *z = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(sizeof(AxpyCustomTilingData));
    if (!ReadFile("./input/input_x.bin", byteSize, x) || !ReadFile("./input/input_y.bin", byteSize, y)) {
        std::fprintf(stderr, "cannot read ./input/input_x.bin and ./input/input_y.bin\n");
        return 1;
    }
    *reinterpret_cast<AxpyCustomTilingData *>(tiling) = tilingHost;

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(axpy_custom, blockDim, x, y, z, tiling);  // LINE:launch

    bool written = WriteFile("./output/output_z.bin", z, byteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
    AscendC::GmFree((void *)z);
    AscendC::GmFree((void *)tiling);
    return written ? 0 : 1;
#else
    return 1;  // the NPU branch (aclrtMalloc, axpy_custom_do) is not part of this twin
#endif
}
