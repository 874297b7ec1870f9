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
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/_fused_sgd.h>
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

// c10::Allocator's interface: allocate() is const in 1.13, and 2.x adds copy_data(), which
// every allocator must define. Spelled inside an allocator class (base/cpu_block_cache.cpp).
#if TORCH_VERSION_MAJOR >= 2
#define LATHE_ALLOCATOR_ALLOCATE_CONST
#define LATHE_ALLOCATOR_COPY_DATA                                                                                  \
    void copy_data(void *dest, const void *src, std::size_t count) const override                                  \
    {                                                                                                              \
        default_copy_data(dest, src, count);                                                                       \
    }
#else
#define LATHE_ALLOCATOR_ALLOCATE_CONST const
#define LATHE_ALLOCATOR_COPY_DATA
#endif

// The fused optimizer kernels (LibTorch 2.4 and later, CPU and CUDA): one call updates every
// parameter of a group in one pass over its memory, instead of a few tensor operations per
// parameter. Without them (1.13) the calls below do nothing and return false.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
constexpr bool kFusedOptimizers = true;
#else
constexpr bool kFusedOptimizers = false;
#endif

inline bool fusedAdamW(at::TensorList params, at::TensorList grads, at::TensorList expAvgs, at::TensorList expAvgSqs,
                       at::TensorList maxExpAvgSqs, at::TensorList steps, double lr, double beta1, double beta2,
                       double weightDecay, double eps, bool amsgrad)
{
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4) // kFusedOptimizers
    at::_fused_adamw_(params, grads, expAvgs, expAvgSqs, maxExpAvgSqs, steps, lr, beta1, beta2, weightDecay, eps,
                      amsgrad, /*maximize=*/false);
    return true;
#else
    (void)params, (void)grads, (void)expAvgs, (void)expAvgSqs, (void)maxExpAvgSqs, (void)steps, (void)lr;
    (void)beta1, (void)beta2, (void)weightDecay, (void)eps, (void)amsgrad;
    return false;
#endif
}

inline bool fusedSgd(at::TensorList params, at::TensorList grads, at::TensorList momentumBuffers, double weightDecay,
                     double momentum, double lr, bool nesterov, bool firstStep)
{
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4) // kFusedOptimizers
    at::_fused_sgd_(params, grads, momentumBuffers, weightDecay, momentum, lr, /*dampening=*/0, nesterov,
                    /*maximize=*/false, firstStep);
    return true;
#else
    (void)params, (void)grads, (void)momentumBuffers, (void)weightDecay, (void)momentum, (void)lr, (void)nesterov;
    (void)firstStep;
    return false;
#endif
}

} // namespace lathe::engine::compat
