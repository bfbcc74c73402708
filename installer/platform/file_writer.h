// Files torchdex writes for the user (lock files, exports, cache entries): written to a new
// temporary file beside the target, created with O_EXCL under an unpredictable name, then renamed
// over it. A reader sees the old file or the new one, whole; a failed write leaves the old one
// and no temporary behind; and nothing already at some name in the directory (a symlink a hostile
// repository committed, say) is ever written through.
#ifndef TORCHDEX_INSTALLER_PLATFORM_FILE_WRITER_H_
#define TORCHDEX_INSTALLER_PLATFORM_FILE_WRITER_H_

#include <string>
#include <string_view>

#include "core/expected.h"

namespace torchdex::installer {

enum class FileAccess {
  kShared,   // as a new file of the user's: 0666 less the umask
  kPrivate,  // the owner's alone (0600): cache entries
};

/// Replaces `path` with `text` as above. Errors name the path and the system's reason.
core::Status WriteFileReplacing(const std::string& path, std::string_view text,
                                FileAccess access = FileAccess::kShared);

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_FILE_WRITER_H_
