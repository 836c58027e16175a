// Writing generated files whole or not at all (a temporary file renamed into place), and
// scratch directories removed when the command ends.
#pragma once

#include <string>

namespace gridcoll::cli {

// Writes `text` to `path` atomically, or to standard output when `path` is empty.
void write_output(const std::string& path, const std::string& text);

// A fresh private directory under $TMPDIR (or /tmp), removed with its contents on destruction.
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

}  // namespace gridcoll::cli
