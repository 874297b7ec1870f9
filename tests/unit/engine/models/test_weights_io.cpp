#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/formats/safetensors.h"
#include "engine/formats/torch_pth.h"
#include "engine/models/model_builder.h"
#include "engine/models/torchscript_backbone.h"
#include "engine/models/weights_io.h"
#include "python_peer.h"
#include "test_support.h"

#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace lathe;
using engine::NamedTensors;
using lathe::test::errorOf;
using lathe::test::TempDir;

namespace {

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::string u64le(std::uint64_t v)
{
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[i] = char(v >> (8 * i));
    return s;
}

// A safetensors file from a header text and a data buffer.
std::string safetensorsBytes(const std::string &header, const std::string &data)
{
    return u64le(header.size()) + header + data;
}

torch::Tensor find(const NamedTensors &tensors, const std::string &name)
{
    for (const auto &[n, t] : tensors)
        if (n == name)
            return t;
    return {};
}

// The source tree this test was built from.
std::filesystem::path sourceDir()
{
    return LATHE_SOURCE_ROOT;
}

// Runs a Python snippet with the venv's python (torch 2.11), arguments appended.
void runPython(const TempDir &tmp, const std::string &code, const std::string &args)
{
    const std::string script = tmp.file("peer.py");
    writeFile(script, code);
    const std::string cmd = "'" + lathe::test::python() + "' " + script + " " + args;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// A zip in torch.save's layout with a hand-written data.pkl and storages.
void writePth(const std::string &path, const std::string &pickle,
              const std::vector<std::pair<std::string, std::string>> &storages = {})
{
    caffe2::serialize::PyTorchStreamWriter writer(path);
    writer.writeRecord("data.pkl", pickle.data(), pickle.size());
    for (const auto &[key, bytes] : storages)
        writer.writeRecord("data/" + key, bytes.data(), bytes.size());
    writer.writeEndOfFile();
}

// A byte string literal with its embedded NULs.
template<std::size_t N>
std::string B(const char (&s)[N])
{
    return std::string(s, N - 1);
}

std::string binunicode(const std::string &s)
{
    std::string out = "X";
    for (int i = 0; i < 4; ++i)
        out += char(s.size() >> (8 * i));
    return out + s;
}

// data.pkl of {name: tensor(size, stride, offset) over storage '0' of numel floats}.
std::string tensorPickle(const std::string &size, const std::string &stride, int offset, int numel,
                         const std::string &key = "0")
{
    return std::string("\x80\x02") + "ccollections\nOrderedDict\n)R(" + binunicode("w") + "ctorch._utils\n_rebuild_tensor_v2\n(("
           + binunicode("storage") + "ctorch\nFloatStorage\n" + binunicode(key) + binunicode("cpu") + "K" + char(numel)
           + "tQK" + char(offset) + size + stride + "\x89" + "ccollections\nOrderedDict\n)RtRu.";
}

// A small CNN with torchvision-style names: stem conv1/bn1, head fc.
struct TinyNet : torch::nn::Module
{
    TinyNet(int inChannels, int classes)
    {
        conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(inChannels, 4, 3).bias(false)));
        bn1 = register_module("bn1", torch::nn::BatchNorm2d(4));
        fc = register_module("fc", torch::nn::Linear(4, classes));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        x = torch::relu(bn1->forward(conv1->forward(x)));
        return fc->forward(x.mean({2, 3}));
    }
    torch::nn::Conv2d conv1{nullptr};
    torch::nn::BatchNorm2d bn1{nullptr};
    torch::nn::Linear fc{nullptr};
};

engine::BackboneInfo tinyInfo()
{
    engine::BackboneInfo info;
    info.name = "tiny";
    info.stemParameter = "conv1.weight";
    info.headParameters = {"fc.weight", "fc.bias"};
    info.stages = {{"stem", {"conv1.", "bn1."}}, {"head", {"fc."}}};
    return info;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// safetensors

TEST(Safetensors, RoundTripsEveryDtypeShapeAndMetadata)
{
    TempDir tmp;
    const std::string path = tmp.file("all.safetensors");
    torch::manual_seed(1);
    NamedTensors tensors = {
        {"f64", torch::randn({2, 3}, torch::kDouble)},
        {"f32", torch::randn({4, 5}).t()}, // non-contiguous: written contiguous
        {"f16", torch::randn({3}).to(torch::kHalf)},
        {"bf16", torch::randn({2, 2}).to(torch::kBFloat16)},
        {"i64", torch::tensor({std::int64_t(-5), std::int64_t(1) << 40})},
        {"i32", torch::tensor({-7, 9}, torch::kInt)},
        {"i16", torch::tensor({-300, 300}, torch::kShort)},
        {"i8", torch::tensor({-100, 100}, torch::kChar)},
        {"u8", torch::tensor({0, 255}, torch::kByte)},
        {"bool", torch::tensor({true, false, true})},
        {"scalar", torch::tensor(3.5f)},
        {"empty", torch::empty({0, 3})},
    };
    engine::writeSafetensors(path, tensors, {{"format", "pt"}, {"arch", "resnet18"}});

    const std::string bytes = readFile(path);
    std::uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
        headerSize = (headerSize << 8) | std::uint8_t(bytes[i]);
    EXPECT_EQ(headerSize % 8, 0u) << "the data buffer starts 8-byte aligned";

    std::map<std::string, std::string> metadata;
    const NamedTensors back = engine::readSafetensors(path, &metadata);
    EXPECT_EQ(metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"arch", "resnet18"}}));
    ASSERT_EQ(back.size(), tensors.size());
    for (std::size_t i = 1; i < back.size(); ++i)
        EXPECT_LT(back[i - 1].first, back[i].first) << "keys are written sorted";
    for (const auto &[name, t] : tensors) {
        const torch::Tensor b = find(back, name);
        ASSERT_TRUE(b.defined()) << name;
        EXPECT_EQ(b.scalar_type(), t.scalar_type()) << name;
        EXPECT_EQ(b.sizes(), t.sizes()) << name;
        EXPECT_TRUE(b.is_contiguous()) << name;
        EXPECT_TRUE(torch::equal(b, t)) << name;
    }
    // No temporary file is left beside the target.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()), {}), 1);
}

