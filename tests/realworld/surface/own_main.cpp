// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): a kernel file with its own main names a
// template entry with two arguments in ASCEMU_MAIN (checked syntax-only; the comma must not split the macro).
#include "static_add.cpp"
#include "ascemu/launch.h"
#include "ascemu/serve.h"
#include "ascemu/driver.h"

ASCEMU_MAIN(half_sum<float, 256>)
