#include "engine/formats/safetensors.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string_view>

namespace lathe::engine {
namespace {

struct DtypeName
{
    const char *name;
    c10::ScalarType type;
};

constexpr DtypeName kDtypes[] = {
    {"F64", c10::ScalarType::Double}, {"F32", c10::ScalarType::Float}, {"F16", c10::ScalarType::Half},
    {"BF16", c10::ScalarType::BFloat16}, {"I64", c10::ScalarType::Long}, {"I32", c10::ScalarType::Int},
    {"I16", c10::ScalarType::Short},  {"I8", c10::ScalarType::Char},  {"U8", c10::ScalarType::Byte},
    {"BOOL", c10::ScalarType::Bool},
};

// Reads exactly n bytes at offset; false when the file ends first.
bool readAt(int fd, std::uint64_t offset, char *out, std::uint64_t n)
{
    while (n > 0) {
        const std::size_t chunk = std::size_t(std::min<std::uint64_t>(n, 1u << 30));
        const ssize_t got = ::pread(fd, out, chunk, off_t(offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        out += got;
        offset += std::uint64_t(got);
        n -= std::uint64_t(got);
    }
    return true;
}

struct Entry
{
    std::string name;
    c10::ScalarType type;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

Entry parseEntry(const std::string &path, const std::string &name, const nlohmann::json &value)
{
    auto fail = [&](const std::string &why) -> EngineError {
        return EngineError(path + ": tensor '" + name + "': " + why);
    };
    if (!value.is_object())
        throw fail("header entry is not a JSON object");
    Entry e;
    e.name = name;

    const auto dtype = value.find("dtype");
    if (dtype == value.end() || !dtype->is_string())
        throw fail("no dtype string");
    const std::string dtypeName = dtype->get<std::string>();
    const DtypeName *known = nullptr;
    for (const DtypeName &d : kDtypes)
        if (dtypeName == d.name)
            known = &d;
    if (!known)
        throw fail("unsupported dtype '" + dtypeName + "'");
    e.type = known->type;

    const auto shape = value.find("shape");
    if (shape == value.end() || !shape->is_array())
        throw fail("no shape array");
    if (shape->size() > parse_limits::kSafetensorsRank.value)
        throw fail("shape of " + limitReason(shape->size(), parse_limits::kSafetensorsRank, parse_limits::kSafetensorsRank.value));
    std::uint64_t numel = 1;
    for (const nlohmann::json &d : *shape) {
        if (!d.is_number_unsigned())
            throw fail("shape " + shape->dump() + " holds something other than a non-negative integer");
        const std::uint64_t size = d.get<std::uint64_t>();
        if (size > std::uint64_t(std::numeric_limits<std::int64_t>::max()) || __builtin_mul_overflow(numel, size, &numel))
            throw fail("shape " + shape->dump() + " overflows");
        e.shape.push_back(std::int64_t(size));
    }
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(numel, std::uint64_t(c10::elementSize(e.type)), &bytes))
        throw fail("shape " + shape->dump() + " overflows");

    const auto offsets = value.find("data_offsets");
    if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned()
        || !(*offsets)[1].is_number_unsigned())
        throw fail("data_offsets is not a pair of non-negative integers");
    e.begin = (*offsets)[0].get<std::uint64_t>();
    e.end = (*offsets)[1].get<std::uint64_t>();
    if (e.end < e.begin)
        throw fail("data_offsets end before they begin");
    if (e.end - e.begin != bytes)
        throw fail("data_offsets span " + std::to_string(e.end - e.begin) + " bytes but " + dtypeName + " "
                   + shape->dump() + " needs " + std::to_string(bytes));
    return e;
}

// The first key of the top-level object that appears twice. A SAX handler rather than a parser
// callback: nlohmann 3.11's callback parser scans the parent object at the end of every object
// in it, quadratic in the tensor count (65536 tensors took minutes; found by the tensor-count
// limit's test).
struct TopLevelKeys : nlohmann::json_sax<nlohmann::json>
{
    int depth = 0;
    std::set<std::string> seen;
    std::string duplicate;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return enter(); }
    bool end_object() override { return leave(); }
    bool start_array(std::size_t) override { return enter(); }
    bool end_array() override { return leave(); }
    bool enter()
    {
        ++depth;
        return true;
    }
    bool leave()
    {
        --depth;
        return true;
    }
    bool key(string_t &name) override
    {
        if (depth == 1 && !seen.insert(name).second && duplicate.empty())
            duplicate = name;
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }
};

const char *dtypeNameOf(c10::ScalarType type, const std::string &path, const std::string &name)
{
    for (const DtypeName &d : kDtypes)
        if (d.type == type)
            return d.name;
    throw EngineError(path + ": tensor '" + name + "' has dtype " + c10::toString(type)
                      + ", which safetensors files written by Lathe cannot hold");
}

} // namespace

NamedTensors readSafetensors(const std::string &path, std::map<std::string, std::string> *metadata)
{
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        throw EngineError(path + ": cannot open (" + errnoText() + ")");
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        throw EngineError(path + ": cannot stat (" + errnoText() + ")");
    if (!S_ISREG(st.st_mode))
        throw EngineError(path + ": not a regular file");
    const std::uint64_t fileSize = std::uint64_t(st.st_size);
    if (fileSize < 8)
        throw EngineError(path + ": not a safetensors file (" + std::to_string(fileSize)
                          + " bytes, shorter than the 8-byte header size)");

    unsigned char sizeBytes[8];
    if (!readAt(fd.get(), 0, reinterpret_cast<char *>(sizeBytes), 8))
        throw EngineError(path + ": cannot read the header size");
    std::uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
        headerSize = (headerSize << 8) | sizeBytes[i];
    if (headerSize > parse_limits::kSafetensorsHeaderBytes.value)
        throw EngineError(path + ": header is " + limitReason(headerSize, parse_limits::kSafetensorsHeaderBytes,
                                                               parse_limits::kSafetensorsHeaderBytes.value)
                          + " (not a safetensors file?)");
    if (headerSize > fileSize - 8)
        throw EngineError(path + ": header size " + std::to_string(headerSize) + " runs past the end of the file ("
                          + std::to_string(fileSize) + " bytes)");
    if (headerSize < 2)
        throw EngineError(path + ": header of " + std::to_string(headerSize) + " bytes cannot hold a JSON object");

    std::string header(std::size_t(headerSize), '\0');
    if (!readAt(fd.get(), 8, header.data(), headerSize))
        throw EngineError(path + ": cannot read the header");
    if (header[0] != '{')
        throw EngineError(path + ": header is not a JSON object");
    checkJsonDepth(header, path + ": header");

    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(header);
    } catch (const nlohmann::json::exception &e) {
        throw EngineError(path + ": header is not valid JSON (" + e.what() + ")");
    }
    if (!doc.is_object())
        throw EngineError(path + ": header is not a JSON object");
    // nlohmann keeps the last of duplicate keys silently: a second, SAX pass sees every key.
    TopLevelKeys keys;
    nlohmann::json::sax_parse(header, &keys);
    if (!keys.duplicate.empty())
        throw EngineError(path + ": tensor name '" + keys.duplicate + "' appears twice in the header");

