#include "engine/inference/prediction.h"

#include "engine/base/engine_error.h"
#include "engine/inference/run_model.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

bool imageExtension(const fs::path &path)
{
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp" || ext == ".tif" || ext == ".tiff" ||
           ext == ".webp";
}

void expandFolder(const fs::path &root, std::vector<std::string> &out)
{
    std::vector<std::string> found;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
        out.push_back(root.string()); // predictFiles reports the folder's own error
        return;
    }
    for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
        if (ec)
            break;
        const fs::path &p = it->path();
        if (p.filename().string().rfind('.', 0) == 0) {
            if (it->is_directory(ec))
                it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec) && imageExtension(p))
            found.push_back(p.string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty())
        out.push_back(root.string());
    out.insert(out.end(), found.begin(), found.end());
}

} // namespace

std::vector<std::string> expandImageInputs(const std::vector<std::string> &inputs)
{
    std::vector<std::string> out;
    for (const std::string &input : inputs) {
        std::error_code ec;
        if (fs::is_directory(input, ec))
            expandFolder(input, out);
        else
            out.push_back(input);
    }
    return out;
}

std::vector<FilePrediction> predictFiles(const PredictOptions &o, const std::vector<std::string> &inputs,
                                         const TaskControl &control)
{
    if (o.topK < 1)
        throw EngineError("predict: top-k must be at least 1 (got " + std::to_string(o.topK) + ")");
    if (o.batchSize < 1 || o.batchSize > 4096)
        throw EngineError("predict: batch size must be in [1, 4096] (got " + std::to_string(o.batchSize) + ")");
    const std::vector<std::string> files = expandImageInputs(inputs);
    control.report(0, "loading the model");
    const RunModel m = o.runDir.empty() ? loadBareModel(o.model, o.classes, o.imageSize, o.device)
                                        : loadRunModel(o.runDir, o.checkpoint, o.device);
    const SampleTransform transform(m.transform);
    const int k = int(m.classes.size());
    const int topK = std::min(o.topK, k);
    const std::int64_t c = m.transform.channels;
    const std::int64_t s = m.transform.imageSize;

    std::vector<FilePrediction> results(files.size());
    torch::Tensor batch = torch::empty({o.batchSize, c, s, s});
    std::vector<std::size_t> slots; // result index of each filled batch row
    std::mt19937_64 rng(0);         // the evaluation transform draws nothing
    torch::NoGradGuard noGrad;
    const auto flush = [&] {
        if (slots.empty())
            return;
        const torch::Tensor x = batch.narrow(0, 0, std::int64_t(slots.size())).to(m.device);
        const torch::Tensor logits = m.classifier->forward(x).to(torch::kFloat32);
        const torch::Tensor probs = (m.multiLabel() ? torch::sigmoid(logits) : torch::softmax(logits, 1)).to(torch::kCPU).contiguous();
        for (std::size_t i = 0; i < slots.size(); ++i) {
            FilePrediction &r = results[slots[i]];
            const float *row = probs[std::int64_t(i)].data_ptr<float>();
            topClasses(row, k, topK, r.topClasses, r.topProbs);
            for (int cls : r.topClasses)
                r.topNames.push_back(m.classes[std::size_t(cls)]);
            r.multiLabel = m.multiLabel();
            if (r.multiLabel) {
                std::vector<int> order;
                std::vector<float> scores;
                topClasses(row, k, k, order, scores);
                for (std::size_t j = 0; j < order.size(); ++j) {
                    const std::size_t cls = std::size_t(order[j]);
                    LabelScore label{order[j], m.classes[cls], scores[j], m.thresholds[cls]};
                    label.inSet = double(label.score) >= label.threshold;
                    if (label.inSet)
                        r.labelSet.push_back(label.name);
                    r.labelScores.push_back(std::move(label));
                }
            }
        }
        slots.clear();
    };
    for (std::size_t i = 0; i < files.size(); ++i) {
        control.checkCancel();
        FilePrediction &r = results[i];
        r.path = files[i];
        try {
            std::error_code ec;
            if (fs::is_directory(files[i], ec))
                throw EngineError(files[i] + ": no image files (.jpg .jpeg .png .bmp .tif .tiff .webp) in this folder");
            const std::vector<std::uint8_t> bytes = readInputFile(files[i]);
            transform.apply(bytes.data(), bytes.size(), rng, batch[std::int64_t(slots.size())].data_ptr());
            slots.push_back(i);
        } catch (const Cancelled &) {
            throw;
        } catch (const EngineError &e) {
            const std::string what = e.what();
            r.error = what.rfind(files[i], 0) == 0 ? what : files[i] + ": " + what;
        } catch (const std::exception &e) {
            r.error = files[i] + ": " + e.what();
        }
        if (int(slots.size()) == o.batchSize)
            flush();
        control.report(double(i + 1) / double(files.size()), "classified " + std::to_string(i + 1) + " of " +
                                                                 std::to_string(files.size()) + " files");
    }
    flush();
    return results;
}

} // namespace lathe::engine
