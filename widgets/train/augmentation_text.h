#pragma once

#include <QCoreApplication>
#include <QString>

#include <nlohmann/json.hpp>

namespace lathe::ui {

// Augmentation steps ("data.augment" items, as the engine's parser writes them) in words, for
// the augmentation list: "Random resized crop: scale 8–100%, ratio 3:4–4:3",
// "Horizontal flip: probability 50%". A type without its own sentence reads
// "Name: param value, param value".
class AugmentationText
{
    Q_DECLARE_TR_FUNCTIONS(AugmentationText)

public:
    // "Random resized crop" for "random_resized_crop"; an unknown type as written.
    static QString typeName(const QString &type);
    static QString sentence(const nlohmann::json &step);
    // A number as the sentences write it ("0.1", "128").
    static QString number(double value);
};

} // namespace lathe::ui
