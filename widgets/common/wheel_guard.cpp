#include "common/wheel_guard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QPointer>
#include <QScrollBar>

namespace lathe::ui {
namespace {

bool isGuarded(const QObject *object)
{
    return qobject_cast<const QAbstractSpinBox *>(object) || qobject_cast<const QComboBox *>(object) ||
           (qobject_cast<const QAbstractSlider *>(object) && !qobject_cast<const QScrollBar *>(object));
}

class WheelGuard : public QObject
{
public:
    using QObject::QObject;

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Polish && isGuarded(watched)) {
            auto *editor = static_cast<QWidget *>(watched);
            if (editor->focusPolicy() == Qt::WheelFocus)
                editor->setFocusPolicy(Qt::StrongFocus);
        } else if (event->type() == QEvent::Wheel && isGuarded(watched)) {
            const auto *editor = static_cast<QWidget *>(watched);
            const QWidget *focus = QApplication::focusWidget();
            if (!editor->hasFocus() && !(focus && editor->isAncestorOf(focus))) {
                // Filtered and ignored: QApplication hands the wheel on to the parents, up to
                // the scroll area's viewport, which scrolls.
                event->ignore();
                return true;
            }
        }
        return false;
    }
};

} // namespace

void installWheelGuard(QApplication &app)
{
    static QPointer<WheelGuard> installed; // gone with its application
    if (installed)
        return;
    installed = new WheelGuard(&app);
    app.installEventFilter(installed);
}

} // namespace lathe::ui
