// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_editor.hpp"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QSplitter>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "qt_files.hpp"

namespace tilescope::ui {
namespace {

bool isDark(const QPalette& palette) {
  return palette.color(QPalette::Base).lightness() < 128;
}

// Where a kernel of one's own starts: the launch, the kernel, and what p holds.
constexpr const char* kBlankKernel =
    R"cu(// My kernel: C = A B with A M x K, B K x N, C M x N (row-major floats in p).
TS_PARAM(TILE, 16, 8, 16, 32)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)

TS_KERNEL {
  const int i = blockIdx.y * TILE + threadIdx.y, j = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M || j >= p.N) return;
  float sum = 0.0f;
  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
  ts::storeC(p, i, j, sum);
}
)cu";

}  // namespace

KernelEditor::KernelEditor(QWidget* parent)
    : QWidget(parent),
      editor_(new CodeEditor(this)),
      highlighter_(new CudaHighlighter(editor_->document(), isDark(palette()))),
      name_(new QLineEdit(this)),
      arch_(new QComboBox(this)),
      type_(new QComboBox(this)),
      find_(new QLineEdit(this)),
      messages_(new QListWidget(this)),
      summary_(new QLabel(this)) {
  auto* bar = new QToolBar(this);
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  auto* newFromMenu = new QMenu(this);
  newFromMenu->addAction(tr("Blank kernel"), this, [this] {
    if (settleUnsaved(tr("starting a blank kernel")))
      startKernel(QStringLiteral("my_kernel"), QString::fromLatin1(kBlankKernel));
  });
  newFromMenu->addSeparator();
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    const QString kernel = QString::fromStdString(t.kernel);
    newFromMenu->addAction(kernel, this, [this, kernel] {
      if (settleUnsaved(tr("opening another kernel"))) newFrom(kernel);
    });
  }
  auto* newFromButton = new QToolButton(this);
  newFromButton->setText(tr("New from\u2026"));
  newFromButton->setToolTip(tr("Start from a catalogue kernel written against TileScope's API"));
  newFromButton->setMenu(newFromMenu);
  newFromButton->setPopupMode(QToolButton::InstantPopup);
  bar->addWidget(newFromButton);
  QAction* open = bar->addAction(tr("Open\u2026"), this, &KernelEditor::openDialog);
  open->setToolTip(tr("Open a kernel saved as a .cu file"));
  QAction* save = bar->addAction(tr("Save\u2026"), this, [this] { saveDialog(path_.isEmpty()); });
  save->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  save->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  save->setToolTip(tr("Save the kernel as a .cu file (Ctrl+Shift+S)"));
  QAction* build = bar->addAction(tr("Compile"), this, &KernelEditor::compile);
  build->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  build->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  build->setToolTip(tr("Compile with NVRTC for the chosen architecture (Ctrl+B); no GPU needed"));
  QAction* run = bar->addAction(tr("Run"), this, &KernelEditor::run);
  run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  run->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  run->setToolTip(
      tr("Run the kernel on Run Setup's backend (a CUDA GPU, a GPU server, or the CPU for "
         "SIMT kernels) with its size, measurement and sweep (Ctrl+Enter): timed, verified and "
         "charted like any kernel, in a process of its own"));
  QAction* traceAction = bar->addAction(tr("Trace"), this, &KernelEditor::trace);
  traceAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  traceAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  traceAction->setToolTip(
      tr("Launch the kernel once with its accessors recording, on Run Setup's backend and size "
         "(Ctrl+Shift+T): the diagrams then draw what it did, beside the catalogue kernel its "
         "first comment names. On the CPU, no GPU needed, the sanitizer checks it too: races, "
         "out-of-bounds indexing, divergent barriers and unwritten reads, marked at their "
         "lines"));
  run->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
  QAction* tune = bar->addAction(tr("Autotune"), this, &KernelEditor::autotune);
  tune->setToolTip(
      tr("Run every combination of the kernel's TS_PARAM values at Run Setup's size, "
         "fastest first in the Autotune chart"));
  // The name and architecture on a row of their own, so a narrow dock keeps every action in view.
  auto* identity = new QHBoxLayout;
  identity->setContentsMargins(6, 0, 6, 0);
  auto* nameLabel = new QLabel(tr("&Name"), this);
  nameLabel->setBuddy(name_);
  identity->addWidget(nameLabel);
  name_->setText(QStringLiteral("my_kernel"));
  name_->setToolTip(tr("The name its runs get in the results and charts (user:NAME)"));
  identity->addWidget(name_, 1);
  auto* archLabel = new QLabel(tr("&GPU"), this);
  archLabel->setBuddy(arch_);
  identity->addWidget(archLabel);
  // sm_90a is what a Hopper GPU runs (it has wgmma); sm_90 is the portable Hopper target.
  arch_->addItems({QStringLiteral("sm_90a"), QStringLiteral("sm_90"), QStringLiteral("sm_75"),
                   QStringLiteral("sm_80"), QStringLiteral("sm_89")});
  arch_->setToolTip(tr("The GPU architecture Compile checks for (a run compiles for its GPU)"));
  identity->addWidget(arch_);
  auto* typeLabel = new QLabel(tr("&Type"), this);
  typeLabel->setBuddy(type_);
  identity->addWidget(typeLabel);
  type_->setObjectName(QStringLiteral("type"));
  type_->setToolTip(
      tr("The element type of A and B Compile checks, one of those the source's TS_TYPES "
         "declares (a run multiplies Run Setup's type where the kernel takes it, else the "
         "first)"));
  identity->addWidget(type_);
  connect(editor_->document(), &QTextDocument::contentsChanged, this,
          &KernelEditor::listDeclaredTypes);

  find_->setPlaceholderText(tr("Find (Enter: next, Shift+Enter: previous, Esc: close)"));
  find_->setClearButtonEnabled(true);
  find_->hide();
  connect(find_, &QLineEdit::returnPressed, this, [this] {
    editor_->findText(find_->text(), QGuiApplication::keyboardModifiers() & Qt::ShiftModifier);
  });
  auto* findAction = new QAction(tr("Find"), this);
  findAction->setShortcut(QKeySequence::Find);
  findAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(findAction, &QAction::triggered, this, &KernelEditor::showFind);
  addAction(findAction);
  auto* closeFind = new QAction(this);
  closeFind->setShortcut(QKeySequence(Qt::Key_Escape));
  closeFind->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(closeFind, &QAction::triggered, this, [this] {
    find_->hide();
    editor_->setFocus();
  });
  find_->addAction(closeFind);

  // Typed in the editor, these keys are the editor's: the toolbar's shortcuts reach only the
  // toolbar, and the window's (Ctrl+Shift+S: Save Session As, Ctrl+0: Fit Charts) would win.
  auto* zoomIn = new QAction(tr("Larger Text"), this);
  zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
  connect(zoomIn, &QAction::triggered, this, [this] { editor_->zoom(1); });
  auto* zoomOut = new QAction(tr("Smaller Text"), this);
  zoomOut->setShortcuts({QKeySequence::ZoomOut});
  connect(zoomOut, &QAction::triggered, this, [this] { editor_->zoom(-1); });
  auto* zoomReset = new QAction(tr("Text Size Reset"), this);
  zoomReset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(zoomReset, &QAction::triggered, editor_, &CodeEditor::resetZoom);
  keyActions_ = {build, run, save, traceAction, findAction, zoomIn, zoomOut, zoomReset};
  editor_->installEventFilter(this);
  editor_->setToolTip(
      tr("Ctrl+B compile, Ctrl+Enter run, Ctrl+Shift+T trace, Ctrl+Shift+S save, "
         "Ctrl+F find; Ctrl++ and Ctrl+- zoom the text, Ctrl+0 resets it"));

  messages_->setToolTip(
      tr("The compiler's messages and what the sanitizer found in a trace on the CPU: activate "
         "one to go to its line"));
  connect(editor_, &CodeEditor::findingsChanged, this, &KernelEditor::listMessages);
  connect(messages_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    editor_->goToLine(item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt());
  });
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(editor_);
  splitter->addWidget(messages_);
  splitter->setStretchFactor(0, 4);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(bar);
  layout->addLayout(identity);
  layout->addWidget(find_);
  layout->addWidget(splitter, 1);
  layout->addWidget(summary_);

  connect(&compiler_, &desktop::KernelCompiler::started, this,
          [this] { summary_->setText(tr("Compiling\u2026")); });
  connect(&compiler_, &desktop::KernelCompiler::compiled, this, &KernelEditor::showResult);
  if (const auto why = userKernelCompilerUnavailable())
    summary_->setText(QString::fromStdString(*why));
  newFrom(QStringLiteral("naive"));
}

