#include "engine/models/model_spec.h"

#include <algorithm>
#include <sstream>

namespace lathe::engine {
namespace {

void listNames(std::ostringstream &out, const char *title, const std::vector<std::string> &names)
{
    if (names.empty())
        return;
    out << title << " (" << names.size() << "):\n";
    // Long lists (a file for another architecture) are cut: the first names tell the story.
    const std::size_t shown = std::min<std::size_t>(names.size(), 10);
    for (std::size_t i = 0; i < shown; ++i)
        out << "  " << names[i] << '\n';
    if (shown < names.size())
        out << "  ... and " << names.size() - shown << " more\n";
}

} // namespace

std::string LoadReport::text() const
{
    std::ostringstream out;
    out << "Loaded " << loadedTensors << " tensors from the weights file.\n";
    if (headReplaced)
        out << "Head replaced: the file's classification head was trained for another number of classes "
               "(e.g. the 1000 ImageNet classes), so the model uses a freshly initialised head for its own classes.\n";
    if (!stemAdapted.empty())
        out << "Stem adapted: " << stemAdapted << '\n';
    listNames(out, "Missing from the file, left as initialised", missing);
    listNames(out, "In the file but not in the model, ignored", unexpected);
    listNames(out, "Shape mismatch, left as initialised", mismatched);
    if (clean() && !headReplaced && stemAdapted.empty())
        out << "Every tensor matched.\n";
    return out.str();
}

} // namespace lathe::engine
