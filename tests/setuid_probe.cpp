// Prints what jet makes of the variables that name paths, one a line. test_settings.cpp runs it as
// a setuid program, where they must be ignored, and as a plain one, where they must not.
#include "settings.hpp"

#include <cstdio>

int main() {
  std::printf("driver %s\n", jet::detail::cuda_driver_setting().c_str());
  std::printf("cache directory %s\n", jet::detail::cache_directory_setting().c_str());
}
