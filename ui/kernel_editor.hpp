// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Editor: the user's own CUDA kernel, written against TileScope's small API
// (user_kernel.hpp), highlighted, compiled with NVRTC off the window's thread (Ctrl+B), its
// errors and warnings marked at their lines, its registers and memory shown as for catalogue
// kernels. "New from..." starts from a catalogue kernel's template; kernels open and save as .cu.
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QWidget>
#include <optional>
#include <vector>

#include "kernel_compiler.hpp"
#include "tilescope/user_kernel.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace tilescope::ui {

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

  QWidget* gutter_;
  std::vector<CompileDiagnostic> diagnostics_;
  std::vector<SanitizerFinding> findings_;
  QString findingsSource_;  // the text the findings were made for
};

class KernelEditor : public QWidget {
  Q_OBJECT

 public:
  explicit KernelEditor(QWidget* parent = nullptr);

  CodeEditor* editor() const { return editor_; }
  QString kernelName() const;
  // The kernel as it stands: its name and the editor's source.
  UserKernelSource kernel() const;
  void setKernel(const QString& name, const QString& source);
  // The same for a kernel of no file (a blank one, an exercise's): Save asks for a name.
  void startKernel(const QString& name, const QString& source);
  // The template of catalogue kernel `kernel` (userKernelTemplates()); false when it has none.
  bool newFrom(const QString& kernel);
  bool openFile(const QString& path, QString* error);
  bool saveFile(const QString& path, QString* error);
  // Compiles on the compiler's thread; the result arrives as compiled().
  void compile();
  // Compiles, and asks the window to run the kernel as it stands (runRequested()), or to
  // autotune it over its TS_PARAM values (autotuneRequested()).
  void run();
  void autotune();
  // Compiles, and asks the window for a traced launch of the kernel (traceRequested()).
  void trace();
  const std::optional<CompileResult>& lastResult() const { return last_; }
  QListWidget* messages() const { return messages_; }
  QString summary() const;
  // Marks what the sanitizer found in `trace` where it traced the source the editor holds;
  // a clean trace clears earlier findings.
  void showSanitizer(const KernelTrace& trace);

 signals:
  void compiled(const tilescope::CompileResult& result);
  void runRequested(const tilescope::UserKernelSource& kernel);
  void autotuneRequested(const tilescope::UserKernelSource& kernel);
  void traceRequested(const tilescope::UserKernelSource& kernel);
  // setKernel() is about to put another kernel (a template, a file, a session's, an exercise's)
  // in place of the one the editor holds, still there.
  void replacingKernel();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void showResult(const UserKernelSource& kernel, const CompileResult& result);
  // The compiler's messages, then the sanitizer's, in the message list.
  void listMessages();
  void showFind();
  void openDialog();
  void saveDialog(bool askForName);

  desktop::KernelCompiler compiler_;
  CodeEditor* editor_;
  CudaHighlighter* highlighter_;
  QLineEdit* name_;
  QComboBox* arch_;
  QLineEdit* find_;
  QListWidget* messages_;
  QLabel* summary_;
  QString path_;
  std::optional<CompileResult> last_;
};

}  // namespace tilescope::ui
