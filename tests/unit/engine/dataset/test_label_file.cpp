// Multi-label datasets: labels files (CSV and JSON lines), scans and conversions from them,
// and verify of label sets.

#include "engine/base/parse_limits.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/folder_scan.h"
#include "engine/dataset/label_file.h"
#include "engine/dataset/shard_converter.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_reader.h"
#include "engine/formats/tfrecord_writer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

using namespace lathe;
using lathe::test::errorOf;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kPhotos = "/usr/share/darknet/data/";

void writeText(const fs::path &path, const std::string &text)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

engine::LabelsFile readText(const TempDir &dir, const std::string &name, const std::string &text)
{
    writeText(dir.path() / name, text);
    return engine::readLabelsFile(dir.file(name));
}

std::map<std::string, std::vector<std::string>> rowsOf(const engine::LabelsFile &file)
{
    std::map<std::string, std::vector<std::string>> rows;
    for (const engine::LabelsRow &r : file.rows)
        rows[r.path] = r.labels;
    return rows;
}

std::vector<std::string> errorsOf(const engine::LabelsFile &file)
{
    std::vector<std::string> errors;
    for (const engine::LabelsRowError &e : file.errors)
        errors.push_back(std::to_string(e.line) + ": " + e.reason);
    return errors;
}

using Labels = std::vector<std::string>;

// Six real photos and a byte copy of one under root/photos; a labels file giving five photos and
// the copy their label sets, plus a row for a file that is not there and a bad row (kite.jpg's).
struct PhotoSet
{
    fs::path root;
    fs::path labels;
};

PhotoSet makePhotos(const TempDir &dir)
{
    const fs::path root = dir.path() / "images";
    for (const char *photo : {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "person.jpg", "kite.jpg"}) {
        fs::create_directories(root / "photos");
        test::writeRaw((root / "photos" / photo).string(), test::readRaw(kPhotos + photo));
    }
    // Same bytes as dog.jpg: an exact duplicate (sorted after it, so dog.jpg is the one kept).
    test::writeRaw((root / "photos/puppy.jpg").string(), test::readRaw(kPhotos + "dog.jpg"));
    const fs::path labels = dir.path() / "labels.csv";
    writeText(labels, "path,labels\n"
                      "photos/dog.jpg,animal;pet\n"
                      "photos/eagle.jpg,animal|bird|sky\n"
                      "photos/giraffe.jpg,animal\n"
                      "photos/horses.jpg,\"animal; outdoor\"\n"
                      "photos/person.jpg,person;outdoor\n"
                      "photos/missing.jpg,animal\n"
                      "photos/puppy.jpg,pet\n"
                      "photos/kite.jpg,;sky\n");
    return {root, labels};
}

engine::ConvertOptions convertOptions(const PhotoSet &set, const fs::path &out)
{
    engine::ConvertOptions options;
    options.scan.root = set.root.string();
    options.scan.labelsFile = set.labels.string();
    options.scan.valFraction = 0.0;
    options.scan.testFraction = 0.0;
    options.outDir = out.string();
    options.shardRecords = 2;
    return options;
}

// Every record of a converted dataset: filename -> its label texts and label indices.
struct ReadRecord
{
    std::vector<std::int64_t> labels;
    std::vector<std::string> texts;
    std::string split;
};

std::map<std::string, ReadRecord> readRecords(const fs::path &datasetDir)
{
    const engine::DatasetManifest m = engine::readDatasetManifest(datasetDir.string());
    std::map<std::string, ReadRecord> records;
    for (const engine::ShardInfo &s : m.shards) {
        engine::TFRecordReader reader((datasetDir / s.file).string());
        std::string record;
        while (reader.next(record)) {
            const engine::ImageExample e = engine::parseImageExample(record);
            records[e.filename] = {e.labels, e.classTexts, s.split};
        }
    }
    return records;
}

