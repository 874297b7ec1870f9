#include "data/convert_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

bool isInside(const QString &path, const QString &folder)
{
    const QString p = QDir::cleanPath(path);
    const QString f = QDir::cleanPath(folder);
    return p == f || p.startsWith(f.endsWith(QLatin1Char('/')) ? f : f + QLatin1Char('/'));
}

} // namespace

ConvertDialog::ConvertDialog(const workspace::DatasetInfo &dataset, const QString &defaultOutDir, QWidget *parent)
    : QDialog(parent)
    , m_dataset(dataset)
{
    setObjectName(QStringLiteral("convertDialog"));
    setWindowTitle(tr("Convert %1 to Shards").arg(dataset.name));

    auto *intro = new QLabel(tr("Writes the usable images of %1 as TFRecord shards with an index beside each and a "
                                "dataset.json listing classes, counts, shards and the files left out. The image "
                                "folder is not changed.")
                                 .arg(QDir::toNativeSeparators(dataset.sourceDir)),
                             this);
    intro->setWordWrap(true);

    m_outDir = new QLineEdit(QDir::toNativeSeparators(defaultOutDir), this);
    m_outDir->setObjectName(QStringLiteral("outputFolderEdit"));
    m_outDir->setMinimumWidth(360);
    m_outDir->setToolTip(tr("A new or empty folder for the shards, their indexes and dataset.json. Default: the "
                            "project's datasets folder."));
    m_browse = new QPushButton(tr("Browse…"), this);
    m_browse->setObjectName(QStringLiteral("outputFolderBrowse"));
    connect(m_browse, &QPushButton::clicked, this, &ConvertDialog::browse);
    auto *outRow = new QHBoxLayout;
    outRow->addWidget(m_outDir, 1);
    outRow->addWidget(m_browse);

    auto percent = [this](const char *name, double fraction) {
        auto *spin = new QDoubleSpinBox(this);
        spin->setObjectName(QLatin1String(name));
        spin->setRange(0.0, 99.0);
        spin->setDecimals(1);
        spin->setSingleStep(5.0);
        spin->setSuffix(tr(" %"));
        spin->setValue(fraction * 100.0);
        spin->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
        return spin;
    };
    m_valPercent = percent("valPercentSpin", dataset.valFraction);
    m_testPercent = percent("testPercentSpin", dataset.testFraction);
    m_valPercent->setToolTip(tr("Share of each class's images for validation when the folder has no split folders. "
                                "Default: the catalog's value (10 %)."));
    m_testPercent->setToolTip(tr("Share of each class's images for the test split when the folder has no split "
                                 "folders. Default: the catalog's value (10 %)."));
    m_splitNote = new QLabel(this);
    m_splitNote->setObjectName(QStringLiteral("splitNote"));
    m_splitNote->setWordWrap(true);
    if (dataset.folderSplits) {
        m_valPercent->setEnabled(false);
        m_testPercent->setEnabled(false);
        m_splitNote->setText(tr("The folder has train, val and test folders: they decide the splits."));
    } else {
        m_splitNote->setText(tr("Each image's split comes from a seeded hash of its path; the catalog's fractions "
                                "and seed give the shards the splits the Data page shows."));
    }

    m_seed = new QLineEdit(QString::number(dataset.seed), this);
    m_seed->setObjectName(QStringLiteral("seedEdit"));
    m_seed->setMaximumWidth(m_seed->fontMetrics().horizontalAdvance(QLatin1Char('9')) * 24);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{0,20}")), m_seed));
    m_seed->setToolTip(tr("Decides the splits (when the folder has no split folders) and the order of the records "
                          "across a split's shards. The same seed gives the same shards."));

    m_bySize = new QRadioButton(tr("Size:"), this);
    m_bySize->setObjectName(QStringLiteral("shardBySizeRadio"));
    m_shardMiB = new QSpinBox(this);
    m_shardMiB->setObjectName(QStringLiteral("shardSizeSpin"));
    m_shardMiB->setRange(1, 16384);
    m_shardMiB->setValue(64);
    m_shardMiB->setSuffix(tr(" MiB"));
    m_bySize->setToolTip(tr("Start a new shard when the next record would pass this size. Default: 64 MiB."));
    m_shardMiB->setToolTip(m_bySize->toolTip());
    m_byRecords = new QRadioButton(tr("Records per shard:"), this);
    m_byRecords->setObjectName(QStringLiteral("shardByRecordsRadio"));
    m_shardRecords = new QSpinBox(this);
    m_shardRecords->setObjectName(QStringLiteral("shardRecordsSpin"));
    m_shardRecords->setRange(1, 100'000'000);
    m_shardRecords->setValue(1000);
    m_shardRecords->setGroupSeparatorShown(true);
    m_byRecords->setToolTip(tr("Put this many records in each shard (the last one may hold fewer)."));
    m_shardRecords->setToolTip(m_byRecords->toolTip());
    m_bySize->setChecked(true);
    auto *shardRow = new QHBoxLayout;
    shardRow->addWidget(m_bySize);
    shardRow->addWidget(m_shardMiB);
    shardRow->addSpacing(16);
    shardRow->addWidget(m_byRecords);
    shardRow->addWidget(m_shardRecords);
    shardRow->addStretch(1);

    m_reencode = new QCheckBox(tr("Re-encode large images as JPEG"), this);
    m_reencode->setObjectName(QStringLiteral("reencodeCheck"));
    m_reencode->setToolTip(tr("Otherwise every file is stored byte for byte."));
    m_maxSide = new QSpinBox(this);
    m_maxSide->setObjectName(QStringLiteral("maxSideSpin"));
    m_maxSide->setRange(16, 65535);
    m_maxSide->setValue(1024);
    m_maxSide->setSuffix(tr(" px"));
    m_maxSide->setToolTip(tr("Images whose longer side is larger are scaled down to this size and stored as JPEG; "
                             "smaller ones are kept as they are. Default: 1,024 px."));
    m_quality = new QSpinBox(this);
    m_quality->setObjectName(QStringLiteral("qualitySpin"));
    m_quality->setRange(1, 100);
    m_quality->setValue(90);
    m_quality->setToolTip(tr("JPEG quality of re-encoded images, 1 to 100. Default: 90."));
    auto *reencodeRow = new QHBoxLayout;
    reencodeRow->addWidget(new QLabel(tr("Longer side above:"), this));
    reencodeRow->addWidget(m_maxSide);
    reencodeRow->addSpacing(16);
    reencodeRow->addWidget(new QLabel(tr("Quality:"), this));
    reencodeRow->addWidget(m_quality);
    reencodeRow->addStretch(1);

    auto *form = new QFormLayout;
    form->addRow(tr("Output folder:"), outRow);
    form->addRow(tr("Validation:"), m_valPercent);
    form->addRow(tr("Test:"), m_testPercent);
    form->addRow(QString(), m_splitNote);
    form->addRow(tr("Seed:"), m_seed);
    form->addRow(tr("Shard size:"), shardRow);
    form->addRow(QString(), m_reencode);
    form->addRow(QString(), reencodeRow);

    m_problemLabel = new QLabel(this);
    m_problemLabel->setObjectName(QStringLiteral("convertProblem"));
    m_problemLabel->setWordWrap(true);
    m_problemLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Convert"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        validate();
        if (m_problem.isEmpty())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_problemLabel);
    layout->addStretch(1);
    layout->addWidget(m_buttons);

    connect(m_outDir, &QLineEdit::textChanged, this, &ConvertDialog::validate);
    connect(m_seed, &QLineEdit::textChanged, this, &ConvertDialog::validate);
    connect(m_valPercent, &QDoubleSpinBox::valueChanged, this, &ConvertDialog::validate);
    connect(m_testPercent, &QDoubleSpinBox::valueChanged, this, &ConvertDialog::validate);
    for (QRadioButton *radio : {m_bySize, m_byRecords})
        connect(radio, &QRadioButton::toggled, this, &ConvertDialog::updateEnabled);
    connect(m_reencode, &QCheckBox::toggled, this, &ConvertDialog::updateEnabled);
    updateEnabled();
    validate();
}

