#include "engine/base/crc32c.h"
#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_reader.h"
#include "engine/formats/tfrecord_writer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

using namespace lathe;
using lathe::test::errorOf;
using lathe::test::TempDir;

namespace {


std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

std::vector<std::string> listDir(const std::filesystem::path &dir)
{
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string randomBytes(std::size_t size, std::mt19937 &rng)
{
    std::string s(size, '\0');
    for (char &c : s)
        c = static_cast<char>(rng() & 0xff);
    return s;
}

// Bit-at-a-time CRC32C straight from the definition, to check the fast paths against.
std::uint32_t crc32cReference(const std::string &s)
{
    std::uint32_t crc = 0xffffffffu;
    for (unsigned char c : s) {
        crc ^= c;
        for (int k = 0; k < 8; ++k)
            crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
    }
    return ~crc;
}

cv::Mat decodeImage(const std::string &bytes)
{
    return cv::imdecode(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), cv::IMREAD_UNCHANGED);
}

std::vector<engine::TFRecordIndexEntry> writeShard(const std::string &path, const std::vector<std::string> &records)
{
    engine::TFRecordWriter writer(path);
    for (const std::string &r : records)
        writer.write(r);
    return writer.finish().index;
}

std::vector<std::string> readAll(const std::string &path)
{
    engine::TFRecordReader reader(path);
    std::vector<std::string> out;
    std::string record;
    while (reader.next(record))
        out.push_back(record);
    return out;
}

// A protobuf wire-format encoder written by hand from the spec, independent of libprotobuf,
// for records our serializer would never produce (missing keys, wrong types).
namespace wire {
std::string varint(std::uint64_t v)
{
    std::string out;
    while (v >= 0x80) {
        out.push_back(char((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(char(v));
    return out;
}
std::string field(int number, const std::string &payload) // length-delimited (wire type 2)
{
    return varint(std::uint64_t(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string bytesFeature(const std::vector<std::string> &values)
{
    std::string list;
    for (const std::string &v : values)
        list += field(1, v);
    return field(1, list);
}
std::string int64Feature(const std::vector<std::int64_t> &values) // packed, as TF declares
{
    std::string packed;
    for (std::int64_t v : values)
        packed += varint(std::uint64_t(v));
    return field(3, field(1, packed));
}
std::string floatFeature(float v)
{
    char b[4];
    std::memcpy(b, &v, 4);
    return field(2, field(1, std::string(b, 4)));
}
std::string example(const std::vector<std::pair<std::string, std::string>> &features)
{
    std::string map;
    for (const auto &[key, feature] : features)
        map += field(1, field(1, key) + field(2, feature));
    return field(1, map);
}
} // namespace wire

engine::ImageExample sampleExample()
{
    engine::ImageExample e;
    e.encoded = std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + std::string(300, '\0');
    e.format = "png";
    e.label = (std::int64_t(1) << 40) + 7;
    e.classText = "猫 cat";
    e.height = 480;
    e.width = 640;
    e.channels = 3;
    e.filename = "cat/IMG 0001.png";
    e.sha256 = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3a94a8fe5ccb19ba61c4c0873";
    return e;
}

// sampleExample() as (key, wire feature) pairs in sorted key order.
std::vector<std::pair<std::string, std::string>> sampleWireFeatures()
{
    const engine::ImageExample e = sampleExample();
    return {
        {"image/channels", wire::int64Feature({e.channels})},
        {"image/class/label", wire::int64Feature({e.label})},
        {"image/class/text", wire::bytesFeature({e.classText})},
        {"image/encoded", wire::bytesFeature({e.encoded})},
        {"image/filename", wire::bytesFeature({e.filename})},
        {"image/format", wire::bytesFeature({e.format})},
        {"image/height", wire::int64Feature({e.height})},
        {"image/key/sha256", wire::bytesFeature({e.sha256})},
        {"image/width", wire::int64Feature({e.width})},
    };
}

} // namespace

// ---------------------------------------------------------------------------------------
// CRC32C

TEST(Crc32c, KnownVectors)
{
    const std::string digits = "123456789";
    const std::string zeros(32, '\0');
    const std::string ones(32, '\xff');
    std::string ascending;
    for (int i = 0; i < 32; ++i)
        ascending.push_back(char(i));
    const std::string descending(ascending.rbegin(), ascending.rend());
    // RFC 3720 (iSCSI) B.4 test vectors, and the classic check value.
    const std::vector<std::pair<std::string, std::uint32_t>> vectors = {
        {digits, 0xE3069283u}, {zeros, 0x8A9136AAu}, {ones, 0x62A8AB43u},
        {ascending, 0x46DD794Eu}, {descending, 0x113FDB5Cu}, {"", 0u},
    };
    for (const auto &[data, expected] : vectors) {
        EXPECT_EQ(engine::crc32c(data.data(), data.size()), expected);
        EXPECT_EQ(engine::crc32cPortable(data.data(), data.size()), expected);
        EXPECT_EQ(crc32cReference(data), expected);
    }
}

TEST(Crc32c, FastPathsMatchTheDefinitionAtEveryAlignmentAndLength)
{
    std::mt19937 rng(7);
    const std::string data = randomBytes(4096 + 16, rng);
    for (std::size_t start = 0; start < 9; ++start)
        for (std::size_t len : {0, 1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 1000, 4096}) {
            const std::string slice = data.substr(start, len);
            const std::uint32_t expected = crc32cReference(slice);
            ASSERT_EQ(engine::crc32c(data.data() + start, len), expected) << start << "+" << len;
            ASSERT_EQ(engine::crc32cPortable(data.data() + start, len), expected) << start << "+" << len;
        }
}

TEST(Crc32c, ExtendsAcrossPieces)
{
    std::mt19937 rng(11);
    const std::string data = randomBytes(10000, rng);
    const std::uint32_t whole = engine::crc32c(data.data(), data.size());
    for (std::size_t cut : {0, 1, 5, 8, 4999, 9999, 10000}) {
        const std::uint32_t head = engine::crc32c(data.data(), cut);
        EXPECT_EQ(engine::crc32c(data.data() + cut, data.size() - cut, head), whole) << cut;
        EXPECT_EQ(engine::crc32cPortable(data.data() + cut, data.size() - cut, head), whole) << cut;
    }
}

TEST(Crc32c, TfRecordMask)
{
    // Mask is TensorFlow's: rotate right by 15, add 0xa282ead8; unmask inverts it.
    EXPECT_EQ(engine::maskCrc32c(0u), 0xa282ead8u);
    EXPECT_EQ(engine::maskCrc32c(0xE3069283u), ((0xE3069283u >> 15) | (0xE3069283u << 17)) + 0xa282ead8u);
    for (std::uint32_t crc : {0u, 1u, 0xE3069283u, 0xffffffffu, 0x80000000u})
        EXPECT_EQ(engine::unmaskCrc32c(engine::maskCrc32c(crc)), crc);
}

// ---------------------------------------------------------------------------------------
// Writer and reader

TEST(TFRecord, RoundTripOfVariedSizesWithExactIndex)
{
    TempDir dir;
    const std::string path = dir.file("train-00000-of-00001.tfrecord");
    std::mt19937 rng(42);
    std::vector<std::string> records = {"", "x", randomBytes(1 << 20, rng), ""};
    for (int i = 0; i < 300; ++i)
        records.push_back(randomBytes(rng() % (i % 10 == 0 ? 300000 : 2000), rng));
    records.push_back(randomBytes((1 << 20) + 3, rng));

    engine::TFRecordShard shard;
    {
        engine::TFRecordWriter writer(path);
        for (const std::string &r : records)
            writer.write(r);
        EXPECT_EQ(writer.records(), records.size());
        // Nothing appears under the final names before finish().
        EXPECT_FALSE(std::filesystem::exists(path));
        EXPECT_FALSE(std::filesystem::exists(path + ".idx"));
        shard = writer.finish();
    }
    EXPECT_EQ(listDir(dir.path()), (std::vector<std::string>{"train-00000-of-00001.tfrecord",
                                                              "train-00000-of-00001.tfrecord.idx"}));
    EXPECT_EQ(shard.path, path);
    EXPECT_EQ(shard.indexPath, path + ".idx");
    EXPECT_EQ(shard.records, records.size());

    std::uint64_t offset = 0;
    std::string expectedIdx;
    ASSERT_EQ(shard.index.size(), records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(shard.index[i].offset, offset) << i;
        EXPECT_EQ(shard.index[i].size, 16 + records[i].size()) << i;
        expectedIdx += std::to_string(offset) + " " + std::to_string(16 + records[i].size()) + "\n";
        offset += 16 + records[i].size();
    }
    EXPECT_EQ(shard.bytes, offset);
    EXPECT_EQ(std::filesystem::file_size(path), offset);
    EXPECT_EQ(readFile(shard.indexPath), expectedIdx);
    EXPECT_EQ(engine::TFRecordReader::readIndex(shard.indexPath), shard.index);
    EXPECT_EQ(shard.sha256.size(), 64u);
    EXPECT_EQ(shard.sha256.find_first_not_of("0123456789abcdef"), std::string::npos);

    // Sequential read, with the offsets the reader reports.
    engine::TFRecordReader reader(path);
    EXPECT_EQ(reader.fileSize(), offset);
    std::string record;
    for (std::size_t i = 0; i < records.size(); ++i) {
        ASSERT_TRUE(reader.next(record)) << i;
        ASSERT_EQ(record, records[i]) << i;
        EXPECT_EQ(reader.lastOffset(), shard.index[i].offset);
    }
    EXPECT_FALSE(reader.next(record));
    EXPECT_FALSE(reader.next(record));

    // Random access in reverse order, then sequential reading resumes after a seek.
    for (std::size_t i = records.size(); i-- > 0;)
        ASSERT_EQ(reader.readAt(shard.index[i]), records[i]) << i;
    reader.seek(shard.index[2].offset);
    ASSERT_TRUE(reader.next(record));
    EXPECT_EQ(record, records[2]);
    ASSERT_TRUE(reader.next(record));
    EXPECT_EQ(record, records[3]);
}

TEST(TFRecord, ExactBytesOfASmallShard)
{
    TempDir dir;
    const std::string path = dir.file("s.tfrecord");
    const engine::TFRecordShard shard = [&] {
        engine::TFRecordWriter writer(path);
        writer.write("abc");
        return writer.finish();
    }();
    // u64 LE length 3, masked CRC32C of those 8 bytes, "abc", masked CRC32C of "abc"; the
    // bytes and their SHA-256 as computed by a separate Python script (bitwise CRC, hashlib).
    const std::string expected("\x03\0\0\0\0\0\0\0\xb0\x99\x49\x0e"
                               "abc"
                               "\x6e\x57\xf1\x21",
                               19);
    EXPECT_EQ(engine::maskCrc32c(crc32cReference("abc")), 0x21f1576eu);
    EXPECT_EQ(readFile(path), expected);
    EXPECT_EQ(readFile(path + ".idx"), "0 19\n");
    EXPECT_EQ(shard.bytes, 19u);
    EXPECT_EQ(shard.sha256, "b8f41c69b2dec3d02ae055db4755f562b3015c11413aad8898278609d24502f6");
}

TEST(TFRecord, EmptyShardIsValid)
{
    TempDir dir;
    const std::string path = dir.file("empty.tfrecord");
    const engine::TFRecordShard shard = engine::TFRecordWriter(path).finish();
    EXPECT_EQ(shard.records, 0u);
    EXPECT_EQ(shard.bytes, 0u);
    // SHA-256 of no bytes.
    EXPECT_EQ(shard.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(readFile(path + ".idx"), "");
    EXPECT_TRUE(readAll(path).empty());
    EXPECT_TRUE(engine::TFRecordReader::readIndex(path + ".idx").empty());
}

TEST(TFRecord, WriterWithoutFinishLeavesNothing)
{
    TempDir dir;
    {
        engine::TFRecordWriter writer(dir.file("a.tfrecord"));
        writer.write("some data");
        EXPECT_EQ(listDir(dir.path()).size(), 1u); // the temporary file
    }
    EXPECT_TRUE(listDir(dir.path()).empty());
}

TEST(TFRecord, WriterRefusesUseAfterFinishAndAMissingFolder)
{
    TempDir dir;
    engine::TFRecordWriter writer(dir.file("a.tfrecord"));
    writer.finish();
    EXPECT_NE(errorOf([&] { writer.write("x"); }).find("after finish"), std::string::npos);
    EXPECT_NE(errorOf([&] { writer.finish(); }).find("twice"), std::string::npos);
    const std::string missing = dir.file("no/such/folder/b.tfrecord");
    const std::string error = errorOf([&] { engine::TFRecordWriter w(missing); });
    EXPECT_NE(error.find(missing), std::string::npos) << error;
    EXPECT_NE(error.find("No such file"), std::string::npos) << error;
}

struct CorruptCase
{
    const char *name;
    // Changes the shard bytes; the damaged record is the second, at byte offset 21.
    void (*damage)(std::string &bytes);
    const char *reason;
};

constexpr std::size_t kSecond = 16 + 5; // after the 5-byte first record
constexpr std::size_t kSecondLength = 1000;

void setLength(std::string &bytes, std::uint64_t length)
{
    for (int i = 0; i < 8; ++i)
        bytes[kSecond + i] = char(length >> (8 * i));
    const std::uint32_t crc = engine::maskCrc32c(engine::crc32c(bytes.data() + kSecond, 8));
    for (int i = 0; i < 4; ++i)
        bytes[kSecond + 8 + i] = char(crc >> (8 * i));
}

class TFRecordCorrupt : public ::testing::TestWithParam<CorruptCase>
{
};

TEST_P(TFRecordCorrupt, ThrowsWithShardOffsetAndReason)
{
    const CorruptCase &c = GetParam();
    TempDir dir;
    const std::string path = dir.file("bad.tfrecord");
    std::mt19937 rng(3);
    writeShard(path, {"first", randomBytes(kSecondLength, rng), "third"});
    std::string bytes = readFile(path);
    c.damage(bytes);
    writeFile(path, bytes);

    engine::TFRecordReader reader(path);
    std::string record;
    ASSERT_TRUE(reader.next(record));
    EXPECT_EQ(record, "first");
    const std::string error = errorOf([&] { reader.next(record); });
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find("byte offset 21"), std::string::npos) << error;
    EXPECT_NE(error.find(c.reason), std::string::npos) << error;
    // Random access to the same record fails the same way.
    EXPECT_EQ(errorOf([&] { reader.readAt(kSecond); }), error);
}

INSTANTIATE_TEST_SUITE_P(
    Damage, TFRecordCorrupt,
    ::testing::Values(
        CorruptCase{"FlippedLengthByte", [](std::string &b) { b[kSecond + 1] ^= 0x01; }, "bad length CRC"},
        CorruptCase{"FlippedLengthCrc", [](std::string &b) { b[kSecond + 9] ^= 0x40; }, "bad length CRC"},
        CorruptCase{"FlippedDataByte", [](std::string &b) { b[kSecond + 12 + 500] ^= 0x80; }, "bad data CRC"},
        CorruptCase{"FlippedDataCrc", [](std::string &b) { b[kSecond + 12 + kSecondLength + 2] ^= 0x01; },
                    "bad data CRC"},
        CorruptCase{"TruncatedInData", [](std::string &b) { b.resize(kSecond + 12 + 300); }, "truncated record"},
        CorruptCase{"TruncatedInDataCrc", [](std::string &b) { b.resize(kSecond + 12 + kSecondLength + 2); },
                    "truncated record"},
        CorruptCase{"TruncatedInHeader", [](std::string &b) { b.resize(kSecond + 5); }, "truncated record"},
        CorruptCase{"LengthPastEndOfFile", [](std::string &b) { setLength(b, 5000); }, "truncated record"},
        CorruptCase{"HugeLength", [](std::string &b) { setLength(b, std::uint64_t(1) << 62); },
                    "over the limit tfrecord.record_bytes = 268435456"}),
    [](const ::testing::TestParamInfo<CorruptCase> &info) { return info.param.name; });

TEST(TFRecord, LengthLimitIsCheckedBeforeReading)
{
    TempDir dir;
    const std::string path = dir.file("big.tfrecord");
    writeShard(path, {std::string(1000, 'a')});
    engine::TFRecordReader reader(path, 999);
    std::string record;
    const std::string error = errorOf([&] { reader.next(record); });
    EXPECT_NE(error.find("byte offset 0: record of 1000 bytes, over the limit tfrecord.record_bytes = 999"),
              std::string::npos)
        << error;
    EXPECT_TRUE(record.empty());
    engine::TFRecordReader exact(path, 1000);
    EXPECT_TRUE(exact.next(record));
}

// tfrecord.record_bytes as stated (engine/base/parse_limits.h), reached through the declared
// length: at the limit the reader goes on to find the file too short; one byte more is refused
// by the limit, before anything is allocated for it.
TEST(TFRecord, RecordLengthAtTheStatedLimitAndOneOver)
{
    const std::uint64_t limit = engine::parse_limits::kTfrecordRecordBytes.value;
    TempDir dir;
    const std::string path = dir.file("declared.tfrecord");
    std::mt19937 rng(3);
    writeShard(path, {"first", randomBytes(kSecondLength, rng)});
    std::string bytes = readFile(path);
    for (const std::uint64_t length : {limit, limit + 1}) {
        setLength(bytes, length);
        writeFile(path, bytes);
        engine::TFRecordReader reader(path);
        std::string record;
        ASSERT_TRUE(reader.next(record));
        const std::string error = errorOf([&] { reader.next(record); });
        if (length == limit) {
            EXPECT_NE(error.find("truncated record (header declares 268435456 data bytes"), std::string::npos) << error;
            EXPECT_EQ(error.find("over the limit"), std::string::npos) << error;
        } else {
            EXPECT_NE(error.find(path + ": corrupt record at byte offset 21: record of 268435457 bytes, over the limit "
                                        "tfrecord.record_bytes = 268435456"),
                      std::string::npos)
                << error;
        }
    }
}

TEST(TFRecord, ReaderRefusesMissingFilesBadOffsetsAndStaleIndexEntries)
{
    TempDir dir;
    const std::string missing = dir.file("missing.tfrecord");
    EXPECT_NE(errorOf([&] { engine::TFRecordReader r(missing); }).find(missing + ": cannot open"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::TFRecordReader r(dir.path().string()); }).find("not a regular file"),
              std::string::npos);

    const std::string path = dir.file("s.tfrecord");
    writeShard(path, {"one", "two!"});
    engine::TFRecordReader reader(path);
    EXPECT_EQ(reader.readAt(19), "two!");
    EXPECT_NE(errorOf([&] { reader.readAt(39); }).find("no record at byte offset 39"), std::string::npos);
    EXPECT_NE(errorOf([&] { reader.readAt(40); }).find("past the end"), std::string::npos);
    // An offset inside a record reads garbage as a header: its CRC catches it.
    EXPECT_NE(errorOf([&] { reader.readAt(3); }).find("byte offset 3: bad length CRC"), std::string::npos);
    const std::string stale = errorOf([&] { reader.readAt(engine::TFRecordIndexEntry{19, 21}); });
    EXPECT_NE(stale.find("index says the record at byte offset 19 is 21 bytes, the shard holds 20"), std::string::npos)
        << stale;
}

// ---------------------------------------------------------------------------------------
// DALI-style index

TEST(TFRecordIndex, ParsesWellFormedFiles)
{
    TempDir dir;
    writeFile(dir.file("a.idx"), "0 19\n19 20\r\n39 16"); // CRLF and no final newline are fine
    EXPECT_EQ(engine::TFRecordReader::readIndex(dir.file("a.idx")),
              (std::vector<engine::TFRecordIndexEntry>{{0, 19}, {19, 20}, {39, 16}}));
}

TEST(TFRecordIndex, MalformedLinesNameTheFileLineAndReason)
{
    TempDir dir;
    const std::vector<std::tuple<std::string, std::string>> cases = {
        {"0 19\nabc\n", "line 2: expected \"offset size\" (two unsigned integers), got \"abc\""},
        {"0 19 7\n", "line 1: expected \"offset size\""},
        {"0\n", "line 1: expected \"offset size\""},
        {"0 19\n\n19 20\n", "line 2: expected \"offset size\""},
        {"-1 19\n", "line 1: expected \"offset size\""},
        {"0 18446744073709551616\n", "line 1: expected \"offset size\""},
        {"0 15\n", "line 1: record size 15 is smaller than an empty record (16 bytes)"},
        {"0 100\n50 30\n", "line 2: record at offset 50 overlaps or precedes the one before it"},
        {"0 19\n" + std::string(5000, '1') + " 20\n",
         "line 2: more than 127 bytes, over the limit tfrecord.index_line_bytes = 127"},
    };
    for (const auto &[text, reason] : cases) {
        const std::string path = dir.file("bad.idx");
        writeFile(path, text);
        const std::string error = errorOf([&] { engine::TFRecordReader::readIndex(path); });
        EXPECT_NE(error.find(path + ": " + reason), std::string::npos) << "got: " << error;
    }
    const std::string missing = dir.file("none.idx");
    EXPECT_NE(errorOf([&] { engine::TFRecordReader::readIndex(missing); }).find(missing + ": cannot open index"),
              std::string::npos);
}

// tfrecord.index_line_bytes: a line of exactly that many bytes (leading zeros) is read, one byte
// more is refused naming the limit.
TEST(TFRecordIndex, LineLengthAtTheLimitAndOneOver)
{
    const std::size_t limit = engine::parse_limits::kTfrecordIndexLineBytes.value;
    TempDir dir;
    const std::string path = dir.file("long.idx");
    const std::string atLimit = std::string(limit - 5, '0') + "16 16";
    ASSERT_EQ(atLimit.size(), limit);
    writeFile(path, "0 16\n" + atLimit + "\n");
    EXPECT_EQ(engine::TFRecordReader::readIndex(path), (std::vector<engine::TFRecordIndexEntry>{{0, 16}, {16, 16}}));
    writeFile(path, "0 16\n0" + atLimit + "\n");
    const std::string error = errorOf([&] { engine::TFRecordReader::readIndex(path); });
    EXPECT_NE(error.find(path + ": line 2: more than 127 bytes, over the limit tfrecord.index_line_bytes = 127"),
              std::string::npos)
        << error;
}

// ---------------------------------------------------------------------------------------
// tf.train.Example with the TF-slim image keys

TEST(ImageExample, RoundTripOfAllKeys)
{
    const engine::ImageExample e = sampleExample();
    const std::string bytes = engine::serializeImageExample(e);
    const engine::ImageExample back = engine::parseImageExample(bytes);
    EXPECT_EQ(back.encoded, e.encoded);
    EXPECT_EQ(back.format, "png");
    EXPECT_EQ(back.label, (std::int64_t(1) << 40) + 7);
    EXPECT_EQ(back.classText, "猫 cat");
    EXPECT_EQ(back.height, 480);
    EXPECT_EQ(back.width, 640);
    EXPECT_EQ(back.channels, 3);
    EXPECT_EQ(back.filename, "cat/IMG 0001.png");
    EXPECT_EQ(back.sha256, e.sha256);
    EXPECT_TRUE(back == e);
}

TEST(ImageExample, SerializationIsDeterministicAndMatchesTheWireFormat)
{
    // Sorted keys, map entries (key=1, value=2), Feature oneof numbers, packed int64 lists:
    // byte for byte what the hand-written encoder produces from the public field numbers.
    const std::string bytes = engine::serializeImageExample(sampleExample());
    EXPECT_EQ(bytes, wire::example(sampleWireFeatures()));
    EXPECT_EQ(engine::serializeImageExample(sampleExample()), bytes);
}

TEST(ImageExample, NegativeLabelsAndExtraKeys)
{
    auto features = sampleWireFeatures();
    features[1].second = wire::int64Feature({-1});
    features.push_back({"image/object/bbox/xmin", wire::floatFeature(0.5f)});
    const engine::ImageExample e = engine::parseImageExample(wire::example(features));
    EXPECT_EQ(e.label, -1);
    EXPECT_EQ(e.width, 640);
}

TEST(ImageExample, MissingKeysAndWrongTypesNameTheKey)
{
    const auto all = sampleWireFeatures();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string &key = all[i].first;
        auto without = all;
        without.erase(without.begin() + std::ptrdiff_t(i));
        EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(without), "shard.tfrecord@42"); }),
                  "shard.tfrecord@42: tf.train.Example lacks key " + key);

        auto wrongType = all;
        const bool isInt = key == "image/channels" || key == "image/class/label" || key == "image/height"
            || key == "image/width";
        wrongType[i].second = isInt ? wire::bytesFeature({"3"}) : wire::int64Feature({3});
        EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(wrongType), "r"); }),
                  "r: key " + key + (isInt ? " is a bytes_list, expected a int64_list" : " is a int64_list, expected a bytes_list"));

        // The label keys take lists (multi-label), but only as many values in both.
        auto twoValues = all;
        twoValues[i].second = isInt ? wire::int64Feature({1, 2}) : wire::bytesFeature({"a", "b"});
        if (key == "image/class/label")
            EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(twoValues), "r"); }),
                      "r: key image/class/label holds 2 values but image/class/text holds 1");
        else if (key == "image/class/text")
            EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(twoValues), "r"); }),
                      "r: key image/class/label holds 1 values but image/class/text holds 2");
        else
            EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(twoValues), "r"); }),
                      "r: key " + key + " holds 2 values, expected 1");

        auto floats = all;
        floats[i].second = wire::floatFeature(1.0f);
        EXPECT_NE(errorOf([&] { engine::parseImageExample(wire::example(floats), "r"); })
                      .find("key " + key + " is a float_list"),
                  std::string::npos);
    }
}

