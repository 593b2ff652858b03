// Help text laid out for the reader's terminal: paragraphs wrapped at word boundaries to its width, with a hanging
// indent under the column they start in.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace infracalc::cli {

/// The width help wraps to: the terminal's columns when stdout is one, else $COLUMNS when set, else 100; kept
/// within 40 to 200.
[[nodiscard]] std::size_t help_width();

/// `text` wrapped at spaces so that no line passes `width` columns (a word longer than a line stands alone): the
/// first line continues at column `column` (where the caller's text stopped), the next ones start with `indent`
/// spaces. Characters beyond ASCII count as one column each.
[[nodiscard]] std::string wrap(std::string_view text, std::size_t width, std::size_t indent, std::size_t column);

}  // namespace infracalc::cli
