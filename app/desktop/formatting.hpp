// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Numbers and the core's strings as the table, the charts and their tooltips show them.
#include <QString>
#include <string>

#include "tilescope/backend.hpp"

namespace tilescope::desktop {

// The core's UTF-8 text as a QString.
inline QString text(const std::string& value) {
  return QString::fromStdString(value);
}

// Milliseconds with a sensible number of digits from microseconds to minutes.
QString formatMs(double ms);
QString formatRate(double gflops);
// "512 bytes", "1.5 GiB".
QString formatBytes(double bytes);
// "32768", "1.1 billion".
QString formatCount(double count);
// "1 run", "3 runs".
QString countedRuns(int count);
// A device's facts ("SMs: 132"), one row each, as an HTML table.
QString deviceFactsTable(const DeviceInfo& device);
// "512³" for a cube, "512×256×128" otherwise.
QString formatShape(const Shape& shape);
// A few lines of rich text with every figure of one result, for tooltips.
QString describeResult(const RunResult& result);

}  // namespace tilescope::desktop
