// The parse limits stated once (engine/base/parse_limits.h): their table in docs/formats.md, the
// message helpers and the JSON depth check. Each parser's own tests check its limits at the
// limit and one over, next to its other tests.

#include "engine/base/parse_limits.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace lathe;
using engine::ParseLimit;
namespace pl = engine::parse_limits;

namespace {

// The rows of the table under "## Limits" in docs/formats.md: | `name` | value | unit | why |.
std::vector<std::vector<std::string>> documentedLimits()
{
    std::ifstream in(test::sourceRoot() + "/docs/formats.md");
    EXPECT_TRUE(in) << "docs/formats.md";
    std::vector<std::vector<std::string>> rows;
    bool inSection = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("## ", 0) == 0)
            inSection = line == "## Limits";
        if (!inSection || line.rfind("| `", 0) != 0)
            continue;
        std::vector<std::string> cells;
        std::stringstream cellsText(line.substr(1));
        for (std::string cell; std::getline(cellsText, cell, '|');) {
            const std::size_t first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
            cells.push_back(first == std::string::npos ? std::string() : cell.substr(first, last - first + 1));
        }
        rows.push_back(cells);
    }
    return rows;
}

} // namespace

TEST(ParseLimits, DocsTableIsTheHeaderTable)
{
    const auto rows = documentedLimits();
    ASSERT_EQ(rows.size(), std::size(pl::kAll));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const ParseLimit &limit = *pl::kAll[i];
        ASSERT_EQ(rows[i].size(), 4u) << "row " << i;
        EXPECT_EQ(rows[i][0], std::string("`") + limit.name + "`");
        EXPECT_EQ(rows[i][1], std::to_string(limit.value)) << limit.name;
        EXPECT_EQ(rows[i][2], limit.unit) << limit.name;
        EXPECT_EQ(rows[i][3], limit.why) << limit.name;
    }
}

TEST(ParseLimits, NamesAreUniqueAndStable)
{
    std::set<std::string> names;
    for (const ParseLimit *limit : pl::kAll) {
        const std::string name = limit->name;
        EXPECT_TRUE(names.insert(name).second) << name << " twice";
        // "area.what": lower case, digits and underscores, one dot.
        EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_."), std::string::npos) << name;
        EXPECT_EQ(std::count(name.begin(), name.end(), '.'), 1) << name;
        EXPECT_GT(limit->value, 0u) << name;
        EXPECT_FALSE(std::string(limit->unit).empty()) << name;
        EXPECT_FALSE(std::string(limit->why).empty()) << name;
    }
}

TEST(ParseLimits, CheckLimitAtTheLimitAndOneOver)
{
    EXPECT_NO_THROW(engine::checkLimit("x.json", pl::kZooCatalogBytes.value, pl::kZooCatalogBytes));
    EXPECT_EQ(test::errorOf([] { engine::checkLimit("x.json", pl::kZooCatalogBytes.value + 1, pl::kZooCatalogBytes); }),
              "x.json: 16777217 bytes, over the limit zoo.catalog_bytes = 16777216");
    // A limit in force other than the stated one (tests, command-line options) is the one named.
    EXPECT_NO_THROW(engine::checkLimit("x.json", 10, pl::kZooCatalogBytes, 10));
    EXPECT_EQ(test::errorOf([] { engine::checkLimit("x.json", 11, pl::kZooCatalogBytes, 10); }),
              "x.json: 11 bytes, over the limit zoo.catalog_bytes = 10");
    EXPECT_EQ(engine::overLimit(pl::kSafetensorsHeaderBytes), "over the limit safetensors.header_bytes = 100000000");
}

TEST(ParseLimits, JsonDepthCountsBracketsOutsideStrings)
{
    EXPECT_EQ(engine::jsonNestingDepth(""), 0u);
    EXPECT_EQ(engine::jsonNestingDepth("1"), 0u);
    EXPECT_EQ(engine::jsonNestingDepth("{}"), 1u);
    EXPECT_EQ(engine::jsonNestingDepth(R"({"a": [1, {"b": []}], "c": {}})"), 4u);
    EXPECT_EQ(engine::jsonNestingDepth(R"({"[[[[": "]]{{"})"), 1u);
    EXPECT_EQ(engine::jsonNestingDepth(R"({"a\"[[[": 1})"), 1u);
    EXPECT_EQ(engine::jsonNestingDepth(R"(["\\", [[]]])"), 3u);
    EXPECT_EQ(engine::jsonNestingDepth("]]]][["), 2u); // stray closers never go below zero
}

TEST(ParseLimits, JsonDepthAtTheLimitAndOneOver)
{
    const std::uint64_t limit = pl::kJsonDepth.value;
    const std::string atLimit = std::string(limit, '[') + std::string(limit, ']');
    EXPECT_NO_THROW(engine::checkJsonDepth(atLimit, "x.json"));
    const std::string over = "[" + atLimit + "]";
    EXPECT_EQ(test::errorOf([&] { engine::checkJsonDepth(over, "x.json"); }),
              "x.json: JSON nested 65 levels deep, over the limit json.depth = 64");
    EXPECT_EQ(test::errorOf([&] { engine::checkJsonDepth("[[[]]]", "x.json", 2); }),
              "x.json: JSON nested 3 levels deep, over the limit json.depth = 2");
}
