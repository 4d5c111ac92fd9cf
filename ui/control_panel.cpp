// SPDX-License-Identifier: GPL-3.0-or-later
#include "control_panel.hpp"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "autotune_run.hpp"
#include "formatting.hpp"
#include "sweep_box.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"

namespace tilescope::ui {
namespace {

using desktop::text;

constexpr int kPresetSizes[] = {256, 512, 1024, 2048, 4096, 8192};
// What "Exactly" offers until the user picks a count: the sampling policy's minimum.
constexpr int kDefaultFixedReps = 10;
// The kernel picker shows this many letters of a name and elides the rest (its list shows all).
constexpr int kKernelNameLetters = 22;
// Larger parameter values are never valid; the bound only keeps typing sane.
constexpr int kLargestTypedParam = 1 << 16;

QLabel* hintLabel(const QString& content) {
  auto* label = new QLabel(content);
  label->setWordWrap(true);
  label->setForegroundRole(QPalette::PlaceholderText);
  return label;
}

QGroupBox* groupBox(const QString& title) {
  auto* box = new QGroupBox(title);
  box->setFlat(false);
  return box;
}

}  // namespace

ControlPanel::ControlPanel(QWidget* parent) : QWidget(parent) {
  // The choices scroll; the plan and the Run and Cancel buttons stay in view below them.
  auto* choicesArea = new QWidget;
  auto* choicesLayout = new QVBoxLayout(choicesArea);
  choicesLayout->setContentsMargins(8, 8, 8, 8);
  choicesLayout->setSpacing(8);
  choicesLayout->addWidget(buildBackendGroup());
  choicesLayout->addWidget(buildKernelGroup());
  choicesLayout->addWidget(buildSizeGroup());
  choicesLayout->addWidget(buildMeasureGroup());
  sweepBox_ = new SweepBox;
  connect(sweepBox_, &SweepBox::changed, this, &ControlPanel::onChanged);
  choicesLayout->addWidget(sweepBox_);
  choicesLayout->addStretch(1);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(choicesArea);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumWidth(choicesArea->sizeHint().width() +
                          scroll->verticalScrollBar()->sizeHint().width());

  plan_ = new QLabel(this);
  plan_->setWordWrap(true);
  auto* buttons = new QHBoxLayout;
  runButton_ = new QToolButton(this);
  autotuneButton_ = new QToolButton(this);
  cancelButton_ = new QToolButton(this);
  for (QToolButton* button : {runButton_, autotuneButton_, cancelButton_}) {
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    button->setMinimumHeight(32);
    buttons->addWidget(button);
  }
  runButton_->hide();
  autotuneButton_->hide();
  cancelButton_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 8);
  layout->addWidget(scroll, 1);
  auto* footer = new QVBoxLayout;
  footer->setContentsMargins(8, 0, 8, 0);
  footer->addWidget(plan_);
  footer->addLayout(buttons);
  layout->addLayout(footer);

  setChoices(desktop::Choices{});
}

QWidget* ControlPanel::buildBackendGroup() {
  QGroupBox* box = groupBox(tr("Backend and device"));
  auto* form = new QFormLayout(box);
  backend_ = new QComboBox(box);
  for (const std::string& id : backendIds()) backend_->addItem(text(id), text(id));
  backend_->setStatusTip(
      tr("Where the kernels run: cpu (threads, OpenBLAS), cuda (a GPU), or a "
         "run server's backend such as cuda@gpu1 (Backend > GPU Server...)"));
  device_ = new QComboBox(box);
  device_->setStatusTip(tr("The device of the backend to run on"));
  deviceFacts_ = new QLabel(box);
  deviceFacts_->setWordWrap(true);
  deviceFacts_->setTextFormat(Qt::RichText);
  deviceFacts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form->addRow(tr("&Backend:"), backend_);
  allDevices_ = new QCheckBox(tr("&All GPUs"), box);
  allDevices_->setObjectName(QStringLiteral("allDevices"));
  allDevices_->setStatusTip(
      tr("Spread a sweep's or an autotune's runs over every device of the backend, one run per "
         "device at a time; results come in the order asked"));
  auto* deviceRow = new QHBoxLayout;
  deviceRow->addWidget(device_, 1);
  deviceRow->addWidget(allDevices_);
  form->addRow(tr("&Device:"), deviceRow);
  form->addRow(deviceFacts_);
  connect(backend_, &QComboBox::currentIndexChanged, this, [this] {
    fillDevices();
    onChanged();
  });
  connect(device_, &QComboBox::currentIndexChanged, this, &ControlPanel::onChanged);
  connect(allDevices_, &QCheckBox::toggled, this, &ControlPanel::onChanged);
  return box;
}

