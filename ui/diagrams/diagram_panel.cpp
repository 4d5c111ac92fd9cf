// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagram_panel.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <memory>

#include "diagram_document.hpp"
#include "diagram_model.hpp"
#include "diagram_view.hpp"
#include "kstep_view.hpp"
#include "presenter.hpp"

namespace tilescope::ui {

namespace {

// The controls grow more slowly than the diagrams' text: they must not eat the figure's height.
constexpr double kControlsShare = 0.75, kMaxControlsScale = 2.5;
// The most a docked view grows to show its figure whole; beyond it the view folds rows away.
constexpr int kMaxDockedViewHeight = 3000;
const int kStepsPerSecond[] = {1, 2, 4, 8, 16, 32};

QString tabTitle(DiagramKind kind) {
  switch (kind) {
    case DiagramKind::Matrix:
      return QObject::tr("Matrix");
    case DiagramKind::KStep:
      return QObject::tr("K-steps");
    case DiagramKind::Block:
      return QObject::tr("Block");
    case DiagramKind::Access:
      return QObject::tr("Memory access");
    case DiagramKind::Timeline:
      return QObject::tr("Pipeline");
  }
  return {};
}

int toInt(std::int64_t value) {
  return int(std::min<std::int64_t>(value, INT_MAX));
}

QLabel* caption(const QString& text) {
  return new QLabel(text);
}

}  // namespace

DiagramPanel::DiagramPanel(QWidget* parent)
    : QWidget(parent),
      document_(new DiagramDocument(this)),
      presenter_(new Presenter(this)),
      timer_(new QTimer(this)) {
  layout_ = new QVBoxLayout(this);
  layout_->setContentsMargins(0, 0, 0, 0);
  presentingNote_ = new QLabel(tr("Presenting full screen: press Esc to come back."));
  presentingNote_->setAlignment(Qt::AlignCenter);
  presentingNote_->hide();
  layout_->addWidget(presentingNote_);

  content_ = new QWidget;
  auto* contentLayout = new QVBoxLayout(content_);
  contentLayout->setContentsMargins(4, 4, 4, 4);
  tabs_ = new QTabWidget;
  for (const DiagramKind kind : kDiagramKinds) {
    DiagramView* view = makeDiagramView(kind, document_);
    view->installEventFilter(this);
    tabs_->addTab(view, tabTitle(kind));
  }
  contentLayout->addWidget(buildSelectionRow());
  accessRow_ = buildAccessRow();
  contentLayout->addWidget(accessRow_);
  contentLayout->addWidget(tabs_, 1);
  contentLayout->addWidget(buildBottomRow());
  layout_->addWidget(content_);

  for (int t = 0; t < tabs_->count(); ++t)
    connect(static_cast<DiagramView*>(tabs_->widget(t)), &DiagramView::hovered, hover_,
            &QLabel::setText);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    accessRow_->setVisible(currentView()->kind() == DiagramKind::Access);
    hover_->clear();
    fitViewHeight();
  });
  connect(document_, &DiagramDocument::configurationChanged, this, &DiagramPanel::syncControls);
  connect(document_, &DiagramDocument::selectionChanged, this, &DiagramPanel::syncControls);
  for (auto changed : {&DiagramDocument::configurationChanged, &DiagramDocument::selectionChanged,
                       &DiagramDocument::appearanceChanged})
    connect(document_, changed, this, &DiagramPanel::fitViewHeight);
  connect(timer_, &QTimer::timeout, this, &DiagramPanel::advanceAnimation);
  // (Connected once: a lambda cannot be a unique connection, and a second one would not be made.)
  connect(presenter_, &Presenter::resized, this, &DiagramPanel::fitPresentation);
  connect(presenter_, &Presenter::endRequested, this, [this] { setPresentationMode(false); });
  connect(presenter_, &Presenter::keyPressed, this, &DiagramPanel::handleKey);
  accessRow_->setVisible(false);
  setConfiguration({"naive", {}}, {64, 64, 64});
}

DiagramPanel::~DiagramPanel() = default;