void KernelEditor::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // The theme changed: colours that read on the new background.
  if (event->type() == QEvent::PaletteChange) {
    delete highlighter_;
    highlighter_ = new CudaHighlighter(editor_->document(), isDark(palette()));
  }
}

QString KernelEditor::kernelName() const {
  const QString name = name_->text().trimmed();
  return name.isEmpty() ? QStringLiteral("my_kernel") : name;
}

UserKernelSource KernelEditor::kernel() const {
  return {kernelName().toStdString(), editor_->toPlainText().toStdString()};
}

void KernelEditor::setKernel(const QString& name, const QString& source) {
  emit replacingKernel();
  name_->setText(name);
  editor_->setPlainText(source);
  editor_->setDiagnostics({});
  messages_->clear();
  messages_->hide();  // shown only with something to say: the code keeps the room (a projector)
  last_.reset();
}

void KernelEditor::startKernel(const QString& name, const QString& source) {
  path_.clear();
  setKernel(name, source);
}

bool KernelEditor::newFrom(const QString& kernel) {
  const UserKernelTemplate* from = userKernelTemplate(kernel.toStdString());
  if (!from) return false;
  startKernel(QStringLiteral("my_") + QString(kernel).replace(QLatin1Char('-'), QLatin1Char('_')),
              QString::fromStdString(from->source));
  return true;
}