QWidget* ControlPanel::buildKernelGroup() {
  QGroupBox* box = groupBox(tr("Kernel"));
  auto* layout = new QVBoxLayout(box);
  kernel_ = new QComboBox(box);
  for (const KernelInfo& info : catalogue()) {
    kernel_->addItem(text(info.displayName), text(info.id));
    kernel_->setItemData(kernel_->count() - 1, text(info.teaching), Qt::ToolTipRole);
  }
  kernel_->setObjectName(QStringLiteral("kernel"));
  // As wide as the panel, not as its longest name: the window fits a 1280 px projector.
  kernel_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  kernel_->setMinimumContentsLength(kKernelNameLetters);
  kernel_->setStatusTip(tr("The catalogue kernel to run"));
  kernelText_ = new QLabel(box);
  kernelText_->setWordWrap(true);
  kernelText_->setTextFormat(Qt::RichText);
  auto* params = new QWidget(box);
  paramsForm_ = new QFormLayout(params);
  paramsForm_->setContentsMargins(0, 0, 0, 0);
  paramProblem_ = new QLabel(box);
  paramProblem_->setWordWrap(true);
  layout->addWidget(kernel_);
  layout->addWidget(kernelText_);
  layout->addWidget(params);
  layout->addWidget(paramProblem_);
  tunedNote_ = new QLabel(box);
  tunedNote_->setObjectName(QStringLiteral("tunedNote"));
  tunedNote_->setWordWrap(true);
  layout->addWidget(tunedNote_);
  // A newly chosen kernel starts from the parameters autotuning remembered for this device.
  connect(kernel_, &QComboBox::currentIndexChanged, this, [this] {
    fillParams();
    fillTypes(ElementType(type_->currentData().toInt()));
    applyTuned();
    onChanged();
  });
  return box;
}

QWidget* ControlPanel::buildSizeGroup() {
  // Two columns and a short title: the panel fits a projector's three-column window.
  QGroupBox* box = groupBox(tr("Problem size"));
  box->setToolTip(tr("C (M\u00d7N) = A (M\u00d7K) \u00b7 B (K\u00d7N)"));
  auto* grid = new QGridLayout(box);
  square_ = new QCheckBox(tr("&Square (M = N = K)"), box);
  square_->setStatusTip(tr("Keep M, N and K equal"));
  auto* presets = new QComboBox(box);
  presets->addItem(tr("Preset\u2026"));
  for (int size : kPresetSizes) presets->addItem(QString::number(size), size);
  presets->setStatusTip(tr("Set M = N = K to a common size"));
  grid->addWidget(square_, 0, 0);
  grid->addWidget(presets, 0, 1);
  const char* names[] = {"M", "N", "K"};
  QSpinBox** spins[] = {&m_, &n_, &k_};
  for (int i = 0; i < 3; ++i) {
    auto* spin = new QSpinBox(box);
    spin->setRange(1, int(kMaxDimension));
    spin->setAccelerated(true);
    spin->setStatusTip(
        tr("Any size from 1 to %1; not a multiple of the tile is fine").arg(kMaxDimension));
    auto* label = new QLabel(QString::fromLatin1(names[i]), box);
    label->setBuddy(spin);
    auto* cell = new QHBoxLayout;
    cell->addWidget(label);
    cell->addWidget(spin, 1);
    grid->addLayout(cell, 1 + i / 2, i % 2);
    *spins[i] = spin;
    connect(spin, &QSpinBox::valueChanged, this, [this, spin](int value) {
      if (square_->isChecked() && spin == m_) {
        const QSignalBlocker blockN(n_), blockK(k_);
        n_->setValue(value);
        k_->setValue(value);
      }
      onChanged();
    });
  }
  type_ = new QComboBox(box);
  type_->setObjectName(QStringLiteral("type"));
  type_->setStatusTip(
      tr("Element type of A and B: fp32 on the FP32 cores, tf32, fp16 or bf16 on the tensor "
         "cores (C and the accumulation stay fp32)"));
  auto* typeLabel = new QLabel(tr("&Type"), box);
  typeLabel->setBuddy(type_);
  auto* typeCell = new QHBoxLayout;
  typeCell->addWidget(typeLabel);
  typeCell->addWidget(type_, 1);
  grid->addLayout(typeCell, 2, 1);
  grid->addWidget(hintLabel(tr("C (M\u00d7N) = A (M\u00d7K) \u00b7 B (K\u00d7N)")), 3, 0, 1, 2);
  sizeNote_ = hintLabel(QString());
  grid->addWidget(sizeNote_, 4, 0, 1, 2);
  // A kernel's best tiles differ between types: start from what autotuning remembered for this one.
  connect(type_, &QComboBox::currentIndexChanged, this, [this] {
    applyTuned();
    onChanged();
  });
  connect(square_, &QCheckBox::toggled, this, [this](bool square) {
    if (square) {
      const QSignalBlocker blockN(n_), blockK(k_);
      n_->setValue(m_->value());
      k_->setValue(m_->value());
    }
    onChanged();
  });
  connect(presets, &QComboBox::activated, this, [this, presets](int index) {
    if (index > 0) applyPreset(presets->itemData(index).toInt());
    presets->setCurrentIndex(0);
  });
  return box;
}

