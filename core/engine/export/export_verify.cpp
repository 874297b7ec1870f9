#include "engine/export/export_verify.h"

#include "engine/base/engine_error.h"
#include "engine/export/export_latency.h"

#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace lathe::engine::export_internal {
namespace {

// FP32 artifacts pass when max |diff| <= kFp32Tolerance * max(1, max |logit|).
constexpr double kFp32Tolerance = 1e-4;

torch::Tensor runOpenCv(cv::dnn::Net &net, const torch::Tensor &input)
{
    torch::Tensor x = input.contiguous();
    std::vector<int> dims(x.sizes().begin(), x.sizes().end());
    cv::Mat blob(int(dims.size()), dims.data(), x.scalar_type() == torch::kByte ? CV_8U : CV_32F, x.data_ptr());
    net.setInput(blob);
    cv::Mat out = net.forward();
    if (out.type() != CV_32F)
        throw EngineError("OpenCV DNN returned a non-float output");
    std::vector<std::int64_t> shape(out.size.p, out.size.p + out.dims);
    return torch::from_blob(out.ptr<float>(), shape, torch::kFloat).clone();
}

struct Diff
{
    double maxAbs = 0, meanAbs = 0, top1Agreement = 0, refMaxAbs = 0;
    bool finite = true;
};

Diff compare(const torch::Tensor &reference, const torch::Tensor &got)
{
    if (reference.sizes() != got.sizes())
        throw EngineError("output shape " + c10::str(got.sizes()) + " differs from the model's " + c10::str(reference.sizes()));
    Diff d;
    const torch::Tensor diff = (reference.to(torch::kDouble) - got.to(torch::kDouble)).abs();
    d.finite = torch::isfinite(got).all().item<bool>();
    d.maxAbs = diff.max().item<double>();
    d.meanAbs = diff.mean().item<double>();
    d.refMaxAbs = reference.abs().max().item<double>();
    d.top1Agreement = (reference.argmax(1) == got.argmax(1)).to(torch::kDouble).mean().item<double>();
    return d;
}

nlohmann::json diffJson(const Diff &d)
{
    return {{"max_abs_diff", d.maxAbs}, {"mean_abs_diff", d.meanAbs}, {"top1_agreement", d.top1Agreement},
            {"reference_max_abs", d.refMaxAbs}};
}

// Records d as the artifact's verification; it fails on non-finite outputs or a max |diff|
// above relTolerance * max(1, max |reference|).
void checkDiff(const Diff &d, double relTolerance, Artifact &artifact)
{
    artifact.entry["verification"] = diffJson(d);
    if (!d.finite)
        artifact.failures.push_back("non-finite outputs");
    const double limit = relTolerance * std::max(1.0, d.refMaxAbs);
    if (d.maxAbs > limit)
        artifact.failures.push_back("max |diff| " + std::to_string(d.maxAbs) + " exceeds " + std::to_string(limit));
}

} // namespace

torch::Tensor OpenCvRunner::run(const torch::Tensor &input)
{
    auto it = m_nets.find(input.size(0));
    if (it == m_nets.end()) {
        const std::string bytes = serializeOnnx(withFixedBatch(m_model, input.size(0)));
        it = m_nets.emplace(input.size(0), cv::dnn::readNetFromONNX(bytes.data(), bytes.size())).first;
    }
    return runOpenCv(it->second, input);
}

torch::Tensor referenceOutputs(const ExportContext &ctx)
{
    // The uint8 path normalises inside the graph: its reference is the model on those pixels.
    const ImageBatch &verify = ctx.verify;
    const int channels = ctx.spec.inChannels;
    torch::Tensor referenceInput = verify.images;
    if (ctx.options.preprocessing && verify.pixels.defined()) {
        torch::Tensor x = verify.pixels.permute({0, 3, 1, 2}).to(torch::kFloat) / 255.0;
        torch::Tensor mean = torch::empty({channels, 1, 1}), sd = torch::empty({channels, 1, 1});
        for (int c = 0; c < channels; ++c) {
            mean[c] = ctx.info().mean[std::size_t(std::min(c, 2))];
            sd[c] = ctx.info().std[std::size_t(std::min(c, 2))];
        }
        referenceInput = (x - mean) / sd;
    }
    torch::Tensor reference = ctx.model().forward(referenceInput);
    if (ctx.options.softmax)
        reference = torch::softmax(reference, 1);
    return reference;
}

double accuracy(const torch::Tensor &logits, const std::vector<std::int64_t> &labels)
{
    const torch::Tensor pred = logits.argmax(1);
    std::int64_t correct = 0;
    for (std::size_t i = 0; i < labels.size(); ++i)
        correct += pred[std::int64_t(i)].item<std::int64_t>() == labels[i];
    return 100.0 * double(correct) / double(labels.size());
}

torch::Tensor batched(const std::function<torch::Tensor(const torch::Tensor &)> &run, const torch::Tensor &x,
                      const TaskControl &control, int batch)
{
    std::vector<torch::Tensor> parts;
    for (std::int64_t i = 0; i < x.size(0); i += batch) {
        control.checkCancel();
        parts.push_back(run(x.slice(0, i, std::min<std::int64_t>(x.size(0), i + batch))));
    }
    return torch::cat(parts, 0);
}

