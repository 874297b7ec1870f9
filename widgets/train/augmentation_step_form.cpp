#include "train/augmentation_step_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>
#include <vector>

namespace lathe::ui {
namespace {

using json = nlohmann::json;

// How a parameter is edited: its label, the range and precision of its spin boxes in the
// units shown. The engine's parser has the last word on a value; these only keep the spin
// boxes to sensible values. A parameter without an entry gets wide spin boxes and its name.
struct Hint
{
    const char *type = nullptr; // null: a parameter of that name of any type
    const char *param = "";
    const char *label = nullptr;
    double min = -1e6;
    double max = 1e6;
    int decimals = 3;
    double scale = 1;          // shown = stored × scale
    const char *suffix = "";   // translated
    const char *separator = QT_TRANSLATE_NOOP("AugmentationStepForm", "–"); // between the numbers of a list
    double step = 0;           // 0: the spin box's own
    bool optional = false;     // absent by default; the lowest value leaves it out
    bool randomChoice = false; // the string "random" instead of the numbers
    int count = 0;             // numbers of the list when the value is not one (random)

    Hint range(double low, double high, int places) const
    {
        Hint h = *this;
        h.min = low;
        h.max = high;
        h.decimals = places;
        return h;
    }
    // Fractions shown as percentages (the range in percent).
    Hint percent() const
    {
        Hint h = *this;
        h.scale = 100;
        h.suffix = QT_TRANSLATE_NOOP("AugmentationStepForm", "%");
        return h;
    }
    Hint degrees() const
    {
        Hint h = *this;
        h.suffix = QT_TRANSLATE_NOOP("AugmentationStepForm", "°");
        return h;
    }
    Hint separatedBy(const char *text) const
    {
        Hint h = *this;
        h.separator = text;
        return h;
    }
    Hint stepping(double by) const
    {
        Hint h = *this;
        h.step = by;
        return h;
    }
};

Hint hint(const char *type, const char *param, const char *label)
{
    Hint h;
    h.type = type;
    h.param = param;
    h.label = label;
    return h;
}

// In the order the form shows them; a type's own entries before the entries for any type.
const std::vector<Hint> &hints()
{
    static const std::vector<Hint> table = [] {
        const char *times = QT_TRANSLATE_NOOP("AugmentationStepForm", "×");
        const char *comma = QT_TRANSLATE_NOOP("AugmentationStepForm", ",");
        Hint size = hint("resize", "size", QT_TRANSLATE_NOOP("AugmentationStepForm", "Short side:")).range(0, 16384, 0);
        size.suffix = QT_TRANSLATE_NOOP("AugmentationStepForm", " px");
        size.optional = true;
        const char *valueLabel = QT_TRANSLATE_NOOP("AugmentationStepForm", "Value (normalised RGB):");
        Hint value = hint("random_erasing", "value", valueLabel).range(-10, 10, 2).separatedBy(comma).stepping(0.1);
        value.randomChoice = true;
        value.count = 3;
        return std::vector<Hint>{
            hint("random_resized_crop", "scale", QT_TRANSLATE_NOOP("AugmentationStepForm", "Area (scale):"))
                .range(0.1, 100, 1).percent(),
            hint("random_resized_crop", "ratio", QT_TRANSLATE_NOOP("AugmentationStepForm", "Aspect ratio:"))
                .range(0.01, 100, 3).stepping(0.05),
            size,
            hint("rotation", "degrees", QT_TRANSLATE_NOOP("AugmentationStepForm", "Angle:"))
                .range(-180, 180, 1).degrees(),
            hint("affine", "degrees", QT_TRANSLATE_NOOP("AugmentationStepForm", "Angle:"))
                .range(-180, 180, 1).degrees(),
            hint("affine", "translate", QT_TRANSLATE_NOOP("AugmentationStepForm", "Shift (x, y):"))
                .range(0, 100, 1).percent().separatedBy(times),
            hint("affine", "scale", QT_TRANSLATE_NOOP("AugmentationStepForm", "Scale:")).range(1, 1000, 0).percent(),
            hint("affine", "shear", QT_TRANSLATE_NOOP("AugmentationStepForm", "Shear (x range, y range):"))
                .range(-89.9, 89.9, 1).degrees().separatedBy(comma),
            hint("color_jitter", "brightness", QT_TRANSLATE_NOOP("AugmentationStepForm", "Brightness:"))
                .range(0, 1000, 0).percent(),
            hint("color_jitter", "contrast", QT_TRANSLATE_NOOP("AugmentationStepForm", "Contrast:"))
                .range(0, 1000, 0).percent(),
            hint("color_jitter", "saturation", QT_TRANSLATE_NOOP("AugmentationStepForm", "Saturation:"))
                .range(0, 1000, 0).percent(),
            hint("color_jitter", "hue", QT_TRANSLATE_NOOP("AugmentationStepForm", "Hue:"))
                .range(-0.5, 0.5, 2).stepping(0.05),
            hint("gaussian_blur", "kernel_size", QT_TRANSLATE_NOOP("AugmentationStepForm", "Kernel (odd sizes):"))
                .range(1, 255, 0).separatedBy(times).stepping(2),
            hint("gaussian_blur", "sigma", QT_TRANSLATE_NOOP("AugmentationStepForm", "Sigma:"))
                .range(0.01, 100, 2).stepping(0.1),
            hint("sharpness", "sharpness_factor", QT_TRANSLATE_NOOP("AugmentationStepForm", "Factor:"))
                .range(0, 100, 2).stepping(0.1),
            hint("posterize", "bits", QT_TRANSLATE_NOOP("AugmentationStepForm", "Bits kept:")).range(0, 8, 0),
            hint("solarize", "threshold", QT_TRANSLATE_NOOP("AugmentationStepForm", "Threshold:")).range(0, 255, 0),
            hint("rand_augment", "num_ops", QT_TRANSLATE_NOOP("AugmentationStepForm", "Operations:")).range(0, 16, 0),
            hint("rand_augment", "magnitude", QT_TRANSLATE_NOOP("AugmentationStepForm", "Magnitude:")).range(0, 999, 0),
            hint("gaussian_noise", "sigma", QT_TRANSLATE_NOOP("AugmentationStepForm", "Sigma:"))
                .range(0, 10, 3).stepping(0.01),
            hint("gaussian_noise", "mean", QT_TRANSLATE_NOOP("AugmentationStepForm", "Mean:"))
                .range(-10, 10, 3).stepping(0.01),
            hint("gaussian_noise", "clip", QT_TRANSLATE_NOOP("AugmentationStepForm", "Clip to 0–1:")),
            hint("random_erasing", "scale", QT_TRANSLATE_NOOP("AugmentationStepForm", "Area (scale):"))
                .range(0.1, 100, 1).percent(),
            hint("random_erasing", "ratio", QT_TRANSLATE_NOOP("AugmentationStepForm", "Aspect ratio:"))
                .range(0.01, 100, 2).stepping(0.1),
            value,
            hint(nullptr, "num_magnitude_bins", QT_TRANSLATE_NOOP("AugmentationStepForm", "Magnitude bins:"))
                .range(2, 1000, 0),
            hint(nullptr, "alpha", QT_TRANSLATE_NOOP("AugmentationStepForm", "Alpha:"))
                .range(0.01, 100, 2).stepping(0.1),
            hint(nullptr, "fill", QT_TRANSLATE_NOOP("AugmentationStepForm", "Fill (RGB):"))
                .range(0, 255, 0).separatedBy(comma),
            hint(nullptr, "interpolation", QT_TRANSLATE_NOOP("AugmentationStepForm", "Interpolation:")),
        };
    }();
    return table;
}

// Index of a parameter's hint in hints() (its place in the form), or the table's size.
std::size_t hintIndex(const QString &type, const QString &param)
{
    const std::vector<Hint> &all = hints();
    const auto it = std::find_if(all.begin(), all.end(), [&](const Hint &h) {
        return param == QLatin1String(h.param) && (!h.type || type == QLatin1String(h.type));
    });
    return std::size_t(it - all.begin());
}

const Hint &hintFor(const QString &type, const QString &param)
{
    static const Hint fallback;
    const std::size_t i = hintIndex(type, param);
    return i < hints().size() ? hints()[i] : fallback;
}

// Steps whose p must be 1: the engine always applies a fixed geometry.
bool alwaysApplied(const QString &type)
{
    return type == QLatin1String("resize") || type == QLatin1String("center_crop");
}

} // namespace

AugmentationStepForm::AugmentationStepForm(QWidget *parent)
    : QWidget(parent)
    , m_form(new QFormLayout(this))
    , m_probability(new QDoubleSpinBox(this))
{
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint); // spin boxes as wide as their numbers
    m_probability->setObjectName(QStringLiteral("augmentationProbability"));
    m_probability->setRange(0, 100);
    m_probability->setDecimals(0);
    m_probability->setSingleStep(5);
    m_probability->setSuffix(tr("%"));
    m_probability->setKeyboardTracking(false);
    m_probability->setToolTip(tr("Chance that the step is applied to an image (torchvision's p)."));
    m_form->addRow(tr("Probability:"), m_probability);
    connect(m_probability, &QDoubleSpinBox::valueChanged, this, [this](double percent) {
        if (m_updating || !m_step.contains("type"))
            return;
        m_step["p"] = percent / 100;
        Q_EMIT stepEdited(m_step);
    });
    setStep({});
}

