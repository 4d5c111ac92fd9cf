// SPDX-License-Identifier: GPL-3.0-or-later
#include "code_editor.hpp"

#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "settings.hpp"

namespace tilescope::ui {
namespace {

constexpr int kKindProperty = QTextFormat::UserProperty;

QTextCharFormat formatOf(const char* kind, const QColor& color, bool dark, bool bold = false,
                         bool italic = false) {
  QTextCharFormat format;
  format.setForeground(dark ? color.lighter(190) : color);
  if (bold) format.setFontWeight(QFont::Bold);
  format.setFontItalic(italic);
  format.setProperty(kKindProperty, QString::fromLatin1(kind));
  return format;
}

QRegularExpression words(const char* const* list, std::size_t count) {
  QStringList alternatives;
  for (std::size_t i = 0; i < count; ++i) alternatives << QString::fromLatin1(list[i]);
  return QRegularExpression(QStringLiteral("\\b(%1)\\b").arg(alternatives.join(QLatin1Char('|'))));
}

// The editor's font: each zoom step 15 % larger or smaller, from a footnote to a lecture hall.
constexpr double kZoomStep = 1.15, kSmallestPoints = 6, kLargestPoints = 72;
const char* const kFontSetting = "kernel_editor_font_pt";

}  // namespace

// --- highlighting ------------------------------------------------------------------------------

CudaHighlighter::CudaHighlighter(QTextDocument* document, bool dark)
    : QSyntaxHighlighter(document) {
  static const char* const keywords[] = {
      "if",       "else",   "for",      "while",    "do",        "return",    "break",
      "continue", "switch", "case",     "default",  "const",     "constexpr", "static",
      "struct",   "class",  "template", "typename", "namespace", "using",     "auto",
      "inline",   "extern", "sizeof",   "true",     "false",     "nullptr"};
  static const char* const types[] = {"void",  "int",    "unsigned", "long",   "short",  "char",
                                      "float", "double", "bool",     "size_t", "float4", "float2",
                                      "int4",  "dim3",   "half",     "__half"};
  static const char* const qualifiers[] = {"__global__",      "__device__",    "__host__",
                                           "__shared__",      "__constant__",  "__restrict__",
                                           "__forceinline__", "__syncthreads", "__syncwarp"};
  static const char* const builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim",
                                         "warpSize"};
  static const char* const api[] = {"TS_KERNEL",      "TS_KERNEL_BOUNDED",
                                    "TS_LAUNCH",      "TS_PARAM",
                                    "TS_TYPES",       "TS_KSTEP",
                                    "TS_TENSOR_MAPS", "TS_CLUSTER",
                                    "TS_PERSISTENT",  "ts",
                                    "Problem",        "loadA",
                                    "loadB",          "storeC",
                                    "ceilDiv"};
  rules_ = {
      {words(keywords, std::size(keywords)), formatOf("keyword", QColor(0, 90, 170), dark, true)},
      {words(types, std::size(types)), formatOf("type", QColor(0, 130, 110), dark)},
      {words(qualifiers, std::size(qualifiers)),
       formatOf("qualifier", QColor(150, 60, 170), dark, true)},
      {words(builtins, std::size(builtins)), formatOf("builtin", QColor(170, 90, 0), dark)},
      {words(api, std::size(api)), formatOf("api", QColor(180, 40, 90), dark, true)},
      {QRegularExpression(QStringLiteral("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?[fFuUlL]*\\b")),
       formatOf("number", QColor(120, 80, 0), dark)},
      // Possessive: linear in the line's length, where backtracking ran out of matcher stack on
      // a long literal and left it plain.
      {QRegularExpression(QStringLiteral("\"(?:[^\"\\\\]++|\\\\.)*+\"")),
       formatOf("string", QColor(30, 130, 40), dark)},
      {QRegularExpression(QStringLiteral("^\\s*#.*$")),
       formatOf("preprocessor", QColor(110, 110, 110), dark)},
      {QRegularExpression(QStringLiteral("//.*$")),
       formatOf("comment", QColor(120, 120, 120), dark, false, true)},
  };
  comment_ = formatOf("comment", QColor(120, 120, 120), dark, false, true);
}

