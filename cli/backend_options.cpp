#include "backend_options.hpp"

#include <algorithm>
#include <set>

#include "csv_table.hpp"

namespace gridcoll::cli {

namespace {

using backends::SettingType;

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// "event: ..." / "closed, event: ..." when the subcommand offers several backends.
std::string help_of(const backends::Setting& s, const std::vector<std::string>& names) {
    std::string owners;
    for (const auto& b : backends::backend_list())
        if (has(names, b.name) && b.find(s.key)) owners += (owners.empty() ? "" : ", ") + b.name;
    // A negated flag (--no-check) turns the setting off: its help says so, the setting's own
    // text says what the setting does when on (as Python shows it).
    const std::string what = s.type == SettingType::Flag && s.flag[0] == '!' ? "turn off: " + s.help : s.help;
    std::string h = names.size() > 1 ? owners + ": " + what : what;
    if (!s.fallback.empty() && s.type != SettingType::Flag) h += " (default " + s.fallback + ")";
    return h;
}

void declare(CLI::App& app, backends::SettingValues& values, const backends::Setting& s, const std::string& help) {
    const std::string key = s.key;
    switch (s.type) {
        case SettingType::Flag: {
            const bool negated = s.flag[0] == '!';
            app.add_flag_callback(negated ? s.flag.substr(1) : s.flag,
                                  [&values, key, negated] { values[key] = {negated ? "false" : "true"}; }, help);
            return;
        }
        case SettingType::Text:
        case SettingType::Number:
            app.add_option_function<std::string>(s.flag, [&values, key](const std::string& v) { values[key] = {v}; }, help);
            return;
        case SettingType::List:
            app.add_option_function<std::vector<std::string>>(
                   s.flag, [&values, key](const std::vector<std::string>& v) { values[key] = v; }, help)
                ->allow_extra_args(false)
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            return;
        case SettingType::Pairs:
            app.add_option_function<std::vector<std::string>>(
                   s.flag,
                   [&values, key](const std::vector<std::string>& v) {
                       auto& out = values[key];
                       for (std::size_t i = 0; i + 1 < v.size(); i += 2) out.push_back(v[i] + "=" + v[i + 1]);
                   },
                   help)
                ->type_size(2)
                ->allow_extra_args(false)
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            return;
    }
}

}  // namespace

void add_backend_settings(CLI::App& app, backends::SettingValues& values, const std::vector<std::string>& names,
                          const std::vector<std::string>& only) {
    std::set<std::string> declared;
    for (const auto& b : backends::backend_list()) {
        if (!has(names, b.name)) continue;
        for (const backends::Setting& s : b.settings) {
            if ((!only.empty() && !has(only, s.key)) || !declared.insert(s.key).second) continue;
            declare(app, values, s, help_of(s, names));
        }
    }
}

CLI::Option* add_platform_option(CLI::App& app, std::string& platform, const std::string& help, bool positional_too) {
    CLI::Option* named = app.add_option("-p,--platform", platform, help);
    if (!positional_too) return named;
    CLI::Option* pos = app.add_option("file", platform, help + " (the same as -p FILE)");
    named->excludes(pos);
    return named;
}

void add_platform_files(CLI::App& app, std::vector<std::string>& files, const std::string& help) {
    auto append = [&files](const std::vector<std::string>& v) { files.insert(files.end(), v.begin(), v.end()); };
    app.add_option_function<std::vector<std::string>>("-p,--platform", append, help + " (repeatable)")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option_function<std::vector<std::string>>("files", append, help + " (the same as -p FILE ...)");
}

int run_and_print(backends::OpenedBackend& opened, const BatchOptions& options, const std::string& format) {
    const Batch batch = opened.batch(options);
    RowPrinter print(format == "table");
    opened.backend->run(batch, [&](const ResultRow& row) { print(row); });
    return print.finish();
}

}  // namespace gridcoll::cli
