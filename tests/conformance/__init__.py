"""The real-world conformance suite (issue 11): operators of our own in the styles of Huawei's Ascend C code."""
