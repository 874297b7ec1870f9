#include "eval_verbs.h"

#include "engine/base/file_io.h"
#include "engine/base/runtime_info.h"
#include "engine/export/export_job.h"
#include "engine/inference/evaluation.h"
#include "engine/inference/grad_cam.h"
#include "engine/inference/prediction.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

// Beyond this many classes the confusion matrix is not printed as a table (see --save).
constexpr std::size_t kMaxPrintedMatrix = 30;

std::string fixed(double v, int digits = 4)
{
    std::ostringstream out;
    out << std::fixed << std::setprecision(digits) << v;
    return out.str();
}

std::string orDash(const nlohmann::json &v, int digits = 4)
{
    return v.is_number() ? fixed(v.get<double>(), digits) : std::string("-");
}

// A multi-label evaluation: mAP, then per class AP, P/R/F1 at its threshold, support.
std::string multiLabelText(const nlohmann::json &m, std::size_t nameWidth)
{
    std::ostringstream out;
    out << "multi-label   mAP " << orDash(m["map"]) << "   micro mAP " << orDash(m["map_micro"]) << "   micro F1 "
        << orDash(m["micro"]["f1"]) << "   loss (BCE) " << orDash(m["loss"]) << "\n\n";
    out << std::left << std::setw(int(nameWidth)) << "class" << std::right << std::setw(8) << "AP" << std::setw(11)
        << "precision" << std::setw(9) << "recall" << std::setw(9) << "f1" << std::setw(9) << "support" << std::setw(11)
        << "threshold" << '\n';
    for (const auto &c : m["per_class"])
        out << std::left << std::setw(int(nameWidth)) << c["class"].get<std::string>().substr(0, 40) << std::right
            << std::setw(8) << orDash(c["average_precision"]) << std::setw(11) << orDash(c["precision"]) << std::setw(9)
            << orDash(c["recall"]) << std::setw(9) << orDash(c["f1"]) << std::setw(9) << c["support"].get<std::int64_t>()
            << std::setw(11) << orDash(c["threshold"]) << '\n';
    for (const char *avg : {"micro", "macro"})
        out << std::left << std::setw(int(nameWidth)) << (std::string(avg) + " avg") << std::right << std::setw(8) << ""
            << std::setw(11) << orDash(m[avg]["precision"]) << std::setw(9) << orDash(m[avg]["recall"]) << std::setw(9)
            << orDash(m[avg]["f1"]) << '\n';
    return out.str();
}

std::string evalText(const engine::EvalResult &r)
{
    const nlohmann::json &m = r.metrics;
    std::ostringstream out;
    out << "Evaluated " << m["count"].get<std::uint64_t>() << " images of split \"" << m["split"].get<std::string>()
        << "\" with " << m["checkpoint"].get<std::string>();
    if (m["checkpoint_step"].get<std::int64_t>() >= 0)
        out << " (step " << m["checkpoint_step"].get<std::int64_t>() << ")";
    out << (m["tta"].get<bool>() ? ", TTA " + std::to_string(m["tta_views"].get<int>()) + " views" : std::string())
        << '\n';
    if (m["skipped"].get<std::uint64_t>() > 0) {
        out << m["skipped"].get<std::uint64_t>() << " records could not be read and were left out:\n";
        for (const auto &e : m["errors"])
            out << "  " << e.get<std::string>() << '\n';
    }
    std::size_t nameWidth = 12;
    for (const std::string &c : r.classes)
        nameWidth = std::max(nameWidth, std::min<std::size_t>(c.size(), 40));
    if (m.value("task", "") == "multi_label")
        return out.str() + multiLabelText(m, nameWidth);
    out << "top-1 " << orDash(m["top1"]) << "   top-5 " << orDash(m["top5"]) << "   loss " << orDash(m["loss"])
        << "   ECE " << orDash(m["calibration"]["ece"]) << "\n\n";

    out << std::left << std::setw(int(nameWidth)) << "class" << std::right << std::setw(11) << "precision"
        << std::setw(9) << "recall" << std::setw(9) << "f1" << std::setw(9) << "support" << std::setw(10) << "AP" << '\n';
    for (std::size_t i = 0; i < m["per_class"].size(); ++i) {
        const auto &c = m["per_class"][i];
        out << std::left << std::setw(int(nameWidth)) << c["class"].get<std::string>().substr(0, 40) << std::right
            << std::setw(11) << orDash(c["precision"]) << std::setw(9) << orDash(c["recall"])
            << std::setw(9) << orDash(c["f1"]) << std::setw(9) << c["support"].get<std::uint64_t>()
            << std::setw(10) << orDash(m["pr_curves"][i]["average_precision"]) << '\n';
    }
    for (const char *avg : {"macro", "weighted"}) {
        const auto &a = m[avg];
        out << std::left << std::setw(int(nameWidth)) << (std::string(avg) + " avg") << std::right << std::setw(11)
            << fixed(a["precision"].get<double>()) << std::setw(9) << fixed(a["recall"].get<double>()) << std::setw(9)
            << fixed(a["f1"].get<double>()) << std::setw(9) << m["count"].get<std::uint64_t>() << '\n';
    }

    const auto &counts = m["confusion_matrix"]["counts"];
    if (r.classes.size() <= kMaxPrintedMatrix) {
        out << "\nConfusion matrix (rows: true class, columns: predicted class index)\n";
        std::size_t cell = 4;
        for (const auto &row : counts)
            for (const auto &v : row)
                cell = std::max(cell, std::to_string(v.get<std::uint64_t>()).size() + 1);
        out << std::setw(int(nameWidth) + 5) << "";
        for (std::size_t j = 0; j < r.classes.size(); ++j)
            out << std::setw(int(cell)) << j;
        out << '\n';
        for (std::size_t i = 0; i < r.classes.size(); ++i) {
            out << std::right << std::setw(3) << i << "  " << std::left << std::setw(int(nameWidth))
                << r.classes[i].substr(0, 40) << std::right;
            for (const auto &v : counts[i])
                out << std::setw(int(cell)) << v.get<std::uint64_t>();
            out << '\n';
        }
    } else {
        out << "\n(" << r.classes.size() << " classes: the confusion matrix is in --json and --save's confusion.csv)\n";
        if (!m["top_confusions"].empty()) {
            out << "Most frequent confusions:\n";
            for (const auto &c : m["top_confusions"])
                out << "  " << c["true"].get<std::string>() << " -> " << c["predicted"].get<std::string>() << ": "
                    << c["count"].get<std::uint64_t>() << '\n';
        }
    }
    return out.str();
}

