// The tiling of add_n.cpp (as an op_host tiling header would declare it), shared with its CPU-twin host main.
#pragma once
#include <cstdint>

struct AddNTilingData {
    uint32_t totalLength;  // elements of each input
    uint32_t tileLength;
    uint32_t extraIndex;  // 0, or an input index the kernel also reads (a list-index check)
    uint32_t checkShapes; // 1: the list has shapes (dim != 0), checked against totalLength
};
