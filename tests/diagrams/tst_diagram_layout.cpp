// SPDX-License-Identifier: GPL-3.0-or-later
// The layout pass, checked on what every view really placed: every view of every kernel family,
// docked (a 460-pixel dock), in a window and full screen in presentation mode, on screens from
// 460x400 to 3840x2160 at QT_SCALE_FACTOR 1, 1.5 and 2. No label may overlap another label or the
// figure or leave the view, and the figure keeps its share of the view; text inside the figure's
// cells (lanes, threads, loads, warps, a pipeline's actions) fits its cell or is left out; a view
// with nothing to draw for a kernel (the pipeline timeline of a kernel without a pipeline) says so
// in full. Also: the views that once piled their labels up keep them, and the k-step and block
// views name a step's k alike.
#include <QtTest>

#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QScrollArea>
#include <algorithm>
#include <map>
#include <set>

#include "access_view.hpp"
#include "diagram_document.hpp"
#include "diagram_model.hpp"
#include "diagram_panel.hpp"
#include "diagram_view.hpp"
#include "kstep_view.hpp"

using namespace tilescope;
using namespace tilescope::ui;

namespace {

// The smallest text a desk reads (docked), and a lecture hall (presenting on a 1280x720
// projector), in pixels.
constexpr double kDeskPixels = 12, kHallPixels = 20;

double pixels(const QFont& font) {
  return font.pixelSize() > 0 ? font.pixelSize() : font.pointSizeF() * 96 / 72;
}

// The figure's bounding box reaches across at least this share of the view's width or height,
// whatever the size and scale. (Along its limiting side: a figure keeps its aspect, so a tall
// matrix in a wide view, or the few lines of memory a warp touches, cannot fill the area.)
constexpr double kMinFigureSpan = 0.5;
// What the main window around a dock takes of the screen's height (menus, tool and status bars).
constexpr int kWindowChrome = 80;
// The smallest window the app is used in, in logical pixels.
constexpr QSize kSmallestWindow{460, 400};

struct Setting {
  QString name;
  QSize view;  // the diagram view's size, logical pixels
  double fontScale = 1;
};

QSize logical(QSize screen, double scale) {
  return QSize(int(screen.width() / scale), int(screen.height() / scale))
      .expandedTo(kSmallestWindow);
}

// QT_SCALE_FACTOR s shows a screen of S device pixels as S/s logical pixels with text of the
// same logical size: the panel is laid out at S/s, and the view gets what the panel leaves it.
QSize viewSizeIn(DiagramPanel& panel, QWidget& window, QSize size) {
  window.setWindowState(Qt::WindowNoState);  // the offscreen screen is smaller than most here
  window.resize(size);
  window.show();
  QCoreApplication::processEvents();
  return panel.currentView()->size();
}

// Each distinct view size and text scale once (small screens at a large scale all come to the
// smallest window).
std::vector<Setting> settings() {
  std::vector<Setting> all;
  auto add = [&](const Setting& setting) {
    if (std::ranges::none_of(all, [&](const Setting& other) {
          return other.view == setting.view && other.fontScale == setting.fontScale;
        }))
      all.push_back(setting);
  };
  for (const QSize screen :
       {QSize(460, 400), QSize(1280, 720), QSize(1920, 1080), QSize(3840, 2160)})
    for (const double scale : {1.0, 1.5, 2.0}) {
      const QSize size = logical(screen, scale);
      const QString at =
          QStringLiteral("%1x%2@%3").arg(screen.width()).arg(screen.height()).arg(scale);
      {
        DiagramPanel panel;
        const QSize dock(kSmallestWindow.width(),
                         std::max(size.height() - kWindowChrome, kSmallestWindow.height()));
        add({QStringLiteral("docked ") + at, viewSizeIn(panel, panel, dock), 1.0});
        add({QStringLiteral("window ") + at, viewSizeIn(panel, panel, size), 1.0});
      }
      DiagramPanel panel;
      panel.setPresentationMode(true);
      const QSize view = viewSizeIn(panel, *panel.presentationWindow(), size);
      add({QStringLiteral("presentation ") + at, view, panel.document()->fontScale()});
    }
  return all;
}

// Every kernel that has a picture (each is a family of its own), with its default parameters.
std::vector<KernelConfig> oneKernelPerFamily() {
  std::vector<KernelConfig> configs;
  for (const KernelInfo& info : catalogue())
    if (info.hasMapping) configs.push_back({info.id, {}});
  return configs;
}

QRectF boundingBox(const std::vector<QRectF>& rects) {
  QRectF box;
  for (const QRectF& rect : rects) box = box.united(rect);
  return box;
}

QString describe(const QRectF& r) {
  return QStringLiteral("(%1,%2 %3x%4)")
      .arg(r.x(), 0, 'f', 1)
      .arg(r.y(), 0, 'f', 1)
      .arg(r.width(), 0, 'f', 1)
      .arg(r.height(), 0, 'f', 1);
}

// Overlap of more than rounding.
bool overlaps(const QRectF& a, const QRectF& b) {
  return a.adjusted(0.5, 0.5, -0.5, -0.5).intersects(b);
}

// Renders `view` at `size` and returns what is wrong with what it placed; empty when all is well.
QString layoutProblems(DiagramView& view, QSize size, double* figureShare) {
  QImage image(1, 1, QImage::Format_ARGB32_Premultiplied);  // the layout, not the pixels
  QPainter painter(&image);
  const QRectF area(QPointF(0, 0), QSizeF(size));
  view.render(painter, area, DiagramTheme::light(view.document()->fontScale()));
  painter.end();
  const LabelLayout& placed = view.lastLayout();
  const std::vector<PlacedLabel>& labels = placed.labels();
  const std::vector<QRectF>& figures = placed.figures();
  const QRectF inside = area.adjusted(-0.5, -0.5, 0.5, 0.5);
  // A view with nothing to draw for this kernel says why and what would fill it, in full.
  const std::optional<DiagramView::EmptyState> empty = view.emptyState();
  if (empty) {
    for (const QString& text : {empty->reason, empty->remedy})
      if (std::ranges::none_of(labels, [&](const PlacedLabel& l) { return l.text == text; }))
        return QStringLiteral("the empty state's '%1' is not shown whole").arg(text.left(40));
  } else if (figures.empty()) {
    return QStringLiteral("no figure");
  }
  if (labels.empty()) return QStringLiteral("no label");
  for (std::size_t a = 0; a < labels.size(); ++a) {
    if (!inside.contains(labels[a].rect))
      return QStringLiteral("'%1' %2 leaves the view")
          .arg(labels[a].text, describe(labels[a].rect));
    for (std::size_t b = a + 1; b < labels.size(); ++b)
      if (overlaps(labels[a].rect, labels[b].rect))
        return QStringLiteral("'%1' overlaps '%2'").arg(labels[a].text, labels[b].text);
    for (const QRectF& figure : figures)
      if (overlaps(labels[a].rect, figure))
        return QStringLiteral("'%1' %2 overlaps the figure %3")
            .arg(labels[a].text, describe(labels[a].rect), describe(figure));
  }
  // The figure stays in its own room, between the title and caption above and the legend below.
  const QRectF room = view.diagramArea(area, DiagramTheme::light(view.document()->fontScale()))
                          .adjusted(-0.5, -0.5, 0.5, 0.5);
  for (const QRectF& figure : figures)
    if (!room.contains(figure))
      return QStringLiteral("figure %1 leaves its room %2").arg(describe(figure), describe(room));
  // Text inside the figure's cells fits its cell whole (else it is left out), stays in the
  // figure's room, and keeps off the labels and the other cells' text.
  const std::vector<CellText>& cellTexts = placed.cellTexts();
  for (std::size_t a = 0; a < cellTexts.size(); ++a) {
    const CellText& text = cellTexts[a];
    if (!text.cell.adjusted(-0.5, -0.5, 0.5, 0.5).contains(text.rect))
      return QStringLiteral("'%1' %2 is larger than its cell %3")
          .arg(text.text, describe(text.rect), describe(text.cell));
    if (!room.contains(text.rect))
      return QStringLiteral("'%1' %2 leaves the figure's room %3")
          .arg(text.text, describe(text.rect), describe(room));
    for (const PlacedLabel& label : labels)
      if (overlaps(text.rect, label.rect))
        return QStringLiteral("'%1' in a cell overlaps '%2'").arg(text.text, label.text);
    for (std::size_t b = a + 1; b < cellTexts.size(); ++b)
      if (overlaps(text.rect, cellTexts[b].rect))
        return QStringLiteral("'%1' %2 in a cell overlaps '%3' %4")
            .arg(text.text, describe(text.rect), cellTexts[b].text, describe(cellTexts[b].rect));
  }
  if (empty) {
    *figureShare = 1;  // nothing to share: the words take the view
    return {};
  }
  const QRectF box = boundingBox(figures);
  *figureShare = std::max(box.width() / area.width(), box.height() / area.height());
  if (*figureShare < kMinFigureSpan)
    return QStringLiteral("the figure %1 spans only %2 of the view")
        .arg(describe(box))
        .arg(*figureShare, 0, 'f', 2);
  return {};
}

// Every kernel's loads of 16-byte vectors (float4s), with the access that makes them.
std::vector<std::pair<KernelConfig, Access>> vectorLoads() {
  std::vector<std::pair<KernelConfig, Access>> loads;
  for (const KernelConfig& config : oneKernelPerFamily()) {
    DiagramDocument document;
    document.setConfiguration(config, {1024, 1024, 1024});
    if (!document.mapping()) continue;
    for (const Access access : {Access::LoadA, Access::LoadB})
      if (accessPicture(*document.mapping(), {0, 0}, 0, access, 0, 0).width > 1)
        loads.emplace_back(config, access);
  }
  return loads;
}

const PlacedLabel* labelStarting(const DiagramView& view, const QString& prefix) {
  const auto& labels = view.lastLayout().labels();
  const auto found = std::ranges::find_if(
      labels, [&](const PlacedLabel& label) { return label.text.startsWith(prefix); });
  return found == labels.end() ? nullptr : &*found;
}

void renderAt(DiagramView& view, QSize size) {
  QImage image(1, 1, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  view.render(painter, QRectF(QPointF(0, 0), QSizeF(size)),
              DiagramTheme::light(view.document()->fontScale()));
}

// The presentation view's size and text scale on a 1280x720 projector at scale 1.
Setting projector() {
  DiagramPanel panel;
  panel.setPresentationMode(true);
  const QSize view = viewSizeIn(panel, *panel.presentationWindow(), {1280, 720});
  return {QStringLiteral("presentation 1280x720"), view, panel.document()->fontScale()};
}

}  // namespace

class TestDiagramLayout : public QObject {
  Q_OBJECT