// Rewrites one shard's records through edit (and its index and dataset.json entry), as a
// damaged or hand-made dataset would hold them.
void rewriteShard(const fs::path &datasetDir, std::size_t shard,
                  const std::function<void(engine::ImageExample &)> &edit)
{
    const fs::path manifestPath = datasetDir / "dataset.json";
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(manifestPath));
    const std::string file = doc["shards"][shard]["file"];
    std::vector<std::string> records;
    {
        engine::TFRecordReader reader((datasetDir / file).string());
        std::string record;
        while (reader.next(record)) {
            engine::ImageExample e = engine::parseImageExample(record);
            edit(e);
            records.push_back(engine::serializeImageExample(e));
        }
    }
    fs::remove(datasetDir / file);
    fs::remove(datasetDir / (file + ".idx"));
    engine::TFRecordWriter writer((datasetDir / file).string());
    for (const std::string &r : records)
        writer.write(r);
    const engine::TFRecordShard written = writer.finish();
    doc["shards"][shard]["bytes"] = written.bytes;
    doc["shards"][shard]["sha256"] = written.sha256;
    std::ofstream(manifestPath, std::ios::trunc) << doc.dump(2);
}

} // namespace

// ---------------------------------------------------------------------------------------
// Labels files

TEST(LabelsFile, CsvRowsWithQuotingSeparatorsAndWhitespace)
{
    TempDir dir;
    const engine::LabelsFile f = readText(dir, "labels.csv",
                                          "\xEF\xBB\xBF"
                                          "Labels,Path,Note\r\n"
                                          "dog; outdoor ,a/1.jpg,first\r\n"
                                          "\r\n"
                                          "\"snow|dog|dog\",./b/2.jpg,\n"
                                          "\"cat,\"\"tabby\"\"\",\"c/with, comma.jpg\",\"spans\n"
                                          "two lines\"\n"
                                          "  sky  ,d.png,last");
    EXPECT_TRUE(f.errors.empty()) << ::testing::PrintToString(errorsOf(f));
    ASSERT_EQ(f.rows.size(), 4u);
    EXPECT_EQ(rowsOf(f), (std::map<std::string, Labels>{{"a/1.jpg", {"dog", "outdoor"}},
                                                        {"b/2.jpg", {"dog", "snow"}},
                                                        {"c/with, comma.jpg", {"cat,\"tabby\""}},
                                                        {"d.png", {"sky"}}}));
    EXPECT_EQ(f.rows[0].line, 2);
    EXPECT_EQ(f.rows[1].line, 4);
    EXPECT_EQ(f.rows[2].line, 5);
    EXPECT_EQ(f.rows[3].line, 7); // after a quoted line break
}

TEST(LabelsFile, EveryBadCsvRowIsRefusedWithItsLineAndReason)
{
    TempDir dir;
    const engine::LabelsFile f = readText(dir, "labels.csv",
                                          "path,labels\n"
                                          "good.jpg,dog\n"                 // 2
                                          ",dog\n"                         // 3
                                          "/abs/x.jpg,dog\n"               // 4
                                          "../up.jpg,dog\n"                // 5
                                          "a/../../up.jpg,dog\n"           // 6
                                          "none.jpg,\n"                    // 7
                                          "blank.jpg,  ;  \n"              // 8
                                          "gap.jpg,dog;;cat\n"             // 9
                                          "end.jpg,dog|\n"                 // 10
                                          "good.jpg,cat\n"                 // 11
                                          "three.jpg,dog,extra\n"          // 12
                                          "bad\"quote.jpg,dog\n"           // 13
                                          "\"x.jpg\"y,dog\n"               // 14
                                          "folder/,dog\n"                  // 15
                                          "./good.jpg,dog\n"               // 16
                                          "last.jpg,\"dog\n");             // 17: never closed
    EXPECT_EQ(rowsOf(f), (std::map<std::string, Labels>{{"good.jpg", {"dog"}}}));
    EXPECT_EQ(errorsOf(f),
              (std::vector<std::string>{
                  "3: empty path",
                  "4: absolute path /abs/x.jpg (paths are relative to the image folder)",
                  "5: path ../up.jpg goes up with '..' (paths stay inside the image folder)",
                  "6: path a/../../up.jpg goes up with '..' (paths stay inside the image folder)",
                  "7: no labels for none.jpg",
                  "8: an empty label for blank.jpg (two separators in a row, or one at an end)",
                  "9: an empty label for gap.jpg (two separators in a row, or one at an end)",
                  "10: an empty label for end.jpg (two separators in a row, or one at an end)",
                  "11: a second row for good.jpg (the first is on line 2)",
                  "12: malformed line: 3 fields, the header has 2",
                  "13: malformed line: a quote inside an unquoted field (quote the whole field, doubling its quotes)",
                  "14: malformed line: text after a quoted field's closing quote",
                  "15: path folder/ names a folder, not a file",
                  "16: a second row for good.jpg (the first is on line 2)",
                  "17: malformed line: a quoted field opened on line 17 is never closed",
              }));
}