QWidget* ControlPanel::buildMeasureGroup() {
  QGroupBox* box = groupBox(tr("Measurement"));
  auto* grid = new QGridLayout(box);
  adaptive_ = new QRadioButton(tr("Until steady, at &most"), box);
  adaptive_->setStatusTip(
      tr("Repeat until the spread of the times is small or the time budget is spent"));
  budget_ = new QDoubleSpinBox(box);
  budget_->setRange(0.1, 600);
  budget_->setDecimals(1);
  budget_->setSingleStep(0.5);
  budget_->setSuffix(tr(" s"));
  fixed_ = new QRadioButton(tr("E&xactly"), box);
  fixed_->setStatusTip(tr("A fixed number of timed repetitions after the warm-up"));
  reps_ = new QSpinBox(box);
  reps_->setRange(1, 10000);
  reps_->setSuffix(tr(" times"));
  verify_ = new QCheckBox(tr("&Verify against the reference"), box);
  verify_->setStatusTip(
      tr("Compare C with a double-precision reference; unwritten outputs (NaN) never pass"));
  counters_ = new QCheckBox(tr("Read hardware cou&nters"), box);
  counters_->setToolTip(
      tr("After the timed runs, the GPU's profiler replays the kernel once and counts DRAM "
         "bytes, sectors per request, bank conflicts and occupancy, shown beside the model's "
         "figures (CUDA backend; the timings stay clean runs)"));
  counters_->setStatusTip(
      tr("Replay each kernel under the GPU's profiler for its hardware "
         "counters"));
  auto* mode = new QButtonGroup(box);
  mode->addButton(adaptive_);
  mode->addButton(fixed_);
  grid->addWidget(adaptive_, 0, 0);
  grid->addWidget(budget_, 0, 1);
  grid->addWidget(fixed_, 1, 0);
  grid->addWidget(reps_, 1, 1);
  grid->addWidget(verify_, 2, 0, 1, 2);
  grid->addWidget(counters_, 3, 0, 1, 2);
  connect(adaptive_, &QRadioButton::toggled, this, &ControlPanel::onChanged);
  connect(budget_, &QDoubleSpinBox::valueChanged, this, &ControlPanel::onChanged);
  connect(reps_, &QSpinBox::valueChanged, this, &ControlPanel::onChanged);
  connect(verify_, &QCheckBox::toggled, this, &ControlPanel::onChanged);
  connect(counters_, &QCheckBox::toggled, this, &ControlPanel::onChanged);
  return box;
}

void ControlPanel::setRunActions(QAction* run, QAction* autotune, QAction* cancel) {
  runButton_->setDefaultAction(run);
  autotuneButton_->setDefaultAction(autotune);
  cancelButton_->setDefaultAction(cancel);
  runButton_->show();
  autotuneButton_->show();
  cancelButton_->show();
}

std::string ControlPanel::deviceName() const {
  const desktop::Choices current = choices();
  for (const desktop::BackendSummary& summary : backends_) {
    if (summary.id != current.backend) continue;
    for (const DeviceInfo& device : summary.devices) {
      if (device.index == current.device) return device.name;
    }
  }
  return {};
}