QWidget* DiagramPanel::buildSelectionRow() {
  auto* row = new QWidget;
  auto* layout = new QBoxLayout(QBoxLayout::TopToBottom, row);
  layout->setContentsMargins(0, 0, 0, 0);
  compactRows_.push_back(layout);
  blockX_ = new QSpinBox;
  blockY_ = new QSpinBox;
  blockX_->setToolTip(tr("Block x of the selected thread block (blockIdx.x)"));
  blockY_->setToolTip(tr("Block y of the selected thread block (blockIdx.y)"));
  auto selectBlock = [this] {
    DiagramSelection s = document_->selection();
    s.block = {blockX_->value(), blockY_->value()};
    document_->setSelection(s);
  };
  connect(blockX_, &QSpinBox::valueChanged, this, selectBlock);
  connect(blockY_, &QSpinBox::valueChanged, this, selectBlock);

  backButton_ = new QToolButton;
  backButton_->setArrowType(Qt::LeftArrow);
  backButton_->setToolTip(tr("Previous k-step (Left arrow)"));
  forwardButton_ = new QToolButton;
  forwardButton_->setArrowType(Qt::RightArrow);
  forwardButton_->setToolTip(tr("Next k-step (Right arrow)"));
  playButton_ = new QToolButton;
  playButton_->setCheckable(true);
  playButton_->setText(tr("Play"));
  playButton_->setToolTip(tr("Play or pause the k-step animation (Space)"));
  connect(backButton_, &QToolButton::clicked, this, [this] { stepBy(-1); });
  connect(forwardButton_, &QToolButton::clicked, this, [this] { stepBy(1); });
  connect(playButton_, &QToolButton::toggled, this, &DiagramPanel::setPlaying);

  stepSlider_ = new QSlider(Qt::Horizontal);
  stepSlider_->setToolTip(tr("Scrub through the k-steps"));
  connect(stepSlider_, &QSlider::valueChanged, this, [this](int step) {
    DiagramSelection s = document_->selection();
    s.step = step;
    document_->setSelection(s);
  });
  stepLabel_ = new QLabel;
  stepLabel_->setObjectName(QStringLiteral("stepLabel"));
  // Room for six digits each; the label names the k-step, so the line needs no caption.
  stepLabel_->setMinimumWidth(
      stepLabel_->fontMetrics().horizontalAdvance(QStringLiteral("k-step 000000 of 000000")));
  speed_ = new QComboBox;
  for (const int rate : kStepsPerSecond) speed_->addItem(tr("%1/s").arg(rate), rate);
  speed_->setCurrentIndex(1);
  speed_->setToolTip(tr("Animation speed: k-steps per second"));
  connect(speed_, &QComboBox::currentIndexChanged, this,
          [this] { timer_->setInterval(1000 / speed_->currentData().toInt()); });
  timer_->setInterval(1000 / speed_->currentData().toInt());

  // Two short lines rather than one long one: the panel often lives in a narrow dock (the three
  // columns of a 1280 px window leave it about 300 px).
  auto* blockLine = new QHBoxLayout;
  blockLine->addWidget(caption(tr("Block")));
  blockLine->addWidget(blockX_);
  blockLine->addWidget(blockY_);
  blockLine->addStretch(1);
  blockLine->addWidget(speed_);
  // At the top: where the panel scrolls in a short dock (1280x720), it is still in view.
  presentButton_ = new QPushButton(tr("Present"));
  presentButton_->setObjectName(QStringLiteral("present"));
  presentButton_->setCheckable(true);
  presentButton_->setToolTip(
      tr("Full screen with large fonts; arrow keys step, Space plays, Esc or F11 returns"));
  connect(presentButton_, &QPushButton::toggled, this, &DiagramPanel::setPresentationMode);
  blockLine->addWidget(presentButton_);
  auto* stepLine = new QHBoxLayout;
  stepLine->addWidget(backButton_);
  stepLine->addWidget(playButton_);
  stepLine->addWidget(forwardButton_);
  stepLine->addWidget(stepLabel_, 1);
  layout->addLayout(blockLine);
  layout->addLayout(stepLine);
  // The slider on a line of its own: beside the buttons and the label a narrow dock left it a
  // stub of 20 px.
  layout->addWidget(stepSlider_);
  return row;
}

