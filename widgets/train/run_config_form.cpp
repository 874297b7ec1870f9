#include "train/run_config_form.h"

#include "train/device_picker.h"

#include "engine/base/engine_error.h"
#include "engine/run/run_config.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace lathe::ui {
namespace {

// Sets a value at a dotted path of a JSON object.
void setPath(nlohmann::json &root, const std::string &dotted, const nlohmann::json &value)
{
    nlohmann::json *node = &root;
    std::size_t start = 0;
    for (std::size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1)
        node = &(*node)[dotted.substr(start, dot - start)];
    (*node)[dotted.substr(start)] = value;
}

const nlohmann::json *getPath(const nlohmann::json &root, const std::string &dotted)
{
    const nlohmann::json *node = &root;
    std::size_t start = 0;
    for (;;) {
        const std::size_t dot = dotted.find('.', start);
        const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!node->is_object() || !node->contains(key))
            return nullptr;
        node = &(*node)[key];
        if (dot == std::string::npos)
            return node;
        start = dot + 1;
    }
}

QString listText(const nlohmann::json &value)
{
    QStringList parts;
    for (const nlohmann::json &item : value)
        parts << (item.is_string() ? QString::fromStdString(item.get<std::string>()) : QString::fromStdString(item.dump()));
    return parts.join(QStringLiteral(", "));
}


// The fields a newcomer sets, in this order at the top of the form (the chosen schedule's own
// fields follow the schedule).
const QStringList kBasicFields = {QStringLiteral("optimizer.epochs"), QStringLiteral("optimizer.batch_size"),
                                  QStringLiteral("optimizer.lr"), QStringLiteral("optimizer.name"),
                                  QStringLiteral("schedule.name")};

// The groups in the order they are shown: the basic ones, then the advanced ones.
const QStringList kGroupOrder = {QStringLiteral("basic"),          QStringLiteral("run"),
                                 QStringLiteral("optimizer"),      QStringLiteral("warmup"),
                                 QStringLiteral("loss"),           QStringLiteral("early_stopping"),
                                 QStringLiteral("ema"),            QStringLiteral("checkpoints"),
                                 QStringLiteral("data"),           QStringLiteral("feature_cache"),
                                 QStringLiteral("cuda"),           QStringLiteral("reproducibility"),
                                 QStringLiteral("distributed")};

// The group of a field: "basic" (training length, rate and schedule), "run" (precision and
// devices), else its section's (but warm-up, in front of any schedule, and the seed, as "run" is
// shown at the top, have groups of their own).
QString groupKey(const QString &field, const QString &section)
{
    if (field.startsWith(QLatin1String("schedule.warmup")))
        return QStringLiteral("warmup");
    if (kBasicFields.contains(field) || section == QLatin1String("schedule"))
        return QStringLiteral("basic");
    if (field == QLatin1String("precision") || field == QLatin1String("devices") ||
        field == QLatin1String("distributed.sync_batch_norm"))
        return QStringLiteral("run");
    if (section == QLatin1String("run"))
        return QStringLiteral("reproducibility");
    return section;
}

// When a field applies: every rule naming it holds. A rule looks at another field (the
// controller): its text is one of values (or, with except, none of them); without values, the
// controller is checked or a number above `above`. Read from the engine's code: the optimizer
// factory (momentum for sgd and rmsprop, ...), the schedule (warm-up in front of any schedule but
// one_cycle), the loss, early stopping, EMA, the feature cache and the distributed setup.
struct Rule
{
    const char *field;
    const char *controller;
    QStringList values = {};
    bool except = false;
    double above = 0;
};

