#include "workspace/settings.h"

#include "workspace/weights_download_job.h"

#include <QDir>

namespace lathe::workspace {
namespace {

std::unique_ptr<QSettings> openStore(const QString &iniPath)
{
    if (iniPath.isEmpty())
        return std::make_unique<QSettings>(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("Lathe"),
                                           QStringLiteral("lathe"));
    return std::make_unique<QSettings>(iniPath, QSettings::IniFormat);
}

} // namespace

Settings::Settings(const QString &iniPath)
    : m_store(openStore(iniPath))
    , m_theme(m_store.get(), QStringLiteral("ui/theme"), QStringLiteral("system"))
    , m_language(m_store.get(), QStringLiteral("ui/language"), QString())
    , m_recentProjects(m_store.get(), QStringLiteral("projects/recent"), QStringList())
    , m_lastProjectFolder(m_store.get(), QStringLiteral("projects/last"), QString())
    , m_weightsCacheDir(m_store.get(), QStringLiteral("models/weightsCache"), QString())
    , m_windowGeometry(m_store.get(), QStringLiteral("window/geometry"), QByteArray())
    , m_windowState(m_store.get(), QStringLiteral("window/state"), QByteArray())
{
}

Settings::~Settings() = default;

QString Settings::fileName() const
{
    return m_store->fileName();
}

void Settings::sync()
{
    m_store->sync();
}

QStringList Settings::themes()
{
    return {QStringLiteral("system"), QStringLiteral("light"), QStringLiteral("dark")};
}

QString Settings::theme() const
{
    const QString value = m_theme.get();
    return themes().contains(value) ? value : themes().first();
}

void Settings::setTheme(const QString &theme)
{
    m_theme.set(themes().contains(theme) ? theme : themes().first());
}

QStringList Settings::languages()
{
    return {QString(), QStringLiteral("en"), QStringLiteral("zh_CN")};
}

QString Settings::language() const
{
    const QString value = m_language.get();
    return languages().contains(value) ? value : QString();
}

void Settings::setLanguage(const QString &language)
{
    m_language.set(languages().contains(language) ? language : QString());
}

QStringList Settings::recentProjects() const
{
    return m_recentProjects.get();
}

void Settings::addRecentProject(const QString &folder)
{
    const QString path = QDir::cleanPath(QDir(folder).absolutePath());
    QStringList list = recentProjects();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kMaxRecentProjects)
        list.removeLast();
    m_recentProjects.set(list);
}

void Settings::removeRecentProject(const QString &folder)
{
    QStringList list = recentProjects();
    list.removeAll(QDir::cleanPath(QDir(folder).absolutePath()));
    m_recentProjects.set(list);
}

QString Settings::weightsCacheDir() const
{
    const QString folder = m_weightsCacheDir.get();
    return folder.isEmpty() ? defaultWeightsCacheDir() : folder;
}

void Settings::setWeightsCacheDir(const QString &folder)
{
    m_weightsCacheDir.set(folder);
}

QString Settings::lastProjectFolder() const
{
    return m_lastProjectFolder.get();
}

void Settings::setLastProjectFolder(const QString &folder)
{
    m_lastProjectFolder.set(folder);
}

QByteArray Settings::windowGeometry() const
{
    return m_windowGeometry.get();
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_windowGeometry.set(geometry);
}

QByteArray Settings::windowState() const
{
    return m_windowState.get();
}

void Settings::setWindowState(const QByteArray &state)
{
    m_windowState.set(state);
}

} // namespace lathe::workspace