void verifyOnnxFp32(const ExportContext &ctx, const onnx::ModelProto &written, Artifact &artifact)
{
    nlohmann::json &a = artifact.entry;
    // OpenCV DNN is the independent check. It has no general broadcasting in 4.6 (LayerNorm
    // statistics, ViT's position embedding), so where it cannot load or run a graph, or
    // disagrees, the file is judged by the reference runtime (the ONNX operator definitions on
    // LibTorch) and OpenCV's result is reported beside it.
    bool openCvMatched = false;
    try {
        OpenCvRunner net(written);
        const Diff byOpenCv = compare(ctx.reference, net.run(ctx.verifyInput));
        a["opencv_dnn"] = diffJson(byOpenCv);
        openCvMatched = byOpenCv.finite && byOpenCv.maxAbs <= kFp32Tolerance * std::max(1.0, byOpenCv.refMaxAbs);
        if (openCvMatched) {
            checkDiff(byOpenCv, kFp32Tolerance, artifact);
            if (ctx.options.benchmark)
                a["latency"] = latency([&](const torch::Tensor &x) { net.run(x); }, ctx.latencyOne, ctx.latencyMany);
        }
    } catch (const cv::Exception &e) {
        a["opencv_dnn"] = {{"error", e.what()}};
    } catch (const EngineError &e) {
        a["opencv_dnn"] = {{"error", e.what()}};
    }
    a["runtime"] = openCvMatched ? "opencv_dnn" : "reference";
    if (!openCvMatched) {
        const Diff byReference = compare(ctx.reference, OnnxReferenceRuntime(written).run(ctx.verifyInput));
        a["reference_runtime"] = diffJson(byReference);
        checkDiff(byReference, kFp32Tolerance, artifact);
    }
}

void verifyOnnxReduced(const ExportContext &ctx, const onnx::ModelProto &written, Artifact &artifact)
{
    nlohmann::json &a = artifact.entry;
    const ExportOptions &options = ctx.options;
    OnnxReferenceRuntime runtime(written);
    a["runtime"] = "reference";
    // The labelled validation images start with the verification batch: one pass through the
    // (slow) reference runtime gives the verification and the accuracy.
    const ImageBatch &validation = ctx.validation;
    const torch::Tensor validationInput = options.preprocessing ? validation.pixels : validation.images;
    const std::int64_t n = ctx.verifyInput.size(0);
    const bool oneSweep = ctx.referenceAccuracy >= 0 && validationInput.size(0) >= n &&
                          torch::equal(validationInput.slice(0, 0, n), ctx.verifyInput);
    torch::Tensor validationLogits;
    if (ctx.referenceAccuracy >= 0)
        validationLogits = batched([&](const torch::Tensor &x) { return runtime.run(x); }, validationInput, ctx.control);
    const Diff d = compare(ctx.reference, oneSweep ? validationLogits.slice(0, 0, n) : runtime.run(ctx.verifyInput));
    // FP16 is checked against a relative bound; INT8 by accuracy below.
    if (artifact.format == "onnx-fp16")
        checkDiff(d, 5e-2, artifact);
    else {
        a["verification"] = diffJson(d);
        if (!d.finite)
            artifact.failures.push_back("non-finite outputs");
    }
    if (ctx.referenceAccuracy >= 0) {
        const double acc = accuracy(validationLogits, validation.labels);
        a["accuracy"] = {{"top1", acc}, {"reference_top1", ctx.referenceAccuracy},
                         {"images", validation.labels.size()}, {"source", validation.source}};
        if (artifact.format == "onnx-int8" && ctx.referenceAccuracy - acc > options.int8MaxAccuracyDrop) {
            char what[160];
            std::snprintf(what, sizeof what,
                          "top-1 accuracy %.1f%% is more than %.1f points below the original's %.1f%% "
                          "(try another calibration method or more calibration images)",
                          acc, options.int8MaxAccuracyDrop, ctx.referenceAccuracy);
            artifact.failures.push_back(what);
        }
    } else {
        a["accuracy"] = nullptr;
    }
    a["latency"] = nullptr; // the reference runtime is a checker, not a deployment runtime
}

void verifyTorchScript(const ExportContext &ctx, Artifact &artifact)
{
    torch::jit::Module loaded = torch::jit::load(artifact.path);
    loaded.eval();
    // Run as torch.jit.optimized_execution(False) does: the profiling executor would profile
    // and re-optimise the graph for every new batch size (seconds for a ResNet-50, longer than
    // the runs themselves) to reach the same operator calls.
    const torch::jit::GraphOptimizerEnabledGuard unoptimized(false);
    auto run = [&](const torch::Tensor &x) { return loaded.forward({x}).toTensor(); };
    artifact.entry["runtime"] = "libtorch_jit";
    checkDiff(compare(ctx.reference, run(ctx.verifyInput)), kFp32Tolerance, artifact);
    if (ctx.options.benchmark)
        artifact.entry["latency"] = latency([&](const torch::Tensor &x) { run(x); }, ctx.latencyOne, ctx.latencyMany);
}

void verifySafetensors(const ExportContext &ctx, Artifact &artifact)
{
    // Load it back, strictly, into a fresh model.
    ModelSpec again = ctx.spec;
    again.weightsPath = artifact.path;
    BuiltModel rebuilt = buildModel(again);
    if (!rebuilt.report.clean() || rebuilt.report.headReplaced)
        artifact.failures.push_back("reloading gave: " + rebuilt.report.text());
    rebuilt.classifier->eval();
    artifact.entry["runtime"] = "libtorch";
    torch::Tensor got = rebuilt.classifier->forward(ctx.verify.images);
    if (ctx.options.softmax)
        got = torch::softmax(got, 1);
    if (!ctx.options.preprocessing)
        checkDiff(compare(ctx.reference, got), 0, artifact);
}

} // namespace lathe::engine::export_internal
