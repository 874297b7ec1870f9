#pragma once

// Where LibTorch 1.13 (Debian's libtorch-dev) and 2.x (the PyPI wheel, 2.11) differ: the only
// place in Lathe that tests the LibTorch version. Engine .cpp files only (it includes LibTorch).

#include <ATen/autocast_mode.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/version.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#if TORCH_VERSION_MAJOR < 2
#include <c10/util/string_utils.h>
#endif

namespace c10d {
class Backend;
class ProcessGroup;
} // namespace c10d

namespace lathe::engine::compat {

// Autocast state per device type. 1.13 has one call per device type (set_cpu_enabled,
// get_autocast_gpu_dtype, ...); 2.x takes the device type and deprecates the old names.
inline bool autocastEnabled(c10::DeviceType type)
{
#if TORCH_VERSION_MAJOR >= 2
    return at::autocast::is_autocast_enabled(type);
#else
    return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

inline void setAutocastEnabled(c10::DeviceType type, bool on)
{
#if TORCH_VERSION_MAJOR >= 2
    at::autocast::set_autocast_enabled(type, on);
#else
    if (type == c10::DeviceType::CPU)
        at::autocast::set_cpu_enabled(on);
    else
        at::autocast::set_enabled(on);
#endif
}

inline at::ScalarType autocastDtype(c10::DeviceType type)
{
#if TORCH_VERSION_MAJOR >= 2
    return at::autocast::get_autocast_dtype(type);
#else
    return type == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void setAutocastDtype(c10::DeviceType type, at::ScalarType dtype)
{
#if TORCH_VERSION_MAJOR >= 2
    at::autocast::set_autocast_dtype(type, dtype);
#else
    if (type == c10::DeviceType::CPU)
        at::autocast::set_autocast_cpu_dtype(dtype);
    else
        at::autocast::set_autocast_gpu_dtype(dtype);
#endif
}

// Autocast to `dtype` on one device type for the lifetime of the scope, as torch.autocast's
// context manager does; thread-local, so each rank thread has its own. Off: does nothing.
class AutocastScope
{
public:
    AutocastScope(bool on, c10::DeviceType type, at::ScalarType dtype)
        : m_on(on)
        , m_type(type)
    {
        if (!m_on)
            return;
        m_prevEnabled = autocastEnabled(m_type);
        m_prevDtype = autocastDtype(m_type);
        setAutocastEnabled(m_type, true);
        setAutocastDtype(m_type, dtype);
        at::autocast::increment_nesting();
    }
    ~AutocastScope()
    {
        if (!m_on)
            return;
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
        setAutocastEnabled(m_type, m_prevEnabled);
        setAutocastDtype(m_type, m_prevDtype);
    }
    AutocastScope(const AutocastScope &) = delete;
    AutocastScope &operator=(const AutocastScope &) = delete;

private:
    bool m_on;
    c10::DeviceType m_type;
    bool m_prevEnabled = false;
    at::ScalarType m_prevDtype = at::kFloat;
};

// The key of a parameter in torch::optim::Optimizer::state(): its TensorImpl's address, which
// 1.13 spells as a string and 2.x keeps as the pointer.
#if TORCH_VERSION_MAJOR >= 2
using OptimizerStateKey = void *;
inline OptimizerStateKey optimizerStateKey(const at::Tensor &parameter)
{
    return parameter.unsafeGetTensorImpl();
}
#else
using OptimizerStateKey = std::string;
inline OptimizerStateKey optimizerStateKey(const at::Tensor &parameter)
{
    return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}
#endif

// The alternative a LibTorch option variant holds (a Conv2d's padding, padding_mode), or null:
// 1.13's options are c10::variant, 2.x's std::variant.
template <class T, class Variant>
const T *variantIf(const Variant &v)
{
#if TORCH_VERSION_MAJOR >= 2
    return std::get_if<T>(&v);
#else
    return c10::get_if<T>(&v);
#endif
}

// The running totals c10::MemoryReportingInfoBase::reportMemoryUsage() receives: int64_t in
// 1.13, size_t in 2.x (the override must match).
#if TORCH_VERSION_MAJOR >= 2
using MemoryTotal = std::size_t;
#else
using MemoryTotal = std::int64_t;
#endif

// What a c10d rank's collectives are called on: 2.x's Gloo and NCCL groups are Backends (a
// ProcessGroup dispatches to them); in 1.13 they are ProcessGroups themselves. Both offer
// allreduce, broadcast and barrier with the same arguments. (distributed.cpp includes c10d.)
#if TORCH_VERSION_MAJOR >= 2
using CollectiveGroup = c10d::Backend;
#else
using CollectiveGroup = c10d::ProcessGroup;
#endif

} // namespace lathe::engine::compat
