#include "engine/tune/grid_sampler.h"

#include "engine/base/json_fields.h"

#include <algorithm>

namespace lathe::engine {

namespace {

void expand(const std::vector<ParamSpec> &params, std::size_t i, const nlohmann::json &partial,
            std::vector<nlohmann::json> &out)
{
    if (i == params.size()) {
        out.push_back(partial);
        return;
    }
    const ParamSpec &p = params[i];
    if (!isParamActive(p, partial)) {
        expand(params, i + 1, partial, out);
        return;
    }
    for (const nlohmann::json &v : p.values) {
        nlohmann::json next = partial;
        next[p.name] = v;
        expand(params, i + 1, next, out);
    }
}

} // namespace

bool sameParams(const nlohmann::json &a, const nlohmann::json &b)
{
    if (a.size() != b.size())
        return false;
    for (auto it = a.begin(); it != a.end(); ++it)
        if (!b.contains(it.key()) || !paramValuesEqual(it.value(), b[it.key()]))
            return false;
    return true;
}

GridSampler::GridSampler(const SearchSpace &space)
{
    for (const ParamSpec &p : space.params)
        if (!p.categorical())
            json_fields::fail("space.params.\"" + p.name + "\"",
                              "the grid strategy takes only grid and choice parameters (this one is " +
                                  paramTypeName(p.type) + "): list its values as a grid, or use random or tpe");
    expand(space.params, 0, nlohmann::json::object(), m_combinations);
}

std::optional<nlohmann::json> GridSampler::suggest(const std::vector<Trial> &trials, std::mt19937_64 &) const
{
    for (const nlohmann::json &c : m_combinations) {
        const bool taken =
            std::any_of(trials.begin(), trials.end(), [&](const Trial &t) { return sameParams(t.params, c); });
        if (!taken)
            return c;
    }
    return std::nullopt;
}

} // namespace lathe::engine
