// The Model page on the real registry and model-zoo catalog: the backbone table with the
// catalog's accuracy and cache state, the stage table and trainable count for each freezing
// policy (the counts come from the engine building the real network), editable learning-rate
// multipliers, weight sources, and the choice saved with the project.
#include "model/backbone_table_model.h"
#include "model/model_page.h"
#include "model/stage_table_model.h"
#include "workspace/project.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using lathe::ui::BackboneTableModel;
using lathe::ui::ModelPage;
using lathe::ui::StageTableModel;

namespace {

qint64 stageTrainable(const StageTableModel *model, const QString &stage)
{
    for (const engine::StageSummary &s : model->summary().stages)
        if (QString::fromStdString(s.name) == stage)
            return s.trainable;
    return -1;
}

} // namespace

class TestModelPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stagesFollowTheFreezingPolicy()
    {
        workspace::JobManager *jobs = nullptr;
        ModelPage page(jobs);
        QTemporaryDir cache;
        page.setWeightsCacheDir(cache.path());
        page.show();
        QSignalSpy summaries(&page, &ModelPage::summaryUpdated);

        QCOMPARE(page.backboneModel()->rowCount(), 14);
        page.setArch(QStringLiteral("resnet18"));
        QCOMPARE(page.arch(), QStringLiteral("resnet18"));
        // No project: 1000 classes, everything trains.
        QTRY_COMPARE(page.stageModel()->summary().arch, std::string("resnet18"));
        QTRY_COMPARE(page.stageModel()->summary().parameters, qint64(11689512));
        QCOMPARE(page.stageModel()->summary().trainable, qint64(11689512));
        QCOMPARE(page.stageModel()->rowCount(), 6); // stem, layer1..4, head

        // The catalog knows resnet18's default weights; the empty cache has not got them.
        QTRY_VERIFY(page.backboneModel()->row(page.backboneModel()->indexOf(QStringLiteral("resnet18"))).top1 > 60);
        QCOMPARE(page.backboneModel()->row(0).weights, BackboneTableModel::Downloadable);
        QVERIFY(page.downloadButton()->isEnabled());
        QVERIFY(page.weightsStatusLabel()->text().contains(QStringLiteral("download.pytorch.org")));
        QVERIFY(QString::fromStdString(page.spec().weightsPath).startsWith(cache.path()));

        // Head only: the final layer's 512 x 1000 + 1000 parameters.
        summaries.clear();
        page.policyPicker()->setCurrentIndex(page.policyPicker()->findData(int(engine::FreezePolicy::HeadOnly)));
        QTRY_COMPARE(page.stageModel()->summary().trainable, qint64(513000));
        QCOMPARE(stageTrainable(page.stageModel(), QStringLiteral("layer4")), 0);
        QVERIFY(page.summaryLabel()->text().contains(QLocale().toString(513000)));

        // Freeze up to stage 3: stem, layer1 and layer2 frozen, the rest trains.
        page.policyPicker()->setCurrentIndex(page.policyPicker()->findData(int(engine::FreezePolicy::UpToStage)));
        QVERIFY(page.frozenStagesEdit()->isEnabled());
        page.frozenStagesEdit()->setValue(3);
        QTRY_VERIFY(stageTrainable(page.stageModel(), QStringLiteral("layer2")) == 0 &&
                    stageTrainable(page.stageModel(), QStringLiteral("layer3")) > 0);
        QCOMPARE(stageTrainable(page.stageModel(), QStringLiteral("stem")), 0);
        QCOMPARE(page.spec().freeze.frozenStages, 3);

        // A learning-rate multiplier edited in the table goes into the spec.
        const QModelIndex layer4 = page.stageModel()->index(4, StageTableModel::LrMultiplier);
        QVERIFY(page.stageModel()->setData(layer4, 0.1));
        const auto multipliers = page.spec().freeze.lrMultipliers;
        QCOMPARE(multipliers.size(), std::size_t(1));
        QCOMPARE(multipliers[0].first, std::string("layer4"));
        QCOMPARE(multipliers[0].second, 0.1);
        QVERIFY(!page.stageModel()->setData(layer4, -1)); // refused

        // From scratch: no weights file.
        page.sourceButton(ModelPage::Scratch)->click();
        QVERIFY(page.spec().weightsPath.empty());
        page.sourceButton(ModelPage::File)->click();
        QVERIFY(page.weightsFileEdit()->isEnabled());

        // A transformer says what it cannot do.
        page.setArch(QStringLiteral("vit_b_16"));
        QVERIFY(page.findChild<QLabel *>(QStringLiteral("modelFacts"))->text().contains(QStringLiteral("Grad-CAM")));
        QTRY_COMPARE(page.stageModel()->summary().arch, std::string("vit_b_16"));
    }

    void cachedWeightsAreShownAsCached()
    {
        QTemporaryDir cache;
        // torchvision's file name for resnet18's default weights.
        QFile file(QDir(cache.path()).filePath(QStringLiteral("resnet18-f37072fd.pth")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("x");
        file.close();
        ModelPage page(nullptr);
        page.setWeightsCacheDir(cache.path());
        page.setArch(QStringLiteral("resnet18"));
        QTRY_COMPARE(page.backboneModel()->row(page.backboneModel()->indexOf(QStringLiteral("resnet18"))).weights,
                     BackboneTableModel::Cached);
        QTRY_VERIFY(!page.downloadButton()->isEnabled());
        QVERIFY(page.weightsStatusLabel()->text().contains(QStringLiteral("resnet18-f37072fd.pth")));
    }

    void choiceIsSavedWithTheProject()
    {
        QTemporaryDir tmp;
        auto project = workspace::Project::create(tmp.filePath(QStringLiteral("p")), QStringLiteral("models"));
        {
            ModelPage page(nullptr);
            page.setProject(project.get());
            page.setArch(QStringLiteral("mobilenet_v3_small"));
            page.policyPicker()->setCurrentIndex(page.policyPicker()->findData(int(engine::FreezePolicy::HeadOnly)));
            page.sourceButton(ModelPage::Scratch)->click();
        }
        ModelPage page(nullptr);
        page.setProject(project.get());
        QCOMPARE(page.arch(), QStringLiteral("mobilenet_v3_small"));
        QCOMPARE(page.spec().freeze.policy, engine::FreezePolicy::HeadOnly);
        QCOMPARE(page.weightsSource(), ModelPage::Scratch);
    }
};

QTEST_MAIN(TestModelPage)
#include "test_model_page.moc"