TEST(Safetensors, OverwritesAtomicallyAndRefusesBadInput)
{
    TempDir tmp;
    const std::string path = tmp.file("w.safetensors");
    engine::writeSafetensors(path, {{"a", torch::ones({2})}});
    engine::writeSafetensors(path, {{"b", torch::zeros({3})}});
    const NamedTensors back = engine::readSafetensors(path);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].first, "b");

    EXPECT_NE(errorOf([&] { engine::writeSafetensors(path, {{"a", torch::ones(1)}, {"a", torch::ones(1)}}); }).find("twice"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { engine::writeSafetensors(path, {{"", torch::ones(1)}}); }).find("empty name"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::writeSafetensors(path, {{"c", torch::ones(1, torch::kComplexFloat)}}); }).find("dtype"),
              std::string::npos);
    const std::string missingDir = tmp.file("no/such/dir/x.safetensors");
    EXPECT_NE(errorOf([&] { engine::writeSafetensors(missingDir, {{"a", torch::ones(1)}}); }).find(missingDir),
              std::string::npos);
    EXPECT_EQ(engine::readSafetensors(path).size(), 1u) << "a failed write leaves the old file";
}

TEST(Safetensors, HostileFilesGiveErrorsNamingFileAndReason)
{
    TempDir tmp;
    const std::string f32x2 = std::string(8, '\0');
    const struct Case
    {
        const char *name;
        std::string bytes;
        const char *reason;
    } cases[] = {
        {"zero_byte", "", "shorter than the 8-byte header size"},
        {"seven_bytes", std::string(7, '\x01'), "shorter than the 8-byte header size"},
        {"huge_header", u64le(std::uint64_t(1) << 40) + "{}", "over the limit safetensors.header_bytes = 100000000"},
        {"header_past_end", u64le(1000) + "{\"a\":1}", "runs past the end of the file"},
        {"not_json", safetensorsBytes("{\"a\": [1, 2", ""), "not valid JSON"},
        {"json_array", safetensorsBytes("[1, 2, 3]", ""), "not a JSON object"},
        {"entry_not_object", safetensorsBytes("{\"a\": 5}", ""), "not a JSON object"},
        {"unknown_dtype", safetensorsBytes(R"({"a":{"dtype":"F8","shape":[2],"data_offsets":[0,2]}})", "xx"),
         "unsupported dtype 'F8'"},
        {"no_dtype", safetensorsBytes(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", f32x2), "no dtype"},
        {"negative_shape", safetensorsBytes(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", f32x2),
         "non-negative integer"},
        {"float_shape", safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", f32x2),
         "non-negative integer"},
        {"numel_overflow",
         safetensorsBytes(R"({"a":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,8]}})", f32x2),
         "overflows"},
        {"bytes_overflow",
         safetensorsBytes(R"({"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8]}})", f32x2),
         "overflows"},
        {"wrong_byte_count", safetensorsBytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", f32x2),
         "needs 12"},
        {"offsets_reversed", safetensorsBytes(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", f32x2),
         "end before they begin"},
        {"offsets_not_pair", safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", f32x2),
         "data_offsets"},
        {"overlap",
         safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                          std::string(12, '\0')),
         "overlaps"},
        {"gap",
         safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})",
                          std::string(20, '\0')),
         "gap of 4 bytes"},
        {"truncated_data",
         safetensorsBytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", f32x2), "run past the data buffer"},
        {"trailing_bytes", safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f32x2 + "junk"),
         "no tensor uses"},
        {"duplicate_key",
         safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                          f32x2),
         "appears twice"},
        {"empty_name", safetensorsBytes(R"({"":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f32x2), "empty name"},
        {"metadata_not_string",
         safetensorsBytes(R"({"__metadata__":{"k":1},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f32x2),
         "not a string"},
        {"tiny_header", safetensorsBytes("{", ""), "cannot hold a JSON object"},
    };
    for (const Case &c : cases) {
        const std::string path = tmp.file(std::string(c.name) + ".safetensors");
        writeFile(path, c.bytes);
        const std::string message = errorOf([&] { engine::readSafetensors(path); });
        EXPECT_NE(message.find(path), std::string::npos) << c.name << ": " << message;
        EXPECT_NE(message.find(c.reason), std::string::npos) << c.name << ": " << message;
    }
    EXPECT_NE(errorOf([&] { engine::readSafetensors(tmp.file("absent.safetensors")); }).find("cannot open"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { engine::readSafetensors(tmp.path().string()); }).find("not a regular file"), std::string::npos);
}

// The safetensors limits (engine/base/parse_limits.h), each at the limit (read) and one over
// (refused, naming the limit). The header size is reached through the declared size: at the
// limit the reader goes on to find the file too short.
TEST(Safetensors, LimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    TempDir tmp;
    const std::string path = tmp.file("limit.safetensors");
    const auto refusal = [&](const std::string &bytes) {
        writeFile(path, bytes);
        return errorOf([&] { engine::readSafetensors(path); });
    };

    std::string message = refusal(u64le(pl::kSafetensorsHeaderBytes.value) + "{}");
    EXPECT_NE(message.find("runs past the end of the file"), std::string::npos) << message;
    message = refusal(u64le(pl::kSafetensorsHeaderBytes.value + 1) + "{}");
    EXPECT_NE(message.find(path + ": header is 100000001 bytes, over the limit safetensors.header_bytes = 100000000"),
              std::string::npos)
        << message;

    // safetensors.tensors: that many empty tensors are read; one more is refused.
    const auto manyTensors = [](std::uint64_t n) {
        std::string header = "{";
        for (std::uint64_t i = 0; i < n; ++i)
            header += (i ? ",\"t" : "\"t") + std::to_string(i) + R"(":{"dtype":"U8","shape":[0],"data_offsets":[0,0]})";
        return safetensorsBytes(header + "}", "");
    };
    writeFile(path, manyTensors(pl::kSafetensorsTensors.value));
    EXPECT_EQ(engine::readSafetensors(path).size(), pl::kSafetensorsTensors.value);
    message = refusal(manyTensors(pl::kSafetensorsTensors.value + 1));
    EXPECT_NE(message.find(path + ": holds 65537 tensors, over the limit safetensors.tensors = 65536"), std::string::npos)
        << message;

    // safetensors.rank: a shape of 64 ones is read; 65 are refused.
    const auto ofRank = [](std::uint64_t rank) {
        std::string shape;
        for (std::uint64_t i = 0; i < rank; ++i)
            shape += i ? ",1" : "1";
        return safetensorsBytes(R"({"a":{"dtype":"U8","shape":[)" + shape + R"(],"data_offsets":[0,1]}})", "x");
    };
    writeFile(path, ofRank(pl::kSafetensorsRank.value));
    const NamedTensors ranked = engine::readSafetensors(path);
    ASSERT_EQ(ranked.size(), 1u);
    EXPECT_EQ(std::uint64_t(ranked[0].second.dim()), pl::kSafetensorsRank.value);
    message = refusal(ofRank(pl::kSafetensorsRank.value + 1));
    EXPECT_NE(message.find(path + ": tensor 'a': shape of 65 dimensions, over the limit safetensors.rank = 64"),
              std::string::npos)
        << message;

    // json.depth: the header object, a tensor's object and an ignored field nested to the limit.
    const auto nested = [](std::uint64_t depth) {
        const std::string arrays = std::string(depth - 2, '[') + std::string(depth - 2, ']');
        return safetensorsBytes(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":)" + arrays + "}}", "x");
    };
    writeFile(path, nested(pl::kJsonDepth.value));
    EXPECT_EQ(engine::readSafetensors(path).size(), 1u);
    message = refusal(nested(pl::kJsonDepth.value + 1));
    EXPECT_NE(message.find(path + ": header: JSON nested 65 levels deep, over the limit json.depth = 64"),
              std::string::npos)
        << message;
}

