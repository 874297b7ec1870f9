#include "engine_verbs.h"

#include "engine/base/nvml_probe.h"
#include "engine/base/runtime_info.h"
#include "engine/dataset/demo_data.h"
#include "bench_verbs.h"
#include "config_verbs.h"
#include "eval_verbs.h"
#include "export_verbs.h"
#include "finder_verbs.h"
#include "label_issues_verbs.h"
#include "tune_verbs.h"
#include "model_verbs.h"
#include "scan_verbs.h"
#include "serve_verbs.h"
#include "shard_verbs.h"
#include "train_verbs.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

void addInfo(CLI::App &app, CliContext &context)
{
    CLI::App *info = app.add_subcommand("info", "Show library versions and the compute devices found");
    info->callback([&context] {
        context.action = [&context] {
            engine::configureTorchThreads();
            const engine::RuntimeInfo r = engine::runtimeInfo();
            const engine::ComputeDevices found = engine::computeDevices();
            nlohmann::json devices = nlohmann::json::array();
            for (const engine::ComputeDevice &d : found.devices)
                devices.push_back({{"id", d.id}, {"name", d.name}, {"total_memory", d.totalMemory}});
            const nlohmann::json doc = {
                {"lathe", r.lathe},
                {"libtorch", r.libtorch},
                {"libtorch_cuda", r.libtorchCuda.empty() ? nlohmann::json() : nlohmann::json(r.libtorchCuda)},
                {"opencv", r.opencv},
                {"libjpeg_turbo", r.libjpegTurbo},
                {"torch_threads", r.torchThreads},
                {"cuda_devices", r.cudaDevices},
                {"driver_gpus", found.driverGpus},
                {"nvml", engine::nvmlProblem().empty() ? nlohmann::json("loaded") : nlohmann::json(engine::nvmlProblem())},
                {"devices", devices}};
            std::ostringstream text;
            text << "Lathe          " << r.lathe << "\nLibTorch       " << r.libtorch
                 << (r.libtorchCuda.empty() ? std::string(" (CPU only)") : " (with CUDA " + r.libtorchCuda + ")")
                 << "\nOpenCV         " << r.opencv << "\nlibjpeg-turbo  " << r.libjpegTurbo
                 << "\nTorch threads  " << r.torchThreads << "\nCUDA devices   " << r.cudaDevices;
            if (r.cudaDevices == 0 && found.driverGpus > 0)
                text << " (the driver sees " << found.driverGpus << " GPU(s); this LibTorch cannot use them)";
            text << "\nNVML           "
                 << (engine::nvmlProblem().empty() ? std::string("loaded (GPU utilisation in the live view)")
                                                   : "not loaded: " + engine::nvmlProblem());
            text << "\nDevices       ";
            for (const engine::ComputeDevice &d : found.devices)
                text << ' ' << d.id << " (" << d.name << ')';
            text << '\n';
            context.print(doc, text.str());
            return 0;
        };
    });
}

void addDemoData(CLI::App &app, CliContext &context)
{
    auto options = std::make_shared<engine::DemoDataOptions>();
    CLI::App *cmd = app.add_subcommand(
        "demo-data", "Write real Fashion-MNIST images (Debian's dataset-fashion-mnist) as PNG class folders: "
                     "OUT_DIR/train/<class>/*.png and OUT_DIR/test/<class>/*.png");
    cmd->add_option("OUT_DIR", options->outDir, "New or empty folder to write")->required();
    cmd->add_option("--per-class", options->perClass, "Training images per class")
        ->capture_default_str()
        ->check(CLI::Range(1, 6000));
    cmd->add_option("--test-per-class", options->testPerClass, "Test images per class (0: no test split)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    cmd->add_option("--source", options->sourceDir, "Folder holding the Fashion-MNIST IDX files")
        ->capture_default_str();
    cmd->callback([&context, options] {
        context.action = [&context, options] {
            const engine::DemoDataResult r = engine::writeDemoData(*options);
            const nlohmann::json doc = {{"out_dir", r.outDir},
                                        {"classes", r.classes},
                                        {"train_images", r.trainImages},
                                        {"test_images", r.testImages}};
            std::ostringstream text;
            text << "Wrote " << r.trainImages << " training and " << r.testImages << " test images of "
                 << r.classes.size() << " Fashion-MNIST classes to " << r.outDir << '\n';
            context.print(doc, text.str());
            return 0;
        };
    });
}

} // namespace

void addEngineVerbs(CLI::App &app, CliContext &context)
{
    addInfo(app, context);
    addDemoData(app, context);
    addScanVerb(app, context);
    addShardVerbs(app, context);
    addModelVerbs(app, context);
    addExportVerbs(app, context);
    addConfigVerbs(app, context);
    addBenchVerbs(app);
    addTrainVerbs(app, context);
    addFinderVerbs(app, context);
    addTuneVerbs(app, context);
    addEvalVerbs(app, context);
    addLabelIssuesVerbs(app, context);
    addServeVerbs(app, context);
}

} // namespace lathe::cli
