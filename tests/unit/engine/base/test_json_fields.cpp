// base/json_fields: the readers the run config and the augmentation list check their JSON with,
// and the "<path>: <reason>" messages they fail with.
#include "engine/base/engine_error.h"
#include "engine/base/json_fields.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace lathe;
using namespace lathe::engine::json_fields;
using lathe::test::errorOf;
using json = nlohmann::json;

TEST(JsonFields, PathsNameTheField)
{
    EXPECT_EQ(fieldPath("", "seed"), "seed");
    EXPECT_EQ(fieldPath("optimizer", "lr"), "optimizer.lr");
    EXPECT_EQ(itemPath("devices", 1), "devices[1]");
    EXPECT_EQ(fieldPath(itemPath("data.augment", 2), "scale"), "data.augment[2].scale");
    EXPECT_EQ(errorOf([] { fail("optimizer.lr", "must be > 0 (got -1)"); }), "optimizer.lr: must be > 0 (got -1)");
}

TEST(JsonFields, ShownValuesStayShort)
{
    EXPECT_EQ(shown(json("0.1")), "\"0.1\"");
    EXPECT_EQ(shown(json(2.5)), "2.5");
    EXPECT_EQ(shown(json::parse(R"({"a": [1, 2]})")), "{\"a\": [1, 2]}");
    // Deep nesting is cut after three levels, long values after 60 characters.
    EXPECT_EQ(shown(json::parse("[[[[[[1]]]]]]")), "[[[[...]]]]");
    EXPECT_EQ(shown(json(std::string(100, 'x'))), "\"" + std::string(56, 'x') + "...");
    EXPECT_EQ(shown(json(std::string("\xff", 1))), "\"\xEF\xBF\xBD\""); // invalid UTF-8 replaced
}

TEST(JsonFields, NumbersAndRangesAreWrittenAsUsersWriteThem)
{
    EXPECT_EQ(formatNumber(3), "3");
    EXPECT_EQ(formatNumber(0.1), "0.1");
    EXPECT_EQ(formatNumber(1e-8), "1e-08");
    EXPECT_EQ(joined({"sgd", "adamw"}), "sgd, adamw");
    EXPECT_EQ(NumberRange().ge(0).lt(1).text(), "[0, 1)");
    EXPECT_EQ(NumberRange().gt(0).text(), "> 0");
    EXPECT_EQ(NumberRange().le(4096).text(), "<= 4096");
    EXPECT_EQ(NumberRange().text(), "");
    EXPECT_TRUE(NumberRange().ge(0).lt(1).contains(0));
    EXPECT_FALSE(NumberRange().ge(0).lt(1).contains(1));
    EXPECT_FALSE(NumberRange().gt(0).contains(0));
    EXPECT_FALSE(NumberRange().contains(std::numeric_limits<double>::quiet_NaN()));
}

TEST(JsonFields, ReadersShowWhatTheyFound)
{
    EXPECT_EQ(readString("data.shards", json("x")), "x");
    EXPECT_EQ(errorOf([] { readString("data.shards", json(nullptr)); }), "data.shards: expected a string (got null)");

    const std::vector<std::string> names{"sgd", "adamw"};
    EXPECT_EQ(readEnum("optimizer.name", json("adamw"), names), "adamw");
    EXPECT_EQ(errorOf([&] { readEnum("optimizer.name", json("adam"), names); }),
              "optimizer.name: must be one of sgd, adamw (got \"adam\")");
    EXPECT_EQ(errorOf([&] { readEnum("optimizer.name", json(3), names); }), "optimizer.name: expected a string (got 3)");

    EXPECT_TRUE(readBool("ema.enabled", json(true)));
    EXPECT_EQ(errorOf([] { readBool("ema.enabled", json(1)); }), "ema.enabled: expected true or false (got 1)");

    EXPECT_DOUBLE_EQ(readNumber("optimizer.lr", json(0.1), NumberRange().gt(0)), 0.1);
    EXPECT_EQ(errorOf([] { readNumber("optimizer.lr", json("0.1")); }), "optimizer.lr: expected a number (got \"0.1\")");
    EXPECT_EQ(errorOf([] { readNumber("optimizer.lr", json(-1), NumberRange().gt(0)); }),
              "optimizer.lr: must be > 0 (got -1)");
    EXPECT_EQ(errorOf([] { readNumber("ema.decay", json(1), NumberRange().gt(0).lt(1)); }),
              "ema.decay: must be in (0, 1) (got 1)");
    // JSON text cannot hold inf, a document built in code can.
    EXPECT_NE(errorOf([] { readNumber("optimizer.lr", json(std::numeric_limits<double>::infinity())); }), "");
}

