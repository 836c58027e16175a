// predict(): dispatch of the closed forms of paper 002 Tables 1-4 (closed_forms_barrier.cpp,
// _bcast.cpp, _reduce.cpp, _alltoall.cpp) and paper 000 §3.1 ("kary" under PLogP), with the
// segmentation of paper 002 §5 (n_s = ceil(m / m_s)). Names are the registry's.
//
// References: [P002] §5, Tables 1-4; [P000] §3.1 (algorithms/REFERENCES.md).
#include <cmath>
#include <cstdio>
#include <string>

#include "closed_forms_detail.hpp"

#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/registry.hpp"

namespace gridcoll::model {

namespace {

// The rows of Tables 1-4 (all three models) and paper 000's kary broadcast (PLogP only).
struct Row {
    Collective coll;
    std::string_view alg;
    bool plogp_only;
};
constexpr Row kRows[] = {
    {Collective::Barrier, "flat", false},        {Collective::Barrier, "double-ring", false},
    {Collective::Barrier, "recursive-doubling", false}, {Collective::Barrier, "bruck", false},
    {Collective::Bcast, "linear", false},        {Collective::Bcast, "pipeline", false},
    {Collective::Bcast, "binomial", false},      {Collective::Bcast, "binary", false},
    {Collective::Bcast, "splitted-binary", false}, {Collective::Bcast, "kary", true},
    {Collective::Reduce, "flat", false},         {Collective::Reduce, "pipeline", false},
    {Collective::Reduce, "binomial", false},     {Collective::Reduce, "binary", false},
    {Collective::Alltoall, "linear", false},     {Collective::Alltoall, "pairwise", false},
};

std::string num(double v) { return format_number(v); }

[[noreturn]] void missing(const LevelParams& l, const char* model) {
    throw Error("level '" + l.level + "' has no " + model + " parameters");
}

}  // namespace

namespace detail {

const HockneyParams& hockney_of(const LevelParams& l) {
    if (!l.hockney) missing(l, "Hockney");
    return *l.hockney;
}
const LogGPParams& loggp_of(const LevelParams& l) {
    if (!l.loggp) missing(l, "LogGP");
    return *l.loggp;
}
const PLogPParams& plogp_of(const LevelParams& l) {
    if (!l.plogp) missing(l, "PLogP");
    return *l.plogp;
}

}  // namespace detail

std::string_view to_string(Model m) {
    switch (m) {
        case Model::Hockney: return "hockney";
        case Model::LogGP: return "loggp";
        case Model::PLogP: return "plogp";
    }
    return "?";
}

Model parse_model(std::string_view name) {
    if (name == "hockney") return Model::Hockney;
    if (name == "loggp" || name == "logp") return Model::LogGP;
    if (name == "plogp") return Model::PLogP;
    throw Error("unknown model '" + std::string(name) + "' (valid: hockney, loggp, plogp)");
}

bool has_formula(Model model, Collective coll, std::string_view algorithm) {
    for (const Row& r : kRows)
        if (r.coll == coll && r.alg == algorithm) return !r.plogp_only || model == Model::PLogP;
    return false;
}

std::optional<double> predict(Model model, Collective coll, std::string_view algorithm, int P, double bytes,
                              double segment, int fanout, const LevelParams& level, double gamma) {
    if (!has_formula(model, coll, algorithm)) {
        find_algorithm(coll, algorithm);  // throws Error for a name the registry does not know
        return std::nullopt;
    }
    if (P < 1) throw Error("number of processes must be >= 1, got " + std::to_string(P));
    if (!(bytes >= 0) || !std::isfinite(bytes)) throw Error("message size must be >= 0 bytes, got " + num(bytes));
    if (!(segment >= 0) || !std::isfinite(segment)) throw Error("segment size must be >= 0 bytes, got " + num(segment));
    if (coll == Collective::Bcast && algorithm == "kary" && fanout < 1)
        throw Error("kary fan-out must be >= 1, got " + std::to_string(fanout));
    if (P == 1) return 0.0;
    detail::Seg s;
    if (segment > 0 && segment < bytes) {
        s.n = std::ceil(bytes / segment);
        s.ms = segment;
    } else {
        s.n = 1;
        s.ms = bytes;
    }
    switch (coll) {
        case Collective::Barrier: return detail::barrier_formula(model, algorithm, P, level);
        case Collective::Bcast: return detail::bcast_formula(model, algorithm, P, bytes, s, fanout, level);
        case Collective::Reduce: return detail::reduce_formula(model, algorithm, P, s, gamma, level);
        case Collective::Alltoall: return detail::alltoall_formula(model, algorithm, P, bytes, s, level);
        default: return std::nullopt;
    }
}

}  // namespace gridcoll::model
