#include "engine/formats/torch_pth.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/types.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <unordered_map>

namespace lathe::engine {
namespace {

// ---------------------------------------------------------------------------------------------
// Zip directory check. PyTorchStreamReader allocates what an entry's header claims before it
// reads the entry, so the central directory is checked first: every entry stored (torch.save
// never compresses), its size the same both ways and its data inside the file. Returns each
// entry's CRC-32 by its name inside the archive ("archive/data/0" -> "data/0").

std::uint64_t le(const unsigned char *p, int bytes)
{
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

struct ZipEntry
{
    std::uint32_t crc = 0;
    std::uint64_t size = 0;
};
using EntryCrcs = std::map<std::string, ZipEntry>;

EntryCrcs checkZipDirectory(const std::string &path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw EngineError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open");
    in.seekg(0, std::ios::end);
    const std::uint64_t fileSize = std::uint64_t(in.tellg());
    auto readAt = [&](std::uint64_t offset, std::uint64_t n) {
        if (offset > fileSize || n > fileSize - offset)
            throw EngineError(path + ": zip structure points past the end of the file (truncated?)");
        std::string buf(std::size_t(n), '\0');
        in.seekg(std::streamoff(offset));
        in.read(buf.data(), std::streamsize(n));
        if (!in)
            throw EngineError(path + ": cannot read the zip directory");
        return buf;
    };

    // End of central directory: 22 bytes plus a comment of up to 65535 bytes, at the very end.
    const std::uint64_t tailSize = std::min<std::uint64_t>(fileSize, 22 + 65535);
    const std::string tail = readAt(fileSize - tailSize, tailSize);
    const auto *t = reinterpret_cast<const unsigned char *>(tail.data());
    std::int64_t eocd = -1;
    for (std::int64_t i = std::int64_t(tailSize) - 22; i >= 0; --i)
        if (le(t + i, 4) == 0x06054b50) {
            eocd = i;
            break;
        }
    if (eocd < 0)
        throw EngineError(path + ": not a complete zip archive (no end of central directory; truncated?)");
    std::uint64_t entries = le(t + eocd + 10, 2);
    std::uint64_t cdSize = le(t + eocd + 12, 4);
    std::uint64_t cdOffset = le(t + eocd + 16, 4);
    if (entries == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
        // Zip64: a locator just before the end record points at the zip64 end record.
        const std::uint64_t eocdAbs = fileSize - tailSize + std::uint64_t(eocd);
        if (eocdAbs < 20)
            throw EngineError(path + ": zip64 locator missing");
        const std::string loc = readAt(eocdAbs - 20, 20);
        const auto *l = reinterpret_cast<const unsigned char *>(loc.data());
        if (le(l, 4) != 0x07064b50)
            throw EngineError(path + ": zip64 locator missing");
        const std::string rec = readAt(le(l + 8, 8), 56);
        const auto *r = reinterpret_cast<const unsigned char *>(rec.data());
        if (le(r, 4) != 0x06064b50)
            throw EngineError(path + ": zip64 end of central directory missing");
        entries = le(r + 32, 8);
        cdSize = le(r + 40, 8);
        cdOffset = le(r + 48, 8);
    }
    if (entries > parse_limits::kPthZipEntries.value)
        throw EngineError(path + ": zip directory lists " + limitReason(entries, parse_limits::kPthZipEntries,
                                                                         parse_limits::kPthZipEntries.value));
    const std::string cd = readAt(cdOffset, cdSize);
    const auto *c = reinterpret_cast<const unsigned char *>(cd.data());
    EntryCrcs crcs;
    std::uint64_t pos = 0;
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (pos + 46 > cdSize || le(c + pos, 4) != 0x02014b50)
            throw EngineError(path + ": corrupt zip central directory");
        const std::uint64_t method = le(c + pos + 10, 2);
        std::uint64_t compSize = le(c + pos + 20, 4);
        std::uint64_t size = le(c + pos + 24, 4);
        const std::uint64_t nameLen = le(c + pos + 28, 2);
        const std::uint64_t extraLen = le(c + pos + 30, 2);
        const std::uint64_t commentLen = le(c + pos + 32, 2);
        std::uint64_t localOffset = le(c + pos + 42, 4);
        if (pos + 46 + nameLen + extraLen + commentLen > cdSize)
            throw EngineError(path + ": corrupt zip central directory");
        const std::string name(cd.data() + pos + 46, std::size_t(nameLen));
        // Zip64 extended information replaces the 32-bit fields that are all ones, in this order.
        const unsigned char *x = c + pos + 46 + nameLen;
        for (std::uint64_t xp = 0; xp + 4 <= extraLen;) {
            const std::uint64_t id = le(x + xp, 2), len = le(x + xp + 2, 2);
            if (xp + 4 + len > extraLen)
                break;
            if (id == 0x0001) {
                std::uint64_t f = xp + 4;
                for (std::uint64_t *field : {&size, &compSize, &localOffset})
                    if (*field == 0xFFFFFFFF) {
                        if (f + 8 > xp + 4 + len)
                            throw EngineError(path + ": corrupt zip64 field of '" + name + "'");
                        *field = le(x + f, 8);
                        f += 8;
                    }
            }
            xp += 4 + len;
        }
        if (method != 0)
            throw EngineError(path + ": zip entry '" + name
                              + "' is compressed; torch.save writes stored entries only (re-saved by another tool?)");
        if (size != compSize)
            throw EngineError(path + ": zip entry '" + name + "' has inconsistent sizes");
        // 30 bytes of local header plus its name and extra field come before the data.
        if (localOffset > fileSize || size > fileSize - localOffset)
            throw EngineError(path + ": zip entry '" + name + "' runs past the end of the file (truncated?)");
        const std::size_t slash = name.find('/');
        crcs[slash == std::string::npos ? name : name.substr(slash + 1)] = {std::uint32_t(le(c + pos + 16, 4)), size};
        pos += 46 + nameLen + extraLen + commentLen;
    }
    return crcs;
}

// A torch.save archive whose entries are checked against the CRC-32 its zip directory records
// as they are read: PyTorchStreamReader (like torch.load) does not check them, so a byte flipped
// inside a tensor's storage would load without a word.
class Archive
{
public:
    explicit Archive(const std::string &path)
        : m_path(path)
        , m_crcs(checkZipDirectory(path))
        , m_zip(path)
    {
    }

