// gridcoll params show FILE: the parameters of every level, at a few message sizes.
// gridcoll params measure --platform P -o OUT: measures PLogP parameters per level by running
// gridcoll-plogp-smpi under SMPI on the platform (each level measured between one pair of ranks
// that share exactly that level; see runtime/programs/plogp_main.cpp).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/backends/smpi_settings.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/params_io.hpp"
#include "gridcoll/platforms/model_params.hpp"
#include "gridcoll/sim/smpi_backend.hpp"

namespace gridcoll::cli {

namespace {

int show(const std::string& file) {
    const model::ParamSet set = platform::load_model_params(file);
    std::printf("%s%s\n", file.c_str(), set.origin.empty() ? "" : ("  (" + set.origin + ")").c_str());
    if (set.gamma > 0) std::printf("gamma = %g s/byte\n", set.gamma);
    const double sizes[] = {1, 1024, 65536, 1048576};
    for (std::size_t i = 0; i < set.levels.size(); ++i) {
        const auto& l = set.levels[i];
        std::printf("\nlevel %zu: %s\n", i, l.level.c_str());
        if (!l.plogp && !l.loggp && !l.hockney) std::printf("  (no parameters)\n");
        if (l.plogp) {
            std::printf("  PLogP  L = %.6g s\n  %10s %14s %14s %14s\n", l.plogp->L, "bytes", "os(m) [s]", "or(m) [s]", "g(m) [s]");
            for (double m : sizes)
                std::printf("  %10.0f %14.6g %14.6g %14.6g\n", m, l.plogp->os(m), l.plogp->or_(m), l.plogp->g(m));
        }
        if (l.loggp)
            std::printf("  LogGP  L = %.6g s, o = %.6g s, g = %.6g s, G = %.6g s/byte\n", l.loggp->L, l.loggp->o, l.loggp->g,
                        l.loggp->G);
        if (l.hockney) {
            std::printf("  Hockney");
            for (double m : sizes) std::printf("  T(%.0f) = %.6g s", m, l.hockney->time(m));
            std::printf("\n");
        }
    }
    return 0;
}

}  // namespace

Runner add_params(CLI::App& app) {
    struct Opts {
        std::string action, file, platform, hostfile, output, bytes;
        int ranks = 0, reps = 5;
        backends::SettingValues smpi;  // the SMPI backend's network_model, cfg, verbose
    };
    auto o = std::make_shared<Opts>();
    app.add_option("action", o->action, "show | measure")->required()->check(CLI::IsMember({"show", "measure"}));
    add_platform_option(app, o->platform,
                        "show: parameter file or platform description; measure: platform description (.toml) or SimGrid XML (.xml)",
                        true);
    app.add_option("-H,--hostfile", o->hostfile, "measure on SimGrid XML: hostfile");
    app.add_option("-n,--ranks", o->ranks, "measure: ranks (default: the description's placement)")->check(kPositive);
    app.add_option("-b,--bytes", o->bytes, "measure: message sizes (default: powers of 2 up to 4 MiB)");
    app.add_option("-r,--reps", o->reps, "measure: repetitions per size")->capture_default_str()->check(kPositive);
    app.add_option("-o,--output", o->output, "measure: parameter file to write (default: standard output)");
    add_backend_settings(app, o->smpi, {"smpi"}, backends::kSmpiRunKeys);
    return [o]() -> int {
        if (o->action == "show") {
            if (o->platform.empty()) throw Error("'params show' needs a file (FILE or -p FILE)");
            return show(o->platform);
        }
        if (o->platform.empty()) throw Error("'params measure' needs a platform (-p FILE)");
        const platform::SimPlatform plat = platform::load_sim_platform(o->platform, o->hostfile, o->ranks);
        const sim::SmpiSettings settings = backends::smpi_settings(o->smpi);
        const model::ParamSet measured = sim::measure_plogp_smpi(plat, settings, o->bytes, o->reps);
        if (o->output.empty()) std::fputs(model::to_toml(measured).c_str(), stdout);
        else model::save_params(measured, o->output);
        return 0;
    };
}

}  // namespace gridcoll::cli
