// SPDX-License-Identifier: GPL-3.0-or-later
#include "exercise_panel.hpp"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QDateTime>
#include <QDockWidget>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "control_panel.hpp"
#include "diagram_host.hpp"
#include "dock_layout.hpp"
#include "exercise_report.hpp"
#include "kernel_editor.hpp"
#include "main_window.hpp"
#include "settings.hpp"

namespace tilescope::ui {
namespace {

using desktop::ExerciseState;

// The editor's source is saved this long after the last keystroke.
constexpr int kAutosaveMs = 800;

// The list's text of an exercise: its number and title.
QString listText(const exercise::Exercise& exercise) {
  const QString id = QString::fromStdString(exercise.id);
  qsizetype digits = 0;
  while (digits < id.size() && id[digits].isDigit()) ++digits;
  const QString title = QString::fromStdString(exercise.title);
  return digits > 0 ? QStringLiteral("%1. %2").arg(id.left(digits), title) : title;
}

// text.md for a narrow dock: its headings two levels smaller (the first, the title, as large as
// the panel's title line would be).
QString panelMarkdown(const std::string& text) {
  QStringList lines = QString::fromStdString(text).split(QLatin1Char('\n'));
  bool fenced = false;
  for (QString& line : lines) {
    if (line.startsWith(QStringLiteral("```"))) fenced = !fenced;
    if (!fenced && line.startsWith(QLatin1Char('#'))) line.prepend(QStringLiteral("##"));
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace

ExercisePanel::ExercisePanel(desktop::ExerciseController& exercises, KernelEditor* editor,
                             DiagramHost* diagrams, const ControlPanel* controls, QWidget* parent)
    : QWidget(parent),
      exercises_(exercises),
      editor_(editor),
      diagrams_(diagrams),
      controls_(controls),
      autosave_(new QTimer(this)),
      progress_(new QLabel(this)),
      list_(new QTreeWidget(this)),
      title_(new QLabel(this)),
      text_(new QTextBrowser(this)),
      checks_(new QTableWidget(0, 3, this)),
      verdict_(new QLabel(this)),
      where_(new QLabel(this)) {
  setObjectName(QStringLiteral("exercisePanel"));
  confirm_ = [this](const QString& title, const QString& question) {
    return QMessageBox::question(this, title, question) == QMessageBox::Yes;
  };

  QFont bold = progress_->font();
  bold.setBold(true);
  progress_->setFont(bold);
  auto* openFolder = new QToolButton(this);
  openFolder->setText(tr("Open Exercise Folder\u2026"));
  openFolder->setToolTip(
      tr("Add an exercise from a folder (exercise.json, text.md, start.cu, solution.cu), one "
         "your lecturer gave you; it stays in the list"));
  connect(openFolder, &QToolButton::clicked, this, &ExercisePanel::openFolderDialog);
  auto* top = new QHBoxLayout;
  top->addWidget(progress_, 1);
  top->addWidget(openFolder);

  list_->setColumnCount(2);
  list_->setHeaderLabels({tr("Exercise"), tr("State")});
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->header()->setStretchLastSection(false);
  list_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  list_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  list_->setToolTip(tr("The exercises, in order, and how far you got with each"));
  connect(list_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (item) exercises_.setCurrent(list_->indexOfTopLevelItem(item));
  });
  // Enter or a double click on an exercise: to work on it.
  connect(list_, &QTreeWidget::itemActivated, this, [this] { openInEditor(); });

  title_->setFont(bold);
  title_->setWordWrap(true);
  text_->setOpenExternalLinks(true);
  text_->setMinimumHeight(fontMetrics().lineSpacing() * 4);

  checks_->setHorizontalHeaderLabels({tr("Check"), tr("Measured"), tr("Result")});
  checks_->verticalHeader()->hide();
  checks_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  checks_->setSelectionBehavior(QAbstractItemView::SelectRows);
  checks_->setSelectionMode(QAbstractItemView::SingleSelection);
  checks_->setWordWrap(false);
  checks_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  checks_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  checks_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  checks_->setToolTip(tr("What the checks measure; a failed one's row draws its picture"));
  connect(checks_, &QTableWidget::cellClicked, this, [this](int row) { showPicture(row); });
  connect(checks_, &QTableWidget::cellActivated, this, [this](int row) { showPicture(row); });

  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  where_->setWordWrap(true);
  where_->setForegroundRole(QPalette::PlaceholderText);

  const auto button = [this](const QString& text, const QString& tip, auto slot) {
    auto* b = new QPushButton(text, this);
    b->setToolTip(tip);
    connect(b, &QPushButton::clicked, this, slot);
    return b;
  };
  open_ = button(tr("Open in Editor"),
                 tr("Your source of this exercise (the start, until you change it) in the Kernel "
                    "Editor; it is saved as you type"),
                 [this] { openInEditor(); });
  check_ = button(tr("Check"), {}, [this] { check(); });
  hint_ = button(tr("Show Hint"), {}, [this] { revealHint(); });
  solutionButton_ = button(tr("Show Solution\u2026"),
                           tr("The model solution, in a window of its own: your work stays as "
                              "it is"),
                           [this] { showSolution(); });
  export_ = button(tr("Export Hand-in\u2026"),
                   tr("The last check as a JSON file to hand in: your source, every check's "
                      "figure and where it ran"),
                   [this] { exportDialog(); });
  reset_ = button(tr("Reset to Start\u2026"),
                  tr("Start this exercise again from its start.cu (asks first)"),
                  [this] { resetToStart(); });
  // Ctrl+Shift+K wherever the panel is in view, the Kernel Editor included.
  auto* checkAction = new QAction(tr("Check Exercise"), this);
  checkAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
  checkAction->setShortcutContext(Qt::WindowShortcut);
  connect(checkAction, &QAction::triggered, this, [this] { check(); });
  addAction(checkAction);
  auto* buttons = new QGridLayout;
  buttons->setSpacing(4);
  buttons->addWidget(open_, 0, 0);
  buttons->addWidget(check_, 0, 1);
  buttons->addWidget(hint_, 1, 0);
  buttons->addWidget(solutionButton_, 1, 1);
  buttons->addWidget(export_, 2, 0);
  buttons->addWidget(reset_, 2, 1);

  auto* details = new QWidget(this);
  auto* detailsLayout = new QVBoxLayout(details);
  detailsLayout->setContentsMargins(0, 0, 0, 0);
  detailsLayout->addWidget(title_);
  detailsLayout->addWidget(text_, 1);
  detailsLayout->addWidget(checks_);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(list_);
  splitter->addWidget(details);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 2);
  splitter->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(top);
  layout->addWidget(splitter, 1);
  layout->addWidget(verdict_);
  layout->addWidget(where_);
  layout->addLayout(buttons);

  autosave_->setSingleShot(true);
  autosave_->setInterval(kAutosaveMs);
  connect(autosave_, &QTimer::timeout, this, &ExercisePanel::saveWork);
  if (editor_) {
    // Whatever else the editor opens, what it held of an exercise is saved first.
    connect(editor_, &KernelEditor::replacingKernel, this, [this] {
      saveWork();
      editorExercise_.clear();
    });
    connect(editor_->editor(), &QPlainTextEdit::textChanged, this, [this] {
      if (!editorExercise_.empty()) autosave_->start();
    });
  }
  if (controls_)
    connect(controls_, &ControlPanel::choicesChanged, this, &ExercisePanel::showVerdict);
  // Whatever ends the app, the editor's last keystrokes are kept.
  connect(qApp, &QCoreApplication::aboutToQuit, this, &ExercisePanel::saveWork);

  connect(&exercises_, &desktop::ExerciseController::listChanged, this, [this] {
    fillList();
    showCurrent();
  });
  connect(&exercises_, &desktop::ExerciseController::changed, this, [this](int index) {
    fillList();
    if (index == exercises_.current()) showCurrent();
  });
  connect(&exercises_, &desktop::ExerciseController::currentChanged, this, [this] {
    fillList();
    showCurrent();
  });
  connect(&exercises_, &desktop::ExerciseController::checkingChanged, this, [this] {
    fillList();
    updateButtons();
  });
  connect(&exercises_, &desktop::ExerciseController::checked, this, &ExercisePanel::onChecked);
  fillList();
  showCurrent();
}

bool ExercisePanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Close) saveWork();
  return QWidget::eventFilter(watched, event);
}

