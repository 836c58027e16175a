#include "csv_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace gridcoll::cli {

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(item);
    return out;
}

std::string format_seconds(double s) {
    char buf[32];
    if (s >= 1) std::snprintf(buf, sizeof buf, "%.3f s", s);
    else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
    return buf;
}

void CsvTable::add_line(const std::string& line) {
    if (header_.empty()) header_ = split_csv(line);
    else rows_.push_back(split_csv(line));
}

std::string CsvTable::render() const {
    auto col = [&](const char* name) {
        for (std::size_t i = 0; i < header_.size(); ++i)
            if (header_[i] == name) return static_cast<int>(i);
        return -1;
    };
    const int c_alg = col("algorithm"), c_bytes = col("bytes"), c_time = col("time_s"), c_ranks = col("ranks");
    if (c_alg < 0 || c_bytes < 0 || c_time < 0) return "(no benchmark rows)\n";
    std::vector<std::string> algs;
    std::map<unsigned long long, std::map<std::string, double>> by_size;
    for (const auto& r : rows_) {
        if (static_cast<int>(r.size()) <= std::max({c_alg, c_bytes, c_time})) continue;
        if (std::find(algs.begin(), algs.end(), r[c_alg]) == algs.end()) algs.push_back(r[c_alg]);
        by_size[std::stoull(r[c_bytes])][r[c_alg]] = std::stod(r[c_time]);
    }
    std::ostringstream o;
    if (!rows_.empty() && c_ranks >= 0) o << "ranks: " << rows_.front()[c_ranks] << "   (median time; * fastest; xN = ratio to fastest)\n";
    const int w = 22;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%12s", "bytes");
    o << buf;
    for (const auto& a : algs) {
        std::snprintf(buf, sizeof buf, " %*s", w, a.c_str());
        o << buf;
    }
    o << "\n";
    for (const auto& [bytes, times] : by_size) {
        double best = 1e300;
        for (const auto& [a, t] : times) best = std::min(best, t);
        std::snprintf(buf, sizeof buf, "%12llu", bytes);
        o << buf;
        for (const auto& a : algs) {
            auto it = times.find(a);
            std::string cell = "-";
            if (it != times.end()) {
                char r[24];
                std::snprintf(r, sizeof r, " x%.2f", best > 0 ? it->second / best : 1.0);
                cell = format_seconds(it->second) + (it->second == best ? " *    " : std::string(r));
            }
            std::snprintf(buf, sizeof buf, " %*s", w, cell.c_str());
            o << buf;
        }
        o << "\n";
    }
    return o.str();
}

}  // namespace gridcoll::cli