void KernelEditor::run() {
  compile();  // marks any error here while the run's own compile reports it too
  emit runRequested(kernel());
}

void KernelEditor::autotune() {
  compile();
  emit autotuneRequested(kernel());
}

void KernelEditor::trace() {
  compile();
  emit traceRequested(kernel());
}

bool KernelEditor::openFile(const QString& path, QString* error) {
  QByteArray bytes;
  if (!desktop::readWholeFile(path, kMaxUserSourceBytes, &bytes, error)) return false;
  path_ = path;
  setKernel(QFileInfo(path).completeBaseName(), QString::fromUtf8(bytes));
  return true;
}

bool KernelEditor::saveFile(const QString& path, QString* error) {
  if (!desktop::writeFileAtomically(path, editor_->toPlainText().toUtf8(), error)) return false;
  path_ = path;
  editor_->document()->setModified(false);
  return true;
}

void KernelEditor::openDialog() {
  if (!settleUnsaved(tr("opening another kernel"))) return;
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Kernel"), path_,
                                                    tr("CUDA sources (*.cu);;All files (*)"));
  QString error;
  if (!path.isEmpty() && !openFile(path, &error)) summary_->setText(error);
}

bool KernelEditor::saveDialog(bool askForName) {
  QString path = path_;
  if (askForName || path.isEmpty()) {
    const QString suggested = kernelName() + QStringLiteral(".cu");
    path = savePathPrompt_ ? savePathPrompt_(suggested)
                           : QFileDialog::getSaveFileName(this, tr("Save Kernel"), suggested,
                                                          tr("CUDA sources (*.cu)"));
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".cu");
  }
  QString error;
  const bool saved = saveFile(path, &error);
  summary_->setText(saved ? tr("Saved %1").arg(path) : error);
  return saved;
}

bool KernelEditor::modified() const {
  return editor_->document()->isModified();
}

