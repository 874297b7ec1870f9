// The Train page's augmentation section on real shards (Fashion-MNIST written by the engine):
// the project's converted datasets are listed, the preview shows the training images through
// the list, editing the list (add, bad parameters, probability) redraws or refuses with a
// reason, re-roll draws new parameters, and the settings come back with the project. The
// schedule preview keeps the rate's ends inside its axes, and the page's charts follow the theme.
// qcustomplot.h (plot_checks.h) uses the bare signals/slots keywords; before any Qt header.
#undef QT_NO_KEYWORDS
#include "common/theme.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/pipeline/augmentation.h"
#include "engine/run/run_config.h"
#include "plot_checks.h"
#include "runs/run_table_model.h"
#include "runs/runs_page.h"
#include "train/augmentation_editor.h"
#include "train/augmentation_preview_grid.h"
#include "train/augmentation_step_form.h"
#include "train/augmentation_text.h"
#include "train/device_picker.h"
#include "train/lr_finder_panel.h"
#include "train/lr_schedule_preview.h"
#include "train/preset_panel.h"
#include "train/run_config_form.h"
#include "train/train_page.h"
#include "train/training_curves.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/run_presets.h"
#include "workspace/train_job.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QTableWidget>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using namespace lathe;
using lathe::ui::AugmentationEditor;
using lathe::ui::AugmentationPreviewGrid;
using lathe::ui::AugmentationText;
using lathe::ui::RunConfigForm;
using lathe::ui::TrainPage;

class TestTrainPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager m_jobs;

    static bool sameImages(const QList<QImage> &a, const QList<QImage> &b)
    {
        if (a.size() != b.size())
            return false;
        for (int i = 0; i < a.size(); ++i)
            if (a[i] != b[i])
                return false;
        return true;
    }

    static void choose(RunConfigForm *form, const char *field, const char *value)
    {
        auto *combo = qobject_cast<QComboBox *>(form->editor(QLatin1String(field)));
        QVERIFY(combo);
        combo->setCurrentIndex(combo->findData(QLatin1String(value)));
        QCOMPARE(combo->currentData().toString(), QString::fromLatin1(value));
    }

    // The chosen options show the fields of shown (each with its label: the group itself may be
    // hidden, under a collapsed Advanced section) and hide those of hidden (label too).
    static void verifyShown(RunConfigForm *form, const QStringList &shown, const QStringList &hidden)
    {
        for (const QString &field : shown + hidden) {
            QWidget *editor = form->editor(field);
            QVERIFY2(editor, qPrintable(field));
            auto *layout = qobject_cast<QFormLayout *>(editor->parentWidget()->layout());
            QWidget *label = layout ? layout->labelForField(editor) : nullptr;
            QVERIFY2(label && label->isHidden() == editor->isHidden(), qPrintable(field));
            QVERIFY2(form->isFieldShown(field) == shown.contains(field), qPrintable(field));
            QVERIFY2(editor->isHidden() == hidden.contains(field), qPrintable(field));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // presets go to a test config folder
        QDir(workspace::RunPresets::folder()).removeRecursively();
        QVERIFY(m_tmp.isValid());
        const QString images = m_tmp.filePath(QStringLiteral("images"));
        engine::DemoDataOptions demo;
        demo.outDir = images.toStdString();
        demo.perClass = 2;
        demo.testPerClass = 0;
        engine::writeDemoData(demo);
        const QString projectDir = m_tmp.filePath(QStringLiteral("project"));
        m_project = workspace::Project::create(projectDir, QStringLiteral("augment"));
        engine::ConvertOptions convert;
        convert.scan.root = images.toStdString();
        convert.scan.valFraction = 0;
        convert.scan.testFraction = 0;
        convert.outDir = QDir(m_project->datasetsDir()).filePath(QStringLiteral("fashion")).toStdString();
        engine::convertFolder(convert);
    }

    void previewFollowsTheList()
    {
        TrainPage page(&m_jobs);
        page.resize(1400, 900);
        page.show();
        AugmentationPreviewGrid *preview = page.preview();
        QSignalSpy updated(preview, &AugmentationPreviewGrid::updated);
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        QCOMPARE(page.datasetPicker()->currentText(), QStringLiteral("fashion"));
        QTRY_COMPARE(preview->images().size(), int(AugmentationPreviewGrid::kImages));
        for (const QImage &image : preview->images())
            QCOMPARE(image.size(), QSize(224, 224));

        // Another size redraws at that size.
        page.imageSizeEdit()->setValue(96);
        QTRY_VERIFY(!preview->images().isEmpty() && preview->images().first().size() == QSize(96, 96));

        // Re-roll: the standard recipe's random crops change.
        const QList<QImage> before = preview->images();
        updated.clear();
        preview->reroll();
        QTRY_VERIFY(!updated.isEmpty());
        QTRY_VERIFY(!preview->images().isEmpty());
        QVERIFY(!sameImages(before, preview->images()));

        // Adding a step by hand: grayscale with p = 1 makes every pixel grey.
        AugmentationEditor *editor = page.augmentationEditor();
        const int steps = editor->stepList()->count();
        editor->typePicker()->setCurrentIndex(editor->typePicker()->findData(QStringLiteral("grayscale")));
        QCOMPARE(editor->typePicker()->currentData().toString(), QStringLiteral("grayscale"));
        QTest::mouseClick(editor->addButton(), Qt::LeftButton);
        QCOMPARE(editor->stepList()->count(), steps + 1);
        QCOMPARE(editor->stepList()->currentRow(), steps);
        editor->probabilityEdit()->setValue(100); // percent
        const double p = editor->steps().back().value("p", 0.0);
        QCOMPARE(p, 1.0);
        QTRY_VERIFY(!preview->images().isEmpty() && preview->images().first().allGray());
        for (const QImage &image : preview->images())
            QVERIFY(image.allGray());

        // Parameters the engine refuses (a scale from 90% to 10%): the reason is shown, the list
        // in force is unchanged, and correcting the value is taken.
        const nlohmann::json accepted = editor->steps();
        editor->stepList()->setCurrentRow(0); // random_resized_crop
        auto *scaleMin = qobject_cast<QDoubleSpinBox *>(editor->stepForm()->parameterEditor(QStringLiteral("scale"), 0));
        auto *scaleMax = qobject_cast<QDoubleSpinBox *>(editor->stepForm()->parameterEditor(QStringLiteral("scale"), 1));
        QVERIFY(scaleMin && scaleMax);
        scaleMin->setValue(90);
        scaleMax->setValue(10);
        QVERIFY(editor->errorText().contains(QStringLiteral("scale")));
        QCOMPARE(editor->steps()[0]["scale"][1].get<double>(), 1.0);
        scaleMax->setValue(100);
        QVERIFY(editor->errorText().isEmpty());
        QCOMPARE(editor->steps()[0]["scale"][0].get<double>(), 0.9);
        QVERIFY(editor->steps() != accepted);

        // Removing the grey step brings colour back.
        editor->stepList()->setCurrentRow(steps);
        QTest::mouseClick(editor->removeButton(), Qt::LeftButton);
        QCOMPARE(editor->stepList()->count(), steps);
    }

    void settingsComeBackWithTheProject()
    {
        TrainPage page(&m_jobs);
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        // The previous test left size 96 and the standard list.
        QCOMPARE(page.imageSizeEdit()->value(), 96);
        QCOMPARE(page.augmentationEditor()->steps().size(), std::size_t(2));
        const std::string first = page.augmentationEditor()->steps()[0].value("type", std::string());
        QCOMPARE(first, std::string("random_resized_crop"));
    }

    void withoutShardsThePageSaysWhatToDo()
    {
        QTemporaryDir tmp;
        auto empty = workspace::Project::create(tmp.filePath(QStringLiteral("p")), QStringLiteral("empty"));
        TrainPage page(&m_jobs);
        QSignalSpy listed(&page, &TrainPage::datasetsListed);
        page.setProject(empty.get());
        QVERIFY(listed.wait());
        QCOMPARE(page.datasetPicker()->count(), 0);
        QVERIFY(page.preview()->images().isEmpty());
        QVERIFY(page.preview()->message().contains(QStringLiteral("Data page")));
    }

    void formsAreCheckedAndDrawTheSchedule()
    {
        TrainPage page(&m_jobs);
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        auto *lr = qobject_cast<QLineEdit *>(page.form()->editor(QStringLiteral("optimizer.lr")));
        QVERIFY(lr);
        lr->setText(QStringLiteral("-1"));
        Q_EMIT lr->editingFinished();
        QVERIFY(page.form()->errorText().contains(QStringLiteral("optimizer.lr")));
        lr->setText(QStringLiteral("0.1"));
        Q_EMIT lr->editingFinished();
        QVERIFY(page.form()->errorText().isEmpty());
        const double formLr = page.form()->values()["optimizer"]["lr"].get<double>();
        QCOMPARE(formLr, 0.1);
        // Constant schedule: the preview is flat at the learning rate.
        auto *schedule = qobject_cast<QComboBox *>(page.form()->editor(QStringLiteral("schedule.name")));
        schedule->setCurrentIndex(schedule->findData(QStringLiteral("constant")));
        QCOMPARE(schedule->currentText(), QStringLiteral("Constant")); // shown by its name, kept as the engine's
        QVERIFY(page.lrPreview()->pointCount() > 1);
        QCOMPARE(page.lrPreview()->lrAtStep(0), 0.1);
        // fp16 needs a CUDA device: refused before a run starts, naming the field.
        auto *precision = qobject_cast<QComboBox *>(page.form()->editor(QStringLiteral("precision")));
        precision->setCurrentIndex(precision->findData(QStringLiteral("fp16")));
        QVERIFY(page.preflight().contains(QStringLiteral("precision")));
        QVERIFY(!page.startRun());
        QVERIFY(page.statusLabel()->text().contains(QStringLiteral("precision")));
        precision->setCurrentIndex(precision->findData(QStringLiteral("fp32")));
    }

    void trainsLiveThenStopsAndResumes()
    {
        TrainPage page(&m_jobs);
        page.setModelSpecProvider([] {
            engine::ModelSpec spec;
            spec.arch = "mobilenet_v3_small"; // from scratch: no download
            spec.head.numClasses = 0;         // the dataset's
            return spec;
        });
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        page.imageSizeEdit()->setValue(32);
        nlohmann::json config = {{"optimizer", {{"epochs", 3}, {"batch_size", 4}, {"lr", 0.01}}},
                                 {"schedule", {{"name", "constant"}}},
                                 {"checkpoints", {{"every_steps", 1}}},
                                 {"data", {{"workers", 1}, {"val_split", ""}}}};
        config["checkpoints"]["best_metric"] = "train_loss";
        page.form()->setValues(config);
        QVERIFY2(page.preflight().isEmpty(), qPrintable(page.preflight()));
        QVERIFY(page.startRun());
        QVERIFY(page.currentJob());
        const QString runDir = page.currentRunDir();
        QTRY_VERIFY2_WITH_TIMEOUT(page.curves()->stepPoints() > 0, qPrintable(page.statusLabel()->text()), 90000);
        // The status line has the time left, from the steps the run plans.
        QVERIFY2(page.statusLabel()->text().contains(QStringLiteral(" left")), qPrintable(page.statusLabel()->text()));
        // Pause, resume, stop.
        QTest::mouseClick(page.pauseButton(), Qt::LeftButton);
        QTRY_VERIFY(page.currentJob() && page.currentJob()->isPaused());
        QCOMPARE(page.pauseButton()->text(), QStringLiteral("Resume"));
        QTest::mouseClick(page.pauseButton(), Qt::LeftButton);
        QVERIFY(!page.currentJob()->isPaused());
        QSignalSpy ended(&page, &TrainPage::runEnded);
        QTest::mouseClick(page.stopButton(), Qt::LeftButton);
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(QFileInfo::exists(QDir(runDir).filePath(QStringLiteral("metrics.jsonl"))));
        QVERIFY(QFileInfo::exists(QDir(runDir).filePath(QStringLiteral("config.json"))));

        // The Runs page lists it as stopped, with its checkpoints; resume it to the end.
        ui::RunsPage runs;
        QSignalSpy refreshed(&runs, &ui::RunsPage::refreshed);
        runs.setProject(m_project.get());
        QVERIFY(refreshed.wait());
        QCOMPARE(runs.model()->rowCount(), 1);
        QCOMPARE(runs.model()->row(0).state, QStringLiteral("cancelled"));
        QSignalSpy loaded(&runs, &ui::RunsPage::selectionLoaded);
        runs.selectRuns({runDir});
        QVERIFY(loaded.wait());
        QVERIFY(runs.checkpoints()->rowCount() > 0);

        QSignalSpy endedAgain(&page, &TrainPage::runEnded);
        QVERIFY(page.resumeRun(runDir));
        QVERIFY(endedAgain.wait(120000));
        QCOMPARE(endedAgain.first().at(1).toString(), QStringLiteral("finished"));
        runs.refresh();
        QVERIFY(refreshed.wait());
        QCOMPARE(runs.model()->row(0).state, QStringLiteral("finished"));
    }

    void builtInPresetsAreValid()
    {
        const QList<workspace::RunPresets::Preset> presets = workspace::RunPresets::builtIns();
        QCOMPARE(presets.size(), 2);
        for (const workspace::RunPresets::Preset &p : presets) {
            engine::RunConfig config = engine::parseRunConfig(p.config);
            config.data.shards = "shards"; // the project's, when applied
            engine::validateRunConfig(config); // throws when not
            QVERIFY(!p.description.isEmpty());
            QVERIFY(!p.config.contains("model") && !p.config.contains("devices"));
            QVERIFY(!p.config["data"].contains("shards"));
        }
        QVERIFY(presets[0].wantsPretrained);
        QVERIFY(presets[0].config["optimizer"]["lr"].get<double>() < 0.001);
        QVERIFY(presets[1].wantsScratch);
        QVERIFY(presets[1].config["optimizer"]["epochs"].get<int>() > presets[0].config["optimizer"]["epochs"].get<int>());
        QVERIFY(presets[1].config["data"]["augment"].size() > presets[0].config["data"]["augment"].size());
    }

    void presetsApplySaveAndLoad()
    {
        TrainPage page(&m_jobs);
        page.setModelSpecProvider([] { return engine::ModelSpec(); }); // no weights: from scratch
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        QVERIFY(page.presetNames().contains(QStringLiteral("Train from scratch")));

        QVERIFY(page.applyPreset(QStringLiteral("Train from scratch")));
        QCOMPARE(page.form()->values()["optimizer"]["lr"].get<double>(), 0.1);
        QCOMPARE(page.form()->values()["optimizer"]["epochs"].get<int>(), 60);
        QCOMPARE(page.augmentationEditor()->steps().size(), std::size_t(5));
        QVERIFY(page.preflight().isEmpty());
        // Fine-tuning without pretrained weights: the page says what to do on the Model page.
        QVERIFY(page.applyPreset(QStringLiteral("Fine-tune quickly")));
        QCOMPARE(page.form()->values()["optimizer"]["name"].get<std::string>(), std::string("adamw"));
        QVERIFY(page.findChild<QLabel *>(QStringLiteral("presetInfo"))->text().contains(QStringLiteral("Model page")));

        // Save the current settings, change them, load them back.
        auto *lr = qobject_cast<QLineEdit *>(page.form()->editor(QStringLiteral("optimizer.lr")));
        lr->setText(QStringLiteral("0.0123"));
        Q_EMIT lr->editingFinished();
        page.imageSizeEdit()->setValue(64);
        QCOMPARE(page.savePreset(QStringLiteral("My recipe")), QString());
        QVERIFY(QFileInfo::exists(QDir(workspace::RunPresets::folder()).filePath(QStringLiteral("My recipe.json"))));
        QVERIFY(page.presetNames().contains(QStringLiteral("My recipe")));
        QVERIFY(page.applyPreset(QStringLiteral("Train from scratch")));
        QCOMPARE(page.imageSizeEdit()->value(), 0);
        QVERIFY(page.applyPreset(QStringLiteral("My recipe")));
        QCOMPARE(page.form()->values()["optimizer"]["lr"].get<double>(), 0.0123);
        QCOMPARE(page.form()->values()["optimizer"]["name"].get<std::string>(), std::string("adamw"));
        QCOMPARE(page.imageSizeEdit()->value(), 64);
        QCOMPARE(page.augmentationEditor()->steps().size(), std::size_t(2));

        // A built-in's name is refused; a damaged file is reported, not loaded.
        QVERIFY(!page.savePreset(QStringLiteral("train from scratch")).isEmpty());
        QFile bad(QDir(workspace::RunPresets::folder()).filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"version": 1, "name": "bad", "config": {"optimizer": {"lr": -1}}})");
        bad.close();
        QStringList problems;
        workspace::RunPresets::userPresets(&problems);
        QCOMPARE(problems.size(), 1);
        QVERIFY(problems.first().contains(QStringLiteral("bad.json")));
        QVERIFY(problems.first().contains(QStringLiteral("optimizer.lr")));
        QVERIFY(!page.presetNames().contains(QStringLiteral("bad")));
        QFile::remove(bad.fileName());

        QCOMPARE(page.deletePreset(QStringLiteral("My recipe")), QString());
        QVERIFY(!page.presetNames().contains(QStringLiteral("My recipe")));
    }

    void devicesAndMemoryEstimate()
    {
        TrainPage page(&m_jobs);
        page.setModelSpecProvider([] {
            engine::ModelSpec spec;
            spec.arch = "mobilenet_v3_small";
            spec.head.numClasses = 0;
            return spec;
        });
        QSignalSpy listed(&page, &TrainPage::devicesListed);
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        QVERIFY(listed.count() > 0 || listed.wait());
        ui::DevicePicker *devices = page.devicePicker();
        QVERIFY(!devices->devices().isEmpty());
        QCOMPARE(devices->devices().first().id, QStringLiteral("cpu"));
        QVERIFY(devices->devices().first().totalMemory > 0);
        if (devices->devices().size() == 1)
            QVERIFY(devices->noteLabel()->text().contains(QStringLiteral("training runs on the CPU")));
        QVERIFY(page.runConfig()["devices"] == nlohmann::json::array({"cpu"}));

        // The estimate appears in the pre-flight panel.
        page.imageSizeEdit()->setValue(32);
        QTRY_VERIFY_WITH_TIMEOUT(page.memoryEstimate() > 0, 60000);
        QVERIFY(page.memoryLabel()->text().contains(QStringLiteral("Memory per rank")));
        QVERIFY(!page.memoryWarning());
        QVERIFY(page.preflightLabel()->text().contains(QStringLiteral("Ready")));
        // A larger batch costs more, without measuring again.
        const qint64 before = page.memoryEstimate();
        auto *batch = qobject_cast<QSpinBox *>(page.form()->editor(QStringLiteral("optimizer.batch_size")));
        batch->setValue(batch->value() * 4);
        QTRY_VERIFY(page.memoryEstimate() > before);

        // A device with 1 MiB: the estimate does not fit, the panel warns.
        devices->setDevices({{QStringLiteral("cpu"), QStringLiteral("tiny"), quint64(1) << 20}});
        QTRY_VERIFY(page.memoryWarning());
        QVERIFY(page.memoryLabel()->text().contains(QStringLiteral("Warning")));
        // A config naming a GPU this machine lacks: pre-flight says so.
        devices->setValue(nlohmann::json::array({"cuda:7"}));
        QVERIFY(page.preflight().contains(QStringLiteral("cuda:7")));
        devices->setValue(nlohmann::json::array({"cpu"}));
        QVERIFY(page.preflight().isEmpty());
    }

    void fieldsFollowTheChosenOptions()
    {
        TrainPage page(&m_jobs);
        page.resize(1400, 900);
        page.show();
        RunConfigForm *form = page.form();
        const QStringList plateau = {QStringLiteral("schedule.plateau_metric"), QStringLiteral("schedule.plateau_factor"),
                                     QStringLiteral("schedule.plateau_patience"),
                                     QStringLiteral("schedule.plateau_threshold")};
        const QStringList oneCycle = {QStringLiteral("schedule.max_lr"), QStringLiteral("schedule.pct_start"),
                                      QStringLiteral("schedule.div_factor"), QStringLiteral("schedule.final_div_factor")};
        const QString stepSize = QStringLiteral("schedule.step_size");
        const QString gamma = QStringLiteral("schedule.gamma");
        const QString minLr = QStringLiteral("schedule.min_lr");
        const QString warmup = QStringLiteral("schedule.warmup_epochs");

        // The default cosine schedule: its minimum, no step size, plateau or one-cycle fields.
        const QString milestones = QStringLiteral("schedule.milestones");
        verifyShown(form, {minLr, warmup}, QStringList{stepSize, gamma, milestones} + plateau + oneCycle);
        choose(form, "schedule.name", "step");
        verifyShown(form, {stepSize, gamma, warmup}, QStringList{minLr} + plateau + oneCycle);
        // A hidden field keeps its value, and values() still has it.
        auto *step = qobject_cast<QSpinBox *>(form->editor(stepSize));
        step->setValue(7);
        choose(form, "schedule.name", "plateau");
        verifyShown(form, plateau, QStringList{stepSize, gamma, minLr} + oneCycle);
        QCOMPARE(form->values()["schedule"]["step_size"].get<int>(), 7);
        QCOMPARE(step->value(), 7);
        choose(form, "schedule.name", "one_cycle");
        const QString startFactor = QStringLiteral("schedule.warmup_start_factor");
        verifyShown(form, oneCycle, QStringList{warmup, startFactor, stepSize, minLr} + plateau);
        choose(form, "schedule.name", "multi_step");
        verifyShown(form, {milestones, gamma}, {stepSize});
        choose(form, "schedule.name", "cosine_restarts");
        verifyShown(form, {QStringLiteral("schedule.restart_epochs"), QStringLiteral("schedule.restart_multiplier"), minLr},
                    {gamma});
        // Warm-up's start factor once there is a warm-up.
        QVERIFY(!form->isFieldShown(startFactor));
        auto *warmupEdit = qobject_cast<QLineEdit *>(form->editor(warmup));
        warmupEdit->setText(QStringLiteral("2"));
        Q_EMIT warmupEdit->editingFinished();
        QVERIFY(form->isFieldShown(startFactor));

        // The optimiser's own fields.
        const QString momentum = QStringLiteral("optimizer.momentum"), nesterov = QStringLiteral("optimizer.nesterov"),
                      betas = QStringLiteral("optimizer.betas"), alpha = QStringLiteral("optimizer.alpha"),
                      eps = QStringLiteral("optimizer.eps");
        choose(form, "optimizer.name", "sgd");
        verifyShown(form, {momentum, nesterov}, {betas, alpha, eps});
        choose(form, "optimizer.name", "adamw");
        verifyShown(form, {betas, eps}, {momentum, nesterov, alpha});
        choose(form, "optimizer.name", "rmsprop");
        verifyShown(form, {alpha, momentum, eps}, {betas, nesterov});
        choose(form, "loss.name", "focal");
        verifyShown(form, {QStringLiteral("loss.focal_gamma")}, {});
        choose(form, "loss.name", "cross_entropy");
        verifyShown(form, {}, {QStringLiteral("loss.focal_gamma")});

        // Early stopping's metric, patience and minimum change only when it is on; EMA's decay too.
        const QStringList stopping = {QStringLiteral("early_stopping.metric"), QStringLiteral("early_stopping.patience"),
                                      QStringLiteral("early_stopping.min_delta")};
        verifyShown(form, {QStringLiteral("early_stopping.enabled")}, stopping);
        qobject_cast<QCheckBox *>(form->editor(QStringLiteral("early_stopping.enabled")))->setChecked(true);
        verifyShown(form, stopping, {});
        QVERIFY(form->values()["early_stopping"]["enabled"].get<bool>());
        verifyShown(form, {}, {QStringLiteral("ema.decay")});
        qobject_cast<QCheckBox *>(form->editor(QStringLiteral("ema.enabled")))->setChecked(true);
        verifyShown(form, {QStringLiteral("ema.decay")}, {});
        verifyShown(form, {}, {QStringLiteral("feature_cache.views")});
        choose(form, "feature_cache.mode", "fixed_views");
        verifyShown(form, {QStringLiteral("feature_cache.views")}, {});

        // Several machines: their fields only with more than one.
        RunConfigForm distributed({QStringLiteral("distributed")});
        const QStringList severalMachines{QStringLiteral("distributed.node_rank"), QStringLiteral("distributed.master"),
                                          QStringLiteral("distributed.timeout_seconds")};
        verifyShown(&distributed, {QStringLiteral("distributed.nnodes")}, severalMachines);
        qobject_cast<QSpinBox *>(distributed.editor(QStringLiteral("distributed.nnodes")))->setValue(2);
        verifyShown(&distributed, severalMachines, {});
    }

    // The GPU step's fields sit in their own group; SyncBatchNorm sits beside the devices and
    // shows only when several are ticked (one rank has nothing to synchronise with).
    void gpuFieldsAndSyncBatchNorm()
    {
        TrainPage page(&m_jobs);
        RunConfigForm *form = page.form();
        for (const char *field : {"cuda.graphs", "cuda.host_sync_steps", "data.device_normalize"}) {
            QVERIFY2(form->editor(QLatin1String(field)), field);
            QVERIFY2(form->isAdvancedField(QLatin1String(field)), field);
        }
        const QString syncBn = QStringLiteral("distributed.sync_batch_norm");
        QVERIFY(form->editor(syncBn));
        QVERIFY(!form->isAdvancedField(syncBn));
        QVERIFY(!form->editor(QStringLiteral("distributed.nnodes"))); // several machines are lathe-cli's
        form->setValues({{"devices", {"cpu"}}});
        QVERIFY(!form->isFieldShown(syncBn));
        form->setValues({{"devices", {"cpu", "cpu"}}, {"distributed", {{"sync_batch_norm", true}}}});
        QVERIFY(form->isFieldShown(syncBn));
        QCOMPARE(form->values()["distributed"]["sync_batch_norm"], nlohmann::json(true));
    }

    void advancedSettingsAreCollapsed()
    {
        TrainPage page(&m_jobs);
        page.resize(1400, 900);
        page.show();
        RunConfigForm *form = page.form();
        QVERIFY(!form->isAdvancedExpanded());
        // What a newcomer sets is in view; the rest waits under "Advanced settings".
        const char *basic[] = {"optimizer.epochs", "optimizer.batch_size", "optimizer.lr", "optimizer.name",
                               "schedule.name",    "precision",            "devices"};
        for (const char *field : basic) {
            QVERIFY2(!form->isAdvancedField(QLatin1String(field)), field);
            QVERIFY2(form->editor(QLatin1String(field))->isVisible(), field);
        }
        for (const char *field : {"optimizer.weight_decay", "loss.label_smoothing", "checkpoints.keep", "seed"}) {
            QVERIFY2(form->isAdvancedField(QLatin1String(field)), field);
            QVERIFY2(form->isFieldShown(QLatin1String(field)), field);
            QVERIFY2(!form->editor(QLatin1String(field))->isVisible(), field);
        }
        QTest::mouseClick(form->advancedToggle(), Qt::LeftButton);
        QVERIFY(form->isAdvancedExpanded());
        QVERIFY(form->editor(QStringLiteral("optimizer.weight_decay"))->isVisible());
        QTest::mouseClick(form->advancedToggle(), Qt::LeftButton);
        QVERIFY(!form->isAdvancedExpanded());
        QVERIFY(!form->editor(QStringLiteral("optimizer.weight_decay"))->isVisible());
        // Collapsed or not, every field is in values().
        QVERIFY(form->values()["optimizer"].contains("weight_decay"));
        RunConfigForm fresh(QStringList{QStringLiteral("optimizer")});
        QVERIFY(!fresh.isAdvancedExpanded()); // remembers nothing
    }

    void augmentationStepsReadAsSentences()
    {
        AugmentationEditor editor;
        QCOMPARE(editor.stepList()->count(), 2); // the standard recipe
        QCOMPARE(editor.stepList()->item(0)->text(), QStringLiteral("Random resized crop: scale 8–100%, ratio 3:4–4:3"));
        QCOMPARE(editor.stepList()->item(1)->text(), QStringLiteral("Horizontal flip: probability 50%"));
        // A type without a sentence of its own: its parameters by name.
        const nlohmann::json unknown = {{"type", "new_step"}, {"p", 0.25}, {"strength", 3}, {"size_range", {1, 2}}};
        QCOMPARE(AugmentationText::sentence(unknown),
                 QStringLiteral("new_step: size range 1, 2, strength 3, probability 25%"));

        // Editing a parameter in the step's form changes the list and its sentence.
        editor.stepList()->setCurrentRow(0);
        auto *scaleMin = qobject_cast<QDoubleSpinBox *>(editor.stepForm()->parameterEditor(QStringLiteral("scale"), 0));
        QVERIFY(scaleMin);
        QCOMPARE(scaleMin->value(), 8.0); // percent
        QSignalSpy changed(&editor, &AugmentationEditor::stepsChanged);
        scaleMin->setValue(35);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(editor.steps()[0]["scale"][0].get<double>(), 0.35);
        QCOMPARE(editor.stepList()->item(0)->text(), QStringLiteral("Random resized crop: scale 35–100%, ratio 3:4–4:3"));
        QCOMPARE(editor.stepForm()->parameterEditor(QStringLiteral("scale"), 0), scaleMin); // the editor stays
        editor.stepList()->setCurrentRow(1);
        QCOMPARE(editor.probabilityEdit()->value(), 50.0);
        editor.probabilityEdit()->setValue(100);
        QCOMPARE(editor.steps()[1]["p"].get<double>(), 1.0);
        QCOMPARE(editor.stepList()->item(1)->text(), QStringLiteral("Horizontal flip: always"));

        // Every type reads as a sentence and has an editor for each of its parameters.
        for (const std::string &type : engine::augmentationTypes()) {
            QVERIFY(editor.setSteps(nlohmann::json::array({{{"type", type}}})));
            const QString text = editor.stepList()->item(0)->text();
            QVERIFY2(text.startsWith(AugmentationText::typeName(QString::fromStdString(type)) + QStringLiteral(": ")),
                     qPrintable(text));
            QVERIFY2(!text.contains(QLatin1Char('{')) && !text.contains(QLatin1Char('[')), qPrintable(text));
            const nlohmann::json step = editor.steps()[0];
            for (const auto &[name, value] : step.items())
                if (name != "type" && name != "p")
                    QVERIFY2(editor.stepForm()->parameterEditor(QString::fromStdString(name)), (type + "." + name).c_str());
        }
        // A left-out size (resize to suit the image size) is set and left out again.
        QVERIFY(editor.setSteps(nlohmann::json::array({{{"type", "resize"}}})));
        auto *size = qobject_cast<QSpinBox *>(editor.stepForm()->parameterEditor(QStringLiteral("size")));
        QVERIFY(size);
        QVERIFY(!editor.probabilityEdit()->isEnabled()); // a geometry step always applies
        size->setValue(256);
        QCOMPARE(editor.steps()[0]["size"].get<int>(), 256);
        QCOMPARE(editor.stepList()->item(0)->text(), QStringLiteral("Resize: short side 256 px"));
        size->setValue(0);
        QVERIFY(!editor.steps()[0].contains("size"));
        // Random erasing with random values instead of fixed ones.
        QVERIFY(editor.setSteps(nlohmann::json::array({{{"type", "random_erasing"}}})));
        auto *random = editor.stepForm()->findChild<QCheckBox *>();
        QVERIFY(random);
        random->setChecked(true);
        QCOMPARE(editor.steps()[0]["value"].get<std::string>(), std::string("random"));
        QVERIFY(editor.stepList()->item(0)->text().contains(QStringLiteral("random values")));
    }

    void resetToDefaultsAfterAPreset()
    {
        TrainPage page(&m_jobs);
        page.setModelSpecProvider([] { return engine::ModelSpec(); });
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        auto *reset = page.findChild<QPushButton *>(QStringLiteral("resetDefaults"));
        QVERIFY(reset);
        QVERIFY(page.applyPreset(QStringLiteral("Train from scratch")));
        QVERIFY(reset->isEnabled());
        QVERIFY(!ui::PresetPanel::isDefault(page.runConfig()));
        QTest::mouseClick(reset, Qt::LeftButton);
        QVERIFY(ui::PresetPanel::isDefault(page.runConfig()));
        QVERIFY(!reset->isEnabled());
        const engine::RunConfig defaults;
        QCOMPARE(page.form()->values()["optimizer"]["lr"].get<double>(), defaults.optimizer.lr);
        QCOMPARE(page.form()->values()["optimizer"]["epochs"].get<int>(), defaults.optimizer.epochs);
        QVERIFY(page.form()->values()["schedule"]["name"] == defaults.schedule.name);
        QVERIFY(page.augmentationEditor()->steps() == engine::augmentationsToJson(defaults.data.augment));
        QCOMPARE(page.imageSizeEdit()->value(), defaults.data.imageSize);
        // Any change enables it again.
        page.imageSizeEdit()->setValue(64);
        QVERIFY(reset->isEnabled());
        page.imageSizeEdit()->setValue(0);
        QVERIFY(!reset->isEnabled());
    }

    void runsCompareAndDiff()
    {
        const QStringList lines = ui::RunsPage::diffConfigs({{"optimizer", {{"lr", 0.1}, {"epochs", 3}}}},
                                                            {{"optimizer", {{"lr", 0.01}, {"epochs", 3}}}});
        QCOMPARE(lines.size(), 1);
        QVERIFY(lines.first().startsWith(QStringLiteral("optimizer.lr: 0.1")));
        QCOMPARE(ui::RunsPage::diffConfigs({{"a", 1}}, {{"a", 1}}).size(), 1); // "the same"
    }
    // Last: it switches the application's theme. The schedule preview draws both ends of the
    // rate whole (a warm-up from 0 and a cosine back to 0; a constant rate off the edges), and
    // every chart of the page (the preview, the live curves, the LR finder) takes the dark
    // palette after a switch, then the light one again.
    void chartsKeepTheirEndsInViewInBothThemes()
    {
        TrainPage page(&m_jobs);
        page.resize(1400, 900);
        page.setProject(m_project.get());
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        ui::LrSchedulePreview *preview = page.lrPreview();
        QCustomPlot *plot = preview->plot();

        page.form()->setValues({{"optimizer", {{"lr", 0.1}, {"epochs", 4}, {"batch_size", 2}}},
                                {"schedule", {{"name", "cosine"}, {"warmup_epochs", 1}}}});
        QTRY_VERIFY(preview->pointCount() > 2);
        bool ok = false;
        const QCPRange values = plot->graph(0)->getValueRange(ok);
        QVERIFY(ok);
        QVERIFY2(values.upper > 0.09 && values.lower < 0.01, qPrintable(QStringLiteral("%1 %2").arg(values.lower).arg(values.upper)));
        plot_checks::checkLegendAndPadding(plot);
        QVERIFY(plot->yAxis->range().lower < 0); // the rate at 0 is not drawn along the axis

        page.form()->setValues({{"schedule", {{"name", "constant"}, {"warmup_epochs", 0}}}});
        QTRY_COMPARE(preview->lrAtStep(0), 0.1);
        plot_checks::checkLegendAndPadding(plot);
        QVERIFY(plot->yAxis->range().contains(0.1) && plot->yAxis->range().size() > 0);

        const QList<QCustomPlot *> plots = page.findChildren<QCustomPlot *>();
        QVERIFY2(plots.size() >= 6, qPrintable(QString::number(plots.size()))); // curves, preview, finder
        QVERIFY(plots.contains(plot));
        QVERIFY(plots.contains(page.lrFinderPanel()->plot()));
        ui::applyTheme(QStringLiteral("dark"));
        QTRY_VERIFY(plot_checks::backgroundOf(plot).lightness() < 100);
        for (QCustomPlot *p : plots)
            plot_checks::checkDarkPlot(p);
        plot_checks::checkLegendAndPadding(plot);

        ui::applyTheme(QStringLiteral("light"));
        QTRY_VERIFY(plot_checks::backgroundOf(plot).lightness() > 150);
        for (QCustomPlot *p : plots) {
            plot_checks::checkPlotColours(p);
            QVERIFY2(p->xAxis->tickLabelColor().lightness() < 100, qPrintable(p->objectName()));
        }
    }
};

QTEST_MAIN(TestTrainPage)
#include "test_train_page.moc"