TEST(ImageExample, RefusesGarbageAndOutOfRangeDimensions)
{
    EXPECT_EQ(errorOf([] { engine::parseImageExample(std::string("\xff\xff\xff", 3), "s@0"); }),
              "s@0: not a tf.train.Example (protobuf parse failed)");
    EXPECT_EQ(errorOf([] { engine::parseImageExample("", "s@0"); }), "s@0: tf.train.Example lacks key image/encoded");
    auto features = sampleWireFeatures();
    features[6].second = wire::int64Feature({-5}); // image/height
    EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(features), "s@0"); }),
              "s@0: key image/height holds -5, out of range");
    features[6].second = wire::int64Feature({std::int64_t(1) << 31});
    EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(features), "s@0"); }),
              "s@0: key image/height holds 2147483648, out of range");
}

TEST(ImageExample, SingleLabelRecordsParseIntoOneElementLists)
{
    // A parsed single-label record carries its label in both forms; serialized again (now
    // through the list), it is the same bytes: a one-value list is a one-value list.
    const std::string bytes = engine::serializeImageExample(sampleExample());
    const engine::ImageExample back = engine::parseImageExample(bytes);
    EXPECT_EQ(back.labels, std::vector<std::int64_t>{(std::int64_t(1) << 40) + 7});
    EXPECT_EQ(back.classTexts, std::vector<std::string>{"猫 cat"});
    EXPECT_EQ(engine::serializeImageExample(back), bytes);
}