QPushButton *ConvertDialog::convertButton() const
{
    return m_buttons->button(QDialogButtonBox::Ok);
}

void ConvertDialog::setOutDir(const QString &folder)
{
    m_outDir->setText(QDir::toNativeSeparators(folder));
}

workspace::ConvertJob::Params ConvertDialog::params() const
{
    workspace::ConvertJob::Params p;
    p.sourceDir = m_dataset.sourceDir;
    p.datasetName = m_dataset.name;
    p.outDir = QDir::cleanPath(QDir::fromNativeSeparators(m_outDir->text().trimmed()));
    p.valFraction = m_valPercent->value() / 100.0;
    p.testFraction = m_testPercent->value() / 100.0;
    p.seed = m_seed->text().toULongLong();
    if (m_byRecords->isChecked())
        p.shardRecords = m_shardRecords->value();
    else
        p.shardSizeMb = m_shardMiB->value();
    if (m_reencode->isChecked()) {
        p.maxSide = m_maxSide->value();
        p.quality = m_quality->value();
    }
    return p;
}

void ConvertDialog::updateEnabled()
{
    m_shardMiB->setEnabled(m_bySize->isChecked());
    m_shardRecords->setEnabled(m_byRecords->isChecked());
    m_maxSide->setEnabled(m_reencode->isChecked());
    m_quality->setEnabled(m_reencode->isChecked());
}

