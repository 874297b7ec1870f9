// The limits of lathe-cli serve's request parsing (engine/base/parse_limits.h), each at the limit
// (accepted) and one over (refused with 400, naming the limit): serve.json_depth,
// serve.instances and serve.image_pixels. serve.body_bytes is the HTTP side's
// (tests/integration/serve_client.py).

#include "engine/base/parse_limits.h"
#include "engine/pipeline/sample_transform.h"
#include "engine/serve/tf_json.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <memory>
#include <string>
#include <vector>

using namespace lathe;
using engine::serve::ServeError;
namespace pl = engine::parse_limits;

namespace {

// A float32 model taking [3, 2, 2] instances; b64 images go through the evaluation transform.
engine::serve::ModelVersion tinyModel()
{
    engine::serve::ModelVersion m;
    m.name = "tiny";
    m.numClasses = 2;
    m.instanceShape = {3, 2, 2};
    engine::TransformOptions options;
    options.train = false;
    options.imageSize = 2;
    options.resizeSize = 2;
    m.transform = std::make_shared<engine::SampleTransform>(options);
    return m;
}

// A PNG that is only its header: signature, IHDR (8-bit RGB) and IEND.
std::string pngHeader(std::uint32_t width, std::uint32_t height)
{
    std::string out("\x89PNG\r\n\x1a\n", 8);
    const auto u32 = [](std::string &s, std::uint32_t v) {
        for (int shift : {24, 16, 8, 0})
            s += char(v >> shift);
    };
    const auto chunk = [&](const char *type, const std::string &data) {
        u32(out, std::uint32_t(data.size()));
        const std::string body = type + data;
        out += body;
        u32(out, std::uint32_t(crc32(0, reinterpret_cast<const Bytef *>(body.data()), uInt(body.size()))));
    };
    std::string ihdr;
    u32(ihdr, width);
    u32(ihdr, height);
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);
    chunk("IHDR", ihdr);
    chunk("IEND", "");
    return out;
}

std::string base64(const std::string &bytes)
{
    static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size())
            v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size())
            v |= std::uint8_t(bytes[i + 2]);
        out += abc[(v >> 18) & 63];
        out += abc[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? abc[(v >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? abc[v & 63] : '=';
    }
    return out;
}

} // namespace

TEST(ServeLimits, JsonDepthAtTheLimitAndOneOver)
{
    const std::uint64_t limit = pl::kServeJsonDepth.value;
    const auto nested = [](std::uint64_t depth) {
        return R"({"instances": )" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
    };
    EXPECT_TRUE(engine::serve::parseRequestBody(nested(limit)).is_object());
    const std::string message = test::errorOf([&] { engine::serve::parseRequestBody(nested(limit + 1)); });
    EXPECT_EQ(message, "JSON Parse error: nested deeper than 16 levels, over the limit serve.json_depth = 16");
}

TEST(ServeLimits, InstancesAtTheLimitAndOneOver)
{
    const engine::serve::ModelVersion model = tinyModel();
    const nlohmann::json instance = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
    const auto body = [&](std::uint64_t n) {
        nlohmann::json b = nlohmann::json::object();
        b["instances"] = std::vector<nlohmann::json>(n, instance);
        return b;
    };
    const engine::serve::DecodeLimits limits; // the stated defaults
    EXPECT_EQ(engine::serve::decodePredict(model, body(pl::kServeInstances.value), limits).input.size(0),
              std::int64_t(pl::kServeInstances.value));
    try {
        engine::serve::decodePredict(model, body(pl::kServeInstances.value + 1), limits);
        ADD_FAILURE() << "65 instances accepted";
    } catch (const ServeError &e) {
        EXPECT_EQ(e.status(), 400);
        EXPECT_EQ(std::string(e.what()),
                  "instances: 65 instances, over the limit serve.instances = 64 per request (--max-instances)");
    }
}

// 40000000 = 8000 x 5000 passes the limit (and then fails to decode: the PNG is a header only);
// 40000001 = 754717 x 53 is refused from the header.
TEST(ServeLimits, ImagePixelsAtTheLimitAndOneOver)
{
    const engine::serve::ModelVersion model = tinyModel();
    const engine::serve::DecodeLimits limits;
    const auto body = [](std::uint32_t w, std::uint32_t h) {
        nlohmann::json body = nlohmann::json::object();
        body["instances"] = nlohmann::json::array({nlohmann::json{{"b64", base64(pngHeader(w, h))}}});
        return body;
    };
    std::string message = test::errorOf([&] { engine::serve::decodePredict(model, body(8000, 5000), limits); });
    EXPECT_NE(message.find("instances[0]: the image cannot be decoded"), std::string::npos) << message;
    message = test::errorOf([&] { engine::serve::decodePredict(model, body(754717, 53), limits); });
    EXPECT_EQ(message, "instances[0]: the image declares 754717x53 = 40000001 pixels, over the limit serve.image_pixels "
                       "= 40000000 (--max-image-mpx); refused before decoding");
}