TEST(Safetensors, ReadsFilesOfAnIndependentWriter)
{
    const std::filesystem::path parity = sourceDir() / "tests" / "parity";
    ASSERT_TRUE(std::filesystem::exists(parity / "safetensors_io.py")) << parity;
    TempDir tmp;
    runPython(tmp, R"(
import sys, torch
sys.path.insert(0, sys.argv[1])
import safetensors_io
safetensors_io.save(sys.argv[2], {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3),
                                  "b": torch.arange(3, dtype=torch.bfloat16), "n": torch.tensor([True, False])},
                    {"k": "v"})
)", parity.string() + " " + tmp.file("py.safetensors"));
    std::map<std::string, std::string> metadata;
    const NamedTensors back = engine::readSafetensors(tmp.file("py.safetensors"), &metadata);
    EXPECT_EQ(metadata["k"], "v");
    EXPECT_TRUE(torch::equal(find(back, "w"), torch::arange(6, torch::kFloat).reshape({2, 3})));
    EXPECT_TRUE(torch::equal(find(back, "b"), torch::arange(3).to(torch::kBFloat16)));
    EXPECT_TRUE(torch::equal(find(back, "n"), torch::tensor({true, false})));
}

// ---------------------------------------------------------------------------------------------
// torch.save .pth

