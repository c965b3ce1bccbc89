// Include after any LibTorch header, instead of <doctest/doctest.h>: LibTorch pulls in glog,
// whose CHECK macros would silently replace doctest's and abort instead of reporting.
#pragma once
#undef CHECK
#undef CHECK_EQ
#undef CHECK_NE
#undef CHECK_LT
#undef CHECK_LE
#undef CHECK_GT
#undef CHECK_GE
#include <doctest/doctest.h>
