// gridcoll-bench: times and verifies collective algorithms on the MPI it is built against (Open
// MPI, or SimGrid SMPI for gridcoll-bench-smpi — the same source). A command line around the
// benchmark backend (bench.hpp) and the communicator context (comm_context.hpp); prints the
// result rows as CSV (gridcoll/result.hpp) from rank 0.
//
// --algorithm takes methods in their text form (gridcoll/method.hpp), comma-separated:
// `binomial,kary:k=4:seg=64K`, `all` (every registered algorithm plus `native`), `native` (the
// MPI library's own collective) and `auto` (chosen per message size from --rules, else the fixed
// default; its rows say how in the choice column). --segment and --fanout are the defaults for
// methods that do not set seg= / k=. The Topology hierarchical algorithms follow comes from
// --rank-map FILE or --topology node / discover[:FILE].
#include <cstdio>
#include <string>

#include "gridcoll/runtime/bench.hpp"
#include "gridcoll/runtime/bench_options.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/runtime/mpi_program.hpp"

namespace {

using namespace gridcoll;

struct Options {
    BatchOptions batch;
    std::string rank_map;
    std::string topology = "flat";
    bool header = true;
    bool list = false;
    MpiBenchSettings settings;
};

void list_algorithms() {
    for (Collective c : all_collectives()) {
        std::printf("%s:\n", to_string(c).data());
        for (const Algorithm* a : algorithms_for(c))
            std::printf("  %-20s %s%s%s%s\n", a->name.c_str(), a->description.c_str(), a->segmented ? " [seg]" : "",
                        a->uses_fanout ? " [k]" : "", a->needs_topology ? " [topology]" : "");
        std::printf("  %-20s the MPI library's own implementation\n", "native");
        std::printf("  %-20s chosen per message size (--rules, else the builtin decision)\n", "auto");
    }
}

int run(const Options& o, int rank) {
    if (o.list) {
        if (rank == 0) list_algorithms();
        return 0;
    }
    if (!o.rank_map.empty() && o.topology != "flat")
        throw Error("--rank-map and --topology " + o.topology + " both say where the Topology comes from; give one");
    const std::string source = o.rank_map.empty() ? o.topology : o.rank_map;
    auto topology = comm_topology(MPI_COMM_WORLD, source);
    const int size = static_cast<int>(topology->size());
    Batch batch = o.batch.make(size, topology, true);  // checks --rules' use
    if (batch.shape.root != kEveryRoot && (batch.shape.root < 0 || batch.shape.root >= size))
        throw Error("--root " + std::to_string(batch.shape.root) + ": the communicator has ranks 0 to " + std::to_string(size - 1));
    if (o.settings.inject_error != -1 && (o.settings.inject_error < 0 || o.settings.inject_error >= size))
        throw Error("--inject-error " + std::to_string(o.settings.inject_error) + ": the communicator has ranks 0 to " +
                    std::to_string(size - 1));
    CommContext ctx(MPI_COMM_WORLD, topology, rules_settings(batch.rules));  // errors name file:line
    batch.verify = batch.verify && !o.settings.shared_malloc;
    MpiBackend backend(ctx, o.settings);
    backend.check(batch);
    if (rank == 0 && o.header) {  // now, not with the rows: a launcher can tell that MPI_Init is done
        std::printf("%s\n", std::string(result_csv_header()).c_str());
        std::fflush(stdout);
    }
    bool failed = false;
    backend.run(batch, [&](const ResultRow& row) {
        failed = failed || row.verified == "FAILED";
        std::printf("%s\n", to_csv(row).c_str());
        std::fflush(stdout);
    });
    int any = failed ? 1 : 0;  // rank 0 saw the rows; every rank returns the same status
    MPI_Bcast(&any, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return any;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    return run_mpi_program(
        argc, argv, "gridcoll-bench", "time and verify collective algorithms",
        [&](CLI::App& app) {
            launch::add_batch_options(app, o.batch, 10);
            app.add_option("--rank-map", o.rank_map, "the communicator's Topology from a rank map (gridcoll platform ranks)");
            app.add_option("--topology", o.topology,
                           "flat (one level), node (ranks sharing memory, from MPI_Comm_split_type), discover "
                           "(measured by round trips, paper 003) or discover:FILE (the same, cached in FILE)")
                ->capture_default_str()
                ->check([](const std::string& v) {
                    return v == "flat" || v == "node" || v == "discover" || (v.rfind("discover:", 0) == 0 && v.size() > 9)
                               ? std::string()
                               : "must be flat, node, discover or discover:FILE (got '" + v + "')";
                });
            app.add_flag("--shared-malloc", o.settings.shared_malloc,
                         "SMPI only: fold buffers with SMPI_SHARED_MALLOC (implies --no-verify)");
            app.add_flag("!--no-header", o.header, "do not print the CSV header");
            app.add_flag("--list", o.list, "list the algorithms and exit");
            app.add_option("--inject-error", o.settings.inject_error,
                           "testing: corrupt one output byte at this rank (verification must fail)");
        },
        [&](int rank, int) { return run(o, rank); });
}