TEST(TorchPth, ReadsATorchSaveStateDictWithViewsSharedStoragesAndDtypes)
{
    TempDir tmp;
    runPython(tmp, R"(
import collections, sys, torch
torch.set_num_threads(1)
a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
sd = collections.OrderedDict()
sd["a"] = a
sd["a_t"] = a.t()                 # strided view of a's storage
sd["a_part"] = a[1:, 1:3]         # offset + strides, same storage
sd["half"] = torch.arange(4, dtype=torch.half) * 0.5
sd["bf16"] = torch.arange(3, dtype=torch.bfloat16)
sd["long"] = torch.tensor([-5, 2 ** 40])
sd["int"] = torch.tensor([-1, 7], dtype=torch.int32)
sd["double"] = torch.arange(3, dtype=torch.float64) / 4
sd["bool"] = torch.tensor([True, False])
sd["u8"] = torch.tensor([0, 255], dtype=torch.uint8)
sd["scalar"] = torch.tensor(2.5)
sd["empty"] = torch.zeros(0, 2)
sd._metadata = collections.OrderedDict([("", {"version": 1}), ("bn", {"version": 2})])
torch.save(sd, sys.argv[1])
# A training checkpoint around a module's state dict (with nn.Parameter objects).
net = torch.nn.Sequential(torch.nn.Conv2d(3, 2, 1), torch.nn.BatchNorm2d(2))
torch.save({"epoch": 3, "lr": 0.1, "tags": ["x", None, True], "state_dict": net.state_dict(keep_vars=True)}, sys.argv[2])
)", tmp.file("sd.pth") + " " + tmp.file("ckpt.pth"));

    const NamedTensors sd = engine::readTorchPth(tmp.file("sd.pth"));
    std::vector<std::string> names;
    for (const auto &entry : sd)
        names.push_back(entry.first);
    EXPECT_EQ(names, (std::vector<std::string>{"a", "a_t", "a_part", "half", "bf16", "long", "int", "double", "bool",
                                               "u8", "scalar", "empty"}))
        << "file order kept";
    const torch::Tensor a = torch::arange(12, torch::kFloat).reshape({3, 4});
    EXPECT_TRUE(torch::equal(find(sd, "a"), a));
    EXPECT_TRUE(torch::equal(find(sd, "a_t"), a.t()));
    EXPECT_TRUE(torch::equal(find(sd, "a_part"), a.slice(0, 1).slice(1, 1, 3)));
    EXPECT_TRUE(torch::equal(find(sd, "half"), torch::arange(4).to(torch::kHalf) * 0.5));
    EXPECT_TRUE(torch::equal(find(sd, "bf16"), torch::arange(3).to(torch::kBFloat16)));
    EXPECT_TRUE(torch::equal(find(sd, "long"), torch::tensor({std::int64_t(-5), std::int64_t(1) << 40})));
    EXPECT_TRUE(torch::equal(find(sd, "int"), torch::tensor({-1, 7}, torch::kInt)));
    EXPECT_TRUE(torch::equal(find(sd, "double"), torch::arange(3, torch::kDouble) / 4));
    EXPECT_TRUE(torch::equal(find(sd, "bool"), torch::tensor({true, false})));
    EXPECT_TRUE(torch::equal(find(sd, "u8"), torch::tensor({0, 255}, torch::kByte)));
    EXPECT_EQ(find(sd, "scalar").dim(), 0);
    EXPECT_FLOAT_EQ(find(sd, "scalar").item<float>(), 2.5f);
    EXPECT_EQ(find(sd, "empty").sizes(), (std::vector<std::int64_t>{0, 2}));
    for (const auto &[name, t] : sd)
        EXPECT_TRUE(t.is_contiguous()) << name;

    const NamedTensors ckpt = engine::readWeightsFile(tmp.file("ckpt.pth"));
    names.clear();
    for (const auto &entry : ckpt)
        names.push_back(entry.first);
    EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                               "1.running_var", "1.num_batches_tracked"}));
    EXPECT_TRUE(torch::equal(find(ckpt, "1.running_var"), torch::ones(2)));

    // One byte flipped inside a's storage (floats 1.0, 2.0 ...): torch.load would take it; the
    // entry's CRC-32 names it.
    std::string bytes = readFile(tmp.file("sd.pth"));
    const std::size_t at = bytes.find(B("\x00\x00\x80\x3f\x00\x00\x00\x40"));
    ASSERT_NE(at, std::string::npos);
    bytes[at + 2] ^= 0x01;
    writeFile(tmp.file("flipped.pth"), bytes);
    const std::string message = errorOf([&] { engine::readTorchPth(tmp.file("flipped.pth")); });
    EXPECT_NE(message.find(tmp.file("flipped.pth")), std::string::npos) << message;
    EXPECT_NE(message.find("zip entry 'data/0' fails its CRC-32 check"), std::string::npos) << message;
}

