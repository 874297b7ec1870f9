#include "engine/dataset/label_file.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;
using nlohmann::json;

namespace lathe::engine {
namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string trim(const std::string &s)
{
    const auto space = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    std::size_t begin = 0, end = s.size();
    while (begin < end && space(static_cast<unsigned char>(s[begin])))
        ++begin;
    while (end > begin && space(static_cast<unsigned char>(s[end - 1])))
        --end;
    return s.substr(begin, end - begin);
}

bool blank(const std::string &s)
{
    return trim(s).empty();
}

// Collects rows and row errors; one place decides what makes a row usable, for both formats.
class RowCollector
{
public:
    RowCollector(LabelsFile &file, std::uint64_t maxRows)
        : m_file(file)
        , m_maxRows(maxRows)
    {
    }

    void error(int line, std::string reason) { m_file.errors.push_back({line, std::move(reason)}); }

    // Counts a row (usable or not) against the row limit.
    void count()
    {
        checkLimit(m_file.path, ++m_rows, parse_limits::kLabelsFileRows, m_maxRows);
    }

    // labels: the row's labels as written (already trimmed); empty ones are refused.
    void add(int line, const std::string &rawPath, std::vector<std::string> labels, const char *emptyLabelHint = "")
    {
        const std::string path = trim(rawPath);
        if (path.empty())
            return error(line, "empty path");
        if (path.front() == '/')
            return error(line, "absolute path " + path + " (paths are relative to the image folder)");
        const fs::path normal = fs::path(path).lexically_normal();
        for (const fs::path &part : fs::path(path))
            if (part == "..")
                return error(line, "path " + path + " goes up with '..' (paths stay inside the image folder)");
        std::string relPath = normal.generic_string();
        if (relPath.empty() || relPath == "." || relPath.back() == '/')
            return error(line, "path " + path + " names a folder, not a file");
        if (labels.empty())
            return error(line, "no labels for " + relPath);
        if (std::any_of(labels.begin(), labels.end(), [](const std::string &l) { return l.empty(); }))
            return error(line, "an empty label for " + relPath + emptyLabelHint);
        const auto [first, inserted] = m_firstLine.emplace(relPath, line);
        if (!inserted)
            return error(line, "a second row for " + relPath + " (the first is on line "
                                   + std::to_string(first->second) + ")");
        std::sort(labels.begin(), labels.end());
        labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
        m_file.rows.push_back({std::move(relPath), std::move(labels), line});
    }

private:
    LabelsFile &m_file;
    std::uint64_t m_maxRows;
    std::uint64_t m_rows = 0;
    std::map<std::string, int> m_firstLine;
};

// One CSV record: its fields and the line it starts on, or why it is malformed.
struct CsvRecord
{
    int line = 0;
    std::vector<std::string> fields;
    std::string error;
};

// RFC 4180 records, one at a time. Line breaks are LF or CRLF; a quoted field may hold commas,
// line breaks and doubled quotes. A malformed record is skipped to the end of its line so the
// records after it are still read.
class CsvReader
{
public:
    explicit CsvReader(const std::string &text)
        : m_text(text)
    {
    }

