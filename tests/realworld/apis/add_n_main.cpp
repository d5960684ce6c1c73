// The CPU-twin host main of add_n.cpp, in a file of its own as in CANN's KernelLaunch samples (main.cpp beside the
// kernel; the test compiles the two as one translation unit, `-include add_n.cpp add_n_main.cpp`).  It lays the input list out in GM as CANN's framework does: word 0 the byte
// offset of the pointer array, then (dim | index << 32) and the shape of each tensor, then the data pointers.
// `main DIR LAYOUT` reads DIR/x{0,1,2}.bin, writes DIR/y.bin; LAYOUT is tests/realworld/test_rw_list_tensor.py's
// case: shapes, pointers (dim 0), index-past-end, truncated.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "add_n_tiling.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void add_n(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling);
static bool ReadFile(const std::string &path, size_t size, void *buf)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    bool ok = f != nullptr && std::fread(buf, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    return ok;
}

int32_t main(int32_t argc, char *argv[])
{
    if (argc != 3) return 64;
    const std::string dir = argv[1], layout = argv[2];
    constexpr uint32_t inputNum = 3, rows = 8, cols = 256, blockDim = 4;
    AddNTilingData tilingHost{rows * cols, 256, layout == "index-past-end" ? inputNum : 0, layout != "pointers"};
    size_t bytes = tilingHost.totalLength * sizeof(float);

    uint8_t *inputs[inputNum];
    for (uint32_t i = 0; i < inputNum; i++) {
        inputs[i] = (uint8_t *)AscendC::GmAlloc(bytes);
        if (!ReadFile(dir + "/x" + std::to_string(i) + ".bin", bytes, inputs[i])) return 66;
    }
    // CANN's list layout: dim 2 descriptors (or dim 0: pointers only, the count in word 1's high half)
    uint64_t words[64] = {0};
    uint32_t n = 0;
    if (layout == "pointers") {
        words[n++] = 24;
        words[n++] = static_cast<uint64_t>(inputNum) << 32;
        words[n++] = 0xffffffff;
    } else {
        words[n++] = 8 + inputNum * 3 * sizeof(uint64_t);
        for (uint32_t i = 0; i < inputNum; i++) {
            words[n++] = 2 | (static_cast<uint64_t>(i) << 32);
            words[n++] = rows;
            words[n++] = cols;
        }
    }
    for (uint32_t i = 0; i < inputNum; i++) words[n++] = reinterpret_cast<uint64_t>(inputs[i]);
    size_t listBytes = n * sizeof(uint64_t);
    if (layout == "truncated") listBytes -= 2 * sizeof(uint64_t);  // the last two pointers fall outside the buffer
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(listBytes);
    std::memcpy(x, words, listBytes);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(bytes);
    uint8_t *workspace = (uint8_t *)AscendC::GmAlloc(32);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(sizeof(AddNTilingData));
    std::memcpy(tiling, &tilingHost, sizeof(AddNTilingData));

    ICPU_RUN_KF(add_n, blockDim, x, y, workspace, tiling);

    FILE *f = std::fopen((dir + "/y.bin").c_str(), "wb");
    bool written = f != nullptr && std::fwrite(y, 1, bytes, f) == bytes;
    if (f != nullptr) std::fclose(f);
    return written ? 0 : 1;
}
