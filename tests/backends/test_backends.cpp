// The front door (gridcoll/backends/backends.hpp): the settings tables are well formed, one key
// means one option everywhere, and bad settings are refused with the backend, key and value named.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/backends/backends.hpp"
#include "gridcoll/backends/smpi_settings.hpp"
#include "gridcoll/runtime/openmpi_backend.hpp"

namespace gridcoll::backends {
namespace {

const std::string kDas = std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml";

std::string error_of(const std::string& name, const SettingValues& v, const Target& t = {}) {
    try {
        open_backend(name, v, t);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(Backends, TablesAreWellFormed) {
    std::map<std::string, std::string> flag_of;  // key -> flag, across backends
    for (const BackendInfo& b : backend_list()) {
        EXPECT_FALSE(b.description.empty()) << b.name;
        std::set<std::string> keys;
        for (const Setting& s : b.settings) {
            EXPECT_TRUE(keys.insert(s.key).second) << b.name << ": " << s.key << " twice";
            EXPECT_FALSE(s.help.empty()) << b.name << "." << s.key;
            EXPECT_NE(s.flag.find("--"), std::string::npos) << b.name << "." << s.key << ": " << s.flag;
            if (s.type == SettingType::Flag) {
                EXPECT_TRUE(s.fallback == "true" || s.fallback == "false") << s.key;
            }
            auto [it, fresh] = flag_of.emplace(s.key, s.flag);
            EXPECT_EQ(it->second, s.flag) << s.key << " has two command-line spellings";
            (void)fresh;
        }
    }
    EXPECT_EQ(find_backend("event").name, "event");
}

TEST(Backends, UnknownNamesAndKeysAreNamed) {
    EXPECT_NE(error_of("nonesuch", {}).find("unknown backend 'nonesuch' (this build has: closed, event"), std::string::npos);
    const std::string e = error_of("closed", {{"shared_links", {"wan"}}});
    EXPECT_NE(e.find("backend 'closed' has no setting 'shared_links' (a setting of: event)"), std::string::npos) << e;
}

TEST(Backends, ValuesAreChecked) {
    EXPECT_NE(error_of("event", {{"model", {"hockney"}}}).find("must be one of plogp, loggp (got 'hockney')"), std::string::npos);
    EXPECT_NE(error_of("event", {{"cross_traffic", {"lots"}}}).find("must be a finite number (got 'lots')"), std::string::npos);
    EXPECT_NE(error_of("event", {{"cross_traffic", {"nan"}}}).find("must be a finite number (got 'nan')"), std::string::npos);
    EXPECT_NE(error_of("event", {{"cross_traffic", {"inf"}}}).find("must be a finite number"), std::string::npos);
    EXPECT_NE(error_of("event", {{"sync_sends", {"yes"}}}).find("is true or false (got 'yes')"), std::string::npos);
    for (const char* bad : {"foo", ":yes", "smpi/os:"}) {  // SimGrid itself aborts on these
        try {
            smpi_settings({{"cfg", {"network/crosstraffic:0", bad}}});
            ADD_FAILURE() << "no error for --cfg " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("takes KEY:VALUE, as SimGrid's --cfg does (got '") + bad),
                      std::string::npos) << e.what();
        }
    }
    Target t;
    t.platform = kDas;
    EXPECT_NE(error_of("event", {{"sync_from", {"64K"}}}, t).find("sync_from needs sync_sends"), std::string::npos);
}

TEST(Backends, OpensOnAPlatformWithItsRanksAndTopology) {
    Target t;
    t.platform = kDas;
    OpenedBackend o = open_backend("event", {{"shared_links", {"wan"}}}, t);
    EXPECT_EQ(o.ranks, 8);
    ASSERT_TRUE(o.topology);
    EXPECT_EQ(o.topology->levels(), 3);
    EXPECT_FALSE(o.mpi);
    EXPECT_EQ(o.backend->name(), "event-plogp-links");
    BatchOptions b;
    b.collective = "bcast";
    b.algorithm = "binomial,multilevel";
    b.bytes = "1K";
    const Batch batch = o.batch(b);
    EXPECT_EQ(batch.methods.size(), 2u);
    int rows = 0;
    o.backend->run(batch, [&](const ResultRow& r) {
        EXPECT_GT(r.time.median, 0.0);
        ++rows;
    });
    EXPECT_EQ(rows, 2);
}

// Open MPI 4.1's mpirun can hang after MPI_Abort unpacking the dying rank's aggregated help
// message (github.com/open-mpi/ompi issue 8356): the launcher turns aggregation off unless the
// user's --mca says otherwise.
TEST(Backends, MpirunLeavesHelpMessagesUnaggregatedUnlessTold) {
    Target t;
    t.platform = kDas;
    BatchOptions b;
    b.collective = "bcast";
    b.algorithm = "binomial";
    b.bytes = "1K";
    auto aggregate_values = [&](const SettingValues& v) {
        OpenedBackend o = open_backend("openmpi", v, t);
        const auto* mpi = dynamic_cast<const launch::OpenMpiBackend*>(o.backend.get());
        EXPECT_NE(mpi, nullptr);
        std::vector<std::string> values;
        if (!mpi) return values;
        const std::vector<std::string> argv = mpi->command(o.batch(b), "map.ranks");
        for (std::size_t i = 0; i + 2 < argv.size(); ++i)
            if (argv[i] == "--mca" && argv[i + 1] == "orte_base_help_aggregate") values.push_back(argv[i + 2]);
        return values;
    };
    EXPECT_EQ(aggregate_values({}), std::vector<std::string>{"0"});
    EXPECT_EQ(aggregate_values({{"mca", {"orte_base_help_aggregate=1"}}}), std::vector<std::string>{"1"});
}

TEST(Backends, ClosedFormsNeedRanksWithoutAPlatform) {
    EXPECT_NE(error_of("closed", {{"params", {kDas}}}).find("give the communicator size"), std::string::npos);
    Target t;
    t.ranks = 16;
    OpenedBackend o = open_backend("closed", {{"params", {kDas}}, {"level", {"lan"}}}, t);
    EXPECT_EQ(o.ranks, 16);
    EXPECT_FALSE(o.topology);
}

}  // namespace
}  // namespace gridcoll::backends