bool KernelEditor::settleUnsaved(const QString& what) {
  if (!modified()) return true;
  const QString question = tr("The kernel %1 has changes that are not saved. Save them before %2?")
                               .arg(kernelName(), what);
  UnsavedAnswer answer = UnsavedAnswer::Cancel;
  if (unsavedPrompt_) {
    answer = unsavedPrompt_(question);
  } else {
    const auto button = QMessageBox::question(
        this, tr("Unsaved kernel"), question,
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    answer = button == QMessageBox::Save      ? UnsavedAnswer::Save
             : button == QMessageBox::Discard ? UnsavedAnswer::Discard
                                              : UnsavedAnswer::Cancel;
  }
  switch (answer) {
    case UnsavedAnswer::Save:
      return saveDialog(path_.isEmpty());
    case UnsavedAnswer::Discard:
      editor_->document()->setModified(false);
      return true;
    case UnsavedAnswer::Cancel:
      break;
  }
  return false;
}

QAction* KernelEditor::actionFor(const QKeyEvent& key) const {
  const Qt::KeyboardModifiers modifiers = key.modifiers() & ~Qt::KeypadModifier;
  const QKeySequence typed(QKeyCombination(modifiers, Qt::Key(key.key())));
  // Ctrl++ is typed with Shift on most keyboards.
  const QKeySequence unshifted(QKeyCombination(modifiers & ~Qt::ShiftModifier, Qt::Key(key.key())));
  for (QAction* action : keyActions_) {
    for (const QKeySequence& shortcut : action->shortcuts()) {
      if (shortcut == typed || (key.key() == Qt::Key_Plus && shortcut == unshifted)) return action;
    }
  }
  return nullptr;
}

bool KernelEditor::eventFilter(QObject* watched, QEvent* event) {
  if (watched == editor_ &&
      (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress)) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (QAction* action = actionFor(*key)) {
      // Accepting the override keeps the window's shortcut from taking the key; the key press
      // that follows triggers the editor's action.
      event->accept();
      if (event->type() == QEvent::KeyPress) action->trigger();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void KernelEditor::showFind() {
  find_->show();
  find_->selectAll();
  find_->setFocus();
}

void KernelEditor::listDeclaredTypes() {
  const std::vector<ElementType> types = declaredTypes(editor_->toPlainText().toStdString());
  std::vector<ElementType> listed;
  for (int i = 0; i < type_->count(); ++i)
    listed.push_back(ElementType(type_->itemData(i).toInt()));
  if (listed == types) return;  // most edits leave TS_TYPES alone
  const QVariant chosen = type_->currentData();
  type_->clear();
  for (const ElementType type : types) {
    type_->addItem(QLatin1String(toString(type)), int(type));
    // FP8's B lies K-major on the GPU: a kernel that indexes B itself must know.
    type_->setItemData(type_->count() - 1,
                       storesBKMajor(type)
                           ? tr("%1: 1 byte per element; B is stored K-major, N rows of K values "
                                "(TS_B_K_MAJOR)")
                                 .arg(QLatin1String(toString(type)))
                           : tr("%1: %2 bytes per element")
                                 .arg(QLatin1String(toString(type)))
                                 .arg(storageBytes(type)),
                       Qt::ToolTipRole);
  }
  // The type chosen where the source still declares it, else its first (its default).
  type_->setCurrentIndex(std::max(type_->findData(chosen), 0));
}

void KernelEditor::compile() {
  const std::string source = editor_->toPlainText().toStdString();
  compiler_.compile(
      {kernelName().toStdString(), source},
      {arch_->currentText().toStdString(), {}, ElementType(type_->currentData().toInt())});
}

void KernelEditor::showResult(const UserKernelSource&, const CompileResult& result) {
  last_ = result;
  editor_->setDiagnostics(result.diagnostics);
  listMessages();
  summary_->setText(summary());
  emit compiled(result);
}

void KernelEditor::listMessages() {
  messages_->clear();
  const auto add = [this](const QString& text, const QColor& color, int line, int column) {
    auto* item = new QListWidgetItem(text, messages_);
    item->setForeground(color);
    item->setData(Qt::UserRole, line);
    item->setData(Qt::UserRole + 1, column);
  };
  for (const CompileDiagnostic& d : editor_->diagnostics()) {
    const QString where = d.line > 0 ? tr("line %1").arg(d.line) : tr("program");
    add(QStringLiteral("%1 %2: %3")
            .arg(d.error ? tr("error") : tr("warning"), where, QString::fromStdString(d.message)),
        d.error ? kErrorMark : kWarningMark, d.line, d.column);
  }
  // The finding's message starts with its line, block and thread.
  for (const SanitizerFinding& f : editor_->findings())
    add(tr("sanitizer %1").arg(QString::fromStdString(f.message)), kErrorMark, f.line, 0);
  messages_->setVisible(messages_->count() > 0);
}

void KernelEditor::showSanitizer(const KernelTrace& trace) {
  if (trace.sanitizer.clean()) {
    if (!editor_->findings().empty()) editor_->setFindings({});
    return;
  }
  // A trace of another source (the editor changed since, or a file of another kernel) leaves
  // the editor's marks as they are.
  if (trace.kernel.source.value_or("") != editor_->toPlainText().toStdString()) return;
  editor_->setFindings(trace.sanitizer.findings);
  editor_->goToLine(trace.sanitizer.findings.front().line);
}

QString KernelEditor::summary() const {
  if (!last_) return {};
  const CompileResult& r = *last_;
  const auto count = [&](bool error) {
    return int(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                             [&](const CompileDiagnostic& d) { return d.error == error; }));
  };
  if (!r.ok)
    return tr("Not compiled: %1 error(s), %2 warning(s)").arg(count(true)).arg(count(false));
  QStringList values;
  for (const auto& [name, value] : r.values)
    values << QStringLiteral("%1=%2").arg(QString::fromStdString(name)).arg(value);
  const QString compiled =
      tr("Compiled for %1%2")
          .arg(QString::fromStdString(r.arch),
               values.isEmpty()
                   ? QString()
                   : QStringLiteral(" (") + values.join(QLatin1Char(',')) + QLatin1Char(')'));
  const QString warnings = count(false) > 0 ? tr("; %1 warning(s)").arg(count(false)) : QString();
  if (!r.resources) return compiled + warnings;
  const KernelResources& k = *r.resources;
  // Occupancy where TS_LAUNCH's block needs no size: theoretical, for the chosen architecture.
  const QString occupancy =
      k.threadsPerBlock == 0 ? QString()
      : k.blocksPerSM == 0
          ? tr("; a block of %1 threads does not fit on an SM").arg(k.threadsPerBlock)
          : tr("; blocks of %1 threads: %2 per SM, %3 % occupancy (theoretical)")
                .arg(k.threadsPerBlock)
                .arg(k.blocksPerSM)
                .arg(100 * k.occupancy, 0, 'f', 0);
  return compiled +
         tr(": %1 registers per thread, %2 bytes of shared memory per block, %3 bytes of local "
            "memory per thread")
             .arg(k.registersPerThread)
             .arg(k.sharedBytesPerBlock)
             .arg(k.localBytesPerThread) +
         occupancy + warnings;
}

}  // namespace tilescope::ui