TEST(TorchPth, HostileArchivesGiveErrorsNamingFileAndReason)
{
    TempDir tmp;
    const std::string floats4(16, '\0');
    const struct Case
    {
        const char *name;
        std::string pickle;
        std::vector<std::pair<std::string, std::string>> storages;
        const char *reason;
    } cases[] = {
        {"os_system", std::string("\x80\x02") + "cos\nsystem\n" + binunicode("echo pwned") + "\x85R.", {},
         "refuses global 'os.system'"},
        {"builtins_eval", std::string("\x80\x02") + "cbuiltins\neval\n.", {}, "refuses global 'builtins.eval'"},
        {"stack_global",
         std::string("\x80\x04") + "\x8c\x0asubprocess\x8c\x05Popen\x93.", {}, "refuses global 'subprocess.Popen'"},
        {"garbage", "\x80\x02\xff\xfe\xfd", {}, "unsupported pickle opcode 0xff"},
        {"truncated_pickle", B("\x80\x02X\x10\x00\x00\x00" "abc"), {}, "truncated"},
        {"no_stop", std::string("\x80\x02}"), {}, "truncated"},
        {"missing_storage", tensorPickle("K\x04\x85", "K\x01\x85", 0, 4), {}, "storage record 'data/0' is missing"},
        {"beyond_storage", tensorPickle("Kd\x85", "K\x01\x85", 0, 4), {{"0", floats4}}, "reaches element 99"},
        {"offset_beyond_storage", tensorPickle("K\x02\x85", "K\x01\x85", 3, 4), {{"0", floats4}}, "reaches element 4"},
        {"storage_size_wrong", tensorPickle("K\x04\x85", "K\x01\x85", 0, 8), {{"0", floats4}}, "holds 16 bytes"},
        {"storage_key_path", tensorPickle("K\x04\x85", "K\x01\x85", 0, 4, "../0"), {{"0", floats4}}, "missing"},
        {"not_a_dict", std::string("\x80\x02]."), {}, "not a state dict"},
        {"no_tensors", std::string("\x80\x02}."), {}, "holds no tensors"},
        {"self_reference", B("\x80\x02]q\x00" "h\x00" "a."), {}, "contains itself"},
        {"deep_nesting", std::string("\x80\x02") + std::string(200, ']') + std::string(199, 'a') + ".", {},
         "over the limit pth.pickle_depth = 64"},
        {"mutate_after_use", B("\x80\x02]q\x00" "]h\x00" "ah\x00" "]a."), {}, "already part of another value"},
        {"call_storage_type", std::string("\x80\x02") + "ctorch\nFloatStorage\n)R.", {}, "REDUCE calls a storage type"},
        {"stack_underflow", std::string("\x80\x02s."), {}, "stack underflow"},
    };
    for (const Case &c : cases) {
        const std::string path = tmp.file(std::string(c.name) + ".pth");
        writePth(path, c.pickle, c.storages);
        const std::string message = errorOf([&] { engine::readTorchPth(path); });
        EXPECT_NE(message.find(path), std::string::npos) << c.name << ": " << message;
        EXPECT_NE(message.find(c.reason), std::string::npos) << c.name << ": " << message;
    }

    // Damaged archives: cut short, zero bytes, not a zip at all, a corrupted central directory.
    const std::string good = tmp.file("good.pth");
    writePth(good, tensorPickle("K\x04\x85", "K\x01\x85", 0, 4), {{"0", floats4}});
    ASSERT_EQ(engine::readTorchPth(good).size(), 1u);
    const std::string bytes = readFile(good);
    for (std::size_t cut : {bytes.size() / 2, bytes.size() - 10, std::size_t(0), std::size_t(3)}) {
        const std::string path = tmp.file("cut" + std::to_string(cut) + ".pth");
        writeFile(path, bytes.substr(0, cut));
        const std::string message = errorOf([&] { engine::readTorchPth(path); });
        EXPECT_NE(message.find(path), std::string::npos) << cut << ": " << message;
    }
    // A huge size claimed for an entry is refused before anything is allocated for it.
    std::string bigClaim = bytes;
    const std::size_t cd = bigClaim.rfind(std::string("PK\x01\x02", 4));
    ASSERT_NE(cd, std::string::npos);
    bigClaim[cd + 24 + 3] = '\x7f'; // uncompressed size of the last entry: ~2 GB
    writeFile(tmp.file("claim.pth"), bigClaim);
    EXPECT_NE(errorOf([&] { engine::readTorchPth(tmp.file("claim.pth")); }).find("inconsistent sizes"), std::string::npos);
    writeFile(tmp.file("text.pth"), "PK but not a zip at all");
    EXPECT_NE(errorOf([&] { engine::readWeightsFile(tmp.file("text.pth")); }).find(tmp.file("text.pth")),
              std::string::npos);
}

