// lathe: the desktop workbench.
#include "common/event_loop_monitor.h"
#include "common/theme.h"
#include "engine/base/runtime_info.h"
#include "shell/main_window.h"
#include "workspace/demo_project_job.h"
#include "workspace/settings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace {

// Our strings from the embedded .qm files, Qt's own (dialog buttons) from Qt's folder. A
// language without a translation of its own gets English's plural forms ("1 image", not
// "1 image(s)").
void installTranslators(QApplication &app, const QString &language)
{
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    QLocale::setDefault(locale);
    auto *ours = new QTranslator(&app);
    if (ours->load(locale, QStringLiteral("lathe"), QStringLiteral("_"), QStringLiteral(":/i18n"))
        || ours->load(QStringLiteral("lathe_en"), QStringLiteral(":/i18n")))
        QApplication::installTranslator(ours);
    auto *qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(qt);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Lathe"));
    QApplication::setApplicationName(QStringLiteral("lathe"));
    QApplication::setApplicationDisplayName(QStringLiteral("Lathe"));
    QApplication::setApplicationVersion(QStringLiteral(LATHE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/lathe.png")));
    QApplication::setDesktopFileName(QStringLiteral("lathe"));
    lathe::ui::EventLoopMonitor::application(); // the GUI thread's latency, shown in About

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Lathe: a workbench for training image classifiers"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(QStringLiteral("demo"), QStringLiteral("Build the Fashion-MNIST demo project and open it"));
    const QCommandLineOption demoDir(QStringLiteral("demo-dir"), QStringLiteral("Folder for the demo (default: %1)")
                                                                     .arg(lathe::workspace::DemoProjectJob::defaultRoot()),
                                     QStringLiteral("DIR"));
    const QCommandLineOption language(QStringLiteral("language"), QStringLiteral("Override the language (en, zh_CN)"),
                                      QStringLiteral("LOCALE"));
    parser.addOptions({demo, demoDir, language});
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project folder to open"));
    parser.process(app);

    lathe::workspace::Settings settings;
    installTranslators(app, parser.isSet(language) ? parser.value(language) : settings.language());
    lathe::ui::applyTheme(settings.theme());
    lathe::engine::configureTorchThreads();

    lathe::ui::MainWindow window(&settings);
    window.show();
    if (parser.isSet(demo) || parser.isSet(demoDir))
        window.startDemo(parser.isSet(demoDir) ? parser.value(demoDir) : lathe::workspace::DemoProjectJob::defaultRoot());
    else if (!parser.positionalArguments().isEmpty()) {
        // A project folder, or its project.sqlite (what the desktop entry passes for a file).
        const QFileInfo target(parser.positionalArguments().constFirst());
        window.openProject(target.isFile() ? target.absolutePath() : target.filePath());
    }
    return app.exec();
}
