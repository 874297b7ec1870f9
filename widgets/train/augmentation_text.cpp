#include "train/augmentation_text.h"

#include <QHash>
#include <QLocale>
#include <QStringList>

#include <cmath>
#include <functional>

namespace lathe::ui {
namespace {

using json = nlohmann::json;
using Parts = QStringList;

double at(const json &params, const char *name, std::size_t i, double fallback = 0)
{
    const json *v = params.contains(name) ? &params[name] : nullptr;
    if (!v || !v->is_array() || v->size() <= i || !(*v)[i].is_number())
        return fallback;
    return (*v)[i].get<double>();
}

double scalar(const json &params, const char *name, double fallback = 0)
{
    return params.contains(name) && params[name].is_number() ? params[name].get<double>() : fallback;
}

QString percent(double fraction)
{
    return AugmentationText::number(fraction * 100);
}

// [lo, hi] of fractions as "8–100%", or "50%" when both are the same.
QString percentRange(const json &params, const char *name)
{
    const double lo = at(params, name, 0), hi = at(params, name, 1);
    return lo == hi ? AugmentationText::tr("%1%").arg(percent(lo))
                    : AugmentationText::tr("%1–%2%").arg(percent(lo), percent(hi));
}

QString numberRange(double lo, double hi)
{
    return lo == hi ? AugmentationText::number(lo)
                    : AugmentationText::tr("%1–%2").arg(AugmentationText::number(lo), AugmentationText::number(hi));
}

// Angles: "±15°" when symmetric, else "-10° to 20°".
QString degreeRange(double lo, double hi)
{
    if (lo == -hi)
        return AugmentationText::tr("±%1°").arg(AugmentationText::number(hi));
    return AugmentationText::tr("%1° to %2°").arg(AugmentationText::number(lo), AugmentationText::number(hi));
}

// An aspect ratio as a fraction of small integers where it is one (0.75 -> "3:4"), else a number.
QString ratio(double value)
{
    for (int q = 1; q <= 10; ++q) {
        const double p = std::round(value * q);
        if (p >= 1 && std::abs(p / q - value) <= 1e-3 * value)
            return QStringLiteral("%1:%2").arg(qint64(p)).arg(q);
    }
    return AugmentationText::number(value);
}

QString ratioRange(const json &params, const char *name)
{
    const double lo = at(params, name, 0), hi = at(params, name, 1);
    return lo == hi ? ratio(lo) : AugmentationText::tr("%1–%2").arg(ratio(lo), ratio(hi));
}

// The interpolation and fill of geometric steps, where they are not the defaults (nearest, black).
void addResampling(const json &params, Parts &parts)
{
    if (params.value("interpolation", std::string()) == "bilinear")
        parts << AugmentationText::tr("bilinear");
    const double r = at(params, "fill", 0), g = at(params, "fill", 1), b = at(params, "fill", 2);
    if (r != 0 || g != 0 || b != 0)
        parts << AugmentationText::tr("fill %1, %2, %3")
                     .arg(AugmentationText::number(r), AugmentationText::number(g), AugmentationText::number(b));
}

// The parts of a step's sentence after its name (without the probability), one function per type.
using Describe = std::function<Parts(const json &params)>;

const QHash<QString, Describe> &describers()
{
    using T = AugmentationText;
    static const QHash<QString, Describe> table = {
        {QStringLiteral("random_resized_crop"),
         [](const json &q) {
             return Parts{T::tr("scale %1").arg(percentRange(q, "scale")), T::tr("ratio %1").arg(ratioRange(q, "ratio"))};
         }},
        {QStringLiteral("resize"),
         [](const json &q) {
             return Parts{q.contains("size") ? T::tr("short side %1 px").arg(T::number(scalar(q, "size")))
                                             : T::tr("short side to suit the image size")};
         }},
        {QStringLiteral("center_crop"), [](const json &) { return Parts{T::tr("a square of the image size")}; }},
        {QStringLiteral("rotation"),
         [](const json &q) {
             Parts parts{T::tr("angle %1").arg(degreeRange(at(q, "degrees", 0), at(q, "degrees", 1)))};
             addResampling(q, parts);
             return parts;
         }},
        {QStringLiteral("affine"),
         [](const json &q) {
             Parts parts;
             if (at(q, "degrees", 0) != 0 || at(q, "degrees", 1) != 0)
                 parts << T::tr("rotate %1").arg(degreeRange(at(q, "degrees", 0), at(q, "degrees", 1)));
             if (at(q, "translate", 0) != 0 || at(q, "translate", 1) != 0)
                 parts << T::tr("shift up to %1% × %2%").arg(percent(at(q, "translate", 0)), percent(at(q, "translate", 1)));
             if (at(q, "scale", 0, 1) != 1 || at(q, "scale", 1, 1) != 1)
                 parts << T::tr("scale %1").arg(percentRange(q, "scale"));
             if (at(q, "shear", 0) != 0 || at(q, "shear", 1) != 0)
                 parts << T::tr("shear x %1").arg(degreeRange(at(q, "shear", 0), at(q, "shear", 1)));
             if (at(q, "shear", 2) != 0 || at(q, "shear", 3) != 0)
                 parts << T::tr("shear y %1").arg(degreeRange(at(q, "shear", 2), at(q, "shear", 3)));
             if (parts.isEmpty())
                 parts << T::tr("no change");
             addResampling(q, parts);
             return parts;
         }},
        {QStringLiteral("color_jitter"),
         [](const json &q) {
             Parts parts;
             const std::pair<const char *, QString> factors[] = {{"brightness", T::tr("brightness %1")},
                                                                {"contrast", T::tr("contrast %1")},
                                                                {"saturation", T::tr("saturation %1")}};
             for (const auto &[name, text] : factors)
                 if (at(q, name, 0, 1) != 1 || at(q, name, 1, 1) != 1)
                     parts << text.arg(percentRange(q, name));
             const double lo = at(q, "hue", 0), hi = at(q, "hue", 1);
             if (lo != 0 || hi != 0)
                 parts << T::tr("hue %1").arg(lo == -hi ? T::tr("±%1").arg(T::number(hi)) : numberRange(lo, hi));
             if (parts.isEmpty())
                 parts << T::tr("no change");
             return parts;
         }},
        {QStringLiteral("gaussian_blur"),
         [](const json &q) {
             return Parts{T::tr("kernel %1×%2").arg(T::number(at(q, "kernel_size", 0)), T::number(at(q, "kernel_size", 1))),
                          T::tr("sigma %1").arg(numberRange(at(q, "sigma", 0), at(q, "sigma", 1)))};
         }},
        {QStringLiteral("sharpness"),
         [](const json &q) { return Parts{T::tr("factor %1").arg(T::number(scalar(q, "sharpness_factor")))}; }},
        {QStringLiteral("posterize"),
         [](const json &q) { return Parts{T::tr("%1 bits").arg(T::number(scalar(q, "bits")))}; }},
        {QStringLiteral("solarize"),
         [](const json &q) { return Parts{T::tr("pixels above %1 inverted").arg(T::number(scalar(q, "threshold")))}; }},
        {QStringLiteral("rand_augment"),
         [](const json &q) {
             return Parts{T::tr("%1 operations at magnitude %2 of %3")
                              .arg(T::number(scalar(q, "num_ops")), T::number(scalar(q, "magnitude")),
                                   T::number(scalar(q, "num_magnitude_bins")))};
         }},
        {QStringLiteral("trivial_augment_wide"),
         [](const json &q) { return Parts{T::tr("%1 magnitude bins").arg(T::number(scalar(q, "num_magnitude_bins")))}; }},
        {QStringLiteral("gaussian_noise"),
         [](const json &q) {
             Parts parts{T::tr("sigma %1").arg(T::number(scalar(q, "sigma")))};
             if (scalar(q, "mean") != 0)
                 parts << T::tr("mean %1").arg(T::number(scalar(q, "mean")));
             if (!q.value("clip", true))
                 parts << T::tr("not clipped");
             return parts;
         }},
        {QStringLiteral("random_erasing"),
         [](const json &q) {
             Parts parts{T::tr("area %1").arg(percentRange(q, "scale")), T::tr("ratio %1").arg(ratioRange(q, "ratio"))};
             if (q.contains("value") && q["value"].is_string())
                 parts << T::tr("random values");
             else if (at(q, "value", 0) != 0 || at(q, "value", 1) != 0 || at(q, "value", 2) != 0)
                 parts << T::tr("value %1, %2, %3")
                              .arg(T::number(at(q, "value", 0)), T::number(at(q, "value", 1)), T::number(at(q, "value", 2)));
             return parts;
         }},
        {QStringLiteral("mixup"), [](const json &q) { return Parts{T::tr("alpha %1").arg(T::number(scalar(q, "alpha")))}; }},
        {QStringLiteral("cutmix"), [](const json &q) { return Parts{T::tr("alpha %1").arg(T::number(scalar(q, "alpha")))}; }},
        // No parameters: the probability says it all.
        {QStringLiteral("horizontal_flip"), [](const json &) { return Parts{}; }},
        {QStringLiteral("vertical_flip"), [](const json &) { return Parts{}; }},
        {QStringLiteral("grayscale"), [](const json &) { return Parts{}; }},
        {QStringLiteral("autocontrast"), [](const json &) { return Parts{}; }},
        {QStringLiteral("equalize"), [](const json &) { return Parts{}; }},
        {QStringLiteral("invert"), [](const json &) { return Parts{}; }},
    };
    return table;
}

// A value of a type without its own sentence: numbers, lists of them, text.
QString valueText(const json &value)
{
    if (value.is_number())
        return AugmentationText::number(value.get<double>());
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_array()) {
        QStringList items;
        for (const json &item : value)
            items << valueText(item);
        return items.join(QStringLiteral(", "));
    }
    return QString::fromStdString(value.dump());
}

} // namespace