std::optional<plan::TunedEntry> ControlPanel::tunedEntry(QString* problem) const {
  return desktop::rememberedTuning(choices(), deviceName(), plan::TunedStore::defaultPath(),
                                   problem);
}

void ControlPanel::applyTuned() {
  const std::optional<plan::TunedEntry> entry = tunedEntry(nullptr);
  if (!entry) return;
  for (const auto& [name, value] : entry->params) {
    if (const auto combo = params_.find(name); combo != params_.end()) {
      const QSignalBlocker blocker(combo->second);
      combo->second->setCurrentText(QString::number(value));
    }
  }
}

void ControlPanel::setBackends(const std::vector<desktop::BackendSummary>& backends) {
  desktop::Choices current = choices();
  // Before the devices were known the device list was empty: keep the device asked for.
  if (!backendsKnown_) current.device = wantedDevice_;
  // The chosen backend had no answer yet (the start, a run server connecting): this one decides.
  const auto before = std::find_if(backends_.begin(), backends_.end(),
                                   [&](const auto& s) { return s.id == current.backend; });
  const bool undecided = !backendsKnown_ || before == backends_.end() || before->connecting;
  backends_ = backends;
  backendsKnown_ = true;
  {
    // The run servers (Backend > GPU Server...) come and go: list what the worker has.
    const QSignalBlocker blocker(backend_);
    backend_->clear();
    for (const desktop::BackendSummary& summary : backends_) {
      backend_->addItem(text(summary.id), text(summary.id));
      if (!summary.available())
        backend_->setItemData(backend_->count() - 1, text(*summary.unavailableReason),
                              Qt::ToolTipRole);
    }
  }
  setChoices(current);
  if (undecided) makeReady();
}

QStringList ControlPanel::makeReady() {
  if (!backendsKnown_) return {};
  desktop::Choices current = choices();
  const QStringList changes = desktop::readyChoices(current, backends_);
  if (changes.isEmpty()) return changes;
  setChoices(current);
  emit readied(changes.join(QStringLiteral("; ")));
  return changes;
}

void ControlPanel::fillDevices() {
  const QSignalBlocker blocker(device_);
  device_->clear();
  const std::string id = backend_->currentData().toString().toStdString();
  const auto summary = std::find_if(backends_.begin(), backends_.end(),
                                    [&](const desktop::BackendSummary& s) { return s.id == id; });
  if (summary == backends_.end() || !summary->available()) {
    device_->addItem(backendsKnown_ ? tr("none") : tr("looking\u2026"), -1);
    device_->setEnabled(false);
    allDevices_->setEnabled(false);
    return;
  }
  for (const DeviceInfo& device : summary->devices) {
    device_->addItem(QStringLiteral("%1: %2").arg(device.index).arg(text(device.name)),
                     device.index);
  }
  device_->setEnabled(device_->count() > 1);
  allDevices_->setEnabled(device_->count() > 1);
}

void ControlPanel::fillParams() {
  while (paramsForm_->rowCount() > 0) paramsForm_->removeRow(0);
  params_.clear();
  const KernelInfo* info = findKernel(kernel_->currentData().toString().toStdString());
  if (!info) return;
  kernelText_->setText(QStringLiteral("%1<br><i>%2</i>")
                           .arg(text(info->teaching).toHtmlEscaped(),
                                tr("From: %1").arg(text(info->seed).toHtmlEscaped())));
  for (const ParamSpec& spec : info->params) {
    auto* combo = new QComboBox;
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->setValidator(new QIntValidator(0, kLargestTypedParam, combo));
    QStringList valid;
    for (int value : spec.allowed) {
      combo->addItem(QString::number(value));
      valid << QString::number(value);
    }
    combo->setCurrentText(QString::number(spec.defaultValue));
    combo->setToolTip(
        tr("%1\nValid: %2").arg(text(spec.description), valid.join(QStringLiteral(", "))));
    combo->setStatusTip(text(spec.description));
    connect(combo, &QComboBox::currentTextChanged, this, &ControlPanel::onChanged);
    paramsForm_->addRow(text(spec.name) + QLatin1Char(':'), combo);
    params_[spec.name] = combo;
  }
}

