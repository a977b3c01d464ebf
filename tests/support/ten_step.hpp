// A step of ten dependent expressions, as a simulation's time step: written once, for jet arrays
// (each line one evaluation) and for host doubles (the reference, one element at a time). The
// stream tests check its captured graph; jet_bench times it at 1024 elements. Every value stays
// bounded (tanh, sigmoid) however often it is repeated.
#pragma once

#include <jet/jet.hpp>

#include <cmath>

namespace jet::test {

inline double sigmoid(double a) { return 1 / (1 + std::exp(-a)); }
inline double relu(double a) { return a < 0 ? 0 : a; }
inline double max(double a, double b) { return a < b ? b : a; }

/// x, y are read; u, v, w, t are updated. For jet arrays the functions come from jet (found by
/// argument-dependent lookup); for doubles from above and <cmath>.
template <class State> void ten_step(State& s) {
  using std::tanh;
  s.t = s.x * s.y + 0.5f;
  s.u = s.u * 0.9f + s.t * 0.1f;
  s.v = tanh(s.u - s.v);
  s.w = s.w * 0.5f + s.v * s.x;
  s.t = max(s.w, s.y);
  s.u = s.u - s.t * 0.05f;
  s.v = s.v * s.v - s.y * 0.25f;
  s.w = sigmoid(s.w + s.u);
  s.t = relu(s.t - s.v);
  s.u = tanh(s.u + s.w * s.t);
}
inline constexpr int ten_step_expressions = 10;

/// The state on the device.
struct device_state {
  jet::array<float> x, y, u, v, w, t;
};
/// One element of the state on the host.
struct host_state {
  double x, y, u, v, w, t;
};

}  // namespace jet::test