const std::vector<Rule> &fieldRules()
{
    const auto names = [](std::initializer_list<const char *> list) {
        QStringList out;
        for (const char *name : list)
            out << QLatin1String(name);
        return out;
    };
    static const std::vector<Rule> rules = {
        {"optimizer.momentum", "optimizer.name", names({"sgd", "rmsprop"})},
        {"optimizer.nesterov", "optimizer.name", names({"sgd"})},
        {"optimizer.betas", "optimizer.name", names({"adamw"})},
        {"optimizer.eps", "optimizer.name", names({"adamw", "rmsprop"})},
        {"optimizer.alpha", "optimizer.name", names({"rmsprop"})},
        {"loss.focal_gamma", "loss.name", names({"focal"})},
        {"schedule.warmup_epochs", "schedule.name", names({"one_cycle"}), true},
        {"schedule.warmup_start_factor", "schedule.name", names({"one_cycle"}), true},
        {"schedule.warmup_start_factor", "schedule.warmup_epochs"},
        {"schedule.step_size", "schedule.name", names({"step"})},
        {"schedule.milestones", "schedule.name", names({"multi_step"})},
        {"schedule.gamma", "schedule.name", names({"step", "multi_step", "exponential"})},
        {"schedule.min_lr", "schedule.name", names({"cosine", "cosine_restarts"})},
        {"schedule.restart_epochs", "schedule.name", names({"cosine_restarts"})},
        {"schedule.restart_multiplier", "schedule.name", names({"cosine_restarts"})},
        {"schedule.max_lr", "schedule.name", names({"one_cycle"})},
        {"schedule.pct_start", "schedule.name", names({"one_cycle"})},
        {"schedule.div_factor", "schedule.name", names({"one_cycle"})},
        {"schedule.final_div_factor", "schedule.name", names({"one_cycle"})},
        {"schedule.plateau_metric", "schedule.name", names({"plateau"})},
        {"schedule.plateau_factor", "schedule.name", names({"plateau"})},
        {"schedule.plateau_patience", "schedule.name", names({"plateau"})},
        {"schedule.plateau_threshold", "schedule.name", names({"plateau"})},
        {"early_stopping.metric", "early_stopping.enabled"},
        {"early_stopping.patience", "early_stopping.enabled"},
        {"early_stopping.min_delta", "early_stopping.enabled"},
        {"ema.decay", "ema.enabled"},
        {"feature_cache.views", "feature_cache.mode", names({"fixed_views"})},
        {"distributed.node_rank", "distributed.nnodes", {}, false, 1},
        {"distributed.master", "distributed.nnodes", {}, false, 1},
        {"distributed.sync_batch_norm", "devices", {}, false, 1}, // several ranks on this machine
        {"distributed.timeout_seconds", "distributed.nnodes", {}, false, 1},
        {"model.freeze.frozen_stages", "model.freeze.policy", names({"up_to_stage"})},
    };
    return rules;
}

} // namespace

