#include "csv_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "gridcoll/algorithms/units.hpp"

namespace gridcoll::cli {

std::string format_seconds(double s) {
    char buf[32];
    if (s >= 1) std::snprintf(buf, sizeof buf, "%.3f s", s);
    else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
    return buf;
}

std::string render_table(const std::vector<ResultRow>& rows) {
    if (rows.empty()) return "(no result rows)\n";
    std::vector<std::string> methods;
    std::map<std::uint64_t, std::map<std::string, double>> by_size;
    for (const ResultRow& r : rows) {
        const std::string m = to_string(r.op.method) + (r.verified == "FAILED" ? " FAILED" : "");
        if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
        by_size[r.op.bytes][m] = r.time.median;
    }
    std::ostringstream o;
    o << "ranks: " << rows.front().op.ranks << "   backend: " << rows.front().backend
      << "   (median time; * fastest; xN = ratio to fastest)\n";
    std::size_t w = 14;
    for (const auto& m : methods) w = std::max(w, m.size());
    char buf[128];
    std::snprintf(buf, sizeof buf, "%12s", "bytes");
    o << buf;
    for (const auto& m : methods) {
        std::snprintf(buf, sizeof buf, " %*s", static_cast<int>(w), m.c_str());
        o << buf;
    }
    o << "\n";
    for (const auto& [bytes, times] : by_size) {
        double best = 1e300;
        for (const auto& [m, t] : times) best = std::min(best, t);
        std::snprintf(buf, sizeof buf, "%12s", format_bytes(bytes).c_str());
        o << buf;
        for (const auto& m : methods) {
            auto it = times.find(m);
            std::string cell = "-";
            if (it != times.end()) {
                char r[24];
                std::snprintf(r, sizeof r, " x%.2f", best > 0 ? it->second / best : 1.0);
                cell = format_seconds(it->second) + (it->second == best ? " *    " : std::string(r));
            }
            std::snprintf(buf, sizeof buf, " %*s", static_cast<int>(w), cell.c_str());
            o << buf;
        }
        o << "\n";
    }
    return o.str();
}

RowPrinter::RowPrinter(bool table) : table_(table) {}

// The CSV header goes out with the first row (or at the end of a run without rows), so that a
// run that fails before its first result prints only the error.
void RowPrinter::header() {
    if (table_ || header_printed_) return;
    std::printf("%s\n", std::string(result_csv_header()).c_str());
    header_printed_ = true;
}

void RowPrinter::operator()(const ResultRow& row) {
    failed_ = failed_ || row.verified == "FAILED";
    header();
    if (table_) {
        rows_.push_back(row);
        std::fprintf(stderr, "  %s %s: %s\n", to_string(row.op.method).c_str(), format_bytes(row.op.bytes).c_str(),
                     format_seconds(row.time.median).c_str());
        return;
    }
    std::printf("%s\n", to_csv(row).c_str());
    std::fflush(stdout);
}

int RowPrinter::finish() {
    header();
    if (table_) std::fputs(render_table(rows_).c_str(), stdout);
    return failed_ ? 1 : 0;
}

}  // namespace gridcoll::cli
