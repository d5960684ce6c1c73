// acl/acl.h — ascemu's ACL shim: what `#include "acl/acl.h"` gives a single-source program's host code on the
// emulator (the runtime calls of acl_rt.h and the base types of acl_base.h).  See docs/programs.md for the calls
// it has and what it does not model.
#pragma once
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
