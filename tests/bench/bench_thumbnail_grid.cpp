// The Data page's image grid under load: 100,000 catalog rows in ImageListModel behind
// ImageFilterModel, in the real ThumbnailGridView (offscreen), scrolled from top to bottom.
// Each frame is one viewport repaint, timed; thumbnails are decoded on the loader's pool
// meanwhile (from 64 real PNG files, every row its own thumbnail key). Prints JSON.
//
//   bench_thumbnail_grid [--rows N] [--step-fraction F] [--width W] [--height H]
#include "common/thumbnail_loader.h"
#include "data/image_filter_model.h"
#include "data/image_list_model.h"
#include "data/thumbnail_grid_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace lathe;

namespace {

QVector<workspace::CatalogImage> syntheticRows(int rows, int files)
{
    const QStringList classes = {QStringLiteral("cat"), QStringLiteral("dog"), QStringLiteral("bird"),
                                 QStringLiteral("fish"), QStringLiteral("horse")};
    QVector<workspace::CatalogImage> images;
    images.reserve(rows);
    for (int i = 0; i < rows; ++i) {
        workspace::CatalogImage image;
        image.id = i + 1;
        image.folderClass = image.className = classes.at(i % classes.size());
        image.relPath = QStringLiteral("src/%1.png").arg(i % files); // 64 real files, reused
        image.split = i % 10 == 0 ? QStringLiteral("val") : QStringLiteral("train");
        image.status = i % 997 == 0 ? QStringLiteral("rejected") : QStringLiteral("ok");
        image.size = 4096;
        image.width = image.height = 256;
        image.channels = 3;
        image.format = QStringLiteral("png");
        // A distinct key per row: every row needs its own thumbnail, as in a real dataset.
        image.sha256 = QString::fromLatin1(
            QCryptographicHash::hash(QByteArray::number(i), QCryptographicHash::Sha256).toHex());
        images.append(image);
    }
    return images;
}

double percentile(std::vector<double> sorted, double p)
{
    if (sorted.empty())
        return 0;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t index = std::min(sorted.size() - 1, std::size_t(p * double(sorted.size() - 1) + 0.5));
    return sorted[index];
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption rowsOption(QStringLiteral("rows"), QStringLiteral("Rows in the model"), QStringLiteral("N"),
                                       QStringLiteral("100000"));
    const QCommandLineOption stepOption(QStringLiteral("step-fraction"),
                                        QStringLiteral("Scroll step per frame, as a fraction of the page"),
                                        QStringLiteral("F"), QStringLiteral("0.5"));
    const QCommandLineOption widthOption(QStringLiteral("width"), QStringLiteral("View width"), QStringLiteral("W"),
                                         QStringLiteral("1100"));
    const QCommandLineOption heightOption(QStringLiteral("height"), QStringLiteral("View height"), QStringLiteral("H"),
                                          QStringLiteral("700"));
    parser.addOptions({rowsOption, stepOption, widthOption, heightOption});
    parser.addHelpOption();
    parser.process(app);
    const int rows = parser.value(rowsOption).toInt();
    const double stepFraction = parser.value(stepOption).toDouble();

    QTemporaryDir tmp;
    constexpr int kFiles = 64;
    QDir(tmp.path()).mkpath(QStringLiteral("src"));
    for (int i = 0; i < kFiles; ++i) {
        QImage image(256, 256, QImage::Format_RGB32);
        image.fill(QColor::fromHsv((i * 37) % 360, 160, 220));
        QPainter painter(&image);
        painter.drawEllipse(QPoint(128, 128), 40 + i, 60);
        painter.end();
        image.save(QDir(tmp.path()).filePath(QStringLiteral("src/%1.png").arg(i)));
    }

    ui::ThumbnailLoader loader;
    loader.setCacheDir(QDir(tmp.path()).filePath(QStringLiteral("cache/thumbnails")));
    ui::ImageListModel model(&loader);
    ui::ImageFilterModel filter;
    filter.setSourceModel(&model);
    ui::ThumbnailGridView view;
    view.resize(parser.value(widthOption).toInt(), parser.value(heightOption).toInt());
    view.setModel(&filter);
    view.show();

    const QVector<workspace::CatalogImage> images = syntheticRows(rows, kFiles);
    QElapsedTimer timer;
    timer.start();
    model.setImages(images, tmp.path());
    const double resetMs = timer.nsecsElapsed() / 1e6;

    // Batched layout: let it finish (the last cell gets its place) before scrolling.
    auto waitForLayout = [&] {
        QElapsedTimer layout;
        layout.start();
        const QModelIndex last = filter.index(filter.rowCount() - 1, 0);
        while (!view.visualRect(last).isValid() || view.verticalScrollBar()->maximum() == 0) {
            QCoreApplication::processEvents();
            if (layout.elapsed() > 120000) {
                std::fprintf(stderr, "layout did not finish\n");
                std::exit(1);
            }
        }
        return layout.nsecsElapsed() / 1e6;
    };
    const double layoutMs = waitForLayout();

    // One filter change and back (rows kept: every tenth), GUI-thread time only.
    timer.restart();
    filter.setSplitFilter(QStringLiteral("val"));
    const int filtered = filter.rowCount();
    filter.setSplitFilter(QString());
    const double filterMs = timer.nsecsElapsed() / 2e6;
    waitForLayout();

    QScrollBar *bar = view.verticalScrollBar();
    const int step = std::max(1, int(bar->pageStep() * stepFraction));
    std::vector<double> frames;
    for (int value = 0;; value += step) {
        bar->setValue(std::min(value, bar->maximum()));
        QCoreApplication::processEvents(); // scroll bookkeeping and finished thumbnails, not timed
        QElapsedTimer frame;
        frame.start();
        view.viewport()->repaint();
        frames.push_back(frame.nsecsElapsed() / 1e6);
        if (value >= bar->maximum())
            break;
    }

    std::printf("{\"rows\":%d,\"frames\":%zu,\"ms_per_frame_median\":%.3f,\"ms_per_frame_p95\":%.3f,"
                "\"ms_per_frame_max\":%.3f,\"reset_ms\":%.1f,\"layout_ms\":%.1f,\"filter_ms\":%.1f,"
                "\"filtered_rows\":%d,\"viewport\":[%d,%d]}\n",
                rows, frames.size(), percentile(frames, 0.5), percentile(frames, 0.95),
                *std::max_element(frames.begin(), frames.end()), resetMs, layoutMs, filterMs, filtered,
                view.viewport()->width(), view.viewport()->height());
    return 0;
}