QWidget* DiagramPanel::buildAccessRow() {
  auto* row = new QWidget;
  auto* layout = new QBoxLayout(QBoxLayout::TopToBottom, row);
  layout->setContentsMargins(0, 0, 0, 0);
  compactRows_.push_back(layout);
  warp_ = new QSpinBox;
  warp_->setToolTip(tr("Which warp of the selected block"));
  access_ = new QComboBox;
  for (const Access access : {Access::LoadA, Access::LoadB, Access::StoreC})
    access_->addItem(QLatin1String(toString(access)), int(access));
  access_->setToolTip(tr("Which global-memory access of the warp to lay out"));
  instr_ = new QSpinBox;
  instr_->setToolTip(tr("Which of the thread's instructions of that access within the step"));
  bankAccess_ = new QComboBox;
  bankAccess_->addItem(tr("Bank read at k"), false);
  bankAccess_->addItem(tr("Bank write"), true);
  bankAccess_->setToolTip(
      tr("Show a warp's read of a staged tile over the 32 banks, or the write that stages it "
         "(known for the seed kernels and traced kernels)"));
  innerK_ = new QSpinBox;
  readSlot_ = new QSpinBox;
  readSlot_->setToolTip(
      tr("Which of a thread's shared-memory reads at that index (a register tile reads several "
         "values, or float4s, per index; the tensor cores read their fragments in several pieces, "
         "ldmatrix.x4 for fp16 and bf16), or of its writes in the k-step"));
  pad_ = new QSpinBox;
  pad_->setRange(0, kSharedBanks);
  compare_ = new QComboBox;
  compare_->addItem(tr("nothing"), QString());
  for (const KernelInfo& info : catalogue())
    if (info.hasMapping)
      compare_->addItem(QString::fromStdString(info.id), QString::fromStdString(info.id));
  compare_->setToolTip(
      tr("Draw another kernel's warp beside this one (e.g. naive beside "
         "row-per-thread)"));

  auto update = [this] {
    DiagramSelection s = document_->selection();
    s.warp = warp_->value();
    s.access = Access(access_->currentData().toInt());
    s.instr = instr_->value();
    s.innerK = innerK_->value();
    s.readSlot = readSlot_->value();
    s.sharedWrite = bankAccess_->currentData().toBool();
    s.pad = pad_->value();
    s.compareKernel = compare_->currentData().toString();
    document_->setSelection(s);
  };
  for (QSpinBox* box : {warp_, instr_, innerK_, readSlot_, pad_})
    connect(box, &QSpinBox::valueChanged, this, update);
  connect(access_, &QComboBox::currentIndexChanged, this, update);
  connect(bankAccess_, &QComboBox::currentIndexChanged, this, update);
  connect(compare_, &QComboBox::currentIndexChanged, this, update);

  auto* warpLine = new QHBoxLayout;
  warpLine->addWidget(caption(tr("Warp")));
  warpLine->addWidget(warp_);
  warpLine->addWidget(access_);
  warpLine->addWidget(caption(tr("Instruction")));
  warpLine->addWidget(instr_);
  warpLine->addStretch(1);
  auto* sharedLine = new QHBoxLayout;
  sharedLine->addWidget(bankAccess_);
  sharedLine->addWidget(innerK_);
  slotCaption_ = caption(tr("Read"));
  sharedLine->addWidget(slotCaption_);
  sharedLine->addWidget(readSlot_);
  sharedLine->addStretch(1);
  // The comparison and the padding on a line of their own: with them, the bank line was wider
  // than a docked panel.
  auto* compareLine = new QHBoxLayout;
  compareLine->addWidget(caption(tr("Beside")));
  compareLine->addWidget(compare_);
  compareLine->addWidget(caption(tr("Pad")));
  compareLine->addWidget(pad_);
  compareLine->addStretch(1);
  layout->addLayout(warpLine);
  layout->addLayout(sharedLine);
  layout->addLayout(compareLine);
  return row;
}