RunConfigForm::RunConfigForm(const QStringList &sections, QWidget *parent)
    : QWidget(parent)
    , m_error(new QLabel(this))
    , m_basicGrid(new QGridLayout)
    , m_advancedGrid(new QGridLayout)
    , m_advanced(new QWidget(this))
    , m_advancedToggle(new QToolButton(this))
{
    m_error->setObjectName(QStringLiteral("fieldError"));
    m_error->setWordWrap(true);
    m_error->setVisible(false);
    m_advancedToggle->setObjectName(QStringLiteral("advancedToggle"));
    m_advancedToggle->setText(tr("Advanced settings"));
    m_advancedToggle->setToolTip(tr("Optimiser details, warm-up, loss, early stopping, weight averaging, checkpoints, "
                                    "data loading and the seed."));
    m_advancedToggle->setCheckable(true);
    m_advancedToggle->setAutoRaise(true);
    m_advancedToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_advancedToggle->setArrowType(Qt::RightArrow);

    // The schema's fields in its order, the basic ones first in theirs.
    std::vector<nlohmann::json> fields;
    for (const nlohmann::json &field : engine::runConfigSchema())
        fields.push_back(field);
    const auto rank = [](const nlohmann::json &field) {
        const qsizetype i = kBasicFields.indexOf(QString::fromStdString(field.value("field", std::string())));
        return i < 0 ? kBasicFields.size() : i;
    };
    std::stable_sort(fields.begin(), fields.end(),
                     [&](const nlohmann::json &a, const nlohmann::json &b) { return rank(a) < rank(b); });
    for (const nlohmann::json &field : fields) {
        const QString name = QString::fromStdString(field.value("field", std::string()));
        const QString section = name.contains(QLatin1Char('.')) ? name.section(QLatin1Char('.'), 0, 0) : QStringLiteral("run");
        // The format version is not a setting; the shards and image size have the Train page's own
        // controls (a dataset picker, a size with the backbone's default).
        if ((!sections.contains(section) && !sections.contains(name)) || name == QLatin1String("version") ||
            name == QLatin1String("data.shards") ||
            name == QLatin1String("data.image_size"))
            continue;
        const std::string type = field.value("type", std::string());
        if (type.rfind("object", 0) == 0 || type == "array of augmentations")
            continue; // edited on their own pages (stage multipliers, augmentation list)
        QWidget *editor = makeEditor(field);
        if (!editor)
            continue;
        Group &g = group(groupKey(name, section));
        editor->setToolTip(QCoreApplication::translate("RunConfigSchema", field.value("description", std::string()).c_str()));
        g.form->addRow(fieldLabel(name), editor);
        g.fields << name;
        if (g.advanced)
            m_advancedFields << name;
        m_editors.insert(name, editor);
        m_schema.insert(name, field);
        m_fields << name;
    }
    const auto order = [](const Group &g) {
        const qsizetype i = kGroupOrder.indexOf(g.key);
        return i < 0 ? kGroupOrder.size() : i;
    };
    std::stable_sort(m_groups.begin(), m_groups.end(), [&](const Group &a, const Group &b) { return order(a) < order(b); });

    auto *advancedLayout = new QVBoxLayout(m_advanced);
    advancedLayout->setContentsMargins(0, 0, 0, 0);
    advancedLayout->addLayout(m_advancedGrid);
    m_advanced->setVisible(false);
    m_advancedToggle->setVisible(!m_advancedFields.isEmpty());
    connect(m_advancedToggle, &QToolButton::toggled, this, [this](bool open) {
        m_advancedToggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_advanced->setVisible(open);
        updateGeometry(); // another height
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_basicGrid);
    layout->addWidget(m_advancedToggle, 0, Qt::AlignLeft);
    layout->addWidget(m_advanced);
    layout->addWidget(m_error);
    layout->setSizeConstraint(QLayout::SetNoConstraint); // minimumSizeHint() below decides
    setValues(engine::runConfigToJson(engine::RunConfig()));
    reflow(true);
}

RunConfigForm::Group &RunConfigForm::group(const QString &key)
{
    for (Group &g : m_groups)
        if (g.key == key)
            return g;
    Group g;
    g.key = key;
    g.advanced = key != QLatin1String("basic") && key != QLatin1String("run");
    g.box = new QGroupBox(sectionTitle(key).replace(QLatin1Char('&'), QStringLiteral("&&")), g.advanced ? m_advanced : this);
    g.form = new QFormLayout(g.box);
    g.form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_groups << g;
    return m_groups.back();
}

void RunConfigForm::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    reflow();
}

int RunConfigForm::widestGroup() const
{
    int widest = 1;
    for (const Group &g : m_groups)
        widest = std::max(widest, g.box->minimumSizeHint().width());
    return widest;
}

QSize RunConfigForm::minimumSizeHint() const
{
    return {widestGroup(), layout()->minimumSize().height()};
}

QSize RunConfigForm::sizeHint() const
{
    return {widestGroup(), layout()->sizeHint().height()};
}

void RunConfigForm::reflow(bool force)
{
    const int widest = widestGroup();
    const int spacing = std::max(0, m_basicGrid->horizontalSpacing());
    const int columns = std::clamp((width() + spacing) / (widest + spacing), 1, 3);
    if (columns == m_columns && !force)
        return;
    m_columns = columns;
    for (QGridLayout *grid : {m_basicGrid, m_advancedGrid}) {
        const bool advanced = grid == m_advancedGrid;
        int i = 0;
        for (const Group &g : std::as_const(m_groups)) {
            if (g.advanced != advanced)
                continue;
            grid->removeWidget(g.box);
            if (g.shown) {
                grid->addWidget(g.box, i / columns, i % columns, Qt::AlignTop);
                ++i;
            }
        }
        for (int c = 0; c < 3; ++c)
            grid->setColumnStretch(c, c < columns ? 1 : 0);
    }
    updateGeometry(); // another height
}

bool RunConfigForm::applies(const QString &field) const
{
    for (const Rule &rule : fieldRules()) {
        const QString controller = QLatin1String(rule.controller);
        if (field != QLatin1String(rule.field) || !m_editors.contains(controller))
            continue;
        const nlohmann::json value = editorValue(controller);
        bool holds = false;
        if (!rule.values.isEmpty())
            holds = value.is_string() &&
                    rule.values.contains(QString::fromStdString(value.get<std::string>())) != rule.except;
        else if (value.is_boolean())
            holds = value.get<bool>();
        else if (value.is_array())
            holds = double(value.size()) > rule.above;
        else
            holds = value.is_number() && value.get<double>() > rule.above;
        if (!holds)
            return false;
    }
    return true;
}

