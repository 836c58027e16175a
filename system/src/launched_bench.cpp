#include "gridcoll/system/launched_bench.hpp"

#include <cstdio>


namespace gridcoll::sys {

std::vector<std::string> bench_arguments(const Batch& b, const std::string& rank_map) {
    std::string methods, sizes;
    for (const Method& m : b.methods) methods += (methods.empty() ? "" : ",") + to_string(m);
    for (std::uint64_t s : b.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    std::vector<std::string> a = {"--collective", std::string(to_string(b.shape.coll)), "--algorithm", methods, "--bytes", sizes,
                                  "--reps", std::to_string(b.reps), "--warmup", std::to_string(b.warmup)};
    if (is_reduction(b.shape.coll))
        a.insert(a.end(), {"--type", std::string(to_string(b.shape.type)), "--op", std::string(to_string(b.shape.op))});
    if (b.shape.root != kEveryRoot) a.insert(a.end(), {"--root", std::to_string(b.shape.root)});
    if (!b.verify) a.push_back("--no-verify");
    if (!rank_map.empty()) a.insert(a.end(), {"--rank-map", rank_map});
    if (!b.rules.empty()) a.insert(a.end(), {"--rules", b.rules});
    return a;
}

void run_launched_bench(const BenchLauncher& launch, const std::string& backend, const std::string& what,
                        const RowSink& sink) {
    ResultCsvReader reader(what);
    bool failed_rows = false;
    const int status = launch([&](const std::string& line) {
        ResultRow row;
        switch (reader.feed(line, row)) {
            case ResultCsvReader::Line::Row:
                row.backend = backend;
                failed_rows = failed_rows || row.verified == "FAILED";
                sink(row);
                break;
            case ResultCsvReader::Line::Header:
                break;
            case ResultCsvReader::Line::Other:
                if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
                break;
        }
    });
    if (status == 0 || (status == 1 && failed_rows)) return;
    throw Error(what + " failed (exit status " + std::to_string(status) + ")");
}

}  // namespace gridcoll::sys