void ExercisePanel::fillList() {
  const QSignalBlocker blocker(list_);
  if (list_->topLevelItemCount() != exercises_.count()) {
    list_->clear();
    for (int i = 0; i < exercises_.count(); ++i) new QTreeWidgetItem(list_);
  }
  for (int i = 0; i < exercises_.count(); ++i) {
    QTreeWidgetItem* item = list_->topLevelItem(i);
    const exercise::Exercise& e = exercises_.exercise(i);
    const ExerciseState state = exercises_.progress(i).state;
    const bool checking = exercises_.checking() == i;
    item->setText(0, listText(e));
    item->setToolTip(0, tr("%1\n%2, %3")
                            .arg(QString::fromStdString(e.title), QString::fromStdString(e.id),
                                 QString::fromStdString(e.origin)));
    item->setIcon(0, exerciseStateIcon(checking ? std::nullopt : std::optional(state)));
    item->setText(1, checking ? tr("checking\u2026") : desktop::describe(state));
    item->setForeground(1, checking ? QBrush(QColor(60, 120, 210))
                           : state == ExerciseState::NotStarted
                               ? list_->palette().brush(QPalette::PlaceholderText)
                               : QBrush(exerciseStateColor(state)));
  }
  if (exercises_.current() >= 0) list_->setCurrentItem(list_->topLevelItem(exercises_.current()));
  // No taller than its rows: the room goes to the task.
  const int rows = std::max(1, list_->topLevelItemCount());
  const int row = std::max(list_->sizeHintForRow(0), fontMetrics().height() + 4);
  list_->setMaximumHeight(list_->header()->sizeHint().height() + rows * row +
                          2 * list_->frameWidth());
  progress_->setText(exercises_.count() == 0 ? tr("No exercises") : exercises_.progressText());
}

