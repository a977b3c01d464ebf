// Must not compile: `$` is no character of a JET_FUNCTION's name (g++ takes it in identifiers;
// CUDA's kernel could not use it). The test expects the static_assert.
#include <jet/jet.hpp>

JET_FUNCTION(price$, float(float a), "return a;");

int main() { return 0; }
