#include "export_verbs.h"

#include "engine/base/runtime_info.h"
#include "engine/export/export_job.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

std::string artifactLine(const nlohmann::json &a)
{
    std::ostringstream line;
    line << std::left << std::setw(12) << a.value("format", "") << std::setw(8) << a.value("status", "") << ' '
         << a.value("file", "");
    if (a.contains("bytes"))
        line << "  " << std::fixed << std::setprecision(1) << a["bytes"].get<double>() / 1e6 << " MB";
    if (a.contains("verification") && a["verification"].is_object())
        line << "  max|diff| " << std::scientific << std::setprecision(2) << a["verification"]["max_abs_diff"].get<double>()
             << "  top-1 agreement " << std::fixed << std::setprecision(3) << a["verification"]["top1_agreement"].get<double>();
    if (a.contains("accuracy") && a["accuracy"].is_object())
        line << "  top-1 " << std::fixed << std::setprecision(2) << a["accuracy"]["top1"].get<double>() << "% (original "
             << a["accuracy"]["reference_top1"].get<double>() << "%)";
    if (a.contains("reason"))
        line << "\n    reason: " << a["reason"].get<std::string>();
    return line.str() + "\n";
}

void addExport(CLI::App &app, CliContext &context)
{
    auto options = std::make_shared<engine::ExportOptions>();
    options->formats.clear();
    CLI::App *cmd = app.add_subcommand(
        "export", "Export a trained model (ONNX FP32/FP16/INT8, TFLite FP32/FP16/INT8, TorchScript, safetensors + "
                  "model.json), verify each "
                  "file against the LibTorch model and write report.json beside them");
    cmd->add_option("--run", options->runDir, "Run folder (config.json, checkpoints/)")->check(CLI::ExistingDirectory);
    cmd->add_option("--checkpoint", options->checkpoint, "best, last, step-<n> or a checkpoint file")->capture_default_str();
    cmd->add_option("--arch", options->arch, "Bare model: backbone name (instead of --run)");
    cmd->add_option("--weights", options->weightsPath, "Bare model: weights (.safetensors or .pth); none: random")
        ->check(CLI::ExistingFile);
    cmd->add_option("--num-classes", options->numClasses, "Bare model: classes (default: from the weights)")
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--in-channels", options->inChannels, "Bare model: input channels")->capture_default_str()->check(CLI::Range(1, 64));
    cmd->add_option("--labels", options->labels, "Bare model: class names, in label order");
    cmd->add_option("--image-size", options->imageSize, "Input size (default: the run's, else the backbone's)")
        ->check(CLI::Range(8, 4096));
    cmd->add_option("--format", options->formats,
                    "onnx, onnx-fp16, onnx-int8, tflite, tflite-fp16, tflite-int8, torchscript, safetensors (repeatable)")
        ->required()
        ->check(CLI::IsMember({"onnx", "onnx-fp16", "onnx-int8", "tflite", "tflite-fp16", "tflite-int8", "torchscript",
                               "safetensors"}));
    cmd->add_option("--out", options->outDir, "Output folder")->required();
    cmd->add_flag("--preprocessing", options->preprocessing,
                  "ONNX/TorchScript/float TFLite take uint8 NHWC pixels and normalise inside (TFLite INT8 always does)");
    cmd->add_flag("--softmax", options->softmax, "ONNX/TorchScript/TFLite output probabilities instead of logits");
    cmd->add_option("--int8-io", options->int8Io, "TFLite INT8 input and output type: uint8 (pixels) or int8 (pixel - 128)")
        ->capture_default_str()
        ->check(CLI::IsMember({"uint8", "int8"}));
    cmd->add_option("--calib-data", options->calibData, "INT8 calibration images: shard folder or image folder (default: the run's shards)");
    cmd->add_option("--calib-split", options->calibSplit, "Split of a shard folder used for calibration")->capture_default_str();
    cmd->add_option("--calib-images", options->calibImages, "Calibration images")->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--calib-method", options->calibMethod, "Activation ranges from minmax, percentile or entropy (KL)")
        ->capture_default_str()
        ->check(CLI::IsMember({"minmax", "percentile", "entropy"}));
    cmd->add_option("--verify-data", options->verifyData, "Verification images: shard folder or image folder (default: the run's shards)");
    cmd->add_option("--verify-split", options->verifySplit, "Split of a shard folder used for verification (default: the run's validation split)");
    cmd->add_option("--verify-images", options->verifyImages, "Images in the fixed verification batch")->capture_default_str()->check(CLI::Range(1, 1024));
    cmd->add_option("--accuracy-images", options->accuracyImages, "Labelled images for the FP16/INT8 accuracy check (0: off)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000000));
    cmd->add_option("--int8-max-drop", options->int8MaxAccuracyDrop, "Largest INT8 top-1 drop in points before the file fails")
        ->capture_default_str();
    auto noBenchmark = std::make_shared<bool>(false);
    cmd->add_flag("--no-benchmark", *noBenchmark, "Skip the CPU latency measurements");
    cmd->callback([&context, options, noBenchmark] {
        context.action = [&context, options, noBenchmark] {
            engine::configureTorchThreads();
            options->benchmark = !*noBenchmark;
            engine::TaskControl control;
            if (!context.json)
                control.progress = [last = std::string()](double, const std::string &status) mutable {
                    if (status != last)
                        std::cerr << status << "...\n";
                    last = status;
                };
            const nlohmann::json report = engine::exportModel(*options, control);
            std::string text = "Exported " + report["source"]["arch"].get<std::string>() + " to " + options->outDir + "\n";
            for (const auto &a : report["artifacts"])
                text += artifactLine(a);
            text += "Report: " + options->outDir + "/report.json\n";
            context.print(report, text);
            return report["status"] == "passed" ? 0 : 2;
        };
    });
}

} // namespace

void addExportVerbs(CLI::App &app, CliContext &context)
{
    addExport(app, context);
}

} // namespace lathe::cli