TEST(LabelsFile, JsonLinesRowsAndEveryBadRow)
{
    TempDir dir;
    const engine::LabelsFile f = readText(dir, "labels.jsonl",
                                          "{\"path\": \"a/1.jpg\", \"labels\": [\"outdoor\", \"dog\", \"dog\"]}\n"
                                          "\n"
                                          "{\"labels\": [\" 猫 \"], \"path\": \"b.jpg\", \"extra\": 1}\n" // 3
                                          "{\"path\": \"c.jpg\", \"labels\": []}\n"                        // 4
                                          "{\"path\": \"d.jpg\", \"labels\": [\"dog\", \"\"]}\n"           // 5
                                          "{\"path\": \"e.jpg\", \"labels\": \"dog\"}\n"                   // 6
                                          "{\"path\": 7, \"labels\": [\"dog\"]}\n"                         // 7
                                          "[\"f.jpg\", \"dog\"]\n"                                         // 8
                                          "{\"path\": \"g.jpg\", \"labels\": [\"dog\"]\n"                  // 9
                                          "{\"path\": \"/h.jpg\", \"labels\": [\"dog\"]}\n"                // 10
                                          "{\"path\": \"a/1.jpg\", \"labels\": [\"cat\"]}\n"               // 11
                                          "{\"path\": \"i.jpg\", \"labels\": [\"dog\", 3]}\n");            // 12
    EXPECT_EQ(rowsOf(f), (std::map<std::string, Labels>{{"a/1.jpg", {"dog", "outdoor"}}, {"b.jpg", {"猫"}}}));
    const std::vector<std::string> errors = errorsOf(f);
    ASSERT_EQ(errors.size(), 9u) << ::testing::PrintToString(errors);
    EXPECT_EQ(errors[0], "4: no labels for c.jpg");
    EXPECT_EQ(errors[1], "5: an empty label for d.jpg");
    EXPECT_EQ(errors[2], "6: malformed line: \"labels\" is missing or not a list of strings");
    EXPECT_EQ(errors[3], "7: malformed line: \"path\" is missing or not a string");
    EXPECT_EQ(errors[4], "8: malformed line: not a JSON object {\"path\": ..., \"labels\": [...]}");
    EXPECT_EQ(errors[5].rfind("9: malformed line: not valid JSON (", 0), 0u) << errors[5];
    EXPECT_EQ(errors[6], "10: absolute path /h.jpg (paths are relative to the image folder)");
    EXPECT_EQ(errors[7], "11: a second row for a/1.jpg (the first is on line 1)");
    EXPECT_EQ(errors[8], "12: malformed line: \"labels\" is missing or not a list of strings");
}

TEST(LabelsFile, FormatFromExtensionOrContent)
{
    TempDir dir;
    // No telling extension: a '{' first makes it JSON lines, anything else CSV.
    EXPECT_EQ(rowsOf(readText(dir, "labels.txt", "  {\"path\": \"a.jpg\", \"labels\": [\"x\"]}\n")),
              (std::map<std::string, Labels>{{"a.jpg", {"x"}}}));
    EXPECT_EQ(rowsOf(readText(dir, "labels", "path,labels\na.jpg,x\n")),
              (std::map<std::string, Labels>{{"a.jpg", {"x"}}}));
    // .json is JSON lines too.
    EXPECT_EQ(rowsOf(readText(dir, "labels.json", "{\"path\": \"a.jpg\", \"labels\": [\"x\"]}")),
              (std::map<std::string, Labels>{{"a.jpg", {"x"}}}));
}

TEST(LabelsFile, UnusableFilesAreRefusedWhole)
{
    TempDir dir;
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("nope.csv")); }), dir.file("nope.csv") + ": labels file not found");
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.path().string()); }),
              dir.path().string() + ": a folder, not a labels file");
    writeText(dir.path() / "empty.csv", "\n\n");
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("empty.csv")); }),
              dir.file("empty.csv") + ": empty (a CSV labels file starts with the line path,labels)");
    writeText(dir.path() / "header.csv", "\nfile,tags\na.jpg,x\n");
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("header.csv")); }),
              dir.file("header.csv") + ": line 2: the header must name the columns path and labels (a CSV labels file "
                                       "starts with the line path,labels)");
    writeText(dir.path() / "twice.csv", "path,labels,PATH\n");
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("twice.csv")); }),
              dir.file("twice.csv") + ": line 1: the header names the column path twice");
}

