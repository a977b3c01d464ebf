// Bugs planted for the sanitizer build to catch (CTest passes each only when the sanitizer's report
// names it): jet_planted_bugs heap-buffer-overflow | signed-integer-overflow.
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  // Sizes and values from the command line, so that nothing is known at compile time.
  const int n = static_cast<int>(std::strlen(argv[1]));
  if (std::strcmp(argv[1], "heap-buffer-overflow") == 0) {
    const std::unique_ptr<int[]> a(new int[n]());
    std::printf("read past the end: %d\n", a[n]);  // one element past the allocation
    return 0;
  }
  if (std::strcmp(argv[1], "signed-integer-overflow") == 0) {
    const int big = INT_MAX - 5 + n / 100;
    std::printf("overflowed: %d\n", big + n);  // INT_MAX - 5 + 23
    return 0;
  }
  return 2;
}
