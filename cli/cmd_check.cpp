// gridcoll check / gridcoll schedule: the schedule checker and a schedule dump, for one
// communicator shape, without any MPI.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "gridcoll/checker.hpp"
#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"

namespace gridcoll::cli {

namespace {

struct Shape {
    std::string collective = "bcast";
    std::string algorithm = "binomial";
    int ranks = 8;
    int root = 0;
    int rank = 0;
    std::string bytes = "1K";
    std::string segment = "0";
    int fanout = 2;
    std::size_t elem = 1;
    bool non_commutative = false;

    void add_options(CLI::App& app) {
        app.add_option("-c,--collective", collective, "collective")->capture_default_str();
        app.add_option("-a,--algorithm", algorithm, "algorithm name")->capture_default_str();
        app.add_option("-n,--ranks", ranks, "communicator size")->capture_default_str()->check(CLI::PositiveNumber);
        app.add_option("--root", root, "root rank")->capture_default_str()->check(CLI::NonNegativeNumber);
        app.add_option("-b,--bytes", bytes, "message size")->capture_default_str();
        app.add_option("-s,--segment", segment, "segment size (0 = none)")->capture_default_str();
        app.add_option("-k,--fanout", fanout, "fan-out / chains")->capture_default_str()->check(CLI::PositiveNumber);
        app.add_option("--elem", elem, "element size of reductions")->capture_default_str()->check(CLI::PositiveNumber);
        app.add_flag("--non-commutative", non_commutative, "check rank order of reductions");
    }
    Request request() const {
        Request r;
        r.coll = parse_collective(collective);
        r.size = ranks;
        r.root = root;
        r.rank = rank;
        r.bytes = parse_bytes(bytes);
        r.params.segment = parse_bytes(segment);
        r.params.fanout = fanout;
        r.elem = elem;
        r.commutative = !non_commutative;
        return r;
    }
};

}  // namespace

Runner add_check(CLI::App& app) {
    auto shape = std::make_shared<Shape>();
    shape->add_options(app);
    return [shape] {
        const Request r = shape->request();
        validate(r);
        const CheckResult res = check_algorithm(r, shape->algorithm);
        if (!res.ok) {
            std::fprintf(stderr, "FAIL %s/%s on %d ranks: %s\n", shape->collective.c_str(), shape->algorithm.c_str(), r.size,
                         res.error.c_str());
            return 1;
        }
        std::printf("OK %s/%s on %d ranks, %llu bytes: %llu steps, %llu messages, %llu bytes moved\n",
                    shape->collective.c_str(), shape->algorithm.c_str(), r.size, static_cast<unsigned long long>(r.bytes),
                    static_cast<unsigned long long>(res.steps), static_cast<unsigned long long>(res.messages),
                    static_cast<unsigned long long>(res.message_bytes));
        return 0;
    };
}

Runner add_schedule(CLI::App& app) {
    auto shape = std::make_shared<Shape>();
    shape->add_options(app);
    app.add_option("--rank", shape->rank, "whose schedule")->capture_default_str()->check(CLI::NonNegativeNumber);
    return [shape] {
        std::fputs(build_schedule(shape->request(), shape->algorithm).to_string().c_str(), stdout);
        return 0;
    };
}

}  // namespace gridcoll::cli
