// lathe: the desktop workbench.
#include "engine/base/cpu_block_cache.h"
#include "common/event_loop_monitor.h"
#include "common/theme.h"
#include "common/wheel_guard.h"
#include "engine/base/runtime_info.h"
#include "shell/main_window.h"
#include "workspace/demo_project_job.h"
#include "workspace/settings.h"

#include <QApplication>
#include <QCoreApplication>
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

// The command line; --help, --version and a mistake are answered before the GUI starts.
struct CommandLine
{
    QCommandLineParser parser;
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption demo{QStringLiteral("demo"), QStringLiteral("Build the Fashion-MNIST demo project and open it")};
    const QCommandLineOption demoDir{QStringLiteral("demo-dir"),
                                     QStringLiteral("Folder for the demo (default: %1)")
                                         .arg(lathe::workspace::DemoProjectJob::defaultRoot()),
                                     QStringLiteral("DIR")};
    const QCommandLineOption language{QStringLiteral("language"), QStringLiteral("Override the language (en, zh_CN)"),
                                      QStringLiteral("LOCALE")};

    CommandLine()
    {
        parser.setApplicationDescription(QStringLiteral("Lathe: a workbench for training image classifiers"));
        parser.addOptions({demo, demoDir, language});
        parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project folder to open"));
    }
};

} // namespace

int main(int argc, char **argv)
{
    // Before any tensor: large CPU blocks are reused instead of mapped again (base/cpu_block_cache.h).
    lathe::engine::installCpuBlockCache(lathe::engine::defaultCpuBlockCacheBytes());
    QApplication::setOrganizationName(QStringLiteral("Lathe"));
    QApplication::setApplicationName(QStringLiteral("lathe"));
    QApplication::setApplicationVersion(QStringLiteral(LATHE_VERSION));
    CommandLine commandLine;
    {
        // Without a display QApplication cannot start: --help, --version and an unknown option
        // print (and exit) from a QCoreApplication, so that they work in any terminal.
        QStringList arguments;
        for (int i = 0; i < argc; ++i)
            arguments << QString::fromLocal8Bit(argv[i]);
        if (!commandLine.parser.parse(arguments) || commandLine.parser.isSet(commandLine.help) ||
            commandLine.parser.isSet(QStringLiteral("help-all")) || commandLine.parser.isSet(commandLine.version)) {
            QCoreApplication console(argc, argv);
            commandLine.parser.process(console); // prints and exits
        }
    }

    QApplication app(argc, argv);
    QApplication::setApplicationDisplayName(QStringLiteral("Lathe"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/lathe.png")));
    QApplication::setDesktopFileName(QStringLiteral("lathe"));
    lathe::ui::EventLoopMonitor::application(); // the GUI thread's latency, shown in About
    lathe::ui::installWheelGuard(app); // the wheel scrolls pages; it edits only a focused setting
    const QCommandLineParser &parser = commandLine.parser;
    commandLine.parser.process(app);

    lathe::workspace::Settings settings;
    installTranslators(app, parser.isSet(commandLine.language) ? parser.value(commandLine.language) : settings.language());
    lathe::ui::applyTheme(settings.theme());
    lathe::engine::configureTorchThreads();

    lathe::ui::MainWindow window(&settings);
    window.show();
    if (parser.isSet(commandLine.demo) || parser.isSet(commandLine.demoDir))
        window.startDemo(parser.isSet(commandLine.demoDir) ? parser.value(commandLine.demoDir) : lathe::workspace::DemoProjectJob::defaultRoot());
    else if (!parser.positionalArguments().isEmpty()) {
        // A project folder, or its project.sqlite (what the desktop entry passes for a file).
        const QFileInfo target(parser.positionalArguments().constFirst());
        window.openProject(target.isFile() ? target.absolutePath() : target.filePath());
    }
    return app.exec();
}
