#include "tune/search_space_editor.h"

#include "train/run_config_form.h"

#include "engine/run/run_config.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace lathe::ui {
namespace {

using json = nlohmann::json;

enum Column { VaryColumn, FieldColumn, TypeColumn, LowColumn, HighColumn, ColumnCount };

// The value at a dotted path of a config, null when it has none.
json valueAt(const json &config, const QString &field)
{
    const json *node = &config;
    for (const QString &part : field.split(QLatin1Char('.'))) {
        if (!node->is_object() || !node->contains(part.toStdString()))
            return nullptr;
        node = &(*node)[part.toStdString()];
    }
    return *node;
}

QString numberText(double v)
{
    return QString::number(v, 'g', 4);
}

// The names of the fields that live on the Model page, or whose Train page label needs its
// group beside it ("Decay"); empty for the rest, which keep the Train page's label.
QString tuneLabel(const QString &field)
{
    if (field == QLatin1String("data.image_size"))
        return SearchSpaceEditor::tr("Image size");
    if (field == QLatin1String("model.head.dropout"))
        return SearchSpaceEditor::tr("Head dropout");
    if (field == QLatin1String("model.freeze.frozen_stages"))
        return SearchSpaceEditor::tr("Frozen stages");
    if (field == QLatin1String("ema.decay"))
        return SearchSpaceEditor::tr("Weight averaging decay");
    return {};
}

// A number typed in an edit, or the text itself when it is none: the space's parser then names
// the field and says what is wrong.
json numberOf(const QLineEdit *edit)
{
    bool ok = false;
    const double v = edit->text().trimmed().toDouble(&ok);
    if (ok)
        return v;
    return edit->text().trimmed().toStdString();
}

} // namespace