QWidget* DiagramPanel::buildBottomRow() {
  auto* row = new QWidget;
  auto* layout = new QVBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  hover_ = new QLabel;
  hover_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  hover_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* png = new QPushButton(tr("Export PNG…"));
  png->setToolTip(tr("Save the current view as a PNG image"));
  auto* svg = new QPushButton(tr("Export SVG…"));
  svg->setToolTip(tr("Save the current view as an SVG drawing"));
  connect(png, &QPushButton::clicked, this, [this] { exportCurrent(QStringLiteral("png")); });
  connect(svg, &QPushButton::clicked, this, [this] { exportCurrent(QStringLiteral("svg")); });
  exportButtons_ = new QWidget;
  auto* exports = new QHBoxLayout(exportButtons_);
  exports->setContentsMargins(0, 0, 0, 0);
  exports->addWidget(png);
  exports->addWidget(svg);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(exportButtons_);
  layout->addWidget(hover_);
  layout->addLayout(buttons);
  return row;
}

DiagramView* DiagramPanel::currentView() const {
  return static_cast<DiagramView*>(tabs_->currentWidget());
}

bool DiagramPanel::setCurrentView(const QString& view) {
  const std::optional<DiagramKind> kind = diagramKindFromName(view);
  if (!kind) return false;
  tabs_->setCurrentIndex(int(*kind));
  return true;
}

void DiagramPanel::setCornerWidget(QWidget* widget) {
  tabs_->setCornerWidget(widget, Qt::TopRightCorner);
}

bool DiagramPanel::playing() const {
  return timer_->isActive();
}

void DiagramPanel::setConfiguration(const KernelConfig& config, const Shape& shape,
                                    std::optional<ElementType> element) {
  document_->setConfiguration(config, shape, element);
}

void DiagramPanel::syncControls() {
  const Mapping* m = document_->mapping();
  const DiagramSelection& s = document_->selection();
  for (QWidget* control : std::initializer_list<QWidget*>{
           blockX_, blockY_, backButton_, playButton_, forwardButton_, stepSlider_, speed_, warp_,
           access_, instr_, innerK_, readSlot_, pad_, compare_, bankAccess_})
    control->setEnabled(m != nullptr);
  if (!m) {
    setPlaying(false);
    stepLabel_->clear();
    return;
  }
  const QSignalBlocker blocks[] = {
      QSignalBlocker(blockX_),  QSignalBlocker(blockY_),    QSignalBlocker(stepSlider_),
      QSignalBlocker(warp_),    QSignalBlocker(access_),    QSignalBlocker(instr_),
      QSignalBlocker(innerK_),  QSignalBlocker(readSlot_),  QSignalBlocker(pad_),
      QSignalBlocker(compare_), QSignalBlocker(bankAccess_)};
  blockX_->setRange(0, m->grid().x - 1);
  blockY_->setRange(0, m->grid().y - 1);
  blockX_->setValue(s.block.x);
  blockY_->setValue(s.block.y);
  stepSlider_->setRange(0, toInt(m->kSteps() - 1));
  stepSlider_->setValue(toInt(s.step));
  stepLabel_->setText(QString::fromStdString(kStepText(*m, s.step)));
  warp_->setRange(0, m->warpsPerBlock() - 1);
  warp_->setValue(s.warp);
  access_->setCurrentIndex(access_->findData(int(s.access)));
  instr_->setRange(0, toInt(m->instructionsPerStep(s.access) - 1));
  instr_->setValue(toInt(s.instr));
  innerK_->setRange(0, m->kDepth() - 1);
  // The tensor cores read a whole mma.sync's depth at once: the box steps chunk by chunk.
  const int stride = sharedReadStride(*m);
  innerK_->setSingleStep(stride);
  innerK_->setToolTip(stride == 1 ? tr("Inner index kk of the shared-memory read shown over the 32 "
                                       "banks")
                                  : tr("First k of the mma.sync chunk (%1 deep) whose fragment "
                                       "reads are shown over the 32 banks: one read serves the "
                                       "whole chunk")
                                        .arg(stride));
  innerK_->setValue(s.innerK);
  // Writes where the Mapping knows them; the inner index belongs to reads alone.
  bankAccess_->setEnabled(mostSharedWrites(*m) > 0);
  bankAccess_->setCurrentIndex(s.sharedWrite ? 1 : 0);
  innerK_->setEnabled(!s.sharedWrite);
  slotCaption_->setText(s.sharedWrite ? tr("Write") : tr("Read"));
  readSlot_->setRange(0,
                      std::max(s.sharedWrite ? mostSharedWrites(*m) : mostSharedReads(*m), 1) - 1);
  readSlot_->setValue(s.readSlot);
  // A traced kernel's tiles lie as its code laid them out: a pad is an edit of its source.
  pad_->setEnabled(m->trace() == nullptr);
  pad_->setToolTip(m->trace() ? tr("A traced kernel's tiles lie as its code laid them out: pad "
                                   "them in its source (the shared-tiled template's PAD)")
                              : tr("Words added to each shared tile row: padding moves columns "
                                   "onto other banks"));
  pad_->setValue(s.pad);
  compare_->setCurrentIndex(std::max(compare_->findData(s.compareKernel), 0));
}

