// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the desktop suites share: how long they wait, and small helpers on files and charts.
#include <QFile>
#include <QString>
#include <QStringList>
#include <QtTest>
#include <algorithm>

#include "chart_view.hpp"

namespace tilescope::test {

// How long a suite waits for a run, a queue or a server before it fails: minutes, for a loaded
// two-core CI machine.
inline constexpr int kWaitMs = 60000;

// Writes `text` to `path` in place of what was there; fails the test where it cannot.
inline void writeText(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
  file.write(text);
}

// Whether a chart's legend has an entry for `label` alone ("roofs as measured").
inline bool legendSays(ui::ChartView* chart, const QString& label) {
  return std::ranges::any_of(chart->legendEntries(), [&](const ui::LegendEntry& entry) {
    return entry.members == QStringList{label};
  });
}

}  // namespace tilescope::test
