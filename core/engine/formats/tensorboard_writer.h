#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace lathe::engine {

// The start of every TensorBoard event file's name (TensorBoard finds files by it).
inline constexpr const char *kTensorBoardFilePrefix = "events.out.tfevents.";

// Scalar curves in TensorBoard's own format, so `tensorboard --logdir` on a run folder (or on
// a folder of run folders) shows them: a file events.out.tfevents.<unix seconds>.<hostname>
// in runDir ("…<hostname>.<n>" when that name is taken, e.g. a resume within the same second),
// holding TFRecord-framed Event protos (masked CRC32C), the first with file_version
// "brain.Event:2". Each addScalar() reaches the kernel at once (one write(), no user-space
// buffer), so a killed process loses nothing that was added; flush() and the destructor also
// fsync, for power loss. Thread-safe. Failures throw EngineError naming the file.
class TensorBoardWriter
{
public:
    explicit TensorBoardWriter(const std::string &runDir);
    ~TensorBoardWriter();
    TensorBoardWriter(const TensorBoardWriter &) = delete;
    TensorBoardWriter &operator=(const TensorBoardWriter &) = delete;

    // wallTime: seconds since the Unix epoch; 0 means now. The value is stored as a float, as
    // TensorBoard's simple_value is.
    void addScalar(const std::string &tag, double value, std::int64_t step, double wallTime = 0);
    void flush();

    const std::string &path() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