 private slots:
  void everyViewFitsEverySizeAndScale();
  void kstepKeepsItsLabelsOnAProjector();
  void accessViewKeepsMemoryAndBanksOnAProjector();
  void blockAndKStepNameTheSameKRange();
  void theBlockViewNamesBothOperands();
  void digitsInCellsReadInEveryTheme();
  void vectorLoadsKeepRowsAndLaneNumbersDocked();
  void vectorLoadsKeepEveryLinePresenting();
  void kstepWordsWholeOnAProjector();
};

void TestDiagramLayout::everyViewFitsEverySizeAndScale() {
  QElapsedTimer timer;
  timer.start();
  const std::vector<Setting> all = settings();
  std::map<QString, double> smallestShare;
  int checked = 0;
  std::size_t cellTexts = 0;
  QStringList problems;
  for (const KernelConfig& config : oneKernelPerFamily()) {
    DiagramDocument document;
    // Edges that fall inside tiles, so that padding and a short last k-step are drawn too.
    document.setConfiguration(config, {250, 190, 150});
    QVERIFY2(document.mapping(), config.kernel.c_str());
    DiagramSelection last = document.selection();
    last.step = document.mapping()->kSteps() - 1;
    document.setSelection(last);
    for (const DiagramKind kind : kDiagramKinds) {
      const std::unique_ptr<DiagramView> view(makeDiagramView(kind, &document));
      for (const Setting& setting : all) {
        document.setFontScale(setting.fontScale);
        double share = 0;
        const QString problem = layoutProblems(*view, setting.view, &share);
        if (!problem.isEmpty())
          problems << QStringLiteral("%1 view of %2, %3 (%4x%5): %6")
                          .arg(diagramKindName(kind))
                          .arg(QString::fromStdString(config.kernel))
                          .arg(setting.name)
                          .arg(setting.view.width())
                          .arg(setting.view.height())
                          .arg(problem);
        cellTexts += view->lastLayout().cellTexts().size();
        auto [at, inserted] = smallestShare.emplace(diagramKindName(kind), share);
        if (!inserted) at->second = std::min(at->second, share);
        ++checked;
      }
    }
  }
  for (const auto& [kind, share] : smallestShare)
    qInfo("%s: the figure spans at least %.2f of the view", qPrintable(kind), share);
  qInfo("%d layouts checked in %lld ms, %zu texts in cells", checked, timer.elapsed(), cellTexts);
  QVERIFY(cellTexts > 0);
  for (const QString& problem : problems) qInfo("%s", qPrintable(problem));
  QVERIFY2(problems.isEmpty(),
           qPrintable(QStringLiteral("%1 of %2 layouts fail:\n").arg(problems.size()).arg(checked) +
                      problems.mid(0, 40).join(QLatin1Char('\n'))));
}

void TestDiagramLayout::kstepKeepsItsLabelsOnAProjector() {
  // Where the labels once piled up: "A rows .., K not to scale" over "shared As", "shared Bs"
  // over the step list, tiles shrunk to about 40 pixels.
  const Setting setting = projector();
  DiagramDocument document;
  document.setConfiguration({"shared-tiled", {{"tile", 8}}}, {64, 64, 512});
  document.setFontScale(setting.fontScale);
  const std::unique_ptr<DiagramView> view(makeDiagramView(DiagramKind::KStep, &document));
  renderAt(*view, setting.view);
  for (const QString& name :
       {QStringLiteral("A rows"), QStringLiteral("B columns"), QStringLiteral("shared As"),
        QStringLiteral("shared Bs"), QStringLiteral("partial sums")})
    QVERIFY2(labelStarting(*view, name), qPrintable(name));
  // The C tile is more than a speck.
  const QRectF area =
      view->diagramArea(QRectF(QPointF(0, 0), QSizeF(setting.view)), view->widgetTheme());
  const QRectF tile = static_cast<KStepView&>(*view).layout(area, view->widgetTheme()).tile;
  QVERIFY2(std::min(tile.width(), tile.height()) >= 120, qPrintable(describe(tile)));
}

void TestDiagramLayout::accessViewKeepsMemoryAndBanksOnAProjector() {
  // Where the memory rows and sectors once vanished and the bank row was clipped.
  const Setting setting = projector();
  DiagramDocument document;
  document.setConfiguration({"shared-tiled", {{"tile", 16}}}, {256, 256, 256});
  document.setFontScale(setting.fontScale);
  const std::unique_ptr<DiagramView> view(makeDiagramView(DiagramKind::Access, &document));
  renderAt(*view, setting.view);
  const auto& figures = view->lastLayout().figures();
  QCOMPARE(figures.size(), std::size_t(2));  // lanes over memory, and the banks
  const QRectF memory = figures[0], banks = figures[1];
  QVERIFY2(memory.height() >= 80, qPrintable(describe(memory)));
  QVERIFY2(banks.height() >= 20, qPrintable(describe(banks)));
  QVERIFY(QRectF(QPointF(0, 0), QSizeF(setting.view)).contains(banks));
}

void TestDiagramLayout::blockAndKStepNameTheSameKRange() {
  // K = 20 in steps of 7: the last step sums k = 14..19; its tile reaches on to 20 in padding.
  DiagramDocument document;
  document.setConfiguration({"shared-tiled", {{"tile", 7}}}, {21, 21, 20});
  QVERIFY(document.mapping());
  DiagramSelection s = document.selection();
  s.step = 2;
  document.setSelection(s);
  const Range values = kStepValues(*document.mapping(), 2);
  QCOMPARE(values.begin, std::int64_t(14));
  QCOMPARE(values.end(), std::int64_t(20));
  QCOMPARE(kStepText(*document.mapping(), 2), std::string("k-step 2 of 3"));
  const QString named = QStringLiteral("k-step 2 of 3 (k = 14..19)");
  for (const DiagramKind kind : {DiagramKind::KStep, DiagramKind::Block}) {
    const std::unique_ptr<DiagramView> view(makeDiagramView(kind, &document));
    renderAt(*view, {1200, 800});
    const auto& labels = view->lastLayout().labels();
    QVERIFY2(std::ranges::any_of(labels,
                                 [&](const PlacedLabel& label) {
                                   return label.text.contains(named, Qt::CaseInsensitive);
                                 }),
             qPrintable(diagramKindName(kind)));
  }
}

void TestDiagramLayout::theBlockViewNamesBothOperands() {
  // register-tiled's one-wide k-step left a strip too thin for its "B" (issue #35).
  const Setting present = projector();
  QStringList missing;
  for (const KernelConfig& config : oneKernelPerFamily()) {
    DiagramDocument document;
    document.setConfiguration(config, {256, 256, 256});
    if (!document.mapping()) continue;
    const std::unique_ptr<DiagramView> view(makeDiagramView(DiagramKind::Block, &document));
    for (const auto& [size, scale] :
         {std::pair{QSize(460, 420), 1.0}, std::pair{QSize(1200, 800), 1.0},
          std::pair{present.view, present.fontScale}}) {
      document.setFontScale(scale);
      renderAt(*view, size);
      for (const QString& operand : {QStringLiteral("A"), QStringLiteral("B")}) {
        const auto& labels = view->lastLayout().labels();
        if (std::ranges::none_of(labels,
                                 [&](const PlacedLabel& label) { return label.text == operand; }))
          missing << QStringLiteral("%1 at %2x%3: no %4")
                         .arg(QString::fromStdString(config.kernel))
                         .arg(size.width())
                         .arg(size.height())
                         .arg(operand);
      }
    }
  }
  QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
}

void TestDiagramLayout::digitsInCellsReadInEveryTheme() {
  // Lane and bank digits were white on pastel lanes in the dark and high-contrast themes (issue
  // #35). Drawn, each digit's most contrasting pixel must stand 3:1 from its cell's fill.
  const auto palette = [](const QColor& base, const QColor& text) {
    QPalette colours;
    colours.setColor(QPalette::Base, base);
    colours.setColor(QPalette::Text, text);
    return colours;
  };
  const std::pair<const char*, QPalette> themes[] = {
      {"light", palette(Qt::white, Qt::black)},
      {"dark", palette(QColor(0x2b, 0x2b, 0x2b), QColor(0xf0, 0xf0, 0xf0))},
      {"high contrast", palette(Qt::black, Qt::white)}};
  QStringList unreadable;
  int digits = 0;
  // Every view, of a scalar, a float4 and a tensor-core kernel and a staged one; in the
  // access view docked too (its lane strip then numbers every fourth lane across four cells).
  struct Drawn {
    KernelConfig config;
    DiagramKind kind;
    QSize size;
  };
  std::vector<Drawn> drawn;
  for (const KernelConfig& config :
       {KernelConfig{"shared-tiled", {{"tile", 16}}}, KernelConfig{"vectorized", {}},
        KernelConfig{"naive", {}}, KernelConfig{"warptile", {}}, KernelConfig{"tensor-mma", {}}})
    for (const DiagramKind kind : kDiagramKinds) drawn.push_back({config, kind, {1400, 900}});
  drawn.push_back({{"warptile", {}}, DiagramKind::Access, {280, 900}});
  for (const auto& [config, kind, size] : drawn) {
    DiagramDocument document;
    document.setConfiguration(config, {256, 256, 256});
    const std::unique_ptr<DiagramView> view(makeDiagramView(kind, &document));
    for (const auto& [name, colours] : themes) {
      const DiagramTheme theme = DiagramTheme::fromPalette(colours, 1.0);
      QImage image(size, QImage::Format_ARGB32);
      image.fill(theme.background);
      {
        QPainter painter(&image);
        view->render(painter, QRectF(image.rect()), theme);
      }
      for (const CellText& text : view->lastLayout().cellTexts()) {
        // The fill: the cell's most common colour; the ink: the text's pixel furthest from it.
        std::map<QRgb, int> counts;
        const QRect cell = text.cell.toAlignedRect().intersected(image.rect());
        for (int y = cell.top(); y <= cell.bottom(); ++y)
          for (int x = cell.left(); x <= cell.right(); ++x) ++counts[image.pixel(x, y)];
        if (counts.empty()) continue;
        const QColor fill(
            std::ranges::max_element(counts, {}, [](const auto& c) { return c.second; })->first);
        double best = 1;
        const QRect glyphs = text.rect.toAlignedRect().intersected(image.rect());
        for (int y = glyphs.top(); y <= glyphs.bottom(); ++y)
          for (int x = glyphs.left(); x <= glyphs.right(); ++x)
            best = std::max(best, contrastRatio(QColor(image.pixel(x, y)), fill));
        ++digits;
        if (best < 3.0)
          unreadable << QStringLiteral("%1 view of %2, %3: '%4' on %5 at %6:1")
                            .arg(diagramKindName(kind), QString::fromStdString(config.kernel),
                                 QLatin1String(name), text.text, fill.name())
                            .arg(best, 0, 'f', 1);
      }
    }
  }
  QVERIFY(digits > 100);
  QVERIFY2(unreadable.isEmpty(),
           qPrintable(QStringLiteral("%1 of %2 unreadable:\n").arg(unreadable.size()).arg(digits) +
                      unreadable.mid(0, 20).join(QLatin1Char('\n'))));
}

// What an access view drawn at `at` lacks: a name of at least `pixels` for every line of memory
// the picture touches, and a number of that size on every active lane.
QStringList lineAndLaneProblems(const DiagramView& view, const AccessPicture& picture,
                                const QString& at, double minPixels) {
  static const QRegularExpression rowName(
      QStringLiteral("^([AB]\\[\\d+\\]\\[\\d+\\]|past the end)$"));
  QStringList problems;
  int rows = 0;
  for (const PlacedLabel& label : view.lastLayout().labels()) {
    if (!rowName.match(label.text).hasMatch()) continue;
    ++rows;
    if (pixels(label.font) < minPixels)
      problems
          << QStringLiteral("%1: row '%2' is %3 px").arg(at, label.text).arg(pixels(label.font));
  }
  if (rows != int(picture.lines.size()))
    problems
        << QStringLiteral("%1: %2 of %3 lines named").arg(at).arg(rows).arg(picture.lines.size());
  std::set<QString> numbered;
  for (const CellText& text : view.lastLayout().cellTexts())
    if (pixels(text.font) >= minPixels) numbered.insert(text.text);
  for (const LaneAddress& lane : picture.lanes)
    if (lane.cell && !numbered.contains(QString::number(lane.lane)))
      problems << QStringLiteral("%1: lane %2 has no number").arg(at).arg(lane.lane);
  return problems;
}

void TestDiagramLayout::vectorLoadsKeepRowsAndLaneNumbersDocked() {
  // Docked at 1280x720 and 1920x1080, warptile's float4 rows were 6-10 pixel strips without
  // names or lane numbers (issue #35). Docked as the window docks it (a scrolling column at its
  // narrowest), the view takes the height it needs: every line touched keeps a row and its name,
  // every active lane its number, at a desk's 12 pixels.
  const std::vector<std::pair<KernelConfig, Access>> loads = vectorLoads();
  QVERIFY(loads.size() >= 5);
  QVERIFY(
      std::ranges::any_of(loads, [](const auto& load) { return load.first.kernel == "warptile"; }));
  QStringList problems;
  for (const int screenHeight : {720, 1080})
    for (const auto& [config, access] : loads) {
      QScrollArea dock;
      dock.setWidgetResizable(true);
      dock.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
      auto* panel = new DiagramPanel;
      dock.setWidget(panel);
      panel->setConfiguration(config, {1024, 1024, 1024});
      QVERIFY(panel->setCurrentView(QStringLiteral("access")));
      DiagramSelection selection = panel->document()->selection();
      selection.access = access;
      panel->document()->setSelection(selection);
      dock.resize(panel->minimumSizeHint().width(), screenHeight - kWindowChrome);
      dock.show();
      QCoreApplication::processEvents();
      DiagramView& view = *panel->currentView();
      renderAt(view, view.size());
      const QString at = QStringLiteral("%1 %2 docked at %3 (view %4x%5)")
                             .arg(QString::fromStdString(config.kernel))
                             .arg(QLatin1String(toString(access)))
                             .arg(screenHeight)
                             .arg(view.width())
                             .arg(view.height());
      const AccessPicture picture =
          accessPicture(*panel->document()->mapping(), {0, 0}, 0, access, 0, 0);
      problems << lineAndLaneProblems(view, picture, at, kDeskPixels);
    }
  QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 30).join(QLatin1Char('\n'))));
}

