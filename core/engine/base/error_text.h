#pragma once

// Numbers and tensor shapes the way the engine's error messages write them. Engine .cpp files
// only (it includes LibTorch).

#include <ATen/core/Tensor.h>

#include <sstream>
#include <string>

namespace lathe::engine {

// As a stream writes a double: at most 6 significant digits ("0.05", "1e-08").
inline std::string numberText(double v)
{
    std::ostringstream out;
    out << v;
    return out.str();
}

// A tensor's sizes: "[16, 10]".
inline std::string shapeText(const at::Tensor &t)
{
    std::ostringstream out;
    out << t.sizes();
    return out.str();
}

} // namespace lathe::engine