void addEval(CLI::App &app, CliContext &context)
{
    struct Args
    {
        engine::EvalOptions options;
        std::string csv;
        std::string predictions;
        std::string save;
    };
    auto args = std::make_shared<Args>();
    engine::EvalOptions &o = args->options;
    CLI::App *cmd = app.add_subcommand(
        "eval", "Evaluate a run's checkpoint on a split: top-1/top-5, per-class precision/recall/F1, confusion matrix, "
                "calibration (ECE), precision-recall curves");
    cmd->add_option("--run", o.runDir, "Run folder")->required()->check(CLI::ExistingDirectory);
    cmd->add_option("--checkpoint", o.checkpoint, "best, last, step-N or a checkpoint/weights file")
        ->capture_default_str();
    cmd->add_option("--data", o.dataDir, "Shard folder (default: the run's data.shards)")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--split", o.split, "Split to evaluate (val, test, train, ...)")->capture_default_str();
    cmd->add_flag("--tta", o.tta, "Test-time augmentation: five crops and their mirror images, probabilities averaged");
    cmd->add_option("--tta-crops", o.ttaCrops, "Crops with --tta: 5 (five-crop) or 1 (center crop, mirrored)")
        ->capture_default_str()
        ->check(CLI::IsMember({1, 5}));
    cmd->add_option("--batch-size", o.batchSize, "Images per forward pass")->capture_default_str()->check(
        CLI::Range(1, 65536));
    cmd->add_option("--top-k", o.topK, "Classes kept per image in --predictions")->capture_default_str()->check(
        CLI::Range(1, 1000000));
    cmd->add_option("--threads", o.threads, "Decoding threads (0: every core)")->capture_default_str()->check(
        CLI::NonNegativeNumber);
    cmd->add_option("--device", o.device, "cpu or cuda:N (default: the first GPU when there is one)");
    cmd->add_option("--csv", args->csv, "Write the per-class table as CSV to this file");
    cmd->add_option("--predictions", args->predictions, "Write every image's prediction as JSON lines to this file");
    cmd->add_option("--save", args->save,
                    "Write the whole evaluation to this folder (metrics.json, predictions.jsonl, CSV tables)");
    cmd->callback([&context, args] {
        context.action = [&context, args] {
            engine::configureTorchThreads();
            engine::TaskControl control;
            if (!context.json)
                control.progress = [last = -1](double fraction, const std::string &) mutable {
                    const int percent = int(fraction * 100);
                    if (percent / 10 != last / 10) {
                        std::cerr << "\revaluating " << percent << "%" << std::flush;
                        last = percent;
                    }
                };
            // --save keeps every class's score per image (scores.jsonl; the Evaluate page's
            // threshold editing needs them for multi-label models).
            args->options.keepProbabilities = !args->save.empty();
            const engine::EvalResult r = engine::evaluate(args->options, control);
            if (!context.json)
                std::cerr << '\n';
            if (!args->csv.empty())
                engine::writeFileAtomically(args->csv, r.metrics.value("task", "") == "multi_label"
                                                           ? engine::multiLabelMetricsCsv(r.metrics)
                                                           : engine::metricsCsv(r.metrics));
            if (!args->predictions.empty())
                engine::writeFileAtomically(args->predictions, engine::predictionsJsonl(r.predictions));
            if (!args->save.empty())
                engine::saveEvaluation(args->save, r);
            nlohmann::json doc = r.metrics;
            doc["classes"] = r.classes;
            context.print(doc, evalText(r));
            return 0;
        };
    });
}