// The .pth limits (engine/base/parse_limits.h), each at the limit (read) and one over (refused,
// naming the limit).
TEST(TorchPth, LimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    TempDir tmp;
    const std::string path = tmp.file("limit.pth");
    const std::string floats4(16, '\0');
    const std::string plain = tensorPickle("K\x04\x85", "K\x01\x85", 0, 4);

    // pth.pickle_depth: the state dict holds, beside its tensor, lists nested inside each other.
    const auto withNesting = [&](std::uint64_t depth) {
        std::string pickle = plain;
        pickle.insert(pickle.size() - 2, binunicode("n") + std::string(depth, ']') + std::string(depth - 1, 'a'));
        return pickle;
    };
    writePth(path, withNesting(pl::kPthPickleDepth.value), {{"0", floats4}});
    EXPECT_EQ(engine::readTorchPth(path).size(), 1u);
    writePth(path, withNesting(pl::kPthPickleDepth.value + 1), {{"0", floats4}});
    std::string message = errorOf([&] { engine::readTorchPth(path); });
    EXPECT_NE(message.find(path + ": data.pkl: values nested 65 levels deep, over the limit pth.pickle_depth = 64"),
              std::string::npos)
        << message;

    // pth.pickle_bytes: data.pkl padded after its STOP to exactly the limit, then one byte more.
    std::string padded = plain;
    padded.resize(pl::kPthPickleBytes.value, '\0');
    writePth(path, padded, {{"0", floats4}});
    EXPECT_EQ(engine::readTorchPth(path).size(), 1u);
    padded.push_back('\0');
    writePth(path, padded, {{"0", floats4}});
    message = errorOf([&] { engine::readTorchPth(path); });
    EXPECT_NE(message.find(path + ": data.pkl: 67108865 bytes, over the limit pth.pickle_bytes = 67108864"),
              std::string::npos)
        << message;
    padded = {};

    // pth.zip_entries: the archive padded with empty records to exactly the limit, then one more.
    writePth(path, plain, {{"0", floats4}});
    const std::string base = readFile(path);
    const std::size_t eocd = base.rfind(std::string("PK\x05\x06", 4));
    ASSERT_NE(eocd, std::string::npos);
    const std::uint64_t baseEntries = std::uint8_t(base[eocd + 10]) | std::uint64_t(std::uint8_t(base[eocd + 11])) << 8;
    const auto withEntries = [&](std::uint64_t entries) {
        std::vector<std::pair<std::string, std::string>> storages = {{"0", floats4}};
        for (std::uint64_t i = baseEntries; i < entries; ++i)
            storages.emplace_back("pad" + std::to_string(i), "");
        writePth(path, plain, storages);
    };
    withEntries(pl::kPthZipEntries.value);
    EXPECT_EQ(engine::readTorchPth(path).size(), 1u);
    withEntries(pl::kPthZipEntries.value + 1);
    message = errorOf([&] { engine::readTorchPth(path); });
    EXPECT_NE(message.find(path + ": zip directory lists 65537 entries, over the limit pth.zip_entries = 65536"),
              std::string::npos)
        << message;
}

// ---------------------------------------------------------------------------------------------
// State dicts: loading, reports, head replacement, stem adaptation

TEST(WeightsIo, StateDictHasTorchvisionNamesIncludingBatchNormCounters)
{
    TinyNet net(3, 5);
    std::vector<std::string> names;
    for (const auto &entry : engine::stateDict(net))
        names.push_back(entry.first);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"bn1.bias", "bn1.num_batches_tracked", "bn1.running_mean",
                                               "bn1.running_var", "bn1.weight", "conv1.weight", "fc.bias",
                                               "fc.weight"}));
}

TEST(WeightsIo, LoadReportsMissingUnexpectedAndMismatched)
{
    torch::manual_seed(2);
    TinyNet source(3, 5), target(3, 5);
    NamedTensors tensors = engine::stateDict(source);
    // Drop one, add one, change one's shape, give one in another dtype.
    tensors.erase(std::remove_if(tensors.begin(), tensors.end(), [](const auto &t) { return t.first == "bn1.bias"; }),
                  tensors.end());
    tensors.emplace_back("extra.weight", torch::ones(3));
    for (auto &[name, t] : tensors) {
        if (name == "bn1.running_mean")
            t = torch::zeros(7);
        if (name == "conv1.weight")
            t = t.to(torch::kDouble);
    }
    const engine::LoadReport report = engine::loadStateDict(target, tensors); // no info: no head/stem rules
    EXPECT_EQ(report.missing, (std::vector<std::string>{"bn1.bias"}));
    EXPECT_EQ(report.unexpected, (std::vector<std::string>{"extra.weight"}));
    ASSERT_EQ(report.mismatched.size(), 1u);
    EXPECT_EQ(report.mismatched[0], "bn1.running_mean: file [7] vs model [4]");
    EXPECT_FALSE(report.clean());
    EXPECT_EQ(report.loadedTensors, 6);
    EXPECT_TRUE(torch::equal(target.conv1->weight, source.conv1->weight)) << "converted to the model's dtype";
    EXPECT_EQ(target.conv1->weight.scalar_type(), torch::kFloat);
    EXPECT_TRUE(torch::equal(target.fc->weight, source.fc->weight));
    const std::string text = report.text();
    EXPECT_NE(text.find("Missing from the file"), std::string::npos) << text;
    EXPECT_NE(text.find("bn1.running_mean: file [7] vs model [4]"), std::string::npos) << text;

    // A clean load says so; older files without num_batches_tracked still are clean.
    NamedTensors all = engine::stateDict(source);
    all.erase(std::remove_if(all.begin(), all.end(), [](const auto &t) { return t.first == "bn1.num_batches_tracked"; }),
              all.end());
    const engine::LoadReport clean = engine::loadStateDict(target, all);
    EXPECT_TRUE(clean.clean()) << clean.text();
    EXPECT_NE(clean.text().find("Every tensor matched"), std::string::npos);
}

