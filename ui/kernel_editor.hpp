// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Editor: the user's own CUDA kernel, written against TileScope's small API
// (user_kernel.hpp), highlighted, compiled with NVRTC off the window's thread (Ctrl+B), its
// errors and warnings marked at their lines, its registers and memory shown as for catalogue
// kernels. "New from..." starts from a catalogue kernel's template; kernels open and save as .cu.
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "code_editor.hpp"
#include "kernel_compiler.hpp"
#include "tilescope/user_kernel.hpp"

class QAction;
class QComboBox;
class QKeyEvent;
class QLabel;
class QLineEdit;
class QListWidget;

namespace tilescope::ui {

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
  // Stops a compile in progress: its result says it was cancelled.
  void cancelCompile() { compiler_.cancel(); }
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
  // Whether the source was edited since it was opened, saved or started from a template.
  bool modified() const;
  // Before the edited kernel is replaced or the window closes: asks Save, Discard or Cancel
  // (through the prompt) when it is unsaved; true when it may go (saved, discarded, or nothing
  // to lose). `what`: "closing TileScope", "opening another kernel".
  bool settleUnsaved(const QString& what);
  enum class UnsavedAnswer { Save, Discard, Cancel };
  using UnsavedPrompt = std::function<UnsavedAnswer(const QString& question)>;
  // Replaces the message box (tests).
  void setUnsavedPrompt(UnsavedPrompt prompt) { unsavedPrompt_ = std::move(prompt); }
  // Replaces the save dialog (tests): the path to save to, empty to cancel.
  void setSavePathPrompt(std::function<QString(const QString& suggested)> prompt) {
    savePathPrompt_ = std::move(prompt);
  }

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
  // The editor's shortcuts while typing: its keys win over the window's (Ctrl+Shift+S saves the
  // kernel, not the session), and the font zooms.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // The editor's action for a key typed in it, or nullptr.
  QAction* actionFor(const QKeyEvent& key) const;
  void showResult(const UserKernelSource& kernel, const CompileResult& result);
  // The compiler's messages, then the sanitizer's, in the message list.
  void listMessages();
  void showFind();
  // The type picker lists the types the source's TS_TYPES declares, keeping the one chosen.
  void listDeclaredTypes();
  void openDialog();
  // False when nothing was saved (the dialog cancelled, or an error, shown in the summary).
  bool saveDialog(bool askForName);

  desktop::KernelCompiler compiler_;
  CodeEditor* editor_;
  CudaHighlighter* highlighter_;
  QLineEdit* name_;
  QComboBox* arch_;
  QComboBox* type_;
  QLineEdit* find_;
  QListWidget* messages_;
  QLabel* summary_;
  QString path_;
  std::optional<CompileResult> last_;
  std::vector<QAction*> keyActions_;  // what the editor's keys trigger while typing
  UnsavedPrompt unsavedPrompt_;
  std::function<QString(const QString&)> savePathPrompt_;
};

}  // namespace tilescope::ui
