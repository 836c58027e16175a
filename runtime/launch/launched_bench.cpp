#include "gridcoll/runtime/launched_bench.hpp"

#include <cstdio>

namespace gridcoll::launch {

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

}  // namespace gridcoll::launch
