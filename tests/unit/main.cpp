// Catch2's main, in a translation unit of its own, and the translation of infracalc's UserError.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "units/expected.hpp"

CATCH_TRANSLATE_EXCEPTION(const infracalc::UserError& e) { return e.error.text(); }