void TestDiagramLayout::vectorLoadsKeepEveryLinePresenting() {
  // Presented at 1280x720, warptile's access view drew 3 of its 8 lines and folded the rest into
  // "5 more lines touched": the controls and the bank strip took the height (issue #35). Docked
  // first, as the window shows it, then full screen at 1280x720 and 1920x1080: every float4 load
  // names every line it touches and numbers every active lane, at a lecture hall's 20 pixels,
  // with no text over other text or the figure. prefetched's A load touches 16 lines, more than
  // one column of 20-pixel rows holds at 720 pixels: it drew 11 and folded the rest into a note;
  // they come in two columns.
  const std::vector<std::pair<KernelConfig, Access>> loads = vectorLoads();
  QVERIFY(loads.size() >= 5);
  std::size_t mostLinesAt720 = 0;
  QStringList problems;
  for (const QSize screen : {QSize(1280, 720), QSize(1920, 1080)})
    for (const auto& [config, access] : loads) {
      QScrollArea dock;
      dock.setWidgetResizable(true);
      auto* panel = new DiagramPanel;
      dock.setWidget(panel);
      panel->setConfiguration(config, {1024, 1024, 1024});
      QVERIFY(panel->setCurrentView(QStringLiteral("access")));
      DiagramSelection selection = panel->document()->selection();
      selection.access = access;
      panel->document()->setSelection(selection);
      dock.resize(panel->minimumSizeHint().width(), screen.height() - kWindowChrome);
      dock.show();
      QCoreApplication::processEvents();
      panel->setPresentationMode(true);
      QWidget& window = *panel->presentationWindow();
      const QSize size = viewSizeIn(*panel, window, screen);
      DiagramView& view = *panel->currentView();
      double figureShare = 0;
      const QString problem = layoutProblems(view, size, &figureShare);
      const QString at = QStringLiteral("%1 %2 presented at %3x%4 (window %5x%6, view %7x%8)")
                             .arg(QString::fromStdString(config.kernel))
                             .arg(QLatin1String(toString(access)))
                             .arg(screen.width())
                             .arg(screen.height())
                             .arg(window.width())
                             .arg(window.height())
                             .arg(size.width())
                             .arg(size.height());
      if (window.size() != screen)
        problems << at + QStringLiteral(": the window is not the screen");
      if (!problem.isEmpty()) problems << at + QStringLiteral(": ") + problem;
      const AccessPicture picture =
          accessPicture(*panel->document()->mapping(), {0, 0}, 0, access, 0, 0);
      if (screen.height() == 720) mostLinesAt720 = std::max(mostLinesAt720, picture.lines.size());
      for (const PlacedLabel& label : view.lastLayout().labels())
        if (label.text.contains(QStringLiteral("more line")))
          problems << QStringLiteral("%1: '%2'").arg(at, label.text);
      // Up to 8 lines, the request's figures stay too.
      if (picture.lines.size() <= 8 && !labelStarting(view, AccessView::stats(picture)))
        problems << at + QStringLiteral(": no sectors and efficiency under the lines");
      problems << lineAndLaneProblems(view, picture, at, kHallPixels);
      panel->setPresentationMode(false);
    }
  QCOMPARE(mostLinesAt720, std::size_t(16));  // prefetched's A load was among them
  QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 30).join(QLatin1Char('\n'))));
}

