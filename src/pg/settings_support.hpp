// Pieces every family's settings share: the context of settings fixed at
// server start, and epochs written as timestamptz literals.
#pragma once

#include "postgres_headers.hpp"

namespace crid::pg {

// PGC_POSTMASTER when crid is being preloaded. A backend that loads crid later
// may not create postmaster settings; there the layout settings only steer
// decoding (nothing is minted without preloading), so they follow a reload.
GucContext fixed_at_start_context();

// An epoch setting (a timestamptz literal such as '2026-01-01 00:00:00+00') as
// Unix milliseconds. ERROR naming `setting` when it is infinite or in the
// future: ids count time from the epoch.
int64_t epoch_setting_unix_ms(const char *setting, const char *text);

} // namespace crid::pg
