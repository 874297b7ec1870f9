// loadModelVersion: an export folder as a model the server can run, checked before it is used.

#include "engine/serve/served_model.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/export/export_job.h"
#include "engine/inference/run_model.h"
#include "engine/training/devices.h"

#include <torch/script.h>
#include <torch/torch.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace fs = std::filesystem;

namespace lathe::engine::serve {
namespace {

nlohmann::json readReport(const std::string &dir)
{
    const fs::path path = fs::path(dir) / "report.json";
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw EngineError(path.string() + ": missing (not an export folder, or the export is still being written)");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec || size > (std::uintmax_t(16) << 20))
        throw EngineError(path.string() + ": unreadable or larger than 16 MiB");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof())
        throw EngineError(path.string() + ": cannot be read");
    try {
        return nlohmann::json::parse(text.str());
    } catch (const std::exception &e) {
        throw EngineError(path.string() + ": not valid JSON (" + e.what() + ")");
    }
}

// The passed artifact of format, or null.
const nlohmann::json *passedArtifact(const nlohmann::json &report, const std::string &format)
{
    const auto it = report.find("artifacts");
    if (it == report.end() || !it->is_array())
        return nullptr;
    for (const nlohmann::json &a : *it)
        if (a.is_object() && a.value("format", "") == format && a.value("status", "") == "passed")
            return &a;
    return nullptr;
}

std::string failedArtifacts(const nlohmann::json &report)
{
    std::string out;
    const auto it = report.find("artifacts");
    if (it == report.end() || !it->is_array())
        return "no artifacts listed";
    for (const nlohmann::json &a : *it)
        if (a.is_object() && a.value("status", "") != "passed")
            out += (out.empty() ? "" : "; ") + a.value("format", std::string("?")) + ": " +
                   a.value("reason", std::string("failed"));
    return out.empty() ? "status is not \"passed\"" : out;
}

// A TorchScript archive run by the JIT (its modules are safe to call from several threads).
std::function<torch::Tensor(const torch::Tensor &)> jitForward(const std::string &path, torch::Device device)
{
    auto module = std::make_shared<torch::jit::Module>();
    try {
        *module = torch::jit::load(path, device);
        module->eval();
    } catch (const c10::Error &e) {
        throw EngineError(path + ": TorchScript cannot load it: " + e.what_without_backtrace());
    }
    return [module, device](const torch::Tensor &x) {
        torch::NoGradGuard noGrad;
        std::vector<torch::jit::IValue> inputs{x.to(device)};
        const torch::jit::IValue out = module->forward(inputs);
        if (!out.isTensor())
            throw EngineError("the TorchScript module did not return a tensor");
        return out.toTensor().to(torch::kFloat32).to(torch::kCPU).contiguous();
    };
}

} // namespace