const exercise::SubmissionReport* ExercisePanel::currentReport() const {
  const int index = exercises_.current();
  if (index < 0) return nullptr;
  const auto& report = exercises_.progress(index).lastReport;
  return report ? &*report : nullptr;
}

void ExercisePanel::showCurrent() {
  const int index = exercises_.current();
  if (index < 0) {
    title_->clear();
    text_->clear();
  } else {
    const exercise::Exercise& e = exercises_.exercise(index);
    title_->setText(QString::fromStdString(e.title));
    // A text that opens with its title has no need of the title line.
    title_->setVisible(!QString::fromStdString(e.text).trimmed().startsWith(QLatin1Char('#')));
    QString markdown = panelMarkdown(e.text);
    const int shown = exercises_.progress(index).hintsShown;
    if (shown > 0) {
      markdown += QStringLiteral("\n\n### ") + tr("Hints") + QStringLiteral("\n\n");
      for (int i = 0; i < shown; ++i)
        markdown += QStringLiteral("%1. %2\n").arg(i + 1).arg(QString::fromStdString(e.hints[i]));
    }
    text_->setMarkdown(markdown);
  }
  showChecks();
  showVerdict();
  updateButtons();
}

void ExercisePanel::showChecks() {
  const int index = exercises_.current();
  checks_->setRowCount(0);
  if (index >= 0) showCheckResults(checks_, exercises_.exercise(index), currentReport());
}