TEST(LabelsFile, SizeAndRowLimitsAtTheLimitAndOneOver)
{
    TempDir dir;
    const std::string text = "path,labels\na.jpg,x\nb.jpg,y\n\n"; // 2 rows
    writeText(dir.path() / "l.csv", text);
    EXPECT_EQ(engine::readLabelsFile(dir.file("l.csv"), text.size(), 2).rows.size(), 2u);
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("l.csv"), text.size() - 1, 2); }),
              dir.file("l.csv") + ": " + std::to_string(text.size()) + " bytes, over the limit labels_file.bytes = "
                  + std::to_string(text.size() - 1));
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("l.csv"), text.size(), 1); }),
              dir.file("l.csv") + ": 2 rows, over the limit labels_file.rows = 1");
    // Bad rows count too: the limit bounds the work, not the usable rows.
    writeText(dir.path() / "bad.csv", "path,labels\n,x\n,y\n");
    EXPECT_EQ(errorOf([&] { engine::readLabelsFile(dir.file("bad.csv"), 1000, 1); }),
              dir.file("bad.csv") + ": 2 rows, over the limit labels_file.rows = 1");
}

// ---------------------------------------------------------------------------------------
// Scanning from a labels file

TEST(LabelsFileScan, RealPhotosFromALabelsFile)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    // A class folder the labels file does not use: its images are no part of the scan.
    fs::create_directories(set.root / "elsewhere");
    test::writeRaw((set.root / "elsewhere/scream.jpg").string(), test::readRaw(kPhotos + "scream.jpg"));
    engine::ScanOptions options;
    options.root = set.root.string();
    options.labelsFile = set.labels.string();
    options.valFraction = 0.25;
    options.testFraction = 0.25;
    const engine::ScanResult r = engine::scanFolder(options);
    EXPECT_TRUE(r.multiLabel);
    EXPECT_FALSE(r.folderSplits);
    // The union of the usable images' labels (the duplicate's "pet" is dog.jpg's too; the
    // missing file's and the bad row's labels count for nothing).
    EXPECT_EQ(r.classes, (Labels{"animal", "bird", "outdoor", "person", "pet", "sky"}));
    std::map<std::string, const engine::ScannedImage *> byPath;
    for (const engine::ScannedImage &i : r.images)
        byPath[i.relPath] = &i;
    EXPECT_EQ(byPath.size(), 8u);
    EXPECT_EQ(byPath.count("elsewhere/scream.jpg"), 0u);
    EXPECT_EQ(byPath.count("photos/kite.jpg"), 0u); // its row is bad
    EXPECT_EQ(byPath.at("photos/eagle.jpg")->labels, (Labels{"animal", "bird", "sky"}));
    EXPECT_EQ(byPath.at("photos/horses.jpg")->labels, (Labels{"animal", "outdoor"}));
    for (const char *ok : {"photos/dog.jpg", "photos/eagle.jpg", "photos/giraffe.jpg", "photos/horses.jpg",
                           "photos/person.jpg"}) {
        const engine::ScannedImage &i = *byPath.at(ok);
        EXPECT_EQ(i.status, engine::ImageStatus::Ok) << ok << ": " << i.reason;
        EXPECT_TRUE(i.className.empty());
        EXPECT_EQ(i.sha256.size(), 64u);
        EXPECT_GT(i.header.width, 0);
        EXPECT_EQ(i.split, engine::assignSplit(ok, 0, 0.25, 0.25));
    }
    EXPECT_EQ(byPath.at("photos/missing.jpg")->status, engine::ImageStatus::Rejected);
    EXPECT_EQ(byPath.at("photos/missing.jpg")->reason, "listed in labels.csv line 7 but not found");
    EXPECT_EQ(byPath.at("photos/puppy.jpg")->status, engine::ImageStatus::Duplicate);
    EXPECT_EQ(byPath.at("photos/puppy.jpg")->reason, "duplicate of photos/dog.jpg");
    EXPECT_EQ(byPath.at("labels.csv:9")->status, engine::ImageStatus::Rejected);
    EXPECT_EQ(byPath.at("labels.csv:9")->reason,
              "an empty label for photos/kite.jpg (two separators in a row, or one at an end)");
}