void DiagramPanel::stepBy(int delta) {
  if (!document_->mapping()) return;
  DiagramSelection s = document_->selection();
  s.step += delta;
  document_->setSelection(s);
}

void DiagramPanel::setPlaying(bool on) {
  if (on && document_->mapping()) {
    // Playing from the last step starts over.
    if (document_->selection().step >= document_->mapping()->kSteps() - 1) {
      DiagramSelection s = document_->selection();
      s.step = 0;
      document_->setSelection(s);
    }
    timer_->start();
  } else {
    timer_->stop();
  }
  const QSignalBlocker block(playButton_);
  playButton_->setChecked(timer_->isActive());
  playButton_->setText(timer_->isActive() ? tr("Pause") : tr("Play"));
}

void DiagramPanel::advanceAnimation() {
  const Mapping* m = document_->mapping();
  if (!m || document_->selection().step >= m->kSteps() - 1) {
    setPlaying(false);
    return;
  }
  stepBy(1);
}

QList<QKeySequence> DiagramPanel::presentationShortcuts() {
  return Presenter::shortcuts();
}

double DiagramPanel::presentationFontScale(QSize size) {
  return Presenter::fontScale(size);
}

bool DiagramPanel::presentationMode() const {
  return presenter_->active();
}

QWidget* DiagramPanel::presentationWindow() const {
  return presenter_->window();
}

void DiagramPanel::fitViewHeight() {
  // Docked, the current view takes the height its figure needs and the dock scrolls; the other
  // views ask nothing (the tabs take the tallest page's minimum), nor does a presented view.
  for (int t = 0; t < tabs_->count(); ++t) {
    auto* view = static_cast<DiagramView*>(tabs_->widget(t));
    const int wanted =
        document_->presenting() || view != currentView() ? 0 : view->heightFor(view->width());
    const int height = std::clamp(wanted, DiagramView::kMinimumSize.height(), kMaxDockedViewHeight);
    if (view->minimumHeight() != height) view->setMinimumHeight(height);
  }
}