void ControlPanel::fillTypes(ElementType wanted) {
  const QSignalBlocker blocker(type_);
  type_->clear();
  const KernelInfo* info = findKernel(kernel_->currentData().toString().toStdString());
  if (!info) return;
  // In the kernel's order, so that its default comes first.
  for (const ElementType type : info->types) {
    type_->addItem(QLatin1String(toString(type)), int(type));
    type_->setItemData(type_->count() - 1,
                       tr("%1: %2 bytes per element of A and B, %3 explicit mantissa bits")
                           .arg(QLatin1String(toString(type)))
                           .arg(storageBytes(type))
                           .arg(mantissaBits(type)),
                       Qt::ToolTipRole);
  }
  type_->setCurrentIndex(std::max(type_->findData(int(wanted)), 0));
  QStringList missing;
  for (const ElementType type : kElementTypes)
    if (const auto why = elementRefusal(*info, type)) missing << text(*why);
  type_->setToolTip(missing.isEmpty()
                        ? tr("The kernel multiplies every type")
                        : tr("Not offered:\n%1").arg(missing.join(QLatin1Char('\n'))));
}

void ControlPanel::applyPreset(int size) {
  updating_ = true;
  square_->setChecked(true);
  m_->setValue(size);
  n_->setValue(size);
  k_->setValue(size);
  updating_ = false;
  onChanged();
}

desktop::Choices ControlPanel::choices() const {
  desktop::Choices choices;
  choices.backend = backend_->currentData().toString().toStdString();
  choices.device = std::max(device_->currentData().toInt(), 0);
  choices.allDevices = allDevices_->isChecked();
  choices.kernel = kernel_->currentData().toString().toStdString();
  for (const auto& [name, combo] : params_) {
    // A value that is not a number becomes 0, which every parameter refuses with its reason.
    choices.params[name] = combo->currentText().toInt();
  }
  choices.shape = {m_->value(), n_->value(), k_->value()};
  if (type_->count() > 0) choices.element = ElementType(type_->currentData().toInt());
  choices.square = square_->isChecked();
  if (fixed_->isChecked()) choices.fixedReps = reps_->value();
  choices.budgetSeconds = budget_->value();
  choices.verify = verify_->isChecked();
  choices.counters = counters_->isChecked();
  sweepBox_->readInto(choices);
  return choices;
}

void ControlPanel::setChoices(const desktop::Choices& choices) {
  updating_ = true;
  wantedDevice_ = choices.device;
  {
    const QSignalBlocker blockBackend(backend_), blockKernel(kernel_), blockType(type_),
        blockAll(allDevices_);
    allDevices_->setChecked(choices.allDevices);
    int backend = backend_->findData(text(choices.backend));
    // A run server's backend chosen last time is listed before its server has answered.
    if (backend < 0 && !backendsKnown_ && !choices.backend.empty()) {
      backend_->addItem(text(choices.backend), text(choices.backend));
      backend = backend_->count() - 1;
    }
    if (backend >= 0) backend_->setCurrentIndex(backend);
    fillDevices();
    const int device = device_->findData(choices.device);
    if (device >= 0) device_->setCurrentIndex(device);

    const int kernel = kernel_->findData(text(choices.kernel));
    if (kernel >= 0) kernel_->setCurrentIndex(kernel);
    fillParams();
    fillTypes(choices.element);
    for (const auto& [name, value] : choices.params) {
      if (const auto combo = params_.find(name); combo != params_.end()) {
        combo->second->setCurrentText(QString::number(value));
      }
    }
  }
  square_->setChecked(choices.square);
  m_->setValue(int(std::clamp<std::int64_t>(choices.shape.m, 1, kMaxDimension)));
  n_->setValue(int(std::clamp<std::int64_t>(choices.shape.n, 1, kMaxDimension)));
  k_->setValue(int(std::clamp<std::int64_t>(choices.shape.k, 1, kMaxDimension)));
  (choices.fixedReps ? fixed_ : adaptive_)->setChecked(true);
  reps_->setValue(choices.fixedReps.value_or(kDefaultFixedReps));
  budget_->setValue(choices.budgetSeconds);
  verify_->setChecked(choices.verify);
  counters_->setChecked(choices.counters);
  sweepBox_->show(choices);
  updating_ = false;
  onChanged();
}

std::vector<desktop::RunJob> ControlPanel::plannedJobs(QString* problem) const {
  return plannedJobs(choices(), problem);
}

