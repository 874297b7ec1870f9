#pragma once

#include <QString>

#include <stdexcept>

namespace lathe::workspace {

// A failure in the workspace layer with a message meant for the user (already translated).
class WorkspaceError : public std::runtime_error
{
public:
    explicit WorkspaceError(const QString &message)
        : std::runtime_error(message.toStdString())
        , m_message(message)
    {
    }

    const QString &message() const { return m_message; }

private:
    QString m_message;
};

} // namespace lathe::workspace