void TestDiagramLayout::kstepWordsWholeOnAProjector() {
  // tensor-persistent's k-step words shrank to 9 pixels and stopped at "In every k-step:" when
  // presented on a 1280x720 projector (issue #35). They come whole, part by part where they are
  // long, every part at a lecture hall's 20 pixels.
  const Setting setting = projector();
  DiagramDocument document;
  document.setConfiguration({"tensor-persistent", {}}, {1024, 1024, 1024});
  QVERIFY(document.mapping());
  document.setFontScale(setting.fontScale);
  document.setPresenting(true);
  KStepView view(&document);
  const QString recipe = view.recipe();
  QVERIFY(recipe.size() > 500);
  QStringList parts;
  for (int turn = 0; turn < 12; ++turn) {
    renderAt(view, setting.view);
    const auto& labels = view.lastLayout().labels();
    const auto part = std::ranges::find_if(labels, [&](const PlacedLabel& label) {
      return label.text.size() > 40 && recipe.simplified().contains(label.text.simplified());
    });
    QVERIFY2(part != labels.end(), qPrintable(QStringLiteral("no words in turn %1").arg(turn)));
    QVERIFY2(pixels(part->font) >= kHallPixels,
             qPrintable(QStringLiteral("%1 px: %2").arg(pixels(part->font)).arg(part->text)));
    if (!parts.isEmpty() && parts.front() == part->text) break;  // back at the first part
    parts << part->text;
    view.nextRecipePart();
  }
  QCOMPARE(parts.join(QLatin1Char(' ')).simplified(), recipe.simplified());
  // The figure keeps most of the projector.
  const QRectF area =
      view.diagramArea(QRectF(QPointF(0, 0), QSizeF(setting.view)), view.widgetTheme());
  const QRectF tile = view.layout(area, view.widgetTheme()).tile;
  QVERIFY2(std::min(tile.width(), tile.height()) >= 100, qPrintable(describe(tile)));
}

QTEST_MAIN(TestDiagramLayout)
#include "tst_diagram_layout.moc"