bool RunConfigForm::isFieldShown(const QString &field) const
{
    return m_editors.contains(field) && m_shown.value(field, true);
}

bool RunConfigForm::isAdvancedExpanded() const
{
    return m_advancedToggle->isChecked();
}

void RunConfigForm::updateShownFields()
{
    bool groupsChanged = false;
    for (Group &g : m_groups) {
        bool any = false;
        for (const QString &field : std::as_const(g.fields)) {
            const bool shown = applies(field);
            m_shown.insert(field, shown);
            g.form->setRowVisible(m_editors.value(field), shown);
            any = any || shown;
        }
        if (any != g.shown) {
            g.shown = any;
            g.box->setVisible(any);
            groupsChanged = true;
        }
    }
    if (groupsChanged)
        reflow(true);
}

QWidget *RunConfigForm::makeEditor(const nlohmann::json &field)
{
    const std::string type = field.value("type", std::string());
    if (field.value("field", std::string()) == "devices") {
        m_devices = new DevicePicker(this);
        connect(m_devices, &DevicePicker::changed, this, &RunConfigForm::edited);
        return m_devices;
    }
    if (type == "boolean") {
        auto *box = new QCheckBox(this);
        connect(box, &QCheckBox::toggled, this, &RunConfigForm::edited);
        return box;
    }
    if (field.contains("allowed") && field["allowed"].is_array()) {
        auto *combo = new QComboBox(this);
        for (const nlohmann::json &v : field["allowed"]) {
            const QString option = QString::fromStdString(v.get<std::string>());
            combo->addItem(optionLabel(option), option);
        }
        connect(combo, &QComboBox::currentIndexChanged, this, &RunConfigForm::edited);
        return combo;
    }
    if (type == "integer") {
        auto *spin = new QSpinBox(this);
        const auto bound = [&](const char *key, long long fallback) {
            return field.contains(key) && field[key].is_number() ? field[key].get<long long>() : fallback;
        };
        spin->setRange(int(std::max<long long>(bound("min", 0), std::numeric_limits<int>::min())),
                       int(std::min<long long>(bound("max", std::numeric_limits<int>::max()), std::numeric_limits<int>::max())));
        connect(spin, &QSpinBox::valueChanged, this, &RunConfigForm::edited);
        return spin;
    }
    // Numbers (1e-8 to 1e4 and more), strings and lists: typed as text, checked by the parser.
    auto *line = new QLineEdit(this);
    if (type.rfind("array", 0) == 0)
        line->setPlaceholderText(tr("comma-separated"));
    connect(line, &QLineEdit::editingFinished, this, &RunConfigForm::edited);
    return line;
}

nlohmann::json RunConfigForm::editorValue(const QString &field) const
{
    QWidget *editor = m_editors.value(field);
    const std::string type = m_schema.value(field).value("type", std::string());
    if (auto *devices = qobject_cast<DevicePicker *>(editor))
        return devices->value();
    if (auto *box = qobject_cast<QCheckBox *>(editor))
        return box->isChecked();
    if (auto *combo = qobject_cast<QComboBox *>(editor))
        return combo->currentData().toString().toStdString();
    if (auto *spin = qobject_cast<QSpinBox *>(editor))
        return spin->value();
    const QString text = qobject_cast<QLineEdit *>(editor)->text().trimmed();
    if (type == "number") {
        bool ok = false;
        const double v = QLocale::c().toDouble(text, &ok);
        return ok ? nlohmann::json(v) : nlohmann::json(text.toStdString()); // the parser names the field
    }
    if (type.rfind("array", 0) == 0) {
        nlohmann::json list = nlohmann::json::array();
        for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QString item = part.trimmed();
            bool ok = false;
            const double v = QLocale::c().toDouble(item, &ok);
            if (type.find("string") != std::string::npos || !ok)
                list.push_back(item.toStdString());
            else if (type.find("integer") != std::string::npos && v == double(qint64(v)))
                list.push_back(qint64(v));
            else
                list.push_back(v);
        }
        return list;
    }
    return text.toStdString();
}

