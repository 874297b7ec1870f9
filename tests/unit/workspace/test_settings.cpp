#include "workspace/settings.h"

#include <QTemporaryDir>
#include <QTest>

using namespace lathe::workspace;

class TestSettings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaults()
    {
        QTemporaryDir tmp;
        Settings s(tmp.filePath(QStringLiteral("lathe.conf")));
        QCOMPARE(s.theme(), QStringLiteral("system"));
        QCOMPARE(s.language(), QString());
        QVERIFY(s.recentProjects().isEmpty());
        QVERIFY(s.windowGeometry().isEmpty());
    }

    void valuesPersistAcrossInstances()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("lathe.conf"));
        {
            Settings s(path);
            s.setTheme(QStringLiteral("dark"));
            s.setLanguage(QStringLiteral("zh_CN"));
            s.setWindowGeometry(QByteArray("\x01\x02geometry", 10));
            s.setLastProjectFolder(QStringLiteral("/data"));
        }
        Settings s(path);
        QCOMPARE(s.theme(), QStringLiteral("dark"));
        QCOMPARE(s.language(), QStringLiteral("zh_CN"));
        QCOMPARE(s.windowGeometry(), QByteArray("\x01\x02geometry", 10));
        QCOMPARE(s.lastProjectFolder(), QStringLiteral("/data"));
    }

    void unknownValuesFallBack()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("lathe.conf"));
        {
            QSettings raw(path, QSettings::IniFormat);
            raw.setValue(QStringLiteral("ui/theme"), QStringLiteral("neon"));
            raw.setValue(QStringLiteral("ui/language"), QStringLiteral("tlh"));
        }
        Settings s(path);
        QCOMPARE(s.theme(), QStringLiteral("system"));
        QCOMPARE(s.language(), QString());
        s.setTheme(QStringLiteral("neon"));
        QCOMPARE(s.theme(), QStringLiteral("system"));
    }

    void recentProjectsAreMostRecentFirstUniqueAndBounded()
    {
        QTemporaryDir tmp;
        Settings s(tmp.filePath(QStringLiteral("lathe.conf")));
        for (int i = 0; i < 12; ++i)
            s.addRecentProject(QStringLiteral("/p/%1").arg(i));
        s.addRecentProject(QStringLiteral("/p/5/"));
        const QStringList recent = s.recentProjects();
        QCOMPARE(recent.size(), Settings::kMaxRecentProjects);
        QCOMPARE(recent.first(), QStringLiteral("/p/5"));
        QCOMPARE(recent.at(1), QStringLiteral("/p/11"));
        QCOMPARE(recent.count(QStringLiteral("/p/5")), 1);
        s.removeRecentProject(QStringLiteral("/p/5"));
        QCOMPARE(s.recentProjects().first(), QStringLiteral("/p/11"));
    }
};

QTEST_GUILESS_MAIN(TestSettings)
#include "test_settings.moc"