SearchSpaceEditor::SearchSpaceEditor(QWidget *parent)
    : QWidget(parent)
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    m_table->setObjectName(QStringLiteral("searchSpaceTable"));
    m_table->setHorizontalHeaderLabels({tr("Vary"), tr("Field"), tr("Searched as"), tr("From / values"), tr("To")});
    m_table->verticalHeader()->hide();
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    // The field names whole, on one line; the value edits take what is left.
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(VaryColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(FieldColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(TypeColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(LowColumn, QHeaderView::Stretch);
    m_table->setColumnWidth(HighColumn, 80);

    for (const json &entry : engine::runConfigSchema()) {
        const QString field = QString::fromStdString(entry.value("field", std::string()));
        if (!fields().contains(field))
            continue;
        if (entry.contains("allowed"))
            for (const json &v : entry["allowed"])
                m_choices[field] << QString::fromStdString(v.get<std::string>());
    }
    for (const QString &field : fields()) {
        const bool choice = m_choices.contains(field) || field == QLatin1String("data.image_size");
        const bool integer = field == QLatin1String("optimizer.batch_size") ||
                             field == QLatin1String("model.freeze.frozen_stages");
        addRow(field, choice ? QStringLiteral("choice") : integer ? QStringLiteral("integer") : QStringLiteral("number"));
    }
    m_table->resizeRowsToContents();

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
}

QStringList SearchSpaceEditor::fields()
{
    return {QStringLiteral("optimizer.lr"),           QStringLiteral("optimizer.name"),
            QStringLiteral("optimizer.momentum"),     QStringLiteral("optimizer.weight_decay"),
            QStringLiteral("optimizer.batch_size"),   QStringLiteral("loss.label_smoothing"),
            QStringLiteral("schedule.name"),          QStringLiteral("schedule.warmup_epochs"),
            QStringLiteral("data.image_size"),        QStringLiteral("model.head.dropout"),
            QStringLiteral("model.freeze.frozen_stages"), QStringLiteral("ema.decay")};
}

void SearchSpaceEditor::addRow(const QString &field, const QString &kind)
{
    const int r = m_table->rowCount();
    m_table->insertRow(r);
    Row row;
    row.field = field;
    row.kind = kind;

    row.vary = new QCheckBox(m_table);
    row.vary->setObjectName(QStringLiteral("vary:") + field);
    row.vary->setToolTip(tr("Vary this field in the study; unticked, every trial keeps the Train page's value."));
    m_table->setCellWidget(r, VaryColumn, row.vary);

    QString label = tuneLabel(field);
    if (label.isEmpty())
        label = RunConfigForm::fieldLabel(field);
    if (label.endsWith(QLatin1Char(':')) || label.endsWith(QChar(0xFF1A)))
        label.chop(1);
    auto *name = new QTableWidgetItem(label);
    name->setFlags(Qt::ItemIsEnabled);
    name->setToolTip(field);
    m_table->setItem(r, FieldColumn, name);

    row.type = new QComboBox(m_table);
    if (kind == QLatin1String("number")) {
        row.type->addItem(tr("Log-uniform"), QStringLiteral("log_uniform"));
        row.type->addItem(tr("Uniform"), QStringLiteral("uniform"));
    } else if (kind == QLatin1String("integer")) {
        row.type->addItem(tr("Integer"), QStringLiteral("int_uniform"));
        row.type->addItem(tr("Integer, log scale"), QStringLiteral("int_log"));
    } else {
        row.type->addItem(tr("Choice"), QStringLiteral("choice"));
        row.type->addItem(tr("Grid"), QStringLiteral("grid"));
    }
    m_table->setCellWidget(r, TypeColumn, row.type);

    row.low = new QLineEdit(m_table);
    m_table->setCellWidget(r, LowColumn, row.low);
    if (kind == QLatin1String("choice")) {
        m_table->setSpan(r, LowColumn, 1, 2);
        const QStringList allowed = m_choices.value(field);
        row.low->setToolTip(allowed.isEmpty() ? tr("Values separated by commas.")
                                              : tr("Values separated by commas, out of: %1").arg(allowed.join(QStringLiteral(", "))));
    } else {
        row.high = new QLineEdit(m_table);
        m_table->setCellWidget(r, HighColumn, row.high);
    }
    setDefaults(row);
    m_rows.append(row);

    const int index = int(m_rows.size()) - 1;
    connect(row.vary, &QCheckBox::toggled, this, [this, index] {
        updateRow(m_rows[index]);
        Q_EMIT changed();
    });
    connect(row.type, &QComboBox::currentIndexChanged, this, &SearchSpaceEditor::changed);
    connect(row.low, &QLineEdit::textChanged, this, &SearchSpaceEditor::changed);
    if (row.high)
        connect(row.high, &QLineEdit::textChanged, this, &SearchSpaceEditor::changed);
    updateRow(m_rows[index]);
}

json SearchSpaceEditor::baseValue(const QString &field) const
{
    json v = valueAt(m_base, field);
    if (v.is_null())
        v = valueAt(engine::runConfigToJson(engine::RunConfig()), field);
    return v;
}

void SearchSpaceEditor::setDefaults(Row &row)
{
    const QString f = row.field;
    const json base = baseValue(f);
    const double b = base.is_number() ? base.get<double>() : 0.0;
    auto range = [&row](double low, double high, int typeIndex) {
        row.low->setText(numberText(low));
        row.high->setText(numberText(high));
        row.type->setCurrentIndex(typeIndex);
    };
    if (f == QLatin1String("optimizer.lr"))
        range(b > 0 ? b / 10 : 1e-4, b > 0 ? b * 10 : 1e-1, 0);
    else if (f == QLatin1String("optimizer.momentum"))
        range(0.8, 0.99, 1);
    else if (f == QLatin1String("optimizer.weight_decay"))
        range(1e-5, 1e-2, 0);
    else if (f == QLatin1String("optimizer.batch_size"))
        range(std::max(4.0, std::round(b / 2)), std::max(8.0, b * 2), 1);
    else if (f == QLatin1String("loss.label_smoothing"))
        range(0, 0.2, 1);
    else if (f == QLatin1String("schedule.warmup_epochs"))
        range(0, 3, 1);
    else if (f == QLatin1String("model.head.dropout"))
        range(0, 0.5, 1);
    else if (f == QLatin1String("model.freeze.frozen_stages"))
        range(0, 3, 0);
    else if (f == QLatin1String("ema.decay"))
        range(0.99, 0.9999, 1);
    else if (f == QLatin1String("data.image_size")) {
        // 0 is "the backbone's default": 224 for every backbone in the zoo.
        const int size = base.is_number_integer() && base.get<int>() > 0 ? base.get<int>() : 224;
        const int larger = int(std::lround(size * 1.5 / 8.0)) * 8;
        row.low->setText(QStringLiteral("%1, %2").arg(size).arg(larger));
    } else if (f == QLatin1String("optimizer.name")) {
        row.low->setText(QStringLiteral("sgd, adamw"));
    } else if (f == QLatin1String("schedule.name")) {
        row.low->setText(QStringLiteral("constant, cosine, one_cycle"));
    }
}

void SearchSpaceEditor::updateRow(Row &row)
{
    const bool on = row.vary->isChecked();
    row.type->setEnabled(on);
    row.low->setEnabled(on);
    if (row.high)
        row.high->setEnabled(on);
}

const SearchSpaceEditor::Row *SearchSpaceEditor::row(const QString &field) const
{
    for (const Row &r : m_rows)
        if (r.field == field)
            return &r;
    return nullptr;
}

void SearchSpaceEditor::setBaseConfig(const json &config)
{
    m_base = config;
    for (Row &r : m_rows)
        if (!r.vary->isChecked())
            setDefaults(r);
}

json SearchSpaceEditor::params() const
{
    json params = json::object();
    QStringList optimizers; // the optimiser choice, when varied
    for (const Row &r : m_rows) {
        if (!r.vary->isChecked())
            continue;
        const QString type = r.type->currentData().toString();
        json spec;
        if (r.kind == QLatin1String("choice")) {
            spec["type"] = type.toStdString();
            json values = json::array();
            for (QString text : r.low->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                text = text.trimmed();
                bool isInt = false;
                const int n = text.toInt(&isInt);
                if (r.field == QLatin1String("data.image_size") && isInt)
                    values.push_back(n);
                else
                    values.push_back(text.toStdString());
            }
            spec["values"] = values;
            if (r.field == QLatin1String("optimizer.name"))
                for (const json &v : values)
                    optimizers << QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
        } else if (r.kind == QLatin1String("integer")) {
            spec["type"] = "int_uniform";
            spec["log"] = type == QLatin1String("int_log");
            const json low = numberOf(r.low), high = numberOf(r.high);
            spec["low"] = low.is_number() ? json(std::lround(low.get<double>())) : low;
            spec["high"] = high.is_number() ? json(std::lround(high.get<double>())) : high;
        } else {
            spec["type"] = type.toStdString();
            spec["low"] = numberOf(r.low);
            spec["high"] = numberOf(r.high);
        }
        params[r.field.toStdString()] = spec;
    }
    // Momentum only for the optimisers that have one, when the optimiser is varied too.
    if (params.contains("optimizer.momentum") && params.contains("optimizer.name")) {
        json users = json::array();
        for (const char *name : {"sgd", "rmsprop"})
            if (optimizers.contains(QLatin1String(name)))
                users.push_back(name);
        if (users.empty())
            params.erase("optimizer.momentum");
        else
            params["optimizer.momentum"]["when"] = {{"optimizer.name", users}};
    }
    return params;
}

void SearchSpaceEditor::setParams(const json &params)
{
    for (Row &r : m_rows) {
        const std::string key = r.field.toStdString();
        const bool varied = params.is_object() && params.contains(key);
        const QSignalBlocker block(r.vary);
        r.vary->setChecked(varied);
        if (varied) {
            const json &spec = params[key];
            const std::string type = spec.value("type", std::string());
            if (r.kind == QLatin1String("choice")) {
                QStringList values;
                for (const json &v : spec.value("values", json::array()))
                    values << (v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString::fromStdString(v.dump()));
                r.low->setText(values.join(QStringLiteral(", ")));
                r.type->setCurrentIndex(type == "grid" ? 1 : 0);
            } else {
                r.low->setText(numberText(spec.value("low", 0.0)));
                r.high->setText(numberText(spec.value("high", 0.0)));
                if (r.kind == QLatin1String("integer"))
                    r.type->setCurrentIndex(spec.value("log", false) ? 1 : 0);
                else
                    r.type->setCurrentIndex(type == "uniform" ? 1 : 0);
            }
        } else {
            setDefaults(r);
        }
        updateRow(r);
    }
    Q_EMIT changed();
}

bool SearchSpaceEditor::isVaried(const QString &field) const
{
    const Row *r = row(field);
    return r && r->vary->isChecked();
}

void SearchSpaceEditor::setVaried(const QString &field, bool varied)
{
    if (const Row *r = row(field))
        r->vary->setChecked(varied);
}

QCheckBox *SearchSpaceEditor::varyToggle(const QString &field) const
{
    const Row *r = row(field);
    return r ? r->vary : nullptr;
}

QComboBox *SearchSpaceEditor::typePicker(const QString &field) const
{
    const Row *r = row(field);
    return r ? r->type : nullptr;
}

QLineEdit *SearchSpaceEditor::lowEdit(const QString &field) const
{
    const Row *r = row(field);
    return r ? r->low : nullptr;
}

QLineEdit *SearchSpaceEditor::highEdit(const QString &field) const
{
    const Row *r = row(field);
    return r ? r->high : nullptr;
}

} // namespace lathe::ui