void ExercisePanel::showVerdict() {
  const int index = exercises_.current();
  const QString backend =
      controls_ ? QString::fromStdString(controls_->choices().backend) : QStringLiteral("cpu");
  QString where = tr("Check (Ctrl+Shift+K) runs on %1, Run Setup's backend.").arg(backend);
  const exercise::SubmissionReport* report = currentReport();
  if (report) {
    const QDateTime at =
        QDateTime::fromString(QString::fromStdString(report->checkedAt), Qt::ISODate).toLocalTime();
    where =
        tr("Last checked on %1 (%2) %3, in %4 s. ")
            .arg(QString::fromStdString(report->backend), QString::fromStdString(report->device),
                 at.date() == QDate::currentDate()
                     ? tr("at %1").arg(at.toString(QStringLiteral("HH:mm")))
                     : tr("on %1").arg(at.toString(QStringLiteral("yyyy-MM-dd HH:mm"))))
            .arg(report->seconds, 0, 'f', 1) +
        where;
  }
  verdict_->setText(index < 0 ? QString() : verdictText(report));
  where_->setText(where);
}

void ExercisePanel::updateButtons() {
  const int index = exercises_.current();
  const bool any = index >= 0;
  const bool checking = exercises_.checking() >= 0;
  open_->setEnabled(any && editor_);
  check_->setEnabled(any && !checking);
  check_->setText(any && exercises_.checking() == index ? tr("Checking\u2026") : tr("Check"));
  const int hints = any ? int(exercises_.exercise(index).hints.size()) : 0;
  const int shown = any ? exercises_.progress(index).hintsShown : 0;
  hint_->setEnabled(shown < hints);
  hint_->setText(hints == 0      ? tr("No Hints")
                 : shown < hints ? tr("Show Hint %1 of %2").arg(shown + 1).arg(hints)
                                 : tr("All %n Hint(s) Shown", nullptr, hints));
  hint_->setToolTip(tr("Reveal the next hint below the task, one at a time"));
  check_->setToolTip(
      tr("Compile, verify and trace your source and measure every check (Ctrl+Shift+K): the "
         "Kernel Editor's source where it holds this exercise, else your saved one"));
  solutionButton_->setEnabled(any && !exercises_.exercise(index).solution.empty());
  export_->setEnabled(any && currentReport());
  reset_->setEnabled(any && !checking);
}

bool ExercisePanel::refuse(const QString& message, QString* problem) {
  if (problem) *problem = message;
  emit this->problem(message);
  return false;
}

bool ExercisePanel::editorHoldsCurrent() const {
  const int index = exercises_.current();
  return index >= 0 && editor_ && editorExercise_ == exercises_.exercise(index).id;
}

void ExercisePanel::saveWork() {
  autosave_->stop();
  if (editorExercise_.empty() || !editor_) return;
  const int index = exercises_.indexOf(editorExercise_);
  // Saved with the exercise: nothing for the editor to ask about on close.
  if (index >= 0 && exercises_.saveSource(index, editor_->kernel().source))
    editor_->editor()->document()->setModified(false);
}

bool ExercisePanel::openInEditor(QString* problem) {
  const int index = exercises_.current();
  if (index < 0 || !editor_) return refuse(tr("There is no exercise to open"), problem);
  if (!editorHoldsCurrent()) {
    // An exercise the editor held is saved already; another kernel changed since it was opened
    // is the student's too.
    saveWork();
    if (editorExercise_.empty() && editor_->editor()->document()->isModified() &&
        !confirm_(
            tr("Open Exercise"),
            tr("The Kernel Editor holds %1, changed since it was opened. Replace it with "
               "exercise %2? (Save it first with the editor's Save... to keep it.)")
                .arg(editor_->kernelName(), QString::fromStdString(exercises_.exercise(index).id))))
      return refuse(tr("cancelled"), problem);
    const std::string id = exercises_.exercise(index).id;
    editor_->startKernel(QString::fromStdString(id),
                         QString::fromStdString(exercises_.source(index)));
    editor_->editor()->document()->setModified(false);
    editorExercise_ = id;
    editor_->compile();
  }
  emit editorWanted();
  editor_->editor()->setFocus();
  return true;
}

