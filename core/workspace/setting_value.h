#pragma once

#include <QSettings>
#include <QString>
#include <QVariant>

namespace lathe::workspace {

// One typed value in the settings store, with its key and default in one place.
template<typename T>
class SettingValue
{
public:
    SettingValue(QSettings *store, const QString &key, T defaultValue)
        : m_store(store)
        , m_key(key)
        , m_default(std::move(defaultValue))
    {
    }

    T get() const
    {
        const QVariant value = m_store->value(m_key);
        return value.isValid() && value.canConvert<T>() ? value.value<T>() : m_default;
    }

    void set(const T &value) { m_store->setValue(m_key, QVariant::fromValue(value)); }
    void reset() { m_store->remove(m_key); }
    const QString &key() const { return m_key; }

private:
    QSettings *m_store;
    QString m_key;
    T m_default;
};

} // namespace lathe::workspace
