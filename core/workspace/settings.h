#pragma once

#include "workspace/setting_value.h"

#include <QByteArray>
#include <QStringList>

#include <memory>

namespace lathe::workspace {

// The one typed settings object. Keys live here and nowhere else.
class Settings
{
public:
    static constexpr int kMaxRecentProjects = 8;

    // Without a path: the user's standard location (~/.config/Lathe/lathe.ini).
    explicit Settings(const QString &iniPath = {});
    ~Settings();

    QString fileName() const;
    void sync();

    // Theme: "system", "light" or "dark".
    QString theme() const;
    void setTheme(const QString &theme);
    static QStringList themes();

    // Language: empty follows the system locale; otherwise a locale name such as "zh_CN".
    QString language() const;
    void setLanguage(const QString &language);
    static QStringList languages();

    QStringList recentProjects() const;
    void addRecentProject(const QString &folder);
    void removeRecentProject(const QString &folder);

    QString lastProjectFolder() const;
    void setLastProjectFolder(const QString &folder);

    // Where pretrained weights are downloaded and imported to; empty means the default
    // (the user's cache folder + "/weights", see weights_download_job.h).
    QString weightsCacheDir() const;
    void setWeightsCacheDir(const QString &folder);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray &state);

private:
    std::unique_ptr<QSettings> m_store;
    SettingValue<QString> m_theme;
    SettingValue<QString> m_language;
    SettingValue<QStringList> m_recentProjects;
    SettingValue<QString> m_lastProjectFolder;
    SettingValue<QString> m_weightsCacheDir;
    SettingValue<QByteArray> m_windowGeometry;
    SettingValue<QByteArray> m_windowState;
};

} // namespace lathe::workspace