bool ExercisePanel::check(QString* problem) {
  const int index = exercises_.current();
  if (index < 0) return refuse(tr("There is no exercise to check"), problem);
  saveWork();
  const std::string source =
      editorHoldsCurrent() ? editor_->kernel().source : exercises_.source(index);
  const desktop::Choices choices = controls_ ? controls_->choices() : desktop::Choices{};
  return exercises_.check(index, source, choices.backend, choices.device, problem);
}

bool ExercisePanel::revealHint() {
  const int index = exercises_.current();
  if (index < 0 || !exercises_.revealHint(index)) return false;
  // The hint just revealed, at the end of the text, in view.
  text_->moveCursor(QTextCursor::End);
  text_->ensureCursorVisible();
  return true;
}

bool ExercisePanel::showSolution() {
  const int index = exercises_.current();
  if (index < 0) return false;
  const exercise::Exercise& e = exercises_.exercise(index);
  if (e.solution.empty()) return false;
  if (!confirm_(tr("Show Solution"),
                tr("Show the model solution of \"%1\"? Working it out yourself teaches more: the "
                   "hints help without giving it away.")
                    .arg(QString::fromStdString(e.title))))
    return false;
  if (solution_) solution_->close();
  solution_ = openSolutionWindow(e, this);
  return true;
}

bool ExercisePanel::exportHandIn(const QString& path, QString* error) {
  const int index = exercises_.current();
  QString why;
  if (index < 0 || !exercises_.exportHandIn(index, path, &why)) {
    if (why.isEmpty()) why = tr("There is no exercise to hand in");
    if (error) *error = why;
    return false;
  }
  emit status(tr("Wrote the hand-in %1").arg(path), 8000);
  return true;
}

void ExercisePanel::exportDialog() {
  const int index = exercises_.current();
  if (index < 0) return;
  const QString suggested = desktop::lastFolder(desktop::Folder::Exports) + QLatin1Char('/') +
                            QString::fromStdString(exercises_.exercise(index).id) +
                            QStringLiteral("-hand-in.json");
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Hand-in"), suggested,
                                                    tr("Hand-in files (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportHandIn(path, &error)) {
    emit problem(error);
    QMessageBox::warning(this, tr("Export Hand-in"), error);
    return;
  }
  desktop::rememberFolder(desktop::Folder::Exports, path);
}

bool ExercisePanel::resetToStart() {
  const int index = exercises_.current();
  if (index < 0) return false;
  const exercise::Exercise& e = exercises_.exercise(index);
  if (!confirm_(tr("Reset to Start"),
                tr("Start \"%1\" again from its start? Your source of it and its last check are "
                   "discarded; export a hand-in first to keep them.")
                    .arg(QString::fromStdString(e.title))))
    return false;
  const bool held = editorHoldsCurrent();
  autosave_->stop();
  if (!exercises_.reset(index)) return false;
  if (held) {
    editorExercise_.clear();  // what the editor holds is discarded, not saved
    editor_->startKernel(QString::fromStdString(e.id), QString::fromStdString(e.start));
    editor_->editor()->document()->setModified(false);
    editorExercise_ = e.id;
  }
  emit status(tr("%1 starts again from its start").arg(QString::fromStdString(e.id)), 5000);
  return true;
}

bool ExercisePanel::showPicture(int row) {
  const exercise::SubmissionReport* report = currentReport();
  if (!report || !report->trace || row < 0 || row >= int(report->checks.size())) return false;
  const exercise::CheckResult& result = report->checks[row];
  if (result.state != exercise::CheckState::Failed || !result.picture || !diagrams_) return false;
  QString error;
  if (!diagrams_->showTraceAt(*report->trace, *result.picture, &error)) {
    emit problem(tr("The picture of %1 cannot be drawn: %2")
                     .arg(QString::fromStdString(result.spec.title()), error));
    return false;
  }
  // The sanitizer's lines, where the editor holds the source that was traced.
  if (editor_ && editorHoldsCurrent()) editor_->showSanitizer(*report->trace);
  checks_->selectRow(row);
  emit diagramsWanted();
  return true;
}