void ConvertDialog::validate()
{
    // A few stat() calls: cheap enough to repeat as the user types.
    const QString text = m_outDir->text().trimmed();
    const QString out = QDir::cleanPath(QDir::fromNativeSeparators(text));
    const QFileInfo info(out);
    const QString shown = QDir::toNativeSeparators(out);
    bool seedOk = false;
    m_seed->text().toULongLong(&seedOk);

    QString problem;
    if (text.isEmpty())
        problem = tr("Choose an output folder for the shards.");
    else if (QDir::isRelativePath(out))
        problem = tr("The output folder must be a full path.");
    else if (info.exists() && !info.isDir())
        problem = tr("%1 exists and is not a folder.").arg(shown);
    else if (info.isDir() && !QDir(out).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
        problem = tr("%1 already exists and is not empty; choose a new or empty folder.").arg(shown);
    else if (isInside(out, m_dataset.sourceDir))
        problem = tr("The output folder must not be inside the image folder %1.")
                      .arg(QDir::toNativeSeparators(m_dataset.sourceDir));
    else if (!m_dataset.folderSplits && m_valPercent->value() + m_testPercent->value() >= 100.0)
        problem = tr("Validation and test together must be below 100 % (now %L1 %).")
                      .arg(m_valPercent->value() + m_testPercent->value(), 0, 'f', 1);
    else if (!seedOk)
        problem = tr("The seed must be a whole number from 0 to 18446744073709551615.");
    else if (!QFileInfo(m_dataset.sourceDir).isDir())
        problem = tr("The image folder %1 is not there any more.").arg(QDir::toNativeSeparators(m_dataset.sourceDir));

    m_problem = problem;
    m_problemLabel->setText(problem);
    m_problemLabel->setVisible(!problem.isEmpty());
    convertButton()->setEnabled(problem.isEmpty());
}

void ConvertDialog::browse()
{
    const QString current = QDir::fromNativeSeparators(m_outDir->text().trimmed());
    QString start = current;
    while (!start.isEmpty() && !QFileInfo(start).isDir() && start != QDir::cleanPath(start + QStringLiteral("/..")))
        start = QDir::cleanPath(start + QStringLiteral("/.."));
    auto *dialog = new QFileDialog(this, tr("Output folder for the shards"), start.isEmpty() ? QDir::homePath() : start);
    dialog->setObjectName(QStringLiteral("outputFolderDialog"));
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &ConvertDialog::setOutDir);
    dialog->open();
}

} // namespace lathe::ui