TEST(JsonFields, IntegersMayBeWrittenAsWholeNumbers)
{
    EXPECT_EQ(readInt("optimizer.epochs", json(3)), 3);
    EXPECT_EQ(readInt("optimizer.epochs", json(3.0)), 3);
    EXPECT_EQ(errorOf([] { readInt("optimizer.epochs", json(2.5)); }), "optimizer.epochs: expected an integer (got 2.5)");
    EXPECT_EQ(errorOf([] { readInt("optimizer.epochs", json("10")); }), "optimizer.epochs: expected an integer (got \"10\")");
    EXPECT_EQ(errorOf([] { readInt("optimizer.epochs", json(0), NumberRange().ge(1).le(100000)); }),
              "optimizer.epochs: must be in [1, 100000] (got 0)");
    EXPECT_EQ(errorOf([] { readInt("checkpoints.keep", json(1e20)); }), "checkpoints.keep: out of range (got 1e+20)");

    EXPECT_EQ(readUnsigned("seed", json(std::numeric_limits<std::uint64_t>::max())),
              std::numeric_limits<std::uint64_t>::max()); // exact above 2^53
    EXPECT_EQ(errorOf([] { readUnsigned("seed", json(-1)); }), "seed: must be >= 0 (got -1)");
    EXPECT_EQ(errorOf([] { readUnsigned("seed", json(1e30)); }), "seed: out of range (got 1e+30)");
}

TEST(JsonFields, CallersMayDescribeTheValueInTheirOwnWords)
{
    const std::string path = "data.augment[0].p";
    const NumberRange probability = NumberRange().ge(0).le(1);
    EXPECT_DOUBLE_EQ(readNumber(path, json(0.5), probability, "a probability 0..1"), 0.5);
    // Every failure reads the same, whichever check failed, and shows no value.
    EXPECT_EQ(errorOf([&] { readNumber(path, json(1.5), probability, "a probability 0..1"); }),
              "data.augment[0].p: expected a probability 0..1");
    EXPECT_EQ(errorOf([&] { readNumber(path, json("often"), probability, "a probability 0..1"); }),
              "data.augment[0].p: expected a probability 0..1");
    EXPECT_EQ(errorOf([] { readInt("x.bits", json(9), NumberRange().ge(0).le(8), "an integer 0 <= n <= 8"); }),
              "x.bits: expected an integer 0 <= n <= 8");
    EXPECT_EQ(errorOf([] { readInt("x.bits", json(1.5), NumberRange().ge(0).le(8), "an integer 0 <= n <= 8"); }),
              "x.bits: expected an integer 0 <= n <= 8");
    EXPECT_EQ(errorOf([] { readBool("x.clip", json(1), "true or false"); }), "x.clip: expected true or false");
    EXPECT_EQ(errorOf([] { readEnum("x.interpolation", json("bicubic"), {"nearest", "bilinear"}, "nearest or bilinear"); }),
              "x.interpolation: expected nearest or bilinear");
}

TEST(JsonFields, ContainersSayWhatTheyHold)
{
    const json list = json::array({1, 2});
    EXPECT_EQ(&requireArray("devices", list), &list);
    EXPECT_EQ(errorOf([] { requireArray("devices", json("cuda:0"), "an array of device names"); }),
              "devices: expected an array of device names (got \"cuda:0\")");
    EXPECT_EQ(errorOf([] { requireArray("x", json(3)); }), "x: expected an array (got 3)");
    EXPECT_EQ(errorOf([] { requireObject("optimizer", json(3)); }), "optimizer: expected an object (got 3)");
    EXPECT_NO_THROW(requireObject("optimizer", json::object()));
}

TEST(JsonFields, UnknownKeysAreNamed)
{
    const json item = json::parse(R"({"type": "rotation", "degrees": 5, "degres": 5})");
    EXPECT_NO_THROW(checkKnownKeys("data.augment[0]", item, {"type", "degrees", "degres"}, "unknown"));
    EXPECT_EQ(errorOf([&] { checkKnownKeys("data.augment[0]", item, {"type", "degrees"}, "unknown parameter of rotation"); }),
              "data.augment[0].degres: unknown parameter of rotation");
}

TEST(JsonFields, SuggestionsAreTyposApart)
{
    EXPECT_TRUE(similarNames("learnig_rate", "learning_rate"));
    EXPECT_TRUE(similarNames("polcy", "policy"));
    EXPECT_TRUE(similarNames("optimiser", "optimizer"));
    EXPECT_TRUE(similarNames("lr", "l")); // short names: one edit
    EXPECT_FALSE(similarNames("lr", "wd"));
    EXPECT_FALSE(similarNames("momentum", "mean"));
    EXPECT_EQ(closestName("batchsize", {"epochs", "batch_size", "batch_sizes"}), "batch_size");
    EXPECT_EQ(closestName("eps", {"ema", "eps2", "epsi"}), "eps2"); // the first of equals
    EXPECT_EQ(closestName("warmup", {"lr", "epochs"}), "");
}