void CudaHighlighter::highlightBlock(const QString& text) {
  for (const Rule& rule : rules_) {
    for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
      const QRegularExpressionMatch match = it.next();
      setFormat(int(match.capturedStart()), int(match.capturedLength()), rule.format);
    }
  }
  // /* ... */ comments may span lines: the block state says whether one is open.
  static const QRegularExpression open(QStringLiteral("/\\*")), close(QStringLiteral("\\*/"));
  setCurrentBlockState(0);
  qsizetype start = previousBlockState() == 1 ? 0 : text.indexOf(open);
  while (start >= 0) {
    const QRegularExpressionMatch end = close.match(text, start);
    const qsizetype length = end.hasMatch() ? end.capturedEnd() - start : text.size() - start;
    if (!end.hasMatch()) setCurrentBlockState(1);
    setFormat(int(start), int(length), comment_);
    start = end.hasMatch() ? text.indexOf(open, start + length) : -1;
  }
}

QString CudaHighlighter::kindAt(const QTextBlock& block, int position) {
  for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
    if (position >= range.start && position < range.start + range.length)
      return range.format.property(kKindProperty).toString();
  }
  return {};
}

// --- the code editor ---------------------------------------------------------------------------

class Gutter : public QWidget {
 public:
  explicit Gutter(CodeEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return {editor_->gutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { editor_->paintGutter(event); }

 private:
  CodeEditor* editor_;
};

CodeEditor::CodeEditor(QWidget* parent) : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
  setLineWrapMode(QPlainTextEdit::NoWrap);
  applyFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  if (const nlohmann::json points = desktop::rememberedSetting(kFontSetting); points.is_number())
    setFontPoints(points.get<double>());
  connect(this, &QPlainTextEdit::blockCountChanged, this, &CodeEditor::updateGutterWidth);
  connect(this, &QPlainTextEdit::updateRequest, this, &CodeEditor::updateGutter);
  // The sanitizer's findings describe the source that was traced: an edit makes them stale.
  connect(this, &QPlainTextEdit::textChanged, this, [this] {
    if (!findings_.empty() && toPlainText() != findingsSource_) setFindings({});
  });
  updateGutterWidth();
}

void CodeEditor::applyFont(const QFont& font) {
  setFont(font);
  setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 2);
  updateGutterWidth();
}

double CodeEditor::fontPoints() const {
  return font().pointSizeF();
}

void CodeEditor::setFontPoints(double points) {
  QFont zoomed = font();
  zoomed.setPointSizeF(std::clamp(points, kSmallestPoints, kLargestPoints));
  applyFont(zoomed);
}

void CodeEditor::zoom(int steps) {
  setFontPoints(fontPoints() * std::pow(kZoomStep, steps));
  desktop::rememberSetting(kFontSetting, fontPoints());
}

void CodeEditor::resetZoom() {
  applyFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  desktop::rememberSetting(kFontSetting, nullptr);
}

int CodeEditor::gutterWidth() const {
  int digits = 1;
  for (int lines = std::max(1, blockCount()); lines >= 10; lines /= 10) ++digits;
  // The digits, a marker dot and some room.
  return fontMetrics().horizontalAdvance(QLatin1Char('9')) * (digits + 1) + fontMetrics().height();
}

void CodeEditor::updateGutterWidth() {
  setViewportMargins(gutterWidth(), 0, 0, 0);
}

void CodeEditor::updateGutter(const QRect& rect, int dy) {
  if (dy)
    gutter_->scroll(0, dy);
  else
    gutter_->update(0, rect.y(), gutter_->width(), rect.height());
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  // A finding the cursor was taken to stays in the middle as the editor finds its size.
  const int line = textCursor().blockNumber() + 1;
  if (std::any_of(findings_.begin(), findings_.end(),
                  [&](const SanitizerFinding& f) { return f.line == line; }))
    centerCursor();
  const QRect area = contentsRect();
  gutter_->setGeometry(QRect(area.left(), area.top(), gutterWidth(), area.height()));
}

