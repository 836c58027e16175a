// Result rows for a person (--format table): one row per message size, one column per method,
// the median time in adaptive units, the fastest per row marked with '*', and each time's
// ratio to the fastest. And RowPrinter, what every subcommand that runs a backend prints with.
#pragma once

#include <string>
#include <vector>

#include "gridcoll/algorithms/result.hpp"

namespace gridcoll::cli {

std::string render_table(const std::vector<ResultRow>& rows);
std::string format_seconds(double s);

// CSV (the header, then each row as it comes) or a table at the end with one progress line per
// row on stderr.
class RowPrinter {
public:
    explicit RowPrinter(bool table);
    void operator()(const ResultRow& row);
    // Prints the table (table format) and returns 1 if a row's result was wrong, else 0.
    int finish();

private:
    void header();
    bool table_;
    bool header_printed_ = false;
    bool failed_ = false;
    std::vector<ResultRow> rows_;
};

}  // namespace gridcoll::cli
