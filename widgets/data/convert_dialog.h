#pragma once

#include "workspace/catalog.h"
#include "workspace/convert_job.h"

#include <QDialog>

class QCheckBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace lathe::ui {

// Options for converting a dataset's image folder to record shards: the output folder, the
// split fractions and seed (fixed by the folder when it has train/val/test folders), the
// shard size in MiB or records, and an optional JPEG re-encode of large images. Checked as
// they are typed; the reason the options cannot be used yet is shown and keeps Convert
// disabled. Non-modal: the page reads params() when it is accepted.
class ConvertDialog : public QDialog
{
    Q_OBJECT

public:
    ConvertDialog(const workspace::DatasetInfo &dataset, const QString &defaultOutDir, QWidget *parent = nullptr);

    workspace::ConvertJob::Params params() const;
    // Why the options cannot be used as they are; empty when they can.
    QString problem() const { return m_problem; }
    QPushButton *convertButton() const;

    void setOutDir(const QString &folder);

private:
    void validate();
    void updateEnabled();
    void browse();

    const workspace::DatasetInfo m_dataset;
    QString m_problem;

    QLineEdit *m_outDir = nullptr;
    QPushButton *m_browse = nullptr;
    QDoubleSpinBox *m_valPercent = nullptr;
    QDoubleSpinBox *m_testPercent = nullptr;
    QLabel *m_splitNote = nullptr;
    QLineEdit *m_seed = nullptr;
    QRadioButton *m_bySize = nullptr;
    QSpinBox *m_shardMiB = nullptr;
    QRadioButton *m_byRecords = nullptr;
    QSpinBox *m_shardRecords = nullptr;
    QCheckBox *m_reencode = nullptr;
    QSpinBox *m_maxSide = nullptr;
    QSpinBox *m_quality = nullptr;
    QLabel *m_problemLabel = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace lathe::ui
