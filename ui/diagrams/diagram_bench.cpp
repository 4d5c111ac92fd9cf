// SPDX-License-Identifier: GPL-3.0-or-later
// tilescope-diagram-bench: how long each diagram view takes to redraw, per kernel at its smallest
// tiles (its first valid configuration: the most blocks), on a large problem. Prints a table; the
// first draw includes building the cached pictures (owners, the whole launch's traffic), the rest
// are plain redraws. The "animate" rows advance the k-step before every draw, as playing the
// animation does.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "diagram_document.hpp"
#include "diagram_view.hpp"

namespace {

using tilescope::ui::DiagramDocument;
using tilescope::ui::DiagramKind;
using tilescope::ui::DiagramView;

struct Timing {
  double firstMs = 0, medianMs = 0, maxMs = 0;
};

double drawOnce(DiagramView& view, QImage& image) {
  QElapsedTimer clock;
  clock.start();
  QPainter painter(&image);
  view.render(painter, QRectF(image.rect()), tilescope::ui::DiagramTheme::light());
  painter.end();
  return double(clock.nsecsElapsed()) / 1e6;
}

Timing measure(DiagramView& view, QImage& image, int reps, bool animate) {
  Timing timing;
  timing.firstMs = drawOnce(view, image);
  std::vector<double> samples;
  for (int rep = 0; rep < reps; ++rep) {
    if (animate) {
      tilescope::ui::DiagramSelection s = view.document()->selection();
      s.step = (s.step + 1) % view.document()->mapping()->kSteps();
      view.document()->setSelection(s);
    }
    samples.push_back(drawOnce(view, image));
  }
  std::ranges::sort(samples);
  timing.medianMs = samples[samples.size() / 2];
  timing.maxMs = samples.back();
  return timing;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("tilescope-diagram-bench"));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Times redraws of every diagram view for every kernel at its smallest tiles."));
  parser.addHelpOption();
  const QCommandLineOption sizeOption(QStringLiteral("size"),
                                      QStringLiteral("M = N = K (default 8192)."),
                                      QStringLiteral("n"), QStringLiteral("8192"));
  const QCommandLineOption repsOption(QStringLiteral("reps"),
                                      QStringLiteral("Redraws timed per row (default 30)."),
                                      QStringLiteral("n"), QStringLiteral("30"));
  const QCommandLineOption widthOption(QStringLiteral("width"),
                                       QStringLiteral("Image width (default 1280)."),
                                       QStringLiteral("px"), QStringLiteral("1280"));
  const QCommandLineOption heightOption(QStringLiteral("height"),
                                        QStringLiteral("Image height (default 800)."),
                                        QStringLiteral("px"), QStringLiteral("800"));
  parser.addOptions({sizeOption, repsOption, widthOption, heightOption});
  parser.process(app);
  const qint64 size = parser.value(sizeOption).toLongLong();
  const int reps = std::max(parser.value(repsOption).toInt(), 1);
  QImage image(parser.value(widthOption).toInt(), parser.value(heightOption).toInt(),
               QImage::Format_ARGB32_Premultiplied);
  if (size < 1 || image.isNull()) {
    std::fprintf(stderr, "tilescope-diagram-bench: size and image dimensions must be positive\n");
    return 2;
  }

  std::printf("Diagram redraw times, M = N = K = %lld, %dx%d image, %d redraws per row\n",
              static_cast<long long>(size), image.width(), image.height(), reps);
  std::printf("%-8s %-8s %-15s %-52s %10s %10s %10s %s\n", "view", "mode", "kernel", "tiles",
              "first ms", "median ms", "max ms", "median < 16 ms");
  for (const DiagramKind kind : tilescope::ui::kDiagramKinds) {
    for (const bool animate : {false, true}) {
      if (animate && kind == DiagramKind::Matrix) continue;  // no step in the matrix view
      for (const tilescope::KernelInfo& info : tilescope::catalogue()) {
        if (!info.hasMapping) continue;
        // The first valid configuration has the smallest tiles: the most blocks to draw.
        const tilescope::KernelConfig config = tilescope::validConfigurations(info).front();
        DiagramDocument document;
        document.setConfiguration(config, {size, size, size});
        const std::string params = tilescope::formatParams(config);
        const QString tileText =
            params.empty() ? QStringLiteral("-") : QString::fromStdString(params);
        const QByteArray view = tilescope::ui::diagramKindName(kind).toUtf8();
        if (!document.mapping()) {
          std::printf("%-8s %-8s %-15s %-52s refused: %s\n", view.constData(),
                      animate ? "animate" : "redraw", info.id.c_str(), qPrintable(tileText),
                      qPrintable(document.unavailableReason()));
          continue;
        }
        const std::unique_ptr<DiagramView> diagram(tilescope::ui::makeDiagramView(kind, &document));
        const Timing t = measure(*diagram, image, reps, animate);
        std::printf("%-8s %-8s %-15s %-52s %10.2f %10.2f %10.2f %s\n", view.constData(),
                    animate ? "animate" : "redraw", info.id.c_str(), qPrintable(tileText),
                    t.firstMs, t.medianMs, t.maxMs, t.medianMs < 16.0 ? "yes" : "NO");
      }
    }
  }
  return 0;
}
