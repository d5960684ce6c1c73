"""The NPU side of the workbench: everything that needs CANN, and its CPU stand-ins.

- `build`: the op's Ascend C kernel built for a SoC with CANN's CMake module (`ascendc_library`), giving the
  kernel library and its generated `aclrtlaunch_<entry>` launch stub (docs/npu.md#building-for-the-npu).
- `aclnn`: the built-in (TBE) operator of the same name, called through CANN's two-phase aclnn API with ctypes,
  so a kernel can be compared with what CANN ships (docs/npu.md#the-built-in-operator-tbe-through-aclnn).
- `acl_runtime`: the pyACL calls that allocate, copy, launch and time on a device.
- `acl_emulated`: the subset of pyACL `acl_runtime` uses, implemented over the emulator (`WORKBENCH_ACL=emulated`).

Nothing is imported here: `import workbench` must work, fast, on a machine without CANN. Each module imports
what it needs (ctypes, pyACL) when it is used.
"""