void ExercisePanel::onChecked(int index, const exercise::SubmissionReport& report) {
  if (index != exercises_.current()) return;
  // The compiler's messages at their lines, where the editor holds what was checked.
  if (editor_ && editorHoldsCurrent() && editor_->kernel().source == report.source) {
    editor_->editor()->setDiagnostics(report.diagnostics);
    if (!report.compiled) emit editorWanted();
  }
  // A failing check's picture at once: the first one that has one.
  for (int row = 0; row < int(report.checks.size()); ++row)
    if (report.checks[row].state == exercise::CheckState::Failed && report.checks[row].picture &&
        showPicture(row))
      return;
  // Passed: what the kernel does now, at the traced block's first warp and k-step.
  QString error;
  if (report.passed() && report.trace && diagrams_ &&
      diagrams_->showTraceAt(*report.trace, {report.trace->tracedBlock}, &error))
    emit diagramsWanted();
}

void ExercisePanel::openFolderDialog() {
  const QString folder = QFileDialog::getExistingDirectory(
      this, tr("Open Exercise Folder"), desktop::lastFolder(desktop::Folder::Sessions));
  if (folder.isEmpty()) return;
  QString error;
  int index = -1;
  if (!exercises_.openFolder(folder, &error, &index)) {
    emit problem(error);
    QMessageBox::warning(this, tr("Open Exercise Folder"), error);
    return;
  }
  exercises_.setCurrent(index);
  emit status(tr("Added exercise %1 from %2")
                  .arg(QString::fromStdString(exercises_.exercise(index).id), folder),
              5000);
}

ExercisePanel* addExerciseDock(MainWindow& window, desktop::ExerciseController& exercises,
                               DockLayout& layout) {
  auto* dock = new QDockWidget(ExercisePanel::tr("Exercises"), &window);
  dock->setObjectName(QStringLiteral("exercisesDock"));
  auto* panel = new ExercisePanel(exercises, window.kernelEditor(), window.diagrams(),
                                  window.controls(), dock);
  dock->setWidget(panel);
  const auto dockNamed = [&window](const char* name) {
    return window.findChild<QDockWidget*>(QString::fromLatin1(name));
  };
  window.addDockWidget(Qt::LeftDockWidgetArea, dock);
  window.tabifyDockWidget(dockNamed("controlsDock"), dock);
  dock->hide();
  QAction* toggle = dock->toggleViewAction();
  toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X));
  // Shown from the View menu: in front of Run Setup.
  QObject::connect(toggle, &QAction::triggered, dock, [dock, panel](bool shown) {
    if (!shown) return;
    dock->raise();
    panel->list()->setFocus();
  });
  window.installEventFilter(panel);
  QObject::connect(panel, &ExercisePanel::editorWanted, &layout,
                   &DockLayout::showEditorBesideDiagrams);
  QDockWidget* diagramsDock = dockNamed("diagramsDock");
  QDockWidget* editorDock = dockNamed("kernelEditorDock");
  QObject::connect(panel, &ExercisePanel::diagramsWanted, &window,
                   [&window, &layout, panel, diagramsDock, editorDock] {
                     // The student's source beside the picture, where the editor holds it, a little
                     // lower than the editor's half so the picture has the room; the picture wide,
                     // at the charts' expense.
                     if (panel->editorHoldsCurrent()) {
                       layout.showEditorBesideDiagrams();
                       if (!window.tabifiedDockWidgets(diagramsDock).contains(editorDock))
                         window.resizeDocks({editorDock}, {window.height() * 2 / 5}, Qt::Vertical);
                     }
                     diagramsDock->raise();
                     window.resizeDocks({diagramsDock}, {window.width() * 9 / 20}, Qt::Horizontal);
                   });
  return panel;
}

}  // namespace tilescope::ui