QString AugmentationText::number(double value)
{
    return QLocale().toString(value, 'g', 4);
}

QString AugmentationText::typeName(const QString &type)
{
    static const QHash<QString, const char *> names = {
        {QStringLiteral("random_resized_crop"), QT_TR_NOOP("Random resized crop")},
        {QStringLiteral("resize"), QT_TR_NOOP("Resize")},
        {QStringLiteral("center_crop"), QT_TR_NOOP("Centre crop")},
        {QStringLiteral("horizontal_flip"), QT_TR_NOOP("Horizontal flip")},
        {QStringLiteral("vertical_flip"), QT_TR_NOOP("Vertical flip")},
        {QStringLiteral("rotation"), QT_TR_NOOP("Rotation")},
        {QStringLiteral("affine"), QT_TR_NOOP("Affine transform")},
        {QStringLiteral("color_jitter"), QT_TR_NOOP("Colour jitter")},
        {QStringLiteral("grayscale"), QT_TR_NOOP("Greyscale")},
        {QStringLiteral("gaussian_blur"), QT_TR_NOOP("Gaussian blur")},
        {QStringLiteral("sharpness"), QT_TR_NOOP("Sharpness")},
        {QStringLiteral("posterize"), QT_TR_NOOP("Posterise")},
        {QStringLiteral("solarize"), QT_TR_NOOP("Solarise")},
        {QStringLiteral("autocontrast"), QT_TR_NOOP("Autocontrast")},
        {QStringLiteral("equalize"), QT_TR_NOOP("Equalise")},
        {QStringLiteral("invert"), QT_TR_NOOP("Invert")},
        {QStringLiteral("rand_augment"), QT_TR_NOOP("RandAugment")},
        {QStringLiteral("trivial_augment_wide"), QT_TR_NOOP("TrivialAugment Wide")},
        {QStringLiteral("gaussian_noise"), QT_TR_NOOP("Gaussian noise")},
        {QStringLiteral("random_erasing"), QT_TR_NOOP("Random erasing")},
        {QStringLiteral("mixup"), QT_TR_NOOP("Mixup")},
        {QStringLiteral("cutmix"), QT_TR_NOOP("CutMix")},
    };
    const char *name = names.value(type);
    return name ? tr(name) : type;
}

QString AugmentationText::sentence(const json &step)
{
    const QString type = QString::fromStdString(step.value("type", std::string()));
    json params = step;
    params.erase("type");
    params.erase("p");
    Parts parts;
    if (const Describe describe = describers().value(type)) {
        parts = describe(params);
    } else {
        for (const auto &[name, value] : params.items())
            parts << QStringLiteral("%1 %2").arg(QString::fromStdString(name).replace(QLatin1Char('_'), QLatin1Char(' ')),
                                                 valueText(value));
    }
    const double p = step.value("p", 1.0);
    if (p != 1)
        parts << tr("probability %1%").arg(percent(p));
    else if (parts.isEmpty())
        parts << tr("always");
    return tr("%1: %2").arg(typeName(type), parts.join(QStringLiteral(", ")));
}

} // namespace lathe::ui