void RunConfigForm::setEditorValue(const QString &field, const nlohmann::json &value)
{
    QWidget *editor = m_editors.value(field);
    if (auto *devices = qobject_cast<DevicePicker *>(editor))
        devices->setValue(value);
    else if (auto *box = qobject_cast<QCheckBox *>(editor))
        box->setChecked(value.is_boolean() && value.get<bool>());
    else if (auto *combo = qobject_cast<QComboBox *>(editor))
        combo->setCurrentIndex(combo->findData(QString::fromStdString(value.is_string() ? value.get<std::string>() : std::string())));
    else if (auto *spin = qobject_cast<QSpinBox *>(editor))
        spin->setValue(value.is_number() ? value.get<int>() : 0);
    else if (auto *line = qobject_cast<QLineEdit *>(editor))
        line->setText(value.is_array()    ? listText(value)
                      : value.is_string() ? QString::fromStdString(value.get<std::string>())
                                          : QString::fromStdString(value.dump()));
}

nlohmann::json RunConfigForm::values() const
{
    return m_accepted;
}

void RunConfigForm::setValues(const nlohmann::json &config)
{
    m_updating = true;
    for (const QString &field : m_fields)
        if (const nlohmann::json *value = getPath(config, field.toStdString()))
            setEditorValue(field, *value);
    m_updating = false;
    edited();
}

QString RunConfigForm::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void RunConfigForm::edited()
{
    if (m_updating)
        return;
    updateShownFields();
    nlohmann::json candidate = nlohmann::json::object();
    for (const QString &field : m_fields)
        setPath(candidate, field.toStdString(), editorValue(field));
    try {
        engine::parseRunConfig(candidate); // field by field; cross-field rules are checked at Start
    } catch (const engine::EngineError &e) {
        m_error->setText(QString::fromUtf8(e.what()));
        m_error->setVisible(true);
        return;
    }
    m_error->setVisible(false);
    if (candidate == m_accepted)
        return;
    m_accepted = candidate;
    Q_EMIT valuesChanged();
}

QString RunConfigForm::sectionTitle(const QString &section)
{
    static const QHash<QString, const char *> titles = {
        {QStringLiteral("basic"), QT_TR_NOOP("Training")},
        {QStringLiteral("run"), QT_TR_NOOP("Precision & devices")},
        {QStringLiteral("reproducibility"), QT_TR_NOOP("Reproducibility")},
        {QStringLiteral("warmup"), QT_TR_NOOP("Learning-rate warm-up")},
        {QStringLiteral("optimizer"), QT_TR_NOOP("Optimisation")},
        {QStringLiteral("loss"), QT_TR_NOOP("Loss")},
        {QStringLiteral("schedule"), QT_TR_NOOP("Learning-rate schedule")},
        {QStringLiteral("checkpoints"), QT_TR_NOOP("Checkpoints")},
        {QStringLiteral("early_stopping"), QT_TR_NOOP("Early stopping")},
        {QStringLiteral("ema"), QT_TR_NOOP("Weight averaging (EMA)")},
        {QStringLiteral("feature_cache"), QT_TR_NOOP("Feature cache")},
        {QStringLiteral("cuda"), QT_TR_NOOP("NVIDIA GPUs")},
        {QStringLiteral("distributed"), QT_TR_NOOP("Several machines")},
        {QStringLiteral("data"), QT_TR_NOOP("Data")},
    };
    const char *title = titles.value(section);
    return title ? tr(title) : section;
}