    const std::uint64_t tensorCount = doc.size() - (doc.contains("__metadata__") ? 1 : 0);
    if (tensorCount > parse_limits::kSafetensorsTensors.value)
        throw EngineError(path + ": holds " + limitReason(tensorCount, parse_limits::kSafetensorsTensors,
                                                          parse_limits::kSafetensorsTensors.value));

    const std::uint64_t bufferSize = fileSize - 8 - headerSize;
    std::vector<Entry> entries;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object())
                throw EngineError(path + ": __metadata__ is not a JSON object");
            for (auto m = it->begin(); m != it->end(); ++m) {
                if (!m->is_string())
                    throw EngineError(path + ": __metadata__ value of '" + m.key() + "' is not a string");
                if (metadata)
                    (*metadata)[m.key()] = m->get<std::string>();
            }
            continue;
        }
        if (it.key().empty())
            throw EngineError(path + ": a tensor has an empty name");
        entries.push_back(parseEntry(path, it.key(), *it));
    }

    // The spec: the buffer is exactly the concatenation of the tensors, without gaps or overlaps.
    std::vector<const Entry *> byOffset;
    for (const Entry &e : entries)
        byOffset.push_back(&e);
    std::sort(byOffset.begin(), byOffset.end(), [](const Entry *a, const Entry *b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::uint64_t cursor = 0;
    for (const Entry *e : byOffset) {
        if (e->begin < cursor)
            throw EngineError(path + ": tensor '" + e->name + "' overlaps the data of another tensor");
        if (e->begin > cursor)
            throw EngineError(path + ": gap of " + std::to_string(e->begin - cursor) + " bytes before tensor '"
                              + e->name + "' in the data buffer");
        if (e->end > bufferSize)
            throw EngineError(path + ": tensor '" + e->name + "' data_offsets [" + std::to_string(e->begin) + ", "
                              + std::to_string(e->end) + "] run past the data buffer of " + std::to_string(bufferSize)
                              + " bytes (truncated file?)");
        cursor = e->end;
    }
    if (cursor != bufferSize)
        throw EngineError(path + ": data buffer holds " + std::to_string(bufferSize - cursor)
                          + " bytes that no tensor uses");

    // Everything fits in the file: allocations are bounded by its size from here on.
    NamedTensors out;
    out.reserve(entries.size());
    for (const Entry &e : entries) {
        torch::Tensor t = torch::empty(e.shape, torch::TensorOptions().dtype(e.type));
        if (!readAt(fd.get(), 8 + headerSize + e.begin, static_cast<char *>(t.data_ptr()), e.end - e.begin))
            throw EngineError(path + ": cannot read the data of tensor '" + e.name + "' (file shrank?)");
        out.emplace_back(e.name, std::move(t));
    }
    return out;
}

void writeSafetensors(const std::string &path, const NamedTensors &tensors,
                      const std::map<std::string, std::string> &metadata)
{
    std::map<std::string, torch::Tensor> sorted;
    for (const auto &[name, tensor] : tensors) {
        if (name.empty())
            throw EngineError(path + ": cannot write a tensor with an empty name");
        if (name == "__metadata__")
            throw EngineError(path + ": '__metadata__' cannot name a tensor");
        if (!tensor.defined())
            throw EngineError(path + ": tensor '" + name + "' is undefined");
        dtypeNameOf(tensor.scalar_type(), path, name);
        if (!sorted.emplace(name, tensor.detach().to(torch::kCPU).contiguous()).second)
            throw EngineError(path + ": tensor name '" + name + "' given twice");
    }

    nlohmann::json header = nlohmann::json::object();
    std::uint64_t offset = 0;
    for (const auto &[name, t] : sorted) {
        const std::uint64_t bytes = std::uint64_t(t.numel()) * t.element_size();
        header[name] = {{"dtype", dtypeNameOf(t.scalar_type(), path, name)},
                        {"shape", t.sizes().vec()},
                        {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::string text = header.dump();
    // The buffer starts 8-byte aligned, as the reference writer pads it.
    text.append((8 - text.size() % 8) % 8, ' ');

    unsigned char sizeBytes[8];
    for (int i = 0; i < 8; ++i)
        sizeBytes[i] = static_cast<unsigned char>(std::uint64_t(text.size()) >> (8 * i));
    std::vector<std::string_view> pieces;
    pieces.emplace_back(reinterpret_cast<const char *>(sizeBytes), 8);
    pieces.emplace_back(text);
    for (const auto &[name, t] : sorted)
        pieces.emplace_back(static_cast<const char *>(t.data_ptr()), std::size_t(t.numel()) * t.element_size());
    writeFileAtomically(path, pieces);
}

} // namespace lathe::engine
