// The per-class table of the Evaluate page for a class without support: the engine marks its
// undefined metrics null, and the table says "no images" instead of 0.000.
#include "engine/inference/evaluation.h"
#include "evaluate/class_metrics_model.h"

#include <QTest>

#include <cmath>

using namespace lathe;
using lathe::ui::ClassMetricsModel;

class TestClassMetricsModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aClassWithoutImagesSaysSo()
    {
        // Classes a, b, c, d. Labels: a a b b; predictions: a d b b. c has no image and is never
        // predicted; d has no image but is predicted once (wrongly).
        const std::vector<std::string> classes{"a", "b", "c", "d"};
        const std::vector<int> labels{0, 0, 1, 1};
        const std::vector<std::vector<float>> probs{
            {0.7f, 0.1f, 0.1f, 0.1f}, {0.2f, 0.1f, 0.1f, 0.6f}, {0.1f, 0.7f, 0.1f, 0.1f}, {0.1f, 0.6f, 0.2f, 0.1f}};
        const nlohmann::json m = engine::computeMetrics(labels, probs, classes);
        const nlohmann::json &pc = m["per_class"];

        // The engine: null where the denominator is the missing support.
        QCOMPARE(pc[0]["recall"].get<double>(), 0.5);
        QVERIFY(pc[2]["precision"].is_null());
        QVERIFY(pc[2]["recall"].is_null());
        QVERIFY(pc[2]["f1"].is_null());
        QCOMPARE(pc[3]["precision"].get<double>(), 0.0); // predicted once, never right
        QVERIFY(pc[3]["recall"].is_null());
        QVERIFY(pc[3]["f1"].is_null());
        // The averages stay numbers: macro over a, b, d (c occurs nowhere), undefined counting as 0.
        QCOMPARE(m["macro"]["classes"].get<int>(), 3);
        QVERIFY(std::abs(m["macro"]["recall"].get<double>() - (0.5 + 1.0 + 0.0) / 3) < 1e-12);
        // The CSV leaves undefined cells empty.
        const std::string csv = engine::metricsCsv(m);
        QVERIFY2(csv.find("\nc,,,,0\n") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find("\nd,0,,,0\n") != std::string::npos, csv.c_str());

        ClassMetricsModel model;
        model.setMetrics(m);
        QCOMPARE(model.classCount(), 4);
        const auto text = [&](int row, ClassMetricsModel::Column column) {
            return model.index(row, column).data().toString();
        };
        QCOMPARE(text(0, ClassMetricsModel::Recall), QLocale().toString(0.5, 'f', 3));
        for (ClassMetricsModel::Column column : {ClassMetricsModel::Precision, ClassMetricsModel::Recall, ClassMetricsModel::F1}) {
            QCOMPARE(text(2, column), QStringLiteral("no images"));
            QVERIFY(model.index(2, column).data(Qt::UserRole).isNull());
            QVERIFY(std::isnan(model.value(2, column)));
            QVERIFY(!model.index(2, column).data(Qt::ToolTipRole).toString().isEmpty());
        }
        QCOMPARE(text(3, ClassMetricsModel::Precision), QLocale().toString(0.0, 'f', 3));
        QCOMPARE(text(3, ClassMetricsModel::Recall), QStringLiteral("no images"));
        QCOMPARE(text(3, ClassMetricsModel::F1), QStringLiteral("no images"));
        QCOMPARE(text(2, ClassMetricsModel::Support), QStringLiteral("0"));
        // One-vs-rest accuracy is defined for every class: c is rightly "not c" on all 4 images.
        QCOMPARE(model.value(2, ClassMetricsModel::Accuracy), 1.0);

        // An evaluation stored before null existed (0 for the undefined values) reads the same.
        nlohmann::json old = m;
        for (const char *key : {"precision", "recall", "f1"})
            old["per_class"][2][key] = 0.0;
        model.setMetrics(old);
        QCOMPARE(text(2, ClassMetricsModel::Recall), QStringLiteral("no images"));
        QCOMPARE(text(2, ClassMetricsModel::Precision), QStringLiteral("no images"));
    }
};

QTEST_MAIN(TestClassMetricsModel)
#include "test_class_metrics_model.moc"
