// The source of a reduction kernel: d.reduction over all elements, along the inner axis or along
// an outer one (v.axis).
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/core.hpp>

#include <string>

namespace jet::detail {

std::string generate_reduction_source(const kernel_desc& d, const variant_key& v);

}  // namespace jet::detail