TEST(LabelsFileScan, SplitsFromSplitFoldersOfTheDemoData)
{
    TempDir dir;
    engine::DemoDataOptions demo;
    demo.outDir = (dir.path() / "demo").string();
    demo.perClass = 3;
    demo.testPerClass = 2;
    engine::writeDemoData(demo);
    // Each image: its class and a coarser group ("wear" for everything, "feet" for footwear).
    std::string csv = "path,labels\n";
    std::map<std::string, Labels> expected;
    for (const auto &entry : fs::recursive_directory_iterator(demo.outDir)) {
        if (!entry.is_regular_file())
            continue;
        const std::string rel = entry.path().lexically_relative(demo.outDir).generic_string();
        const std::string cls = entry.path().parent_path().filename().string();
        const bool feet = cls == "Sandal" || cls == "Sneaker" || cls == "Ankle_boot";
        csv += rel + "," + cls + (feet ? ";feet" : "") + ";wear\n";
        expected[rel] = feet ? Labels{cls, "feet", "wear"} : Labels{cls, "wear"};
        std::sort(expected[rel].begin(), expected[rel].end());
    }
    writeText(dir.path() / "demo.csv", csv);
    engine::ScanOptions options;
    options.root = demo.outDir;
    options.labelsFile = dir.file("demo.csv");
    const engine::ScanResult r = engine::scanFolder(options);
    EXPECT_TRUE(r.folderSplits);
    EXPECT_EQ(r.classes.size(), 12u); // ten classes, feet, wear
    ASSERT_EQ(r.images.size(), 50u);
    for (const engine::ScannedImage &i : r.images) {
        EXPECT_EQ(i.status, engine::ImageStatus::Ok) << i.relPath << ": " << i.reason;
        EXPECT_EQ(i.labels, expected.at(i.relPath));
        EXPECT_EQ(i.split, i.relPath.substr(0, i.relPath.find('/')));
    }
}

TEST(LabelsFileScan, ReusesPreviousImagesWithTheirNewLabels)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    engine::ScanOptions options;
    options.root = set.root.string();
    options.labelsFile = set.labels.string();
    options.previous = engine::scanFolder(options).images;
    writeText(set.labels, "path,labels\nphotos/dog.jpg,dog\n");
    const engine::ScanResult r = engine::scanFolder(options);
    ASSERT_EQ(r.images.size(), 1u);
    EXPECT_TRUE(r.images[0].reused);
    EXPECT_EQ(r.images[0].labels, Labels{"dog"});
    EXPECT_EQ(r.classes, Labels{"dog"});
}

// ---------------------------------------------------------------------------------------
// Converting and verifying

TEST(MultiLabelConvert, RecordsHoldLabelSetsAndTheDatasetVerifies)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    const fs::path out = dir.path() / "shards";
    const engine::ConvertResult r = engine::convertFolder(convertOptions(set, out));
    const engine::DatasetManifest &m = r.manifest;
    EXPECT_EQ(m.task, "multi_label");
    EXPECT_EQ(m.classes, (Labels{"animal", "bird", "outdoor", "person", "pet", "sky"}));
    EXPECT_EQ(m.records, 5u);
    // Per label: the records that carry it (summing to more than the records).
    EXPECT_EQ(m.counts.at("train"), (std::map<std::string, std::uint64_t>{
                                        {"animal", 4}, {"bird", 1}, {"outdoor", 2}, {"person", 1}, {"pet", 1}, {"sky", 1}}));
    std::map<std::string, std::string> rejected;
    for (const engine::RejectedFile &f : m.rejected)
        rejected[f.path] = f.reason;
    EXPECT_EQ(rejected, (std::map<std::string, std::string>{
                            {"labels.csv:9", "an empty label for photos/kite.jpg (two separators in a row, or one at an end)"},
                            {"photos/puppy.jpg", "duplicate of photos/dog.jpg"},
                            {"photos/missing.jpg", "listed in labels.csv line 7 but not found"}}));

    const std::map<std::string, ReadRecord> records = readRecords(out);
    ASSERT_EQ(records.size(), 5u);
    EXPECT_EQ(records.at("photos/eagle.jpg").labels, (std::vector<std::int64_t>{0, 1, 5}));
    EXPECT_EQ(records.at("photos/eagle.jpg").texts, (Labels{"animal", "bird", "sky"}));
    EXPECT_EQ(records.at("photos/person.jpg").labels, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(records.at("photos/giraffe.jpg").labels, (std::vector<std::int64_t>{0}));

    // dataset.json says so, and reads back.
    const nlohmann::json doc = nlohmann::json::parse(std::ifstream(out / "dataset.json"));
    EXPECT_EQ(doc["task"], "multi_label");
    EXPECT_EQ(engine::readDatasetManifest(out.string()).task, "multi_label");
    EXPECT_EQ(engine::readDatasetManifest(out.string()).counts, m.counts);

    const engine::VerifyReport v = engine::verifyDataset(out.string());
    EXPECT_TRUE(v.ok()) << ::testing::PrintToString(v.problems);
    EXPECT_EQ(v.records, 5u);
}