std::vector<desktop::RunJob> ControlPanel::plannedJobs(const desktop::Choices& current,
                                                       QString* problem) const {
  std::vector<desktop::RunJob> jobs;
  try {
    jobs = desktop::planJobs(
        current, desktop::sweepAxes(current), {},
        current.sweep == desktop::SweepKind::Kernel
            ? desktop::tunedForComparison(current, deviceName(), plan::TunedStore::defaultPath())
            : std::map<std::string, Params>{});
  } catch (const Error& error) {
    if (problem) *problem = QString::fromStdString(error.what());
    return {};
  }
  const auto reason = backendsKnown_ ? desktop::backendRefusal(backends_, jobs)
                                     : tr("Looking for backends and devices\u2026");
  if (reason) {
    if (problem) *problem = *reason;
    return {};
  }
  return jobs;
}

void ControlPanel::setProblemText(QLabel* label, const QString& content, bool problem) {
  label->setText(content);
  label->setVisible(!content.isEmpty());
  QPalette colors = palette();
  if (problem) colors.setColor(QPalette::WindowText, QColor(0xd0, 0x3a, 0x2f));
  label->setPalette(colors);
}

void ControlPanel::updateNotes() {
  sweepBox_->setKernel(findKernel(kernel_->currentData().toString().toStdString()));
  const desktop::Choices current = choices();
  n_->setEnabled(!current.square);
  k_->setEnabled(!current.square);
  // A tile sweep picks the tile itself.
  for (const auto& [name, combo] : params_) {
    combo->setEnabled(current.sweep != desktop::SweepKind::Tile || name != "tile");
  }

  // Device facts, or why the backend cannot be used.
  const auto summary =
      std::find_if(backends_.begin(), backends_.end(),
                   [&](const desktop::BackendSummary& s) { return s.id == current.backend; });
  if (!backendsKnown_) {
    setProblemText(deviceFacts_, tr("Looking for devices\u2026"), false);
  } else if (summary == backends_.end() || !summary->available()) {
    setProblemText(deviceFacts_,
                   summary == backends_.end() ? tr("Unknown backend")
                                              : text(*summary->unavailableReason).toHtmlEscaped(),
                   true);
  } else {
    const auto device =
        std::find_if(summary->devices.begin(), summary->devices.end(),
                     [&](const DeviceInfo& d) { return d.index == current.device; });
    setProblemText(
        deviceFacts_,
        desktop::deviceFactsTable(device == summary->devices.end() ? DeviceInfo{} : *device),
        false);
  }

  const auto paramReason = refusal({current.kernel, current.params});
  setProblemText(paramProblem_, paramReason ? text(*paramReason) : QString(), true);
  QString tunedProblem;
  if (const auto entry = tunedEntry(&tunedProblem)) {
    const bool inUse = !paramReason && resolve({entry->kernel, entry->params}) ==
                                           resolve({current.kernel, current.params});
    setProblemText(tunedNote_,
                   tr("Tuned on %1 at %2: %3, %4 GFLOP/s%5")
                       .arg(text(entry->device), desktop::formatShape(entry->shape),
                            text(formatParams({entry->kernel, entry->params})),
                            desktop::formatRate(entry->gflops),
                            inUse ? tr(" (in use)") : tr(" (not in use: Autotune or pick them)")),
                   false);
  } else {
    setProblemText(tunedNote_, tunedProblem, !tunedProblem.isEmpty());
  }

  const Shape& shape = current.shape;
  sizeNote_->setText(
      tr("A, B and C take %1; %2 multiply-adds.")
          .arg(desktop::formatBytes(double(problemBytes(shape, current.element))),
               desktop::formatCount(double(shape.m) * double(shape.n) * double(shape.k))));

  QString problem;
  const std::vector<desktop::RunJob> jobs = plannedJobs(&problem);
  if (jobs.empty()) {
    setProblemText(plan_, problem, true);
  } else {
    setProblemText(plan_,
                   jobs.size() == 1
                       ? tr("Run: 1 run.")
                       : tr("Run: %1 runs, queued one after another.").arg(jobs.size()),
                   false);
  }
}

void ControlPanel::onChanged() {
  if (updating_) return;
  updateNotes();
  emit choicesChanged();
  const desktop::Choices current = choices();
  if (!refusal({current.kernel, current.params})) {
    try {
      validateShape(current.shape);
      emit configurationChanged(resolve({current.kernel, current.params}), current.shape,
                                current.element);
    } catch (const Error&) {
      // An invalid shape has no diagram; the plan line already says why.
    }
  }
}

}  // namespace tilescope::ui