    bool next(CsvRecord &record)
    {
        if (m_pos >= m_text.size())
            return false;
        record = CsvRecord{};
        record.line = m_line;
        for (;;) {
            std::string field;
            if (m_pos < m_text.size() && m_text[m_pos] == '"') {
                const int quoteLine = m_line;
                ++m_pos;
                bool closed = false;
                while (m_pos < m_text.size()) {
                    const char c = m_text[m_pos++];
                    if (c == '"') {
                        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
                            field += '"';
                            ++m_pos;
                            continue;
                        }
                        closed = true;
                        break;
                    }
                    if (c == '\n')
                        ++m_line;
                    field += c;
                }
                if (!closed) {
                    record.error = "a quoted field opened on line " + std::to_string(quoteLine) + " is never closed";
                    return true;
                }
                if (m_pos < m_text.size() && m_text[m_pos] != ',' && !atLineEnd()) {
                    record.error = "text after a quoted field's closing quote";
                    skipLine();
                    return true;
                }
            } else {
                while (m_pos < m_text.size() && m_text[m_pos] != ',' && !atLineEnd()) {
                    if (m_text[m_pos] == '"') {
                        record.error = "a quote inside an unquoted field (quote the whole field, doubling its quotes)";
                        skipLine();
                        return true;
                    }
                    field += m_text[m_pos++];
                }
            }
            record.fields.push_back(std::move(field));
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            skipLine(); // at a line break or the end
            return true;
        }
    }

private:
    bool atLineEnd() const
    {
        return m_text[m_pos] == '\n' || (m_text[m_pos] == '\r' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n')
            || (m_text[m_pos] == '\r' && m_pos + 1 == m_text.size());
    }

    void skipLine()
    {
        while (m_pos < m_text.size() && m_text[m_pos] != '\n')
            ++m_pos;
        if (m_pos < m_text.size()) {
            ++m_pos;
            ++m_line;
        }
    }

    const std::string &m_text;
    std::size_t m_pos = 0;
    int m_line = 1;
};

// "dog; outdoor|snow" -> {"dog", "outdoor", "snow"}; an empty piece stays empty (refused later).
std::vector<std::string> splitLabels(const std::string &text)
{
    std::vector<std::string> labels;
    if (blank(text))
        return labels;
    std::string piece;
    for (const char c : text) {
        if (c == ';' || c == '|') {
            labels.push_back(trim(piece));
            piece.clear();
        } else {
            piece += c;
        }
    }
    labels.push_back(trim(piece));
    return labels;
}

void readCsv(const std::string &text, RowCollector &rows, const std::string &path)
{
    CsvReader reader(text);
    CsvRecord record;
    int pathColumn = -1, labelsColumn = -1;
    std::size_t columns = 0;
    while (reader.next(record)) {
        if (record.error.empty() && record.fields.size() == 1 && blank(record.fields[0]))
            continue;
        if (columns == 0) { // the header
            if (!record.error.empty())
                throw EngineError(path + ": line " + std::to_string(record.line) + ": the header is malformed ("
                                  + record.error + ")");
            for (std::size_t i = 0; i < record.fields.size(); ++i) {
                const std::string name = lower(trim(record.fields[i]));
                if (name == "path" || name == "labels") {
                    int &slot = name == "path" ? pathColumn : labelsColumn;
                    if (slot >= 0)
                        throw EngineError(path + ": line " + std::to_string(record.line) + ": the header names the column "
                                          + name + " twice");
                    slot = static_cast<int>(i);
                }
            }
            if (pathColumn < 0 || labelsColumn < 0)
                throw EngineError(path + ": line " + std::to_string(record.line)
                                  + ": the header must name the columns path and labels (a CSV labels file starts "
                                    "with the line path,labels)");
            columns = record.fields.size();
            continue;
        }
        rows.count();
        if (!record.error.empty()) {
            rows.error(record.line, "malformed line: " + record.error);
            continue;
        }
        if (record.fields.size() != columns) {
            rows.error(record.line, "malformed line: " + std::to_string(record.fields.size()) + " fields, the header has "
                                        + std::to_string(columns));
            continue;
        }
        rows.add(record.line, record.fields[std::size_t(pathColumn)],
                 splitLabels(record.fields[std::size_t(labelsColumn)]), " (two separators in a row, or one at an end)");
    }
    if (columns == 0)
        throw EngineError(path + ": empty (a CSV labels file starts with the line path,labels)");
}

void readJsonLines(const std::string &text, RowCollector &rows)
{
    std::size_t pos = 0;
    for (int line = 1; pos < text.size(); ++line) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        const std::string content = text.substr(pos, end - pos);
        pos = end + 1;
        if (blank(content))
            continue;
        rows.count();
        if (jsonNestingDepth(content) > parse_limits::kJsonDepth.value) {
            rows.error(line, "malformed line: JSON nested " + std::to_string(jsonNestingDepth(content))
                                 + " levels deep, " + overLimit(parse_limits::kJsonDepth));
            continue;
        }
        json row;
        try {
            row = json::parse(content);
        } catch (const json::parse_error &e) {
            rows.error(line, std::string("malformed line: not valid JSON (") + e.what() + ")");
            continue;
        }
        if (!row.is_object()) {
            rows.error(line, "malformed line: not a JSON object {\"path\": ..., \"labels\": [...]}");
            continue;
        }
        if (!row.contains("path") || !row["path"].is_string()) {
            rows.error(line, "malformed line: \"path\" is missing or not a string");
            continue;
        }
        if (!row.contains("labels") || !row["labels"].is_array()
            || !std::all_of(row["labels"].begin(), row["labels"].end(), [](const json &l) { return l.is_string(); })) {
            rows.error(line, "malformed line: \"labels\" is missing or not a list of strings");
            continue;
        }
        std::vector<std::string> labels;
        for (const json &l : row["labels"])
            labels.push_back(trim(l.get<std::string>()));
        rows.add(line, row["path"].get<std::string>(), std::move(labels));
    }
}

} // namespace

LabelsFile readLabelsFile(const std::string &path, std::uint64_t maxBytes, std::uint64_t maxRows)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw EngineError(path + ": labels file not found");
    if (fs::is_directory(path, ec))
        throw EngineError(path + ": a folder, not a labels file");
    std::string text = readFileWithin(path, parse_limits::kLabelsFileBytes, maxBytes);
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) // spreadsheets save CSV with a byte order mark
        text.erase(0, 3);
    LabelsFile file;
    file.path = path;
    RowCollector rows(file, maxRows);
    const std::string extension = lower(fs::path(path).extension().string());
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    const bool jsonLines = extension == ".jsonl" || extension == ".json"
        || (extension != ".csv" && first != std::string::npos && text[first] == '{');
    if (jsonLines)
        readJsonLines(text, rows);
    else
        readCsv(text, rows, path);
    return file;
}

} // namespace lathe::engine