TEST(MultiLabelConvert, RelabelsAreRefused)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    engine::ConvertOptions options = convertOptions(set, dir.path() / "shards");
    options.relabels["photos/dog.jpg"] = "bird";
    EXPECT_EQ(errorOf([&] { engine::convertFolder(options); }),
              "convert: relabelling applies to single-label datasets; a multi-label dataset's labels come from its "
              "labels file "
                  + set.labels.string());
    EXPECT_FALSE(fs::exists(dir.path() / "shards"));
}

TEST(MultiLabelConvert, TheCatalogsLabelSetsReplaceTheFilesAndVerify)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    const fs::path out = dir.path() / "shards";
    engine::ConvertOptions options = convertOptions(set, out);
    // An edited set (unsorted, a duplicate label), a label no row of the file has, and a set for
    // an excluded image that is not used.
    options.labelSets["photos/eagle.jpg"] = {"sky", "bird", "sky"};
    options.labelSets["photos/dog.jpg"] = {"pet", "indoor"};
    options.labelSets["photos/giraffe.jpg"] = {"animal", "tall"};
    options.excluded.insert("photos/giraffe.jpg");
    const engine::DatasetManifest m = engine::convertFolder(options).manifest;
    EXPECT_EQ(m.classes, (Labels{"animal", "bird", "indoor", "outdoor", "person", "pet", "sky"}));
    EXPECT_EQ(m.counts.at("train"), (std::map<std::string, std::uint64_t>{
                                        {"animal", 1}, {"bird", 1}, {"indoor", 1}, {"outdoor", 2}, {"person", 1},
                                        {"pet", 1}, {"sky", 1}}));
    const std::map<std::string, ReadRecord> records = readRecords(out);
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records.at("photos/eagle.jpg").texts, (Labels{"bird", "sky"}));
    EXPECT_EQ(records.at("photos/eagle.jpg").labels, (std::vector<std::int64_t>{1, 6}));
    EXPECT_EQ(records.at("photos/dog.jpg").texts, (Labels{"indoor", "pet"}));
    EXPECT_EQ(records.at("photos/horses.jpg").texts, (Labels{"animal", "outdoor"})); // the file's set
    const engine::VerifyReport v = engine::verifyDataset(out.string());
    EXPECT_TRUE(v.ok()) << ::testing::PrintToString(v.problems);
}

TEST(MultiLabelConvert, BadLabelSetsAndLabelSetsForAFolderScanAreRefused)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    engine::ConvertOptions options = convertOptions(set, dir.path() / "shards");
    options.labelSets["photos/dog.jpg"] = {};
    EXPECT_EQ(errorOf([&] { engine::convertFolder(options); }),
              "photos/dog.jpg: an empty label set (an image needs at least one label; exclude it instead)");
    options.labelSets["photos/dog.jpg"] = {"pet", ""};
    EXPECT_EQ(errorOf([&] { engine::convertFolder(options); }), "photos/dog.jpg: an empty label in its label set");
    options.scan.labelsFile.clear();
    options.labelSets["photos/dog.jpg"] = {"pet"};
    EXPECT_EQ(errorOf([&] { engine::convertFolder(options); }),
              "convert: label sets apply to multi-label datasets; " + set.root.string()
                  + " is scanned from its class folders (give a labels file)");
    EXPECT_FALSE(fs::exists(dir.path() / "shards"));
}

