// The tiling data of softmax_rows.cpp, filled by the host (tests/conformance/suite.py mirrors it with ctypes).
#ifndef SOFTMAX_ROWS_TILING_H
#define SOFTMAX_ROWS_TILING_H
#include <cstdint>

struct SoftmaxRowsTilingData {
    uint32_t numRow;       // rows of x
    uint32_t numCol;       // elements of a row, a multiple of 8 (whole 32-byte blocks)
    uint32_t blockFactor;  // rows of every core but the last, which takes the rest
};
#endif  // SOFTMAX_ROWS_TILING_H