    bool has(const std::string &record) { return m_zip.hasRecord(record); }

    // The entry's size as its zip directory records it (0 when it is not there).
    std::uint64_t size(const std::string &record) const
    {
        const auto it = m_crcs.find(record);
        return it == m_crcs.end() ? 0 : it->second.size;
    }

    std::pair<at::DataPtr, std::size_t> read(const std::string &record)
    {
        auto [data, size] = m_zip.getRecord(record); // size checked against the file beforehand
        const auto expected = m_crcs.find(record);
        if (expected == m_crcs.end())
            throw EngineError(m_path + ": zip entry '" + record + "' is not in the zip directory");
        const auto actual = std::uint32_t(crc32_z(0, static_cast<const Bytef *>(data.get()), size));
        if (actual != expected->second.crc) {
            char both[64];
            std::snprintf(both, sizeof both, "recorded %08x, contents %08x", expected->second.crc, actual);
            throw EngineError(m_path + ": zip entry '" + record + "' fails its CRC-32 check (" + both
                              + "): the file is corrupt; download or copy it again");
        }
        return {std::move(data), size};
    }

private:
    std::string m_path;
    EntryCrcs m_crcs;
    caffe2::serialize::PyTorchStreamReader m_zip;
};

// ---------------------------------------------------------------------------------------------
// Values the unpickler builds. Containers have reference semantics (the memo shares them).

struct Value;
using ValuePtr = std::shared_ptr<Value>;

struct Value
{
    enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Global, StorageType, Storage, Tensor };
    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0;
    std::string text; // String; Global: "module.name"
    c10::ScalarType storageType = c10::ScalarType::Undefined;
    std::vector<ValuePtr> items;                          // Tuple, List
    std::vector<std::pair<ValuePtr, ValuePtr>> entries;   // Dict (insertion order)
    std::unordered_map<std::string, std::size_t> stringKeys; // Dict: position of each string key
    torch::Tensor tensor; // Storage: 1-D, its whole data; Tensor
    // A container becomes read-only once it is inside another value: real pickles fill each
    // container before handing it on, and the rule rules out cycles and unbounded nesting.
    bool sealed = false;
    int depth = 0;
};

ValuePtr make(Value::Kind kind)
{
    auto v = std::make_shared<Value>();
    v->kind = kind;
    return v;
}

const char *kindName(Value::Kind k)
{
    switch (k) {
    case Value::Kind::None: return "None";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::String: return "str";
    case Value::Kind::Tuple: return "tuple";
    case Value::Kind::List: return "list";
    case Value::Kind::Dict: return "dict";
    case Value::Kind::Global: return "global";
    case Value::Kind::StorageType: return "storage type";
    case Value::Kind::Storage: return "storage";
    case Value::Kind::Tensor: return "tensor";
    }
    return "?";
}

struct StorageDtype
{
    const char *name;
    c10::ScalarType type;
};

constexpr StorageDtype kStorageTypes[] = {
    {"torch.FloatStorage", c10::ScalarType::Float},   {"torch.DoubleStorage", c10::ScalarType::Double},
    {"torch.HalfStorage", c10::ScalarType::Half},     {"torch.BFloat16Storage", c10::ScalarType::BFloat16},
    {"torch.LongStorage", c10::ScalarType::Long},     {"torch.IntStorage", c10::ScalarType::Int},
    {"torch.ShortStorage", c10::ScalarType::Short},   {"torch.CharStorage", c10::ScalarType::Char},
    {"torch.ByteStorage", c10::ScalarType::Byte},     {"torch.BoolStorage", c10::ScalarType::Bool},
};

class Unpickler
{
public:
    Unpickler(const std::string &path, const std::string &data, Archive &zip)
        : m_path(path)
        , m_data(data)
        , m_zip(zip)
    {
    }

