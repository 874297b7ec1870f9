#include "train/device_picker.h"

#include <algorithm>

#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

bool isCpu(const QString &id)
{
    return id == QLatin1String("cpu");
}

} // namespace

DevicePicker::DevicePicker(QWidget *parent)
    : QWidget(parent)
    , m_list(new QListWidget(this))
    , m_note(new QLabel(this))
{
    m_list->setObjectName(QStringLiteral("devicePicker"));
    m_list->setSelectionMode(QAbstractItemView::NoSelection);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // long names are elided, whole in the tooltip
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_note->setObjectName(QStringLiteral("deviceNote"));
    m_note->setWordWrap(true);
    m_note->setText(tr("Looking for devices…"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list);
    layout->addWidget(m_note);
    connect(m_list, &QListWidget::itemChanged, this, &DevicePicker::itemChanged);
    rebuild();
}

void DevicePicker::setDevices(const QList<Device> &devices, int driverGpus)
{
    m_devices = devices;
    const bool gpus = std::any_of(devices.begin(), devices.end(), [](const Device &d) { return !isCpu(d.id); });
    if (!gpus)
        m_note->setText(driverGpus > 0 ? tr("The CUDA driver sees %n GPU(s), but this build of LibTorch has no CUDA "
                                            "support: training runs on the CPU.", "", driverGpus)
                                       : tr("No CUDA devices found: training runs on the CPU."));
    else if (std::count_if(devices.begin(), devices.end(), [](const Device &d) { return !isCpu(d.id); }) > 1)
        m_note->setText(tr("Check several GPUs to train data-parallel, one rank per GPU (the batch size is per GPU)."));
    else
        m_note->clear();
    m_note->setVisible(!m_note->text().isEmpty());
    rebuild();
    Q_EMIT changed(); // the same choice may now fit, or be missing
}

const DevicePicker::Device *DevicePicker::device(const QString &id) const
{
    for (const Device &d : m_devices)
        if (d.id == id)
            return &d;
    return nullptr;
}

void DevicePicker::rebuild()
{
    m_updating = true;
    m_list->clear();
    QStringList ids;
    for (const Device &d : m_devices)
        ids << d.id;
    for (const QString &id : m_chosen)
        if (!ids.contains(id))
            ids << id;
    const QLocale locale;
    for (const QString &id : ids) {
        const Device *d = device(id);
        QString text;
        if (!d)
            text = tr("%1 — not on this machine").arg(id);
        else if (isCpu(id))
            text = tr("CPU — %1, %2 RAM").arg(d->name, locale.formattedDataSize(qint64(d->totalMemory), 1, QLocale::DataSizeTraditionalFormat));
        else
            text = tr("%1 — %2, %3").arg(id, d->name,
                                         d->totalMemory > 0 ? locale.formattedDataSize(qint64(d->totalMemory), 1, QLocale::DataSizeTraditionalFormat)
                                                            : tr("memory unknown"));
        if (isCpu(id) && m_cpuRanks > 1)
            text += tr(" (%n rank(s))", "", m_cpuRanks);
        auto *item = new QListWidgetItem(text, m_list);
        item->setToolTip(text);
        item->setData(Qt::UserRole, id);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(m_chosen.contains(id) ? Qt::Checked : Qt::Unchecked);
        if (!d)
            item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
    }
    // Short: a row per device, no empty space below.
    m_list->setFixedHeight(m_list->sizeHintForRow(0) * std::max(1, m_list->count()) + 2 * m_list->frameWidth() + 4);
    m_updating = false;
}

void DevicePicker::itemChanged(QListWidgetItem *item)
{
    if (m_updating)
        return;
    const QString id = item->data(Qt::UserRole).toString();
    QStringList chosen = m_chosen;
    if (item->checkState() == Qt::Checked) {
        // One kind at a time: the CPU, or GPUs.
        chosen.erase(std::remove_if(chosen.begin(), chosen.end(), [&](const QString &c) { return isCpu(c) != isCpu(id); }),
                     chosen.end());
        if (!chosen.contains(id))
            chosen << id;
    } else {
        chosen.removeAll(id);
    }
    if (chosen.isEmpty())
        chosen << QStringLiteral("cpu"); // a run needs a device
    if (!chosen.contains(QStringLiteral("cpu")))
        m_cpuRanks = 1;
    m_chosen = chosen;
    rebuild();
    Q_EMIT changed();
}

nlohmann::json DevicePicker::value() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const QString &id : m_chosen)
        for (int i = 0; i < (isCpu(id) ? m_cpuRanks : 1); ++i)
            list.push_back(id.toStdString());
    return list;
}

void DevicePicker::setValue(const nlohmann::json &devices)
{
    QStringList chosen;
    int cpuRanks = 0;
    if (devices.is_array())
        for (const nlohmann::json &d : devices)
            if (d.is_string()) {
                const QString id = QString::fromStdString(d.get<std::string>());
                cpuRanks += isCpu(id) ? 1 : 0;
                if (!chosen.contains(id))
                    chosen << id;
            }
    if (chosen.isEmpty())
        chosen << QStringLiteral("cpu");
    if (chosen == m_chosen && std::max(1, cpuRanks) == m_cpuRanks)
        return;
    m_chosen = chosen;
    m_cpuRanks = std::max(1, cpuRanks);
    rebuild();
    Q_EMIT changed();
}

QStringList DevicePicker::missingDevices() const
{
    QStringList missing;
    if (m_devices.isEmpty())
        return missing; // not looked yet
    for (const QString &id : m_chosen)
        if (!device(id))
            missing << id;
    return missing;
}

quint64 DevicePicker::memoryPerRank() const
{
    quint64 smallest = 0;
    for (const QString &id : m_chosen) {
        const Device *d = device(id);
        if (!d || d->totalMemory == 0)
            return 0;
        const quint64 share = isCpu(id) ? d->totalMemory / quint64(m_cpuRanks) : d->totalMemory;
        smallest = smallest == 0 ? share : std::min(smallest, share);
    }
    return smallest;
}

QString DevicePicker::chosenDescription() const
{
    const QLocale locale;
    if (m_chosen.size() == 1 && isCpu(m_chosen.first())) {
        const Device *d = device(m_chosen.first());
        const QString ram = d && d->totalMemory ? locale.formattedDataSize(qint64(d->totalMemory), 1, QLocale::DataSizeTraditionalFormat) : tr("unknown");
        return m_cpuRanks > 1 ? tr("%n CPU rank(s) sharing %1 RAM", "", m_cpuRanks).arg(ram) : tr("the CPU (%1 RAM)").arg(ram);
    }
    QStringList names;
    for (const QString &id : m_chosen) {
        const Device *d = device(id);
        names << (d ? QStringLiteral("%1 (%2)").arg(d->name, locale.formattedDataSize(qint64(d->totalMemory), 1, QLocale::DataSizeTraditionalFormat)) : id);
    }
    return names.join(QStringLiteral(", "));
}

} // namespace lathe::ui