std::shared_ptr<const ModelVersion> loadModelVersion(const std::string &name, std::int64_t version,
                                                     const std::string &dir, const std::string &device)
{
    const nlohmann::json report = readReport(dir);
    if (!report.is_object() || report.value("status", "") != "passed")
        throw EngineError(dir + ": the export report does not say passed (" +
                          (report.is_object() ? failedArtifacts(report) : std::string("not an object")) + ")");

    auto m = std::make_shared<ModelVersion>();
    m->name = name;
    m->version = version;
    m->dir = dir;
    m->report = report;
    TransformOptions t;
    t.train = false;
    try {
        const nlohmann::json &source = report.at("source");
        m->arch = source.at("arch").get<std::string>();
        m->numClasses = source.at("num_classes").get<int>();
        m->labels = source.at("labels").get<std::vector<std::string>>();
        t.imageSize = source.at("image_size").get<int>();
        t.resizeSize = source.at("resize_size").get<int>();
        t.channels = source.at("in_channels").get<int>();
        t.mean = source.at("mean").get<std::array<float, 3>>();
        t.std = source.at("std").get<std::array<float, 3>>();
        m->pixelInput = report.at("input").at("layout").get<std::string>().rfind("uint8", 0) == 0;
        m->outputsProbabilities = report.at("output").at("name").get<std::string>() == "probabilities";
    } catch (const std::exception &e) {
        throw EngineError(dir + "/report.json: not a Lathe export report (" + e.what() + ")");
    }
    if (m->numClasses < 1 || m->labels.size() != std::size_t(m->numClasses))
        throw EngineError(dir + "/report.json: " + std::to_string(m->labels.size()) + " labels for " +
                          std::to_string(m->numClasses) + " classes");
    t.uint8Output = m->pixelInput;
    t.channelsLast = m->pixelInput;
    m->transform = std::make_shared<const SampleTransform>(t);
    const std::int64_t s = t.imageSize, c = t.channels;
    m->instanceShape = m->pixelInput ? std::vector<std::int64_t>{s, s, c} : std::vector<std::int64_t>{c, s, s};
    m->device = inferenceDevice(device);

    const auto fileOf = [&](const nlohmann::json *a) {
        return (fs::path(dir) / a->value("file", std::string())).string();
    };
    if (const nlohmann::json *a = passedArtifact(report, "torchscript")) {
        m->runtime = "torchscript";
        m->file = fileOf(a);
        m->forward = jitForward(m->file, m->device);
    } else if (const nlohmann::json *a = passedArtifact(report, "safetensors"); a && !m->pixelInput) {
        // The weights in Lathe's own model: the loader `lathe-cli predict --weights` uses.
        m->runtime = "libtorch";
        m->file = fileOf(a);
        ModelSpec spec;
        spec.arch = m->arch;
        spec.inChannels = int(c);
        spec.weightsPath = m->file;
        spec.head.numClasses = m->numClasses;
        auto model = std::make_shared<const RunModel>(loadBareModel(spec, m->labels, int(s), m->device.str()));
        const bool probabilities = m->outputsProbabilities;
        m->forward = [model, probabilities](const torch::Tensor &x) {
            torch::NoGradGuard noGrad;
            torch::Tensor out = model->classifier->forward(x.to(model->device)).to(torch::kFloat32);
            if (probabilities)
                out = torch::softmax(out, 1);
            return out.to(torch::kCPU).contiguous();
        };
    } else if (const nlohmann::json *a = passedArtifact(report, "onnx")) {
        m->runtime = "torchscript-from-onnx";
        m->file = fileOf(a);
        const std::string pt = temporaryPathFor((fs::temp_directory_path() / ("lathe-serve-" + name + ".pt")).string());
        try {
            onnxFileToTorchScript(m->file, pt);
            m->forward = jitForward(pt, m->device);
        } catch (...) {
            std::error_code ec;
            fs::remove(pt, ec);
            throw;
        }
        std::error_code ec;
        fs::remove(pt, ec);
    } else {
        throw EngineError(dir + ": no passed artifact this server can run (model.pt, model.safetensors or a float "
                                "model.onnx; FP16 and INT8 ONNX files need an ONNX runtime)");
    }

    // The self-check: one zero instance gives numClasses finite outputs.
    std::vector<std::int64_t> shape{1};
    shape.insert(shape.end(), m->instanceShape.begin(), m->instanceShape.end());
    torch::Tensor out;
    try {
        out = m->forward(torch::zeros(shape, m->pixelInput ? torch::kByte : torch::kFloat32));
    } catch (const c10::Error &e) {
        throw EngineError(m->file + ": the model fails on a zero input: " + e.what_without_backtrace());
    } catch (const std::exception &e) {
        throw EngineError(m->file + ": the model fails on a zero input: " + e.what());
    }
    if (out.dim() != 2 || out.size(0) != 1 || out.size(1) != m->numClasses)
        throw EngineError(m->file + ": the model gives outputs of shape " + c10::str(out.sizes()) + ", not [1, " +
                          std::to_string(m->numClasses) + "]");
    if (!torch::isfinite(out).all().item<bool>())
        throw EngineError(m->file + ": the model gives non-finite outputs on a zero input");
    return m;
}

} // namespace lathe::engine::serve
