// Catch2 v3 where it is installed (Ubuntu 24.04), v2 otherwise (Debian 12).
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#else
#include <catch2/catch.hpp>
namespace Catch {
using Detail::Approx;  // v3 spells it Catch::Approx
}
#endif