    ValuePtr run();

private:
    EngineError fail(const std::string &why) const
    {
        return EngineError(m_path + ": data.pkl: " + why + " (at byte " + std::to_string(m_pos) + ")");
    }
    const unsigned char *take(std::uint64_t n)
    {
        if (n > m_data.size() - m_pos)
            throw fail("ends in the middle of an instruction (truncated?)");
        const auto *p = reinterpret_cast<const unsigned char *>(m_data.data()) + m_pos;
        m_pos += std::size_t(n);
        return p;
    }
    std::string takeString(std::uint64_t n)
    {
        const auto *p = take(n);
        return std::string(reinterpret_cast<const char *>(p), std::size_t(n));
    }
    std::string takeLine()
    {
        const std::size_t end = m_data.find('\n', m_pos);
        if (end == std::string::npos)
            throw fail("unterminated GLOBAL");
        std::string s = m_data.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        return s;
    }
    ValuePtr pop()
    {
        if (m_stack.size() <= stackFloor())
            throw fail("stack underflow");
        ValuePtr v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    std::size_t stackFloor() const { return m_marks.empty() ? 0 : m_marks.back(); }
    std::vector<ValuePtr> popMark()
    {
        if (m_marks.empty())
            throw fail("no MARK to pop to");
        const std::size_t mark = m_marks.back();
        m_marks.pop_back();
        std::vector<ValuePtr> items(m_stack.begin() + std::ptrdiff_t(mark), m_stack.end());
        m_stack.resize(mark);
        return items;
    }
    ValuePtr &top()
    {
        if (m_stack.size() <= stackFloor())
            throw fail("stack underflow");
        return m_stack.back();
    }
    // Puts child into parent (or a new tuple): seals the child and tracks nesting depth.
    void adopt(Value &parent, const ValuePtr &child)
    {
        if (&parent == child.get())
            throw fail("a container contains itself");
        child->sealed = true;
        parent.depth = std::max(parent.depth, child->depth + 1);
        if (std::uint64_t(parent.depth) > parse_limits::kPthPickleDepth.value)
            throw fail("values nested " + std::to_string(parent.depth) + " levels deep, "
                       + overLimit(parse_limits::kPthPickleDepth));
    }
    ValuePtr &mutableContainer(Value::Kind kind, const char *op)
    {
        if (m_stack.size() <= stackFloor())
            throw fail(std::string(op) + " without a container");
        ValuePtr &c = m_stack.back();
        if (c->kind != kind)
            throw fail(std::string(op) + " on a " + kindName(c->kind));
        if (c->sealed)
            throw fail(std::string(op) + " on a container that is already part of another value");
        return c;
    }
    ValuePtr makeTuple(std::vector<ValuePtr> items)
    {
        ValuePtr t = make(Value::Kind::Tuple);
        for (const ValuePtr &i : items)
            adopt(*t, i);
        t->items = std::move(items);
        return t;
    }
    void setItems(std::vector<ValuePtr> kv)
    {
        if (kv.size() % 2)
            throw fail("SETITEMS with an odd number of values");
        ValuePtr &d = mutableContainer(Value::Kind::Dict, "SETITEM");
        for (std::size_t i = 0; i < kv.size(); i += 2) {
            adopt(*d, kv[i]);
            adopt(*d, kv[i + 1]);
            // Python dicts keep the first position and the last value of a repeated key.
            if (kv[i]->kind == Value::Kind::String) {
                const auto [at, added] = d->stringKeys.emplace(kv[i]->text, d->entries.size());
                if (!added) {
                    d->entries[at->second].second = kv[i + 1];
                    continue;
                }
            }
            d->entries.emplace_back(kv[i], kv[i + 1]);
        }
    }
    void appendItems(std::vector<ValuePtr> items)
    {
        ValuePtr &l = mutableContainer(Value::Kind::List, "APPEND");
        for (const ValuePtr &i : items) {
            adopt(*l, i);
            l->items.push_back(i);
        }
    }
    void memoPut(std::uint64_t index)
    {
        m_memo[index] = top();
    }
    ValuePtr memoGet(std::uint64_t index) const
    {
        const auto it = m_memo.find(index);
        if (it == m_memo.end())
            throw fail("memo entry " + std::to_string(index) + " was never stored");
        return it->second;
    }
    ValuePtr global(const std::string &module, const std::string &name);
    ValuePtr reduce(const ValuePtr &callable, const ValuePtr &args);
    ValuePtr persistentLoad(const ValuePtr &pid);
    ValuePtr rebuildTensor(const std::vector<ValuePtr> &args);
    std::int64_t asInt(const ValuePtr &v, const char *what) const
    {
        if (v->kind != Value::Kind::Int)
            throw fail(std::string(what) + " is a " + kindName(v->kind) + ", not an int");
        return v->integer;
    }
    std::vector<std::int64_t> asInts(const ValuePtr &v, const char *what) const
    {
        if (v->kind != Value::Kind::Tuple && v->kind != Value::Kind::List)
            throw fail(std::string(what) + " is a " + kindName(v->kind) + ", not a tuple");
        std::vector<std::int64_t> out;
        for (const ValuePtr &i : v->items)
            out.push_back(asInt(i, what));
        return out;
    }

    std::string m_path;
    const std::string &m_data;
    Archive &m_zip;
    std::size_t m_pos = 0;
    std::vector<ValuePtr> m_stack;
    std::vector<std::size_t> m_marks;
    std::unordered_map<std::uint64_t, ValuePtr> m_memo;
    std::map<std::string, torch::Tensor> m_storages; // by record key: shared storages load once
};

ValuePtr Unpickler::global(const std::string &module, const std::string &name)
{
    const std::string full = module + "." + name;
    for (const StorageDtype &s : kStorageTypes)
        if (full == s.name) {
            ValuePtr v = make(Value::Kind::StorageType);
            v->text = full;
            v->storageType = s.type;
            return v;
        }
    if (full == "collections.OrderedDict" || full == "torch._utils._rebuild_tensor_v2"
        || full == "torch._utils._rebuild_parameter") {
        ValuePtr v = make(Value::Kind::Global);
        v->text = full;
        return v;
    }
    throw fail("refuses global '" + full + "': a state dict holds only tensors, and this name could run code");
}

ValuePtr Unpickler::persistentLoad(const ValuePtr &pid)
{
    // ('storage', torch.FloatStorage, key, location, numel)
    if (pid->kind != Value::Kind::Tuple || pid->items.size() != 5 || pid->items[0]->kind != Value::Kind::String
        || pid->items[0]->text != "storage")
        throw fail("persistent id is not a ('storage', type, key, location, numel) tuple");
    const ValuePtr &type = pid->items[1];
    if (type->kind != Value::Kind::StorageType)
        throw fail("persistent id names no storage type");
    if (pid->items[2]->kind != Value::Kind::String)
        throw fail("storage key is not a string");
    const std::string key = pid->items[2]->text;
    const std::int64_t numel = asInt(pid->items[4], "storage size");
    if (numel < 0)
        throw fail("storage '" + key + "' has a negative size");

    auto found = m_storages.find(key);
    if (found == m_storages.end()) {
        const std::string record = "data/" + key;
        if (key.empty() || key.find('/') != std::string::npos || !m_zip.has(record))
            throw fail("storage record '" + record + "' is missing from the archive");
        const std::uint64_t elementSize = c10::elementSize(type->storageType);
        std::uint64_t bytes = 0;
        if (__builtin_mul_overflow(std::uint64_t(numel), elementSize, &bytes))
            throw fail("storage '" + key + "' size overflows");
        at::DataPtr data;
        std::size_t size = 0;
        std::tie(data, size) = m_zip.read(record);
        if (size != bytes)
            throw fail("storage record '" + record + "' holds " + std::to_string(size) + " bytes, not the "
                       + std::to_string(bytes) + " of " + std::to_string(numel) + " x " + type->text);
        torch::Tensor storage = torch::empty({numel}, torch::TensorOptions().dtype(type->storageType));
        if (bytes)
            std::memcpy(storage.data_ptr(), data.get(), std::size_t(bytes));
        found = m_storages.emplace(key, storage).first;
    } else if (found->second.scalar_type() != type->storageType || found->second.numel() != numel) {
        throw fail("storage '" + key + "' is used with two different types or sizes");
    }
    ValuePtr v = make(Value::Kind::Storage);
    v->tensor = found->second;
    return v;
}

ValuePtr Unpickler::rebuildTensor(const std::vector<ValuePtr> &args)
{
    // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    if (args.size() < 6 || args.size() > 7)
        throw fail("_rebuild_tensor_v2 takes 6 or 7 arguments, got " + std::to_string(args.size()));
    if (args[0]->kind != Value::Kind::Storage)
        throw fail("_rebuild_tensor_v2 without a storage");
    const torch::Tensor &storage = args[0]->tensor;
    const std::int64_t offset = asInt(args[1], "storage offset");
    const std::vector<std::int64_t> size = asInts(args[2], "tensor size");
    const std::vector<std::int64_t> stride = asInts(args[3], "tensor stride");
    if (size.size() != stride.size())
        throw fail("tensor size and stride have different lengths");
    if (offset < 0)
        throw fail("negative storage offset");
    // The highest element the view touches must lie inside the storage.
    bool empty = false;
    std::int64_t last = offset;
    for (std::size_t i = 0; i < size.size(); ++i) {
        if (size[i] < 0 || stride[i] < 0)
            throw fail("negative tensor size or stride");
        if (size[i] == 0)
            empty = true;
        std::int64_t reach = 0;
        if (size[i] > 0 && (__builtin_mul_overflow(size[i] - 1, stride[i], &reach) || __builtin_add_overflow(last, reach, &last)))
            throw fail("tensor size overflows");
    }
    if (!empty && last >= storage.numel())
        throw fail("tensor of size " + c10::str(c10::IntArrayRef(size)) + " at offset " + std::to_string(offset)
                   + " reaches element " + std::to_string(last) + " of a storage of " + std::to_string(storage.numel()));
    ValuePtr v = make(Value::Kind::Tensor);
    v->tensor = empty ? torch::empty(size, storage.options()) : storage.as_strided(size, stride, offset);
    return v;
}

ValuePtr Unpickler::reduce(const ValuePtr &callable, const ValuePtr &args)
{
    if (callable->kind != Value::Kind::Global)
        throw fail("REDUCE calls a " + std::string(kindName(callable->kind)) + (callable->kind == Value::Kind::StorageType ? " (" + callable->text + ")" : ""));
    if (args->kind != Value::Kind::Tuple)
        throw fail("REDUCE arguments are not a tuple");
    if (callable->text == "collections.OrderedDict") {
        if (!args->items.empty())
            throw fail("OrderedDict called with arguments");
        return make(Value::Kind::Dict);
    }
    if (callable->text == "torch._utils._rebuild_tensor_v2")
        return rebuildTensor(args->items);
    // _rebuild_parameter(data, requires_grad, backward_hooks): the data is the tensor.
    if (args->items.size() != 3 || args->items[0]->kind != Value::Kind::Tensor)
        throw fail("_rebuild_parameter without a tensor");
    ValuePtr v = make(Value::Kind::Tensor);
    v->tensor = args->items[0]->tensor;
    return v;
}

ValuePtr Unpickler::run()
{
    while (true) {
        const unsigned char op = *take(1);
        switch (op) {
        case 0x80: // PROTO
            if (*take(1) > 5)
                throw fail("unsupported pickle protocol");
            break;
        case 0x95: // FRAME
            take(8);
            break;
        case '.': { // STOP
            if (m_stack.size() != 1 || !m_marks.empty())
                throw fail("STOP with " + std::to_string(m_stack.size()) + " values on the stack");
            return m_stack.back();
        }
        case '(': m_marks.push_back(m_stack.size()); break;
        case ')': m_stack.push_back(make(Value::Kind::Tuple)); break;
        case ']': m_stack.push_back(make(Value::Kind::List)); break;
        case '}': m_stack.push_back(make(Value::Kind::Dict)); break;
        case 'N': m_stack.push_back(make(Value::Kind::None)); break;
        case 0x88:
        case 0x89: {
            ValuePtr v = make(Value::Kind::Bool);
            v->boolean = op == 0x88;
            m_stack.push_back(v);
            break;
        }
        case 'J': case 'K': case 'M': case 0x8a: {
            ValuePtr v = make(Value::Kind::Int);
            if (op == 'J')
                v->integer = std::int32_t(std::uint32_t(le(take(4), 4)));
            else if (op == 'K')
                v->integer = *take(1);
            else if (op == 'M')
                v->integer = std::int64_t(le(take(2), 2));
            else { // LONG1: little-endian two's complement of n bytes
                const unsigned n = *take(1);
                if (n > 8)
                    throw fail("integer wider than 64 bits");
                const unsigned char *p = take(n);
                std::uint64_t u = le(p, int(n));
                if (n > 0 && n < 8 && (p[n - 1] & 0x80))
                    u |= ~std::uint64_t(0) << (8 * n);
                v->integer = std::int64_t(u);
            }
            m_stack.push_back(v);
            break;
        }
        case 'G': {
            const unsigned char *p = take(8);
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = (bits << 8) | p[i];
            ValuePtr v = make(Value::Kind::Float);
            std::memcpy(&v->real, &bits, 8);
            m_stack.push_back(v);
            break;
        }
        case 'X': case 0x8c: case 0x8d: case 'U': case 'T': case 'C': case 'B': {
            std::uint64_t n = 0;
            if (op == 'X' || op == 'T' || op == 'B')
                n = le(take(4), 4);
            else if (op == 0x8d)
                n = le(take(8), 8);
            else
                n = *take(1);
            ValuePtr v = make(Value::Kind::String);
            v->text = takeString(n);
            m_stack.push_back(v);
            break;
        }
        case 'c': {
            const std::string module = takeLine();
            const std::string name = takeLine();
            m_stack.push_back(global(module, name));
            break;
        }
        case 0x93: { // STACK_GLOBAL
            const ValuePtr name = pop(), module = pop();
            if (name->kind != Value::Kind::String || module->kind != Value::Kind::String)
                throw fail("STACK_GLOBAL without strings");
            m_stack.push_back(global(module->text, name->text));
            break;
        }
        case 'Q': {
            const ValuePtr pid = pop();
            m_stack.push_back(persistentLoad(pid));
            break;
        }
        case 'R': {
            const ValuePtr args = pop();
            const ValuePtr callable = pop();
            m_stack.push_back(reduce(callable, args));
            break;
        }
        case 'b': {
            // BUILD sets attributes (an OrderedDict's _metadata): nothing a state dict needs.
            const ValuePtr state = pop();
            if (top()->kind != Value::Kind::Dict && top()->kind != Value::Kind::Tensor)
                throw fail("BUILD on a " + std::string(kindName(top()->kind)));
            break;
        }
        case 's': {
            ValuePtr value = pop(), key = pop();
            setItems({key, value});
            break;
        }
        case 'u': setItems(popMark()); break;
        case 'a': {
            ValuePtr value = pop();
            appendItems({value});
            break;
        }
        case 'e': appendItems(popMark()); break;
        case 't': m_stack.push_back(makeTuple(popMark())); break;
        case 0x85: case 0x86: case 0x87: {
            const std::size_t n = op - 0x84;
            std::vector<ValuePtr> items(n);
            for (std::size_t i = n; i-- > 0;)
                items[i] = pop();
            m_stack.push_back(makeTuple(std::move(items)));
            break;
        }
        case 'q': memoPut(*take(1)); break;
        case 'r': memoPut(le(take(4), 4)); break;
        case 0x94: memoPut(m_memo.size()); break;
        case 'h': m_stack.push_back(memoGet(*take(1))); break;
        case 'j': m_stack.push_back(memoGet(le(take(4), 4))); break;
        case '0': pop(); break;
        case '1': popMark(); break;
        case '2': m_stack.push_back(top()); break;
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            throw fail(std::string("unsupported pickle opcode ") + hex);
        }
        }
    }
}

// The dict of tensors: the top level, or a checkpoint's "state_dict" / "model" entry.
const Value &stateDictOf(const std::string &path, const Value &root)
{
    if (root.kind != Value::Kind::Dict)
        throw EngineError(path + ": holds a " + std::string(kindName(root.kind)) + ", not a state dict");
    for (const char *key : {"state_dict", "model"})
        for (const auto &[k, v] : root.entries)
            if (k->kind == Value::Kind::String && k->text == key && v->kind == Value::Kind::Dict)
                return *v;
    return root;
}

} // namespace