void AugmentationStepForm::setStep(const json &step)
{
    m_updating = true;
    while (m_form->rowCount() > 1)
        m_form->removeRow(1);
    m_editors.clear();
    m_random.clear();
    m_scale.clear();
    m_optional.clear();
    m_step = step.is_object() ? step : json::object();
    const QString type = QString::fromStdString(m_step.value("type", std::string()));
    m_probability->setEnabled(!type.isEmpty() && !alwaysApplied(type));
    m_probability->setValue(m_step.value("p", 1.0) * 100);
    if (!type.isEmpty()) {
        QStringList names;
        for (const auto &[name, value] : m_step.items())
            if (name != "type" && name != "p")
                names << QString::fromStdString(name);
        for (const Hint &h : hints())
            if (h.optional && h.type && type == QLatin1String(h.type) && !names.contains(QLatin1String(h.param)))
                names << QLatin1String(h.param);
        std::stable_sort(names.begin(), names.end(),
                         [&](const QString &a, const QString &b) { return hintIndex(type, a) < hintIndex(type, b); });
        for (const QString &name : names) {
            const std::string key = name.toStdString();
            addParameter(type, name, m_step.contains(key) ? m_step[key] : json());
        }
    }
    m_updating = false;
}

void AugmentationStepForm::addParameter(const QString &type, const QString &name, const json &value)
{
    const Hint &hint = hintFor(type, name);
    const QString label = hint.label ? tr(hint.label) : name + QLatin1Char(':');
    QList<QWidget *> editors;
    if (value.is_boolean()) {
        auto *box = new QCheckBox(this);
        box->setChecked(value.get<bool>());
        connect(box, &QCheckBox::toggled, this, [this, name] { edited(name); });
        editors << box;
        m_form->addRow(label, box);
        m_editors.insert(name, editors);
        return;
    }
    if (value.is_string() && !hint.randomChoice) {
        auto *combo = new QComboBox(this);
        if (name == QLatin1String("interpolation")) {
            combo->addItem(tr("Nearest"), QStringLiteral("nearest"));
            combo->addItem(tr("Bilinear"), QStringLiteral("bilinear"));
        }
        const QString current = QString::fromStdString(value.get<std::string>());
        if (combo->findData(current) < 0)
            combo->addItem(current, current);
        combo->setCurrentIndex(combo->findData(current));
        connect(combo, &QComboBox::currentIndexChanged, this, [this, name] { edited(name); });
        editors << combo;
        m_form->addRow(label, combo);
        m_editors.insert(name, editors);
        return;
    }

    // Numbers: one spin box each.
    json numbers = value.is_array() ? value : value.is_number() ? json::array({value}) : json::array();
    const bool random = hint.randomChoice && value.is_string();
    while (int(numbers.size()) < std::max(1, hint.count))
        numbers.push_back(0.0); // a left-out value (resize's size) or "random": zeros to start from
    const bool integers = hint.optional || std::all_of(numbers.begin(), numbers.end(),
                                                       [](const json &n) { return n.is_number_integer(); });
    auto *row = new QWidget(this);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    if (hint.randomChoice) {
        auto *box = new QCheckBox(tr("Random"), row);
        box->setToolTip(tr("Erase with random values instead of the values given."));
        box->setChecked(random);
        m_random.insert(name, box);
        layout->addWidget(box);
    }
    for (std::size_t i = 0; i < numbers.size(); ++i) {
        if (i > 0)
            layout->addWidget(new QLabel(tr(hint.separator), row));
        const double shown = (numbers[i].is_number() ? numbers[i].get<double>() : 0) * hint.scale;
        QAbstractSpinBox *spin = nullptr;
        if (integers) {
            auto *s = new QSpinBox(row);
            s->setRange(int(std::min(hint.min, shown)), int(std::max(hint.max, shown)));
            if (hint.step > 0)
                s->setSingleStep(int(hint.step));
            s->setSuffix(*hint.suffix ? tr(hint.suffix) : QString());
            if (hint.optional)
                s->setSpecialValueText(tr("image size"));
            s->setValue(int(shown));
            connect(s, &QSpinBox::valueChanged, this, [this, name] { edited(name); });
            spin = s;
        } else {
            auto *s = new QDoubleSpinBox(row);
            s->setDecimals(hint.decimals);
            s->setRange(std::min(hint.min, shown), std::max(hint.max, shown));
            if (hint.step > 0)
                s->setSingleStep(hint.step);
            s->setSuffix(*hint.suffix ? tr(hint.suffix) : QString());
            s->setValue(shown);
            connect(s, &QDoubleSpinBox::valueChanged, this, [this, name] { edited(name); });
            spin = s;
        }
        spin->setKeyboardTracking(false); // a value once typed, not every keystroke on the way
        spin->setEnabled(!random);
        layout->addWidget(spin);
        editors << spin;
    }
    layout->addStretch(1);
    if (QCheckBox *box = m_random.value(name))
        connect(box, &QCheckBox::toggled, this, [this, name, editors](bool on) {
            for (QWidget *editor : editors)
                editor->setEnabled(!on);
            edited(name);
        });
    m_scale.insert(name, hint.scale);
    m_optional.insert(name, hint.optional);
    m_form->addRow(label, row);
    m_editors.insert(name, editors);
}

