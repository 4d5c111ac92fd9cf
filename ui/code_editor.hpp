// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Editor's code view: CUDA C++ highlighted, a line-number gutter marking the lines the
// compiler and the sanitizer spoke about, find, and a text size that zooms for a projector.
#include <QColor>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <vector>

#include "kernel_compiler.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::ui {

// The colours of an error and a warning, in the gutter, the underline and the message list.
inline const QColor kErrorMark(200, 40, 40), kWarningMark(210, 140, 0);

// CUDA C++ with TileScope's API: keywords, types, qualifiers, built-ins, the ts:: names,
// numbers, strings, comments and preprocessor lines each in their own colour.
class CudaHighlighter : public QSyntaxHighlighter {
 public:
  // `dark`: colours for a dark background.
  CudaHighlighter(QTextDocument* document, bool dark);
  // The format a character of `line` would get (for tests), read from the current highlighting.
  static QString kindAt(const QTextBlock& block, int position);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> rules_;
  QTextCharFormat comment_;
};

// A code editor with a line-number gutter that marks the lines the compiler spoke about.
class CodeEditor : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit CodeEditor(QWidget* parent = nullptr);
  int gutterWidth() const;
  // Marks each diagnostic's line: a wavy underline from its column and a dot in the gutter,
  // red for errors, amber for warnings; the tooltip of a marked line is its message.
  void setDiagnostics(const std::vector<CompileDiagnostic>& diagnostics);
  const std::vector<CompileDiagnostic>& diagnostics() const { return diagnostics_; }
  // Marks each finding of the sanitizer (a trace on the CPU) at its line as an error is
  // marked, its tooltip "sanitizer: ..."; they last until the source is edited, as they
  // describe the source that was traced. Empty clears them.
  void setFindings(const std::vector<SanitizerFinding>& findings);
  const std::vector<SanitizerFinding>& findings() const { return findings_; }
  void goToLine(int line, int column = 0);
  // The font size in points: `steps` up or down (Ctrl++ / Ctrl+-), or back to the system's fixed
  // font (Ctrl+0); the gutter and the tab stops follow.
  void zoom(int steps);
  void resetZoom();
  double fontPoints() const;
  void setFontPoints(double points);
  // Finds `text` from the cursor on, wrapping around; false when it is nowhere.
  bool findText(const QString& text, bool backward = false);

 signals:
  // The sanitizer's marks changed: set, or cleared by an edit.
  void findingsChanged();

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

 private:
  friend class Gutter;
  void paintGutter(QPaintEvent* event);
  void updateGutterWidth();
  void updateGutter(const QRect& rect, int dy);
  void updateMarks();
  void applyFont(const QFont& font);

  QWidget* gutter_;
  std::vector<CompileDiagnostic> diagnostics_;
  std::vector<SanitizerFinding> findings_;
  QString findingsSource_;  // the text the findings were made for
};

}  // namespace tilescope::ui
