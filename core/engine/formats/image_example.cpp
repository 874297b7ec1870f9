#include "engine/formats/image_example.h"

#include "engine/base/engine_error.h"
#include "example.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <limits>

namespace lathe::engine {
namespace {

namespace keys {
constexpr const char *kEncoded = "image/encoded";
constexpr const char *kFormat = "image/format";
constexpr const char *kLabel = "image/class/label";
constexpr const char *kClassText = "image/class/text";
constexpr const char *kHeight = "image/height";
constexpr const char *kWidth = "image/width";
constexpr const char *kChannels = "image/channels";
constexpr const char *kFilename = "image/filename";
constexpr const char *kSha256 = "image/key/sha256";
} // namespace keys

void putBytes(tensorflow::Features &features, const char *key, const std::string &value)
{
    (*features.mutable_feature())[key].mutable_bytes_list()->add_value(value);
}

void putInt(tensorflow::Features &features, const char *key, std::int64_t value)
{
    (*features.mutable_feature())[key].mutable_int64_list()->add_value(value);
}

const char *kindName(tensorflow::Feature::KindCase kind)
{
    switch (kind) {
    case tensorflow::Feature::kBytesList:
        return "bytes_list";
    case tensorflow::Feature::kFloatList:
        return "float_list";
    case tensorflow::Feature::kInt64List:
        return "int64_list";
    case tensorflow::Feature::KIND_NOT_SET:
        break;
    }
    return "no value";
}

class FeatureReader
{
public:
    FeatureReader(const tensorflow::Features &features, const std::string &where)
        : m_features(features)
        , m_where(where)
    {
    }

    const std::string &bytes(const char *key) const
    {
        const tensorflow::Feature &f = find(key, tensorflow::Feature::kBytesList);
        checkOne(key, f.bytes_list().value_size());
        return f.bytes_list().value(0);
    }

    std::int64_t int64(const char *key) const
    {
        const tensorflow::Feature &f = find(key, tensorflow::Feature::kInt64List);
        checkOne(key, f.int64_list().value_size());
        return f.int64_list().value(0);
    }

    // A list of one or more values (the label keys of multi-label records).
    const auto &bytesList(const char *key) const
    {
        const tensorflow::Feature &f = find(key, tensorflow::Feature::kBytesList);
        checkSome(key, f.bytes_list().value_size());
        return f.bytes_list().value();
    }

    const auto &int64List(const char *key) const
    {
        const tensorflow::Feature &f = find(key, tensorflow::Feature::kInt64List);
        checkSome(key, f.int64_list().value_size());
        return f.int64_list().value();
    }

    int dimension(const char *key) const
    {
        const std::int64_t v = int64(key);
        if (v < 0 || v > std::numeric_limits<int>::max())
            throw EngineError(m_where + ": key " + key + " holds " + std::to_string(v) + ", out of range");
        return static_cast<int>(v);
    }

private:
    const tensorflow::Feature &find(const char *key, tensorflow::Feature::KindCase kind) const
    {
        const auto it = m_features.feature().find(key);
        if (it == m_features.feature().end())
            throw EngineError(m_where + ": tf.train.Example lacks key " + key);
        if (it->second.kind_case() != kind)
            throw EngineError(m_where + ": key " + key + " is a " + kindName(it->second.kind_case()) + ", expected a "
                              + kindName(kind));
        return it->second;
    }

    void checkOne(const char *key, int count) const
    {
        if (count != 1)
            throw EngineError(m_where + ": key " + key + " holds " + std::to_string(count) + " values, expected 1");
    }

    void checkSome(const char *key, int count) const
    {
        if (count < 1)
            throw EngineError(m_where + ": key " + key + " holds no values, expected 1 or more");
    }

    const tensorflow::Features &m_features;
    const std::string &m_where;
};

} // namespace

std::vector<std::int64_t> ImageExample::labelSet() const
{
    return labels.empty() ? std::vector<std::int64_t>{label} : labels;
}

std::vector<std::string> ImageExample::classTextSet() const
{
    return labels.empty() ? std::vector<std::string>{classText} : classTexts;
}

bool ImageExample::operator==(const ImageExample &other) const
{
    return encoded == other.encoded && format == other.format && labelSet() == other.labelSet()
        && classTextSet() == other.classTextSet() && height == other.height && width == other.width && channels == other.channels && filename == other.filename
        && sha256 == other.sha256;
}

std::string serializeImageExample(const ImageExample &example)
{
    tensorflow::Example proto;
    tensorflow::Features &features = *proto.mutable_features();
    putBytes(features, keys::kEncoded, example.encoded);
    putBytes(features, keys::kFormat, example.format);
    if (example.labels.empty()) {
        putInt(features, keys::kLabel, example.label);
        putBytes(features, keys::kClassText, example.classText);
    } else {
        if (example.classTexts.size() != example.labels.size())
            throw EngineError(example.filename + ": " + std::to_string(example.labels.size()) + " labels but "
                              + std::to_string(example.classTexts.size()) + " class texts");
        for (std::size_t i = 0; i < example.labels.size(); ++i) {
            putInt(features, keys::kLabel, example.labels[i]);
            putBytes(features, keys::kClassText, example.classTexts[i]);
        }
    }
    putInt(features, keys::kHeight, example.height);
    putInt(features, keys::kWidth, example.width);
    putInt(features, keys::kChannels, example.channels);
    putBytes(features, keys::kFilename, example.filename);
    putBytes(features, keys::kSha256, example.sha256);

    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        // Map fields otherwise serialize in hash order, which may differ between runs.
        coded.SetSerializationDeterministic(true);
        if (!proto.SerializeToCodedStream(&coded))
            throw EngineError(example.filename + ": cannot serialize its tf.train.Example");
    }
    return out;
}

ImageExample parseImageExample(const std::string &record, const std::string &where)
{
    tensorflow::Example proto;
    if (!proto.ParseFromString(record))
        throw EngineError(where + ": not a tf.train.Example (protobuf parse failed)");
    const FeatureReader f(proto.features(), where);
    ImageExample example;
    example.encoded = f.bytes(keys::kEncoded);
    example.format = f.bytes(keys::kFormat);
    const auto &labels = f.int64List(keys::kLabel);
    const auto &texts = f.bytesList(keys::kClassText);
    if (labels.size() != texts.size())
        throw EngineError(where + ": key " + keys::kLabel + " holds " + std::to_string(labels.size()) + " values but "
                          + keys::kClassText + " holds " + std::to_string(texts.size()));
    example.labels.assign(labels.begin(), labels.end());
    example.classTexts.assign(texts.begin(), texts.end());
    example.label = example.labels.front();
    example.classText = example.classTexts.front();
    example.height = f.dimension(keys::kHeight);
    example.width = f.dimension(keys::kWidth);
    example.channels = f.dimension(keys::kChannels);
    example.filename = f.bytes(keys::kFilename);
    example.sha256 = f.bytes(keys::kSha256);
    return example;
}

} // namespace lathe::engine