TEST(WeightsIo, ReplacesAHeadWithAnotherClassCount)
{
    torch::manual_seed(3);
    TinyNet imagenet(3, 1000), mine(3, 7);
    const torch::Tensor freshHead = mine.fc->weight.clone();
    const engine::BackboneInfo info = tinyInfo();
    const engine::LoadReport report = engine::loadStateDict(mine, engine::stateDict(imagenet), &info);
    EXPECT_TRUE(report.headReplaced);
    EXPECT_TRUE(report.clean()) << report.text();
    EXPECT_TRUE(torch::equal(mine.fc->weight, freshHead)) << "the new head keeps its initialisation";
    EXPECT_TRUE(torch::equal(mine.conv1->weight, imagenet.conv1->weight));
    EXPECT_NE(report.text().find("Head replaced"), std::string::npos) << report.text();
    EXPECT_NE(report.text().find("1000 ImageNet classes"), std::string::npos) << report.text();

    // Without the architecture's info the same file is a mismatch.
    TinyNet other(3, 7);
    EXPECT_EQ(engine::loadStateDict(other, engine::stateDict(imagenet)).mismatched.size(), 2u);
}

TEST(WeightsIo, AdaptsAnRgbStemToGreyAndMultispectralInputs)
{
    torch::manual_seed(4);
    TinyNet rgb(3, 5);
    rgb.eval();
    const engine::BackboneInfo info = tinyInfo();
    const NamedTensors weights = engine::stateDict(rgb);

    // Grey: the 1-channel model on x equals the RGB model on (x, x, x).
    TinyNet grey(1, 5);
    const engine::LoadReport report = engine::loadStateDict(grey, weights, &info);
    EXPECT_TRUE(report.clean()) << report.text();
    EXPECT_NE(report.stemAdapted.find("summed into 1 input channel"), std::string::npos) << report.stemAdapted;
    EXPECT_NE(report.text().find("Stem adapted"), std::string::npos);
    grey.eval();
    const torch::Tensor x = torch::rand({2, 1, 9, 9});
    EXPECT_TRUE(torch::allclose(grey.forward(x), rgb.forward(x.repeat({1, 3, 1, 1})), 1e-5, 1e-5));

    // Four channels: filters repeated cyclically (R, G, B, R) and scaled by 3/4.
    TinyNet four(4, 5);
    const engine::LoadReport report4 = engine::loadStateDict(four, weights, &info);
    EXPECT_NE(report4.stemAdapted.find("repeated over 4 input channels and scaled by 3/4"), std::string::npos);
    const torch::Tensor w = rgb.conv1->weight;
    const torch::Tensor expected = torch::cat({w, w.slice(1, 0, 1)}, 1) * 0.75;
    EXPECT_TRUE(torch::allclose(four.conv1->weight, expected, 1e-6, 1e-7));

    // Six channels: an RGB image given twice gives the RGB model's output.
    TinyNet six(6, 5);
    engine::loadStateDict(six, weights, &info);
    six.eval();
    const torch::Tensor img = torch::rand({2, 3, 9, 9});
    EXPECT_TRUE(torch::allclose(six.forward(torch::cat({img, img}, 1)), rgb.forward(img), 1e-5, 1e-5));
}

