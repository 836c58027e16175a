#include "gridcoll/system/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::sys {

namespace {

namespace fs = std::filesystem;

// A device, pipe or socket is written in place: renaming a file over it would replace it.
void write_in_place(const std::string& path, const std::string& text, const std::string& asked) {
    std::ofstream f(path, std::ios::binary);
    if (!f) throw Error("cannot write '" + asked + "': " + std::strerror(errno));
    f << text;
    f.flush();
    if (!f) throw Error("writing '" + asked + "' failed: " + std::strerror(errno));
}

}  // namespace

void write_output(const std::string& path, const std::string& text) {
    if (path.empty()) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    std::error_code ec;
    fs::path target = path;
    for (int hops = 0; fs::is_symlink(target, ec); ++hops) {  // the links stay; the file they name is written
        fs::path next = fs::read_symlink(target, ec);
        if (ec || hops == 40) throw Error("cannot write '" + path + "': " + (ec ? ec.message() : "too many symbolic links"));
        target = next.is_absolute() ? next : target.parent_path() / next;  // a relative one: from the link's folder
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::is_directory(st)) throw Error("cannot write '" + path + "': it is a directory");
    if (fs::exists(st) && !fs::is_regular_file(st)) return write_in_place(target.string(), text, path);
    const std::string tmp = target.string() + ".tmp" + std::to_string(getpid());
    {
        std::ofstream f(tmp, std::ios::binary);
        if (!f) throw Error("cannot write '" + path + "': " + std::strerror(errno));
        f << text;
        f.close();
        if (!f) {
            std::remove(tmp.c_str());
            throw Error("writing '" + path + "' failed");
        }
    }
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw Error("cannot write '" + path + "': " + why);
    }
}

namespace {

// Scratch directories named `prefix`<pid>-... whose process is gone (a run killed with SIGKILL
// cannot remove its own) are removed by the next one.
void remove_abandoned(const std::string& base, const std::string& prefix) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(base, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            std::filesystem::remove_all(e.path(), ec);
    }
}

}  // namespace

ScratchDir::ScratchDir(const std::string& prefix) {
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string base = tmpdir && *tmpdir ? tmpdir : "/tmp";
    remove_abandoned(base, prefix);
    std::string templ = base + "/" + prefix + std::to_string(getpid()) + "-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw Error("cannot create a scratch directory: " + std::string(std::strerror(errno)));
    path_ = buf.data();
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

RemoveOnExit::~RemoveOnExit() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove(path_, ec);
}

std::string self_dir() {
    std::error_code ec;
    const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : p.parent_path().string();
}

std::string sibling_program(const std::string& name, const std::string& override_path) {
    const std::string path = override_path.empty() ? self_dir() + "/" + name : override_path;
    if (access(path.c_str(), R_OK) != 0) throw Error("program '" + path + "' cannot be read");
    return path;
}

}  // namespace gridcoll::sys
