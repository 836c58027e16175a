// Files: generated files written whole or not at all (a temporary file renamed into place),
// scratch directories removed when the command ends, and programs installed next to ours.
#pragma once

#include <string>

namespace gridcoll::sys {

// Writes `text` to `path` atomically (a symbolic link stays, the file it names is replaced), a
// device or pipe in place, or to standard output when `path` is empty.
void write_output(const std::string& path, const std::string& text);

// A fresh private directory under $TMPDIR (or /tmp), `prefix`<pid>-XXXXXX, removed with its
// contents on destruction; those of the same prefix left by a process that no longer exists
// are removed first.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// A file removed (if it exists) when this object goes; an empty path is nothing.
class RemoveOnExit {
public:
    explicit RemoveOnExit(std::string path) : path_(std::move(path)) {}
    ~RemoveOnExit();
    RemoveOnExit(const RemoveOnExit&) = delete;
    RemoveOnExit& operator=(const RemoveOnExit&) = delete;

private:
    std::string path_;
};

// Directory of the running executable.
std::string self_dir();

// A program built next to the running one (e.g. gridcoll-bench-smpi next to gridcoll), or
// `override_path` when given; Error when it is not there.
std::string sibling_program(const std::string& name, const std::string& override_path = "");

}  // namespace gridcoll::sys