TEST(MultiLabelVerify, BadLabelSetsAreNamedWithShardAndOffset)
{
    TempDir dir;
    const PhotoSet set = makePhotos(dir);
    const fs::path out = dir.path() / "shards";
    engine::convertFolder(convertOptions(set, out));
    const std::string shard = (out / "train-00000-of-00003.tfrecord").string();
    // The first record unsorted, the second with a label out of range and a wrong text.
    int n = 0;
    rewriteShard(out, 0, [&](engine::ImageExample &e) {
        if (n++ == 0) {
            e.labels = {3, 1};
            e.classTexts = {"person", "bird"};
        } else {
            e.labels = {0, 9};
            e.classTexts = {"animal", "x"};
        }
    });
    const engine::VerifyReport v = engine::verifyDataset(out.string());
    ASSERT_GE(v.problems.size(), 2u) << ::testing::PrintToString(v.problems);
    EXPECT_EQ(v.problems[0], shard + ": record at byte offset 0: labels [3, 1] are not sorted ascending and unique");
    EXPECT_EQ(v.problems[1].rfind(shard + ": record at byte offset ", 0), 0u);
    EXPECT_NE(v.problems[1].find(": label 9 is not a class of dataset.json"), std::string::npos) << v.problems[1];
    // The counts no longer agree either.
    EXPECT_NE(v.problems.back().find("dataset.json: lists"), std::string::npos) << v.problems.back();
}

TEST(MultiLabelVerify, AMultiValuedLabelInASingleLabelDatasetIsAProblem)
{
    TempDir dir;
    const fs::path root = dir.path() / "images";
    fs::create_directories(root / "a");
    for (const char *photo : {"dog.jpg", "eagle.jpg"})
        test::writeRaw((root / "a" / photo).string(), test::readRaw(kPhotos + photo));
    engine::ConvertOptions options;
    options.scan.root = root.string();
    options.scan.valFraction = 0.0;
    options.scan.testFraction = 0.0;
    options.outDir = (dir.path() / "shards").string();
    const engine::ConvertResult r = engine::convertFolder(options);
    EXPECT_EQ(r.manifest.task, "single_label");
    const nlohmann::json doc = nlohmann::json::parse(std::ifstream(dir.path() / "shards/dataset.json"));
    EXPECT_EQ(doc["task"], "single_label");
    EXPECT_TRUE(engine::verifyDataset(options.outDir).ok());

    int n = 0;
    rewriteShard(options.outDir, 0, [&](engine::ImageExample &e) {
        if (n++ == 0) {
            e.labels = {0, 0};
            e.classTexts = {"a", "a"};
        }
    });
    const engine::VerifyReport v = engine::verifyDataset(options.outDir);
    ASSERT_FALSE(v.problems.empty());
    EXPECT_EQ(v.problems[0], (fs::path(options.outDir) / "train-00000-of-00001.tfrecord").string()
                                 + ": record at byte offset 0: holds 2 labels, a single-label dataset's records hold one");
}

TEST(MultiLabelManifest, TaskMissingIsSingleLabelAndAnUnknownOneIsRefused)
{
    TempDir dir;
    const fs::path root = dir.path() / "images";
    fs::create_directories(root / "a");
    test::writeRaw((root / "a/dog.jpg").string(), test::readRaw(kPhotos + "dog.jpg"));
    engine::ConvertOptions options;
    options.scan.root = root.string();
    options.outDir = (dir.path() / "shards").string();
    engine::convertFolder(options);
    const fs::path manifest = dir.path() / "shards/dataset.json";
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(manifest));
    doc.erase("task"); // as written before multi-label existed
    std::ofstream(manifest, std::ios::trunc) << doc.dump(2);
    EXPECT_EQ(engine::readDatasetManifest(options.outDir).task, "single_label");
    EXPECT_TRUE(engine::verifyDataset(options.outDir).ok());
    doc["task"] = "detection";
    std::ofstream(manifest, std::ios::trunc) << doc.dump(2);
    EXPECT_EQ(errorOf([&] { engine::readDatasetManifest(options.outDir); }),
              manifest.string() + ": \"task\" is 'detection', expected 'single_label' or 'multi_label'");
    doc["task"] = 3;
    std::ofstream(manifest, std::ios::trunc) << doc.dump(2);
    EXPECT_EQ(errorOf([&] { engine::readDatasetManifest(options.outDir); }),
              manifest.string() + ": \"task\" has the wrong type");
}