void DiagramPanel::compactControls(bool on) {
  // Docked, the rows stack their lines to fit a narrow dock; a full screen has the width to put
  // each row on one line, and its height goes to the figure.
  for (QBoxLayout* row : compactRows_)
    row->setDirection(on ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

void DiagramPanel::fitPresentation() {
  if (!presenter_->active()) return;
  const double scale = presentationFontScale(presenter_->window()->size());
  document_->setFontScale(scale);
  QFont font = dockedFont_;
  font.setPointSizeF(dockedFont_.pointSizeF() *
                     std::clamp(kControlsShare * scale, 1.0, kMaxControlsScale));
  content_->setFont(font);
}

void DiagramPanel::setPresentationMode(bool on) {
  if (on == presentationMode()) return;
  if (on) {
    dockedFont_ = content_->font();
    presentingNote_->show();
    // One view large with its step controls, each row of them on one line: exporting waits for
    // the desk.
    exportButtons_->hide();
    compactControls(true);
    // The docked view's height goes before the content moves: it would hold the full-screen
    // window taller than the screen.
    document_->setPresenting(true);
    fitViewHeight();
    presenter_->begin(content_, tr("TileScope presentation"));
    fitPresentation();
    currentView()->setFocus(Qt::OtherFocusReason);
  } else {
    layout_->addWidget(presenter_->end());
    content_->show();
    presentingNote_->hide();
    exportButtons_->show();
    compactControls(false);
    document_->setFontScale(1.0);
    document_->setPresenting(false);
    content_->setFont(dockedFont_);
    fitViewHeight();
  }
  const QSignalBlocker block(presentButton_);
  presentButton_->setChecked(on);
  emit presentationModeChanged(on);
}

bool DiagramPanel::handleKey(int key) {
  switch (key) {
    case Qt::Key_Left:
      stepBy(-1);
      return true;
    case Qt::Key_Right:
      stepBy(1);
      return true;
    case Qt::Key_Space:
      setPlaying(!playing());
      return true;
    case Qt::Key_Home:
      stepBy(-int(std::min<std::int64_t>(document_->selection().step, INT_MAX)));
      return true;
    case Qt::Key_End:
      if (const Mapping* m = document_->mapping()) stepBy(toInt(m->kSteps()));
      return true;
    case Qt::Key_PageUp:
    case Qt::Key_Up:
      tabs_->setCurrentIndex((tabs_->currentIndex() + tabs_->count() - 1) % tabs_->count());
      currentView()->setFocus(Qt::OtherFocusReason);
      return true;
    case Qt::Key_PageDown:
    case Qt::Key_Down:
      tabs_->setCurrentIndex((tabs_->currentIndex() + 1) % tabs_->count());
      currentView()->setFocus(Qt::OtherFocusReason);
      return true;
    case Qt::Key_T:
      // The k-step view's words, where they come in parts.
      if (currentView()->kind() != DiagramKind::KStep) return false;
      static_cast<KStepView*>(currentView())->nextRecipePart();
      return true;
    default:
      return false;
  }
}

bool DiagramPanel::eventFilter(QObject* watched, QEvent* event) {
  // A view's height follows its width (the scroll bar coming or going changes it too).
  if (event->type() == QEvent::Resize && watched == currentView()) {
    const auto* resize = static_cast<QResizeEvent*>(event);
    if (resize->oldSize().width() != resize->size().width()) fitViewHeight();
  }
  if (event->type() != QEvent::KeyPress) return QWidget::eventFilter(watched, event);
  const auto* key = static_cast<QKeyEvent*>(event);
  if (presentationMode() && Presenter::endsPresentation(*key)) {
    // The presentation is a window of its own: the main window's shortcut does not reach it.
    setPresentationMode(false);
    return true;
  }
  return handleKey(key->key()) || QWidget::eventFilter(watched, event);
}

void DiagramPanel::exportCurrent(const QString& suffix) {
  DiagramView* view = currentView();
  const QString name = QStringLiteral("tilescope-%1.%2").arg(diagramKindName(view->kind()), suffix);
  const QString filter =
      suffix == QLatin1String("png") ? tr("PNG image (*.png)") : tr("SVG drawing (*.svg)");
  // In the folder of the last export, as the window's other exports.
  QString path = QFileDialog::getSaveFileName(this, tr("Export diagram"),
                                              exportFolder_ + QLatin1Char('/') + name, filter);
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1Char('.') + suffix, Qt::CaseInsensitive))
    path += QLatin1Char('.') + suffix;
  QString error;
  if (!saveDiagram(*view, path, kExportSize, &error)) {
    QMessageBox::warning(this, tr("Export diagram"), error);
    return;
  }
  exportFolder_ = QFileInfo(path).absolutePath();
  emit exported(path);
}

bool exportDiagram(const QString& view, const KernelConfig& config, const Shape& shape,
                   std::optional<ElementType> element, const QString& path, QString* error) {
  const std::optional<DiagramKind> kind = diagramKindFromName(view);
  if (!kind) {
    if (error)
      *error = QStringLiteral("unknown view '%1': choose matrix, kstep, block, access or timeline")
                   .arg(view);
    return false;
  }
  DiagramDocument document;
  document.setConfiguration(config, shape, element);
  const KernelInfo* info = findKernel(config.kernel);
  const bool closedLibrary = info && !info->hasMapping;
  if (!document.mapping() && !closedLibrary) {
    if (error) *error = document.unavailableReason();
    return false;
  }
  const std::unique_ptr<DiagramView> diagram(makeDiagramView(*kind, &document));
  return saveDiagram(*diagram, path, kExportSize, error);
}

}  // namespace tilescope::ui