TEST(ImageExample, MultiLabelRoundTripAndWireFormat)
{
    engine::ImageExample e = sampleExample();
    e.labels = {0, 3, 17};
    e.classTexts = {"dog", "outdoor", "雪 snow"};
    const std::string bytes = engine::serializeImageExample(e);
    // Both label keys are lists in the order given (packed int64s, repeated bytes), as
    // tf.io.VarLenFeature reads them; every other key is unchanged.
    auto features = sampleWireFeatures();
    features[1].second = wire::int64Feature({0, 3, 17});
    features[2].second = wire::bytesFeature({"dog", "outdoor", "雪 snow"});
    EXPECT_EQ(bytes, wire::example(features));

    const engine::ImageExample back = engine::parseImageExample(bytes);
    EXPECT_EQ(back.labels, (std::vector<std::int64_t>{0, 3, 17}));
    EXPECT_EQ(back.classTexts, (std::vector<std::string>{"dog", "outdoor", "雪 snow"}));
    EXPECT_EQ(back.label, 0);
    EXPECT_EQ(back.classText, "dog");
    EXPECT_EQ(back.encoded, e.encoded);
    EXPECT_EQ(engine::serializeImageExample(back), bytes);
    // Equality looks at the label sets too.
    engine::ImageExample other = back;
    other.labels = {0, 3, 18};
    EXPECT_FALSE(other == back);
}