int runPredict(const CliContext &context, const engine::PredictOptions &options, const std::vector<std::string> &inputs)
{
    engine::configureTorchThreads();
    const std::vector<engine::FilePrediction> results = engine::predictFiles(options, inputs);
    nlohmann::json doc = nlohmann::json::array();
    std::ostringstream text;
    int failed = 0;
    for (const engine::FilePrediction &r : results) {
        nlohmann::json item = {{"path", r.path}};
        if (!r.error.empty()) {
            ++failed;
            item["error"] = r.error;
            text << r.path << ": error: " << r.error << '\n';
        } else {
            nlohmann::json top = nlohmann::json::array();
            text << r.path << ':';
            if (r.multiLabel) {
                // The label set first (the thresholds' verdict), then the top scores.
                text << " [";
                for (std::size_t i = 0; i < r.labelSet.size(); ++i)
                    text << (i ? ", " : "") << r.labelSet[i];
                text << "] scores";
                item["labels"] = r.labelSet;
            }
            for (std::size_t i = 0; i < r.topClasses.size(); ++i) {
                top.push_back({{"class", r.topNames[i]}, {"index", r.topClasses[i]}, {r.multiLabel ? "score" : "probability", r.topProbs[i]}});
                text << (i ? ", " : " ") << r.topNames[i] << ' ' << fixed(r.topProbs[i], 4);
            }
            text << '\n';
            item["predictions"] = top;
        }
        doc.push_back(item);
    }
    context.print(doc, text.str());
    return failed ? 2 : 0;
}

// An exported float ONNX file through OpenCV DNN, or a TFLite file through the reference runtime
// (the file's metadata gives the preprocessing).
int runOnnxPredict(const CliContext &context, const engine::OnnxPredictOptions &options)
{
    const nlohmann::json doc = engine::predictWithOnnx(options);
    std::ostringstream text;
    for (const auto &p : doc["predictions"]) {
        text << p["image"].get<std::string>() << ':';
        if (p.contains("labels")) {
            text << " [";
            for (std::size_t i = 0; i < p["labels"].size(); ++i)
                text << (i ? ", " : "") << (p["labels"][i].is_string() ? p["labels"][i].get<std::string>() : p["labels"][i].dump());
            text << "] scores";
        }
        bool first = true;
        for (const auto &t : p["top"]) {
            text << (first ? " " : ", ")
                 << (t["label"].is_string() ? t["label"].get<std::string>() : std::to_string(t["index"].get<int>())) << ' '
                 << fixed(t["probability"].get<double>(), 4);
            first = false;
        }
        text << '\n';
    }
    context.print(doc, text.str());
    return 0;
}