TEST(WeightsIo, ReadWeightsFilePicksTheFormatAndStripsWrapperPrefixes)
{
    TempDir tmp;
    TinyNet net(3, 5);
    NamedTensors wrapped;
    for (const auto &[name, t] : engine::stateDict(net))
        wrapped.emplace_back("module." + name, t);
    engine::writeSafetensors(tmp.file("dp.safetensors"), wrapped);
    const NamedTensors back = engine::readWeightsFile(tmp.file("dp.safetensors"));
    ASSERT_EQ(back.size(), wrapped.size());
    EXPECT_TRUE(find(back, "conv1.weight").defined());
    TinyNet target(3, 5);
    EXPECT_TRUE(engine::loadStateDict(target, back).clean());

    // A training checkpoint: model tensors beside optimizer state.
    NamedTensors checkpoint;
    for (const auto &[name, t] : engine::stateDict(net))
        checkpoint.emplace_back("model." + name, t);
    checkpoint.emplace_back("optimizer.state.0.momentum_buffer", torch::ones(3));
    engine::writeSafetensors(tmp.file("ckpt.safetensors"), checkpoint);
    const NamedTensors model = engine::readWeightsFile(tmp.file("ckpt.safetensors"));
    EXPECT_EQ(model.size(), checkpoint.size() - 1);
    EXPECT_TRUE(engine::loadStateDict(target, model).clean());

    writePth(tmp.file("w.pth"), tensorPickle("K\x04\x85", "K\x01\x85", 0, 4), {{"0", std::string(16, '\0')}});
    EXPECT_EQ(engine::readWeightsFile(tmp.file("w.pth"))[0].first, "w");
    writeFile(tmp.file("empty.bin"), "");
    EXPECT_NE(errorOf([&] { engine::readWeightsFile(tmp.file("empty.bin")); }).find(tmp.file("empty.bin")),
              std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// TorchScript custom backbones

TEST(TorchScriptBackbone, ReplacesTheHeadAndFineTunes)
{
    const std::filesystem::path script = sourceDir() / "tests" / "parity" / "make_torchscript.py";
    ASSERT_TRUE(std::filesystem::exists(script)) << script;
    TempDir tmp;
    const std::string path = tmp.file("resnet18_5.pt");
    const std::string cmd = "'" + lathe::test::python() + "' " + script.string() + " " + path;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

    engine::ModelSpec spec;
    spec.arch = "torchscript";
    spec.torchscriptPath = path;
    spec.head.numClasses = 3;
    engine::BuiltModel built = engine::buildModel(spec);
    auto backbone = std::dynamic_pointer_cast<engine::TorchScriptBackbone>(built.classifier);
    ASSERT_TRUE(backbone);
    EXPECT_EQ(built.info.family, "TorchScript");
    EXPECT_EQ(built.info.headParameters, (std::vector<std::string>{"fc.weight", "fc.bias"}));
    ASSERT_EQ(built.info.stages.size(), 2u);
    EXPECT_EQ(built.info.stages[1].prefixes, (std::vector<std::string>{"fc."}));
    EXPECT_EQ(built.info.stageOf("layer4.1.conv2.weight"), 0);
    EXPECT_EQ(built.info.stageOf("bn1.running_mean"), 0);
    EXPECT_EQ(built.info.stageOf("fc.bias"), 1);
    // resnet18's parameters less its 5-class head plus the 3-class one.
    EXPECT_EQ(built.info.parameters, 11689512 - 513000 + 512 * 3 + 3);

    // The wrapper's state dict has the scripted names and shares the scripted tensors.
    const NamedTensors sd = engine::stateDict(*built.classifier);
    EXPECT_EQ(find(sd, "fc.weight").sizes(), (std::vector<std::int64_t>{3, 512}));
    EXPECT_TRUE(find(sd, "layer1.0.bn1.num_batches_tracked").defined());
    EXPECT_EQ(find(sd, "conv1.weight").data_ptr(), torch::jit::Module(backbone->scripted().attr("conv1").toObject()).attr("weight").toTensor().data_ptr());
    const auto params = built.classifier->parameters();
    EXPECT_EQ(params.size(), 62u);
    for (const auto &p : params)
        EXPECT_TRUE(p.requires_grad());

    // Fine-tune a few steps on one random batch: the loss goes down, so gradients reach the
    // scripted parameters through the wrapper's registration.
    torch::manual_seed(5);
    const torch::Tensor x = torch::randn({8, 3, 32, 32});
    const torch::Tensor y = torch::randint(0, 3, {8}, torch::kLong);
    torch::optim::SGD sgd(params, torch::optim::SGDOptions(0.05).momentum(0.9));
    built.classifier->train();
    double first = 0, last = 0;
    for (int step = 0; step < 8; ++step) {
        const torch::Tensor logits = built.classifier->forward(x);
        ASSERT_EQ(logits.sizes(), (std::vector<std::int64_t>{8, 3}));
        const torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y);
        sgd.zero_grad();
        loss.backward();
        sgd.step();
        (step == 0 ? first : last) = loss.item<double>();
    }
    EXPECT_LT(last, first * 0.7) << "first " << first << ", last " << last;

    // eval() reaches the scripted module: BatchNorm then uses its running statistics.
    built.classifier->eval();
    EXPECT_FALSE(backbone->scripted().is_training());
    const torch::Tensor a = built.classifier->forward(x.slice(0, 0, 2));
    const torch::Tensor b = built.classifier->forward(x.slice(0, 0, 1));
    EXPECT_TRUE(torch::allclose(a.slice(0, 0, 1), b, 1e-4, 1e-5)) << "eval output does not depend on the batch";

    spec.torchscriptPath = tmp.file("absent.pt");
    EXPECT_NE(errorOf([&] { engine::buildModel(spec); }).find("absent.pt"), std::string::npos);
    writeFile(tmp.file("junk.pt"), "junk");
    spec.torchscriptPath = tmp.file("junk.pt");
    EXPECT_NE(errorOf([&] { engine::buildModel(spec); }).find("cannot load the TorchScript module"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Registry models: builder, head replacement through a file

TEST(ModelBuilder, BuildsARegistryModelAndLoadsWeightsWithANewHead)
{
    TempDir tmp;
    engine::ModelSpec imagenet;
    imagenet.arch = "resnet18";
    engine::BuiltModel source = engine::buildModel(imagenet);
    engine::writeSafetensors(tmp.file("r18.safetensors"), engine::stateDict(*source.classifier));

    engine::ModelSpec spec;
    spec.arch = "resnet18";
    spec.head.numClasses = 7;
    spec.inChannels = 1;
    spec.weightsPath = tmp.file("r18.safetensors");
    const engine::BuiltModel built = engine::buildModel(spec);
    EXPECT_TRUE(built.weightsLoaded);
    EXPECT_TRUE(built.report.clean()) << built.report.text();
    EXPECT_TRUE(built.report.headReplaced);
    EXPECT_NE(built.report.stemAdapted.find("conv1.weight"), std::string::npos);
    EXPECT_EQ(built.info.name, "resnet18");
    built.classifier->eval();
    torch::NoGradGuard noGrad;
    EXPECT_EQ(built.classifier->forward(torch::rand({1, 1, 64, 64})).sizes(), (std::vector<std::int64_t>{1, 7}));

    spec.arch = "resnet19";
    EXPECT_NE(errorOf([&] { engine::buildModel(spec); }).find("resnet19"), std::string::npos);
}