TEST(ImageExample, BadLabelListsAreRefused)
{
    auto features = sampleWireFeatures();
    features[1].second = wire::int64Feature({});
    EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(features), "s@8"); }),
              "s@8: key image/class/label holds no values, expected 1 or more");
    features = sampleWireFeatures();
    features[2].second = wire::bytesFeature({});
    EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(features), "s@8"); }),
              "s@8: key image/class/text holds no values, expected 1 or more");
    features = sampleWireFeatures();
    features[1].second = wire::int64Feature({1, 2, 3});
    features[2].second = wire::bytesFeature({"a", "b"});
    EXPECT_EQ(errorOf([&] { engine::parseImageExample(wire::example(features), "s@8"); }),
              "s@8: key image/class/label holds 3 values but image/class/text holds 2");
    // Writing refuses a label set whose names do not pair up with it.
    engine::ImageExample e = sampleExample();
    e.labels = {1, 2};
    e.classTexts = {"a"};
    EXPECT_EQ(errorOf([&] { engine::serializeImageExample(e); }), "cat/IMG 0001.png: 2 labels but 1 class texts");
}

// ---------------------------------------------------------------------------------------
// A shard written by an independent implementation (npm `tfrecord`, tests/data/tfrecord)

TEST(TFRecordInterop, ReadsTheNodeTfrecordFixture)
{
    const std::string path = std::string(LATHE_TEST_DATA_DIR) + "/tfrecord/slim_images.tfrecord";
    struct Expected
    {
        const char *filename;
        std::int64_t label;
        const char *text;
        int width, height, channels;
        std::size_t pngBytes;
        const char *sha256;
    };
    // Values printed by `node make_fixture.js write` when it made the file.
    const std::vector<Expected> expected = {
        {"cat/rgb_gradient.png", 0, "cat", 16, 12, 3, 568,
         "614dae2b908b586ad06a8ee295c0c33417f01f9c52f9b37e8f6ac4eaa551b8eb"},
        {"dog/gray_checker.png", 1, "dog", 8, 8, 1, 73,
         "e9d97f0607ac9c11dc93eedaca183e7a4ec1fe76668b551cb3f709f2ac008dec"},
        {"猫/rgba_dots.png", 2, "猫", 5, 3, 4, 114, "7a6480f8c7bf55279cb8abe189c401b1a1a40317d68d2fc6e8d6efb0263e4ecb"},
    };
    engine::TFRecordReader reader(path);
    EXPECT_EQ(reader.fileSize(), 1781u);
    std::string record;
    std::vector<engine::ImageExample> examples;
    std::uint64_t offset = 0;
    for (const Expected &x : expected) {
        ASSERT_TRUE(reader.next(record));
        EXPECT_EQ(reader.lastOffset(), offset);
        offset += 16 + record.size();
        const engine::ImageExample e = engine::parseImageExample(record, path);
        EXPECT_EQ(e.filename, x.filename);
        EXPECT_EQ(e.format, "png");
        EXPECT_EQ(e.label, x.label);
        EXPECT_EQ(e.classText, x.text);
        EXPECT_EQ(e.width, x.width);
        EXPECT_EQ(e.height, x.height);
        EXPECT_EQ(e.channels, x.channels);
        EXPECT_EQ(e.encoded.size(), x.pngBytes);
        EXPECT_EQ(e.sha256, x.sha256);
        // The bytes are the real PNG the fields describe.
        const cv::Mat image = decodeImage(e.encoded);
        ASSERT_FALSE(image.empty()) << x.filename;
        EXPECT_EQ(image.cols, x.width);
        EXPECT_EQ(image.rows, x.height);
        EXPECT_EQ(image.channels(), x.channels);
        examples.push_back(e);
    }
    EXPECT_FALSE(reader.next(record));
    EXPECT_EQ(offset, 1781u);

    // Pixels the script drew: RGB (x*16, y*20, x*y*7) at (3, 2); a gray checkerboard; RGBA.
    const cv::Mat rgb = decodeImage(examples[0].encoded);
    EXPECT_EQ(rgb.at<cv::Vec3b>(2, 3), cv::Vec3b(42, 40, 48)); // OpenCV stores BGR
    const cv::Mat gray = decodeImage(examples[1].encoded);
    EXPECT_EQ(gray.at<std::uint8_t>(0, 0), 0);
    EXPECT_EQ(gray.at<std::uint8_t>(0, 1), 255);
    const cv::Mat rgba = decodeImage(examples[2].encoded);
    EXPECT_EQ(rgba.at<cv::Vec4b>(1, 1), cv::Vec4b(128, 175, 50, 255));

    // Rewritten by our writer and read back, every field survives.
    TempDir dir;
    const std::string ours = dir.file("ours.tfrecord");
    std::vector<std::string> serialized;
    for (const engine::ImageExample &e : examples)
        serialized.push_back(engine::serializeImageExample(e));
    writeShard(ours, serialized);
    const std::vector<std::string> back = readAll(ours);
    ASSERT_EQ(back.size(), examples.size());
    for (std::size_t i = 0; i < back.size(); ++i)
        EXPECT_TRUE(engine::parseImageExample(back[i]) == examples[i]) << i;
}