// `predict`, one verb with three model sources: an exported ONNX file (--model), a run's
// checkpoint (--run) or a weights file (--weights); exactly one is required.
void addPredict(CLI::App &app, CliContext &context)
{
    struct Args
    {
        engine::PredictOptions options;
        std::string onnxModel;
        std::vector<std::string> inputs;
        std::vector<std::string> classes;
        int topK = 5;
    };
    auto args = std::make_shared<Args>();
    engine::PredictOptions &o = args->options;

    CLI::App *cmd = app.add_subcommand(
        "predict", "Classify image files (folders are searched for images) with an exported float ONNX file "
                   "(--model, OpenCV DNN), a run's checkpoint (--run) or a weights file (--weights). Exit status 2 "
                   "when some files could not be classified");
    cmd->add_option("INPUTS", args->inputs, "Image files and folders")->required()->check(CLI::ExistingPath);
    CLI::Option *model = cmd->add_option("--model", args->onnxModel,
                                         "Float ONNX or TFLite (.tflite, any variant) file written by `lathe-cli export`")
                             ->check(CLI::ExistingFile);
    CLI::Option *run = cmd->add_option("--run", o.runDir, "Run folder: classify with its checkpoint")
                           ->check(CLI::ExistingDirectory);
    cmd->add_option("--checkpoint", o.checkpoint, "With --run: best, last, step-N or a checkpoint file")
        ->capture_default_str()
        ->needs(run);
    CLI::Option *weights = cmd->add_option("--weights", o.model.weightsPath,
                                           "A weights file (safetensors or torch.save .pth)")
                               ->check(CLI::ExistingFile);
    cmd->add_option("--arch", o.model.arch, "With --weights: the backbone (see `lathe-cli models`)")
        ->capture_default_str()
        ->needs(weights);
    cmd->add_option("--in-channels", o.model.inChannels, "With --weights: input channels (1 or 3)")
        ->capture_default_str()
        ->check(CLI::IsMember({1, 3}))
        ->needs(weights);
    cmd->add_option("--classes", args->classes, "With --weights: class names in label order (comma-separated)")
        ->delimiter(',')
        ->needs(weights);
    cmd->add_option("--image-size", o.imageSize, "With --weights: crop size (0: the backbone's)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber)
        ->needs(weights);
    cmd->add_option("--top-k,--top", args->topK, "Classes listed per image")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--batch-size", o.batchSize, "With --run/--weights: images per forward pass")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096))
        ->excludes(model);
    cmd->add_option("--device", o.device, "With --run/--weights: cpu or cuda:N (default: the first GPU when there is one)")
        ->excludes(model);

    cmd->callback([&context, args, model, run, weights] {
        const std::size_t sources = model->count() + run->count() + weights->count();
        if (sources == 0)
            throw CLI::ValidationError("predict", "give the model: --model FILE.onnx, --run RUN_DIR or --weights FILE");
        if (sources > 1)
            throw CLI::ValidationError("predict", "--model, --run and --weights are alternatives: give only one");
        if (model->count() > 0) {
            engine::OnnxPredictOptions onnx;
            onnx.modelPath = args->onnxModel;
            onnx.images = engine::expandImageInputs(args->inputs);
            onnx.top = args->topK;
            context.action = [&context, onnx] { return runOnnxPredict(context, onnx); };
            return;
        }
        args->options.classes = args->classes;
        args->options.topK = args->topK;
        context.action = [&context, args] { return runPredict(context, args->options, args->inputs); };
    });
}

void addGradCam(CLI::App &app, CliContext &context)
{
    struct Args
    {
        std::string runDir;
        std::string checkpoint = "best";
        std::string image;
        std::string out;
        std::string className;
        double alpha = 0.5;
    };
    auto args = std::make_shared<Args>();
    CLI::App *cmd = app.add_subcommand(
        "gradcam", "Write an image's Grad-CAM heat map (CNN backbones) as a jet overlay PNG and print the prediction");
    cmd->add_option("IMAGE", args->image, "Image file")->required();
    cmd->add_option("--run", args->runDir, "Run folder")->required()->check(CLI::ExistingDirectory);
    cmd->add_option("--checkpoint", args->checkpoint, "best, last, step-N or a checkpoint file")->capture_default_str();
    cmd->add_option("--out", args->out, "PNG file to write")->required();
    cmd->add_option("--class", args->className, "Class to explain (default: the predicted class)");
    cmd->add_option("--alpha", args->alpha, "Weight of the heat map in the overlay")->capture_default_str()->check(
        CLI::Range(0.0, 1.0));
    cmd->callback([&context, args] {
        context.action = [&context, args] {
            engine::configureTorchThreads();
            const engine::GradCamResult r =
                args->className.empty() ? engine::gradCam(args->runDir, args->checkpoint, args->image)
                                        : engine::gradCamForClass(args->runDir, args->checkpoint, args->image,
                                                                  args->className);
            std::ifstream in(args->image, std::ios::binary);
            const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
            engine::writeGradCamOverlay(bytes, r, args->out, args->alpha);
            nlohmann::json top = nlohmann::json::array();
            std::ostringstream text;
            text << args->image << ": Grad-CAM of \"" << r.className << "\" (p " << fixed(r.classProbability) << ", "
                 << r.mapWidth << "x" << r.mapHeight << " feature map) written to " << args->out << "\nPrediction:";
            for (std::size_t i = 0; i < r.topClasses.size(); ++i) {
                top.push_back({{"class", r.topNames[i]}, {"index", r.topClasses[i]}, {"probability", r.topProbs[i]}});
                text << (i ? ", " : " ") << r.topNames[i] << ' ' << fixed(r.topProbs[i]);
            }
            text << '\n';
            const nlohmann::json doc = {{"image", args->image},
                                        {"out", args->out},
                                        {"class", r.className},
                                        {"class_index", r.classIndex},
                                        {"probability", r.classProbability},
                                        {"predictions", top},
                                        {"width", r.width},
                                        {"height", r.height},
                                        {"crop", {r.cropX, r.cropY, r.cropWidth, r.cropHeight}},
                                        {"map_size", {r.mapWidth, r.mapHeight}}};
            context.print(doc, text.str());
            return 0;
        };
    });
}

} // namespace

void addEvalVerbs(CLI::App &app, CliContext &context)
{
    addEval(app, context);
    addPredict(app, context);
    addGradCam(app, context);
}

} // namespace lathe::cli
