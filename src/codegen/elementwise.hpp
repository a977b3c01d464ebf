// The source of a fused kernel for one launch variant: linear, tiled (2-D tiles through shared
// memory) or rows; a reduction's source comes from codegen/reduction. The only place that writes a
// fused kernel's source; it needs no CUDA library, so every generated kernel can be inspected and
// compiled on a machine with no GPU.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/core.hpp>

#include <string>

namespace jet::detail {

/// The kernel's source: elementwise, or the reduction d.reduction over v.axis.
std::string generate_source(const kernel_desc& d, const variant_key& v);

}  // namespace jet::detail
