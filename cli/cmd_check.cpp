// gridcoll check / gridcoll schedule: the schedule checker and a schedule dump, for one
// communicator shape, without any MPI. The shape's Topology: flat (default), a platform's
// (--platform), a rank map (--rank-map), or — for check — random multilevel ones (--random N:
// N seeds, every root; random_topology.hpp).
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/random_topology.hpp"
#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/units.hpp"

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
    std::string counts = "even";
    std::string platform, hostfile, rank_map;
    std::shared_ptr<const Topology> topology;  // loaded by load_topology()

    void add_options(CLI::App& app) {
        app.add_option("-p,--platform", platform, "the Topology of a platform (.toml, or .xml with --hostfile); --ranks defaults to its ranks");
        app.add_option("-H,--hostfile", hostfile, "for an XML platform: its hostfile");
        app.add_option("--rank-map", rank_map, "the Topology from a rank map (gridcoll platform ranks)");
        app.add_option("-c,--collective", collective, "collective")->capture_default_str();
        app.add_option("-a,--algorithm,--method", algorithm, "method text: name[:k=..:seg=..:level=..:win=..][[level methods|...]]")
            ->capture_default_str();
        app.add_option("-n,--ranks", ranks, "communicator size")->capture_default_str()->check(kPositive);
        app.add_option("--root", root, "root rank")->capture_default_str()->check(kNonNegative);
        app.add_option("-b,--bytes", bytes, "message size")->capture_default_str();
        app.add_option("-s,--segment", segment, "segment size (0 = none)")->capture_default_str();
        app.add_option("-k,--fanout", fanout, "fan-out / chains")->capture_default_str()->check(kPositive);
        app.add_option("--elem", elem, "element size of reductions")->capture_default_str()->check(kPositive);
        app.add_flag("--non-commutative", non_commutative, "check rank order of reductions");
        app.add_option("--counts", counts, "blocks per rank of an irregular collective around --bytes: even, ramp, zeros")
            ->capture_default_str()
            ->check(CLI::IsMember({"even", "ramp", "zeros"}));
    }
    void load_topology(const CLI::App& app) {
        if (!platform.empty() && !rank_map.empty()) throw Error("--platform and --rank-map both give a Topology; give one");
        if (!platform.empty()) {
            const auto plat = platform::load_sim_platform(platform, hostfile, app.count("--ranks") ? ranks : 0);
            if (!plat.topology) throw Error("no Topology for '" + platform + "' (XML needs gridcoll built with SimGrid)");
            topology = plat.topology;
            ranks = plat.ranks;
        } else if (!rank_map.empty()) {
            topology = std::make_shared<const Topology>(Topology::load(rank_map));
            if (app.count("--ranks") && ranks != topology->size())
                throw Error("--ranks " + std::to_string(ranks) + " but rank map '" + rank_map + "' has " +
                            std::to_string(topology->size()));
            ranks = topology->size();
        }
    }
    // The method's algorithm name (the text may carry parameters and per-level methods).
    std::string name() const { return method().algorithm; }
    Method method() const {
        MethodParams defaults;
        defaults.segment = parse_bytes(segment);
        defaults.fanout = fanout;
        return parse_method(parse_collective(collective), algorithm, defaults);
    }
    Request request() const {
        Request r;
        r.topology = topology.get();
        r.coll = parse_collective(collective);
        r.size = ranks;
        r.root = root;
        r.rank = rank;
        r.bytes = parse_bytes(bytes);
        r.params = method().params;
        r.elem = elem;
        r.commutative = !non_commutative;
        r.counts = make_counts(r.coll, r.size, r.bytes, r.elem, parse_count_pattern(counts));
        return r;
    }
};

}  // namespace

namespace {

int report(const Shape& shape, const Request& r, const CheckResult& res, const std::string& where) {
    if (!res.ok) {
        std::fprintf(stderr, "FAIL %s/%s on %d ranks%s, root %d: %s\n", shape.collective.c_str(), shape.algorithm.c_str(), r.size,
                     where.c_str(), r.root, res.error.c_str());
        return 1;
    }
    return 0;
}

}  // namespace

Runner add_check(CLI::App& app) {
    auto shape = std::make_shared<Shape>();
    auto random = std::make_shared<int>(0);
    shape->add_options(app);
    app.add_option("--random", *random, "check on this many random multilevel Topologies (1-5 levels, uneven, interleaved), "
                                        "every root")
        ->check(kNonNegative);
    return [shape, random, &app] {
        shape->load_topology(app);
        if (*random > 0) {
            if (shape->topology) throw Error("--random draws the Topologies itself; leave out --platform / --rank-map");
            Request r = shape->request();
            std::uint64_t checks = 0;
            for (int seed = 1; seed <= *random; ++seed) {
                const Topology t = random_topology(r.size, static_cast<std::uint64_t>(seed));
                r.topology = &t;
                for (int root = 0; root < (is_rooted(r.coll) ? r.size : 1); ++root) {
                    r.root = root;
                    validate(r);
                    if (report(*shape, r, check_algorithm(r, shape->name()), " (random topology " + std::to_string(seed) + ": " +
                                                                             describe(t) + ")"))
                        return 1;
                    ++checks;
                }
            }
            std::printf("OK %s/%s on %d ranks: %d random topologies, %llu checks (every root)\n", shape->collective.c_str(),
                        shape->algorithm.c_str(), r.size, *random, static_cast<unsigned long long>(checks));
            return 0;
        }
        const Request r = shape->request();
        validate(r);
        const CheckResult res = check_algorithm(r, shape->name());
        if (report(*shape, r, res, shape->topology ? " (" + describe(*shape->topology) + ")" : "")) return 1;
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
    app.add_option("--rank", shape->rank, "whose schedule")->capture_default_str()->check(kNonNegative);
    return [shape, &app] {
        shape->load_topology(app);
        std::fputs(build_schedule(shape->request(), shape->name()).to_string().c_str(), stdout);
        return 0;
    };
}

}  // namespace gridcoll::cli
