// SPDX-License-Identifier: GPL-3.0-or-later
#include "formatting.hpp"

#include <QCoreApplication>

namespace tilescope::desktop {

QString formatMs(double ms) {
  if (ms >= 100) return QString::number(ms, 'f', 1);
  if (ms >= 1) return QString::number(ms, 'f', 3);
  return QString::number(ms, 'g', 4);
}

QString formatRate(double gflops) {
  return QString::number(gflops, 'f', gflops < 10 ? 2 : 1);
}

QString formatShape(const Shape& shape) {
  // Not arg(): "%1³" would read as placeholder %13, the superscript being a digit.
  if (shape.m == shape.n && shape.n == shape.k) return QString::number(shape.m) + u'\u00b3';
  return QStringLiteral("%1\u00d7%2\u00d7%3").arg(shape.m).arg(shape.n).arg(shape.k);
}

QString describeResult(const RunResult& result) {
  QString kernel = QString::fromStdString(result.kernel.kernel);
  const std::string params = formatParams(result.kernel);
  if (!params.empty()) kernel += ' ' + QString::fromStdString(params);
  QString text =
      QStringLiteral(
          "<b>%1</b> in %8 at %2<br>median %3 ms (min %4, max %5, %6 reps)<br>"
          "%7 GFLOP/s")
          .arg(kernel.toHtmlEscaped(), formatShape(result.shape), formatMs(result.stats.medianMs),
               formatMs(result.stats.minMs), formatMs(result.stats.maxMs))
          .arg(result.stats.reps)
          .arg(formatRate(result.gflops), QLatin1String(toString(result.element)));
  if (result.phases) {
    text += QStringLiteral("<br>H2D %1 ms, kernel %2 ms, D2H %3 ms")
                .arg(formatMs(result.phases->h2dMs), formatMs(result.phases->kernelMs),
                     formatMs(result.phases->d2hMs));
  }
  if (!result.verification) {
    text += QStringLiteral("<br>not verified");
  } else {
    text += QStringLiteral("<br>%1, relative error %2")
                .arg(result.verification->passed ? QStringLiteral("verified")
                                                 : QStringLiteral("<b>verification FAILED</b>"))
                .arg(result.verification->relError, 0, 'e', 2);
  }
  return text + QStringLiteral("<br>%1: %2")
                    .arg(QString::fromStdString(result.backend),
                         QString::fromStdString(result.device).toHtmlEscaped());
}

QString formatBytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit + 1 < int(std::size(units))) {
    bytes /= 1024;
    ++unit;
  }
  return QStringLiteral("%1 %2").arg(bytes, 0, 'f', unit == 0 ? 0 : 1).arg(units[unit]);
}

QString formatCount(double count) {
  if (count >= 1e12) return QStringLiteral("%1 trillion").arg(count / 1e12, 0, 'f', 1);
  if (count >= 1e9) return QStringLiteral("%1 billion").arg(count / 1e9, 0, 'f', 1);
  if (count >= 1e6) return QStringLiteral("%1 million").arg(count / 1e6, 0, 'f', 1);
  return QString::number(count, 'f', 0);
}

QString countedRuns(int count) {
  return count == 1 ? QCoreApplication::translate("formatting", "1 run")
                    : QCoreApplication::translate("formatting", "%1 runs").arg(count);
}

QString deviceFactsTable(const DeviceInfo& device) {
  QString facts = QStringLiteral("<table cellspacing='0' cellpadding='1'>");
  for (const auto& [name, value] : device.facts) {
    facts += QStringLiteral("<tr><td>%1:&nbsp;</td><td>%2</td></tr>")
                 .arg(QString::fromStdString(name).toHtmlEscaped(),
                      QString::fromStdString(value).toHtmlEscaped());
  }
  return facts + QStringLiteral("</table>");
}

}  // namespace tilescope::desktop
