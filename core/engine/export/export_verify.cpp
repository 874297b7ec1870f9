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

torch::Tensor referenceOnPixels(const ExportContext &ctx, const torch::Tensor &pixels)
{
    const int channels = ctx.spec.inChannels;
    torch::Tensor x = pixels.permute({0, 3, 1, 2}).to(torch::kFloat) / 255.0;
    torch::Tensor mean = torch::empty({channels, 1, 1}), sd = torch::empty({channels, 1, 1});
    for (int c = 0; c < channels; ++c) {
        mean[c] = ctx.info().mean[std::size_t(std::min(c, 2))];
        sd[c] = ctx.info().std[std::size_t(std::min(c, 2))];
    }
    torch::Tensor reference = ctx.model().forward((x - mean) / sd);
    return ctx.outputs(reference);
}

torch::Tensor referenceOutputs(const ExportContext &ctx)
{
    // The uint8 path normalises inside the graph: its reference is the model on those pixels.
    const ImageBatch &verify = ctx.verify;
    if (ctx.options.preprocessing && verify.pixels.defined())
        return referenceOnPixels(ctx, verify.pixels);
    torch::Tensor reference = ctx.model().forward(verify.images);
    return ctx.outputs(reference);
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

namespace {

// FP16 / INT8 artifacts (int8: judged by accuracy, FP16 by a relative bound too): run on the
// verification batch against reference, and on the labelled validation images.
void checkReduced(const ExportContext &ctx, const std::function<torch::Tensor(const torch::Tensor &)> &run,
                  const torch::Tensor &verifyInput, const torch::Tensor &reference, const torch::Tensor &validationInput,
                  bool int8, Artifact &artifact)
{
    nlohmann::json &a = artifact.entry;
    const ExportOptions &options = ctx.options;
    const ImageBatch &validation = ctx.validation;
    // The labelled validation images start with the verification batch: one pass through the
    // (slow) reference runtime gives the verification and the accuracy.
    const std::int64_t n = verifyInput.size(0);
    const bool oneSweep = ctx.referenceAccuracy >= 0 && validationInput.size(0) >= n &&
                          torch::equal(validationInput.slice(0, 0, n), verifyInput);
    torch::Tensor validationLogits;
    if (ctx.referenceAccuracy >= 0)
        validationLogits = batched(run, validationInput, ctx.control);
    const Diff d = compare(reference, oneSweep ? validationLogits.slice(0, 0, n) : run(verifyInput));
    if (!int8) {
        checkDiff(d, 5e-2, artifact);
    } else {
        a["verification"] = diffJson(d);
        if (!d.finite)
            artifact.failures.push_back("non-finite outputs");
    }
    if (ctx.referenceAccuracy >= 0) {
        const double acc = accuracy(validationLogits, validation.labels);
        a["accuracy"] = {{"top1", acc}, {"reference_top1", ctx.referenceAccuracy},
                         {"images", validation.labels.size()}, {"source", validation.source}};
        if (int8 && ctx.referenceAccuracy - acc > options.int8MaxAccuracyDrop) {
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
}

} // namespace

void verifyOnnxReduced(const ExportContext &ctx, const onnx::ModelProto &written, Artifact &artifact)
{
    OnnxReferenceRuntime runtime(written);
    artifact.entry["runtime"] = "reference";
    const torch::Tensor validationInput = ctx.options.preprocessing ? ctx.validation.pixels : ctx.validation.images;
    checkReduced(ctx, [&](const torch::Tensor &x) { return runtime.run(x); }, ctx.verifyInput, ctx.reference,
                 validationInput, artifact.format == "onnx-int8", artifact);
    artifact.entry["latency"] = nullptr; // the reference runtime is a checker, not a deployment runtime
}

void verifyTflite(const ExportContext &ctx, const TfliteModel &written, bool pixels, Artifact &artifact)
{
    TfliteReferenceRuntime runtime(written);
    const TfliteTensor &in = written.tensors.at(std::size_t(written.inputs.at(0)));
    const TfliteTensor &out = written.tensors.at(std::size_t(written.outputs.at(0)));
    // Quantised outputs in float, as a caller dequantises them with the output's parameters.
    auto run = [&](const torch::Tensor &x) { return tfliteDequantize(runtime.runBatch(x), out); };
    // The file's input: normalised NHWC floats, uint8 pixels or int8 pixels - 128.
    auto inputOf = [&](const ImageBatch &batch) {
        if (!pixels)
            return batch.images.permute({0, 2, 3, 1}).contiguous();
        if (in.type == TfliteType::Int8)
            return (batch.pixels.to(torch::kInt) - 128).to(torch::kChar);
        return batch.pixels;
    };
    artifact.entry["runtime"] = "reference";
    const torch::Tensor reference = pixels == ctx.options.preprocessing ? ctx.reference : referenceOnPixels(ctx, ctx.verify.pixels);
    if (artifact.format == "tflite")
        checkDiff(compare(reference, run(inputOf(ctx.verify))), kFp32Tolerance, artifact);
    else
        checkReduced(ctx, run, inputOf(ctx.verify), reference,
                     ctx.referenceAccuracy >= 0 ? inputOf(ctx.validation) : torch::Tensor(), artifact.format == "tflite-int8",
                     artifact);
    // Its latency on this CPU is LiteRT's (XNNPACK): tests/bench/bench_export.sh.
    artifact.entry["latency"] = nullptr;
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
    got = ctx.outputs(got);
    if (!ctx.options.preprocessing)
        checkDiff(compare(ctx.reference, got), 0, artifact);
}

} // namespace lathe::engine::export_internal