QString RunConfigForm::optionLabel(const QString &option)
{
    static const QHash<QString, const char *> labels = {
        {QStringLiteral("sgd"), QT_TR_NOOP("SGD")},
        {QStringLiteral("adamw"), QT_TR_NOOP("AdamW")},
        {QStringLiteral("rmsprop"), QT_TR_NOOP("RMSprop")},
        {QStringLiteral("cross_entropy"), QT_TR_NOOP("Cross-entropy")},
        {QStringLiteral("focal"), QT_TR_NOOP("Focal")},
        {QStringLiteral("constant"), QT_TR_NOOP("Constant")},
        {QStringLiteral("step"), QT_TR_NOOP("Step")},
        {QStringLiteral("multi_step"), QT_TR_NOOP("Multi-step")},
        {QStringLiteral("exponential"), QT_TR_NOOP("Exponential")},
        {QStringLiteral("cosine"), QT_TR_NOOP("Cosine")},
        {QStringLiteral("cosine_restarts"), QT_TR_NOOP("Cosine with restarts")},
        {QStringLiteral("one_cycle"), QT_TR_NOOP("One-cycle")},
        {QStringLiteral("plateau"), QT_TR_NOOP("Reduce on plateau")},
        {QStringLiteral("val_loss"), QT_TR_NOOP("Validation loss")},
        {QStringLiteral("val_top1"), QT_TR_NOOP("Validation top-1")},
        {QStringLiteral("val_map"), QT_TR_NOOP("Validation mAP (multi-label)")},
        {QStringLiteral("train_loss"), QT_TR_NOOP("Training loss")},
        {QStringLiteral("fp32"), QT_TR_NOOP("FP32")},
        {QStringLiteral("bf16"), QT_TR_NOOP("BF16 (mixed)")},
        {QStringLiteral("fp16"), QT_TR_NOOP("FP16 (mixed)")},
        {QStringLiteral("none"), QT_TR_NOOP("None")},
        {QStringLiteral("class_weights"), QT_TR_NOOP("Class weights")},
        {QStringLiteral("balanced_sampler"), QT_TR_NOOP("Balanced sampler")},
        {QStringLiteral("sqrt_sampler"), QT_TR_NOOP("Square-root sampler")},
        {QStringLiteral("off"), QT_TR_NOOP("Off")},
        {QStringLiteral("on"), QT_TR_NOOP("On")},
        {QStringLiteral("auto"), QT_TR_NOOP("Automatic")},
        {QStringLiteral("fixed_views"), QT_TR_NOOP("Fixed views")},
    };
    const char *label = labels.value(option);
    return label ? tr(label) : option;
}

