// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_editor.hpp"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QRegularExpression>
#include <QSplitter>
#include <QTextBlock>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "qt_files.hpp"

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

const QColor kError(200, 40, 40), kWarning(210, 140, 0);

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
      {QRegularExpression(QStringLiteral("\"([^\"\\\\]|\\\\.)*\"")),
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
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 2);
  connect(this, &QPlainTextEdit::blockCountChanged, this, &CodeEditor::updateGutterWidth);
  connect(this, &QPlainTextEdit::updateRequest, this, &CodeEditor::updateGutter);
  // The sanitizer's findings describe the source that was traced: an edit makes them stale.
  connect(this, &QPlainTextEdit::textChanged, this, [this] {
    if (!findings_.empty() && toPlainText() != findingsSource_) setFindings({});
  });
  updateGutterWidth();
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
        painter.setBrush(*marked ? kError : kWarning);
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
    mark(d.line, d.column, d.error ? kError : kWarning, QString::fromStdString(d.message));
  for (const SanitizerFinding& f : findings_) {
    // From the line's first word: the sanitizer knows the line, not the column.
    const QString text = document()->findBlockByNumber(f.line - 1).text();
    int indent = 0;
    while (indent < text.size() && text[indent].isSpace()) ++indent;
    mark(f.line, indent + 1, kError, QString::fromStdString(f.message));
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

// --- the editor panel --------------------------------------------------------------------------

KernelEditor::KernelEditor(QWidget* parent)
    : QWidget(parent),
      editor_(new CodeEditor(this)),
      highlighter_(new CudaHighlighter(editor_->document(), isDark(palette()))),
      name_(new QLineEdit(this)),
      arch_(new QComboBox(this)),
      find_(new QLineEdit(this)),
      messages_(new QListWidget(this)),
      summary_(new QLabel(this)) {
  auto* bar = new QToolBar(this);
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  auto* newFromMenu = new QMenu(this);
  newFromMenu->addAction(tr("Blank kernel"), this, [this] {
    startKernel(QStringLiteral("my_kernel"), QString::fromLatin1(kBlankKernel));
  });
  newFromMenu->addSeparator();
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    const QString kernel = QString::fromStdString(t.kernel);
    newFromMenu->addAction(kernel, this, [this, kernel] { newFrom(kernel); });
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
  auto* archLabel = new QLabel(tr("&Architecture"), this);
  archLabel->setBuddy(arch_);
  identity->addWidget(archLabel);
  // sm_90a is what a Hopper GPU runs (it has wgmma); sm_90 is the portable Hopper target.
  arch_->addItems({QStringLiteral("sm_90a"), QStringLiteral("sm_90"), QStringLiteral("sm_75"),
                   QStringLiteral("sm_80"), QStringLiteral("sm_89")});
  arch_->setToolTip(tr("The GPU architecture Compile checks for (a run compiles for its GPU)"));
  identity->addWidget(arch_);

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
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Kernel"), path_,
                                                    tr("CUDA sources (*.cu);;All files (*)"));
  QString error;
  if (!path.isEmpty() && !openFile(path, &error)) summary_->setText(error);
}

void KernelEditor::saveDialog(bool askForName) {
  QString path = path_;
  if (askForName || path.isEmpty()) {
    path = QFileDialog::getSaveFileName(
        this, tr("Save Kernel"), kernelName() + QStringLiteral(".cu"), tr("CUDA sources (*.cu)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".cu");
  }
  QString error;
  summary_->setText(saveFile(path, &error) ? tr("Saved %1").arg(path) : error);
}

void KernelEditor::showFind() {
  find_->show();
  find_->selectAll();
  find_->setFocus();
}

void KernelEditor::compile() {
  const std::string source = editor_->toPlainText().toStdString();
  // For the first element type the source takes (its default in the Run Setup).
  compiler_.compile({kernelName().toStdString(), source},
                    {arch_->currentText().toStdString(), {}, declaredTypes(source).front()});
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
        d.error ? kError : kWarning, d.line, d.column);
  }
  // The finding's message starts with its line, block and thread.
  for (const SanitizerFinding& f : editor_->findings())
    add(tr("sanitizer %1").arg(QString::fromStdString(f.message)), kError, f.line, 0);
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
