#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <nlohmann/json.hpp>

class QLabel;
class QListWidget;
class QListWidgetItem;

namespace lathe::ui {

// The run config's "devices": the CPU and every CUDA device with its name and memory, one
// check box each. Several GPUs may be checked together (data parallel, one rank per GPU); the
// CPU and GPUs are not mixed, so checking one kind clears the other. A device a config names
// that this machine lacks stays listed, marked missing, so pre-flight can say so. Where there
// is no CUDA device the picker says why in words.
class DevicePicker : public QWidget
{
    Q_OBJECT

public:
    struct Device
    {
        QString id;   // "cpu", "cuda:0", ...
        QString name;
        quint64 totalMemory = 0; // bytes (CPU: physical RAM); 0 unknown
    };

    explicit DevicePicker(QWidget *parent = nullptr);

    // The devices of this machine (engine::computeDevices(), found off the GUI thread) and the
    // GPUs the CUDA driver sees (more than the CUDA devices listed: LibTorch has no CUDA).
    void setDevices(const QList<Device> &devices, int driverGpus = 0);
    QList<Device> devices() const { return m_devices; }

    nlohmann::json value() const; // ["cpu"], ["cuda:0", "cuda:1"], ...
    void setValue(const nlohmann::json &devices);
    // Chosen devices this machine does not have.
    QStringList missingDevices() const;
    // The memory one rank may use: the smallest chosen GPU's, or the RAM for CPU ranks (shared
    // by them); 0 when unknown.
    quint64 memoryPerRank() const;
    QString chosenDescription() const; // "CPU (16 GiB RAM)", "2 × NVIDIA H200 (139.8 GiB each)"

    QListWidget *list() const { return m_list; }
    QLabel *noteLabel() const { return m_note; }

Q_SIGNALS:
    void changed();

private:
    void rebuild();
    void itemChanged(QListWidgetItem *item);
    const Device *device(const QString &id) const;

    QListWidget *m_list;
    QLabel *m_note;
    QList<Device> m_devices;
    QStringList m_chosen{QStringLiteral("cpu")};
    int m_cpuRanks = 1; // "cpu" repeated in a config: several CPU ranks (kept as written)
    bool m_updating = false;
};

} // namespace lathe::ui