QString RunConfigForm::fieldLabel(const QString &field)
{
    static const QHash<QString, const char *> labels = {
        {QStringLiteral("precision"), QT_TR_NOOP("Precision:")},
        {QStringLiteral("devices"), QT_TR_NOOP("Devices:")},
        {QStringLiteral("seed"), QT_TR_NOOP("Seed:")},
        {QStringLiteral("data.workers"), QT_TR_NOOP("Pipeline threads:")},
        {QStringLiteral("data.cache_mb"), QT_TR_NOOP("Image cache (MB):")},
        {QStringLiteral("data.channels_last"), QT_TR_NOOP("Channels-last memory:")},
        {QStringLiteral("data.device_normalize"), QT_TR_NOOP("Normalise on the device:")},
        {QStringLiteral("data.balance"), QT_TR_NOOP("Class balance:")},
        {QStringLiteral("data.folds"), QT_TR_NOOP("Cross-validation folds:")},
        {QStringLiteral("data.fold"), QT_TR_NOOP("Held-out fold:")},
        {QStringLiteral("data.train_split"), QT_TR_NOOP("Training split:")},
        {QStringLiteral("data.val_split"), QT_TR_NOOP("Validation split:")},
        {QStringLiteral("optimizer.name"), QT_TR_NOOP("Optimiser:")},
        {QStringLiteral("optimizer.lr"), QT_TR_NOOP("Learning rate:")},
        {QStringLiteral("optimizer.batch_size"), QT_TR_NOOP("Batch size:")},
        {QStringLiteral("optimizer.epochs"), QT_TR_NOOP("Epochs:")},
        {QStringLiteral("optimizer.momentum"), QT_TR_NOOP("Momentum:")},
        {QStringLiteral("optimizer.nesterov"), QT_TR_NOOP("Nesterov:")},
        {QStringLiteral("optimizer.weight_decay"), QT_TR_NOOP("Weight decay:")},
        {QStringLiteral("optimizer.no_decay_norms_and_biases"), QT_TR_NOOP("No decay for norms and biases:")},
        {QStringLiteral("optimizer.betas"), QT_TR_NOOP("Betas (AdamW):")},
        {QStringLiteral("optimizer.eps"), QT_TR_NOOP("Epsilon:")},
        {QStringLiteral("optimizer.alpha"), QT_TR_NOOP("Alpha (RMSprop):")},
        {QStringLiteral("optimizer.clip_grad_norm"), QT_TR_NOOP("Clip gradient norm:")},
        {QStringLiteral("optimizer.accumulate_steps"), QT_TR_NOOP("Accumulate batches:")},
        {QStringLiteral("loss.name"), QT_TR_NOOP("Loss:")},
        {QStringLiteral("loss.label_smoothing"), QT_TR_NOOP("Label smoothing:")},
        {QStringLiteral("loss.focal_gamma"), QT_TR_NOOP("Focal gamma:")},
        {QStringLiteral("schedule.name"), QT_TR_NOOP("Schedule:")},
        {QStringLiteral("schedule.warmup_epochs"), QT_TR_NOOP("Warm-up epochs:")},
        {QStringLiteral("schedule.warmup_start_factor"), QT_TR_NOOP("Warm-up start factor:")},
        {QStringLiteral("schedule.step_size"), QT_TR_NOOP("Step size (epochs):")},
        {QStringLiteral("schedule.milestones"), QT_TR_NOOP("Milestones (epochs):")},
        {QStringLiteral("schedule.gamma"), QT_TR_NOOP("Gamma:")},
        {QStringLiteral("schedule.min_lr"), QT_TR_NOOP("Minimum learning rate:")},
        {QStringLiteral("schedule.restart_epochs"), QT_TR_NOOP("Restart period (epochs):")},
        {QStringLiteral("schedule.restart_multiplier"), QT_TR_NOOP("Period multiplier:")},
        {QStringLiteral("schedule.max_lr"), QT_TR_NOOP("Peak learning rate:")},
        {QStringLiteral("schedule.pct_start"), QT_TR_NOOP("Rising share (one-cycle):")},
        {QStringLiteral("schedule.div_factor"), QT_TR_NOOP("Initial divisor:")},
        {QStringLiteral("schedule.final_div_factor"), QT_TR_NOOP("Final divisor:")},
        {QStringLiteral("schedule.plateau_metric"), QT_TR_NOOP("Plateau metric:")},
        {QStringLiteral("schedule.plateau_factor"), QT_TR_NOOP("Plateau factor:")},
        {QStringLiteral("schedule.plateau_patience"), QT_TR_NOOP("Plateau patience:")},
        {QStringLiteral("schedule.plateau_threshold"), QT_TR_NOOP("Plateau threshold:")},
        {QStringLiteral("checkpoints.every_steps"), QT_TR_NOOP("Every steps:")},
        {QStringLiteral("checkpoints.every_epochs"), QT_TR_NOOP("Every epochs:")},
        {QStringLiteral("checkpoints.keep"), QT_TR_NOOP("Keep last:")},
        {QStringLiteral("checkpoints.best_metric"), QT_TR_NOOP("Best by:")},
        {QStringLiteral("early_stopping.enabled"), QT_TR_NOOP("Stop early:")},
        {QStringLiteral("early_stopping.metric"), QT_TR_NOOP("Metric:")},
        {QStringLiteral("early_stopping.patience"), QT_TR_NOOP("Patience (epochs):")},
        {QStringLiteral("early_stopping.min_delta"), QT_TR_NOOP("Minimum change:")},
        {QStringLiteral("ema.enabled"), QT_TR_NOOP("Average weights:")},
        {QStringLiteral("ema.decay"), QT_TR_NOOP("Decay:")},
        {QStringLiteral("feature_cache.mode"), QT_TR_NOOP("Mode:")},
        {QStringLiteral("feature_cache.views"), QT_TR_NOOP("Augmented views:")},
        {QStringLiteral("cuda.graphs"), QT_TR_NOOP("CUDA graphs:")},
        {QStringLiteral("cuda.host_sync_steps"), QT_TR_NOOP("Read losses every (steps):")},
        {QStringLiteral("distributed.nnodes"), QT_TR_NOOP("Machines:")},
        {QStringLiteral("distributed.node_rank"), QT_TR_NOOP("This machine's rank:")},
        {QStringLiteral("distributed.master"), QT_TR_NOOP("Master (host:port):")},
        {QStringLiteral("distributed.sync_batch_norm"), QT_TR_NOOP("Synchronise BatchNorm:")},
        {QStringLiteral("distributed.timeout_seconds"), QT_TR_NOOP("Timeout (seconds):")},
    };
    const char *label = labels.value(field);
    return label ? tr(label) : field + QLatin1Char(':');
}

} // namespace lathe::ui
