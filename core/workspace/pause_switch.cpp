#include "workspace/pause_switch.h"

#include <QMutexLocker>

namespace lathe::workspace {

bool PauseSwitch::set(bool paused, const std::function<void()> &whileLocked)
{
    QMutexLocker lock(&m_mutex);
    if (m_token.isPaused() == paused)
        return false;
    if (paused)
        m_token.pause();
    else
        m_token.resume();
    if (whileLocked)
        whileLocked();
    return true;
}

} // namespace lathe::workspace