QWidget *AugmentationStepForm::parameterEditor(const QString &param, int component) const
{
    return m_editors.value(param).value(component);
}

json AugmentationStepForm::editedValue(const QString &name) const
{
    const QList<QWidget *> editors = m_editors.value(name);
    if (QCheckBox *random = m_random.value(name); random && random->isChecked())
        return "random";
    if (auto *box = qobject_cast<QCheckBox *>(editors.value(0)))
        return box->isChecked();
    if (auto *combo = qobject_cast<QComboBox *>(editors.value(0)))
        return combo->currentData().toString().toStdString();
    json numbers = json::array();
    for (QWidget *editor : editors) {
        if (auto *spin = qobject_cast<QSpinBox *>(editor))
            numbers.push_back(spin->value());
        else if (auto *spin = qobject_cast<QDoubleSpinBox *>(editor))
            numbers.push_back(spin->value() / m_scale.value(name, 1));
    }
    if (numbers.size() != 1)
        return numbers;
    if (m_optional.value(name) && numbers[0] == 0)
        return nullptr;
    return numbers[0];
}

void AugmentationStepForm::edited(const QString &name)
{
    if (m_updating)
        return;
    const json value = editedValue(name);
    if (value.is_null())
        m_step.erase(name.toStdString());
    else
        m_step[name.toStdString()] = value;
    Q_EMIT stepEdited(m_step);
}

} // namespace lathe::ui
