// Turns the benchmark CSV into a table a person reads: one row per message size, one column
// per algorithm, the time in adaptive units, the fastest per row marked with '*', and each
// time's ratio to the fastest.
#pragma once

#include <string>
#include <vector>

namespace gridcoll::cli {

class CsvTable {
public:
    // Feeds one CSV line (the header first).
    void add_line(const std::string& line);
    std::string render() const;
    bool empty() const { return rows_.empty(); }

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

std::vector<std::string> split_csv(const std::string& line);
std::string format_seconds(double s);

}  // namespace gridcoll::cli