NamedTensors readTorchPth(const std::string &path)
{
    try {
        Archive zip(path);
        if (!zip.has("data.pkl"))
            throw EngineError(path + ": no data.pkl in the archive (a TorchScript module? load it as a custom backbone)");
        // data.pkl is read whole: its size as recorded in the zip directory (which the reads are
        // checked against) is checked first.
        checkLimit(path + ": data.pkl", zip.size("data.pkl"), parse_limits::kPthPickleBytes);
        at::DataPtr pickle;
        std::size_t size = 0;
        std::tie(pickle, size) = zip.read("data.pkl");
        const std::string data(static_cast<const char *>(pickle.get()), size);
        Unpickler unpickler(path, data, zip);
        const ValuePtr root = unpickler.run();
        const Value &dict = stateDictOf(path, *root);
        NamedTensors out;
        for (const auto &[key, value] : dict.entries) {
            if (value->kind != Value::Kind::Tensor)
                continue;
            if (key->kind != Value::Kind::String || key->text.empty())
                throw EngineError(path + ": a tensor's name is not a non-empty string");
            out.emplace_back(key->text, value->tensor.contiguous());
        }
        if (out.empty())
            throw EngineError(path + ": holds no tensors");
        return out;
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        // PyTorchStreamReader reports broken archives as c10::Error with a C++ backtrace: keep its first line.
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        throw EngineError(path + ": not a readable torch.save archive (" + what + ")");
    }
}

} // namespace lathe::engine