void CodeEditor::paintGutter(QPaintEvent* event) {
  QPainter painter(gutter_);
  painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  const int lineHeight = fontMetrics().height();
  while (block.isValid() && top <= event->rect().bottom()) {
    const int line = block.blockNumber() + 1;
    if (block.isVisible()) {
      painter.setPen(palette().color(QPalette::PlaceholderText));
      painter.drawText(0, top, gutter_->width() - lineHeight / 2, lineHeight, Qt::AlignRight,
                       QString::number(line));
      // The worst message of the line: an error (or the sanitizer's finding) over a warning.
      std::optional<bool> marked;
      for (const CompileDiagnostic& d : diagnostics_)
        if (d.line == line) marked = marked.value_or(false) || d.error;
      for (const SanitizerFinding& f : findings_)
        if (f.line == line) marked = true;
      if (marked) {
        painter.setBrush(*marked ? kErrorMark : kWarningMark);
        painter.setPen(Qt::NoPen);
        const int size = lineHeight / 2;
        painter.drawEllipse(lineHeight / 4, top + (lineHeight - size) / 2, size, size);
      }
    }
    block = block.next();
    top += qRound(blockBoundingRect(block).height());
  }
}

void CodeEditor::setDiagnostics(const std::vector<CompileDiagnostic>& diagnostics) {
  diagnostics_ = diagnostics;
  updateMarks();
}

void CodeEditor::setFindings(const std::vector<SanitizerFinding>& findings) {
  findings_ = findings;
  findingsSource_ = findings_.empty() ? QString() : toPlainText();
  updateMarks();
  emit findingsChanged();
}

void CodeEditor::updateMarks() {
  QList<QTextEdit::ExtraSelection> marks;
  const auto mark = [&](int line, int column, const QColor& color, const QString& message) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (line <= 0 || !block.isValid()) return;
    QTextEdit::ExtraSelection selection;
    selection.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    selection.format.setUnderlineColor(color);
    selection.format.setToolTip(message);
    selection.cursor = QTextCursor(block);
    selection.cursor.setPosition(block.position() + std::clamp(column - 1, 0, block.length() - 1));
    selection.cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    marks << selection;
  };
  for (const CompileDiagnostic& d : diagnostics_)
    mark(d.line, d.column, d.error ? kErrorMark : kWarningMark, QString::fromStdString(d.message));
  for (const SanitizerFinding& f : findings_) {
    // From the line's first word: the sanitizer knows the line, not the column.
    const QString text = document()->findBlockByNumber(f.line - 1).text();
    int indent = 0;
    while (indent < text.size() && text[indent].isSpace()) ++indent;
    mark(f.line, indent + 1, kErrorMark, QString::fromStdString(f.message));
  }
  setExtraSelections(marks);
  gutter_->update();
}

bool CodeEditor::event(QEvent* event) {
  // A marked line's messages show when the pointer rests on it.
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const int line = cursorForPosition(viewport()->mapFrom(this, help->pos())).blockNumber() + 1;
    QStringList texts;
    for (const CompileDiagnostic& d : diagnostics_)
      if (d.line == line)
        texts << (d.error ? tr("error: %1") : tr("warning: %1"))
                     .arg(QString::fromStdString(d.message));
    for (const SanitizerFinding& f : findings_)
      if (f.line == line) texts << tr("sanitizer: %1").arg(QString::fromStdString(f.message));
    if (texts.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), texts.join(QLatin1Char('\n')), this);
    return true;
  }
  return QPlainTextEdit::event(event);
}

void CodeEditor::goToLine(int line, int column) {
  const QTextBlock block = document()->findBlockByNumber(std::max(line, 1) - 1);
  if (!block.isValid()) return;
  QTextCursor cursor(block);
  cursor.setPosition(block.position() + std::clamp(column - 1, 0, block.length() - 1));
  setTextCursor(cursor);
  centerCursor();
  setFocus();
}

bool CodeEditor::findText(const QString& text, bool backward) {
  if (text.isEmpty()) return false;
  const QTextDocument::FindFlags flags =
      backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
  if (find(text, flags)) return true;
  // Wrap around once.
  const QTextCursor start = textCursor();
  QTextCursor from(document());
  if (backward) from.movePosition(QTextCursor::End);
  setTextCursor(from);
  if (find(text, flags)) return true;
  setTextCursor(start);
  return false;
}

}  // namespace tilescope::ui
