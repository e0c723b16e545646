// Pieces every family's settings share: the context of settings fixed at
// server start, epochs written as timestamptz literals, and remembering what
// a layout was built from.
#pragma once

#include "common/postgres_headers.hpp"

#include <initializer_list>

namespace crid::pg {

// PGC_POSTMASTER when crid is being preloaded. A backend that loads crid later
// may not create postmaster settings; there the layout settings only steer
// decoding (nothing is minted without preloading), so they follow a reload.
GucContext fixed_at_start_context();

// An epoch setting (an absolute timestamptz literal such as
// '2026-01-01 00:00:00+00') as Unix milliseconds. ERROR naming `setting` when
// it is relative to the clock ('now', 'today', '00:00 yesterday', '04:05:06
// tomorrow': every process would read its own epoch), infinite, or in the
// future: ids count time from the epoch.
int64_t epoch_setting_unix_ms(const char *setting, const char *text);

// The setting values a layout was built from. Without preloading a reload can
// change them, and the layout must follow; with preloading they are fixed.
class LayoutSource {
  public:
    // The longest epoch (or layout) text it tells apart.
    static constexpr int max_key = 512;
    // True when a layout was built and from exactly these values.
    bool matches(const char *epoch_text, std::initializer_list<int> widths) const noexcept;
    // Records the values a layout was just built from.
    void remember(const char *epoch_text, std::initializer_list<int> widths) noexcept;

  private:
    static constexpr int max_widths = 4;
    bool built_ = false;
    char epoch_[max_key] = "";
    int widths_[max_widths] = {};
    int count_ = 0;
};

} // namespace crid::pg
