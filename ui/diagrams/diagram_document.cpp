// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagram_document.hpp"

#include <algorithm>
#include <sstream>

#include "diagram_model.hpp"
#include "tilescope/error.hpp"

namespace tilescope::ui {

namespace {

// A comparison keeps the user's tile (or block tile) where the other kernel accepts it (a user
// kernel's TILE is a seed kernel's tile), and falls back to the other kernel's defaults where
// the kept values do not fit together.
KernelConfig comparisonConfig(const QString& kernel, const KernelConfig& current) {
  KernelConfig other{kernel.toStdString(), {}};
  const KernelInfo& info = kernelInfo(other.kernel);
  for (const auto& [given, value] : current.params) {
    const std::string name = given == "TILE" ? "tile" : given;
    const ParamSpec* spec = info.param(name);
    if (spec && std::ranges::find(spec->allowed, value) != spec->allowed.end())
      other.params[name] = value;
  }
  if (refusal(other)) other.params.clear();
  return resolve(other);
}

}  // namespace

QString diagramKindName(DiagramKind kind) {
  switch (kind) {
    case DiagramKind::Matrix:
      return QStringLiteral("matrix");
    case DiagramKind::KStep:
      return QStringLiteral("kstep");
    case DiagramKind::Block:
      return QStringLiteral("block");
    case DiagramKind::Access:
      return QStringLiteral("access");
    case DiagramKind::Timeline:
      return QStringLiteral("timeline");
  }
  return {};
}

std::optional<DiagramKind> diagramKindFromName(const QString& name) {
  for (const DiagramKind kind : kDiagramKinds)
    if (diagramKindName(kind) == name) return kind;
  return std::nullopt;
}

bool DiagramSelection::operator==(const DiagramSelection& o) const {
  return block.x == o.block.x && block.y == o.block.y && step == o.step && warp == o.warp &&
         access == o.access && instr == o.instr && innerK == o.innerK && readSlot == o.readSlot &&
         sharedWrite == o.sharedWrite && pad == o.pad && compareKernel == o.compareKernel;
}

DiagramDocument::DiagramDocument(QObject* parent) : QObject(parent) {}

void DiagramDocument::setConfiguration(const KernelConfig& config, const Shape& shape,
                                       std::optional<ElementType> element) {
  config_ = config;
  shape_ = shape;
  mapping_.reset();
  traffic_.reset();
  unavailable_.clear();
  try {
    if (const KernelInfo* info = findKernel(config.kernel); info && !info->hasMapping) {
      unavailable_ = QStringLiteral("mapping not visible: a closed library");
    } else {
      config_ = resolve(config);
      mapping_.emplace(config_, shape, element);
    }
  } catch (const Error& error) {
    unavailable_ = QString::fromStdString(error.what());
  }
  rebuildCompare();
  selection_ = clamped(selection_);
  emit configurationChanged();
  emit selectionChanged();
}

void DiagramDocument::setTrace(const KernelTrace& trace) {
  config_ = trace.kernel;
  shape_ = trace.shape;
  mapping_.reset();
  traffic_.reset();
  unavailable_.clear();
  try {
    mapping_.emplace(trace);
  } catch (const Error& error) {
    unavailable_ = QString::fromStdString(error.what());
  }
  DiagramSelection selection = selection_;
  selection.block = trace.tracedBlock;
  selection.compareKernel.clear();
  // The catalogue kernel the source says it follows: the first word of one of its opening
  // comment lines (a template's second: "// naive (seeds 001a, 003a): ...").
  std::istringstream source(trace.kernel.source.value_or(""));
  for (std::string line; std::getline(source, line) && line.rfind("// ", 0) == 0;) {
    const std::string named = line.substr(3, line.find_first_of(" (", 3) - 3);
    if (const KernelInfo* info = findKernel(named); info && info->hasMapping) {
      selection.compareKernel = QString::fromStdString(named);
      break;
    }
  }
  // The warp of the thread the sanitizer found at fault (the trace is of its block).
  if (const SanitizerFinding* finding = sanitizerFinding())
    selection.warp = mapping_->threadRef(finding->block, finding->thread).warp;
  selection_ = selection;
  rebuildCompare();
  selection_ = clamped(selection_);
  emit configurationChanged();
  emit selectionChanged();
}

const SanitizerFinding* DiagramDocument::sanitizerFinding() const {
  const KernelTrace* trace = mapping_ ? mapping_->trace() : nullptr;
  if (!trace) return nullptr;
  // The launch stops at the first finding, which a block running beside the traced one may make.
  const auto found = std::find_if(
      trace->sanitizer.findings.begin(), trace->sanitizer.findings.end(), [&](const auto& f) {
        return f.block.x == trace->tracedBlock.x && f.block.y == trace->tracedBlock.y;
      });
  return found == trace->sanitizer.findings.end() ? nullptr : &*found;
}

QString DiagramDocument::configurationLabel() const {
  QString label = QString::fromStdString(config_.kernel);
  const std::string params = formatParams(config_);
  if (!params.empty()) label += QStringLiteral(" (%1)").arg(QString::fromStdString(params));
  if (mapping_ && mapping_->element() != ElementType::F32)
    label += QStringLiteral(" in %1").arg(QLatin1String(toString(mapping_->element())));
  if (const KernelTrace* trace = mapping_ ? mapping_->trace() : nullptr)
    label += QStringLiteral(", traced on %1").arg(QString::fromStdString(trace->device));
  return label;
}

void DiagramDocument::setSelection(DiagramSelection selection) {
  const bool compareChanged = selection.compareKernel != selection_.compareKernel;
  selection = clamped(selection);
  if (selection == selection_) return;
  selection_ = selection;
  if (compareChanged) rebuildCompare();
  emit selectionChanged();
}

const KernelTraffic* DiagramDocument::traffic() const {
  if (!mapping_) return nullptr;
  if (!traffic_) traffic_ = kernelTraffic(*mapping_);
  return &*traffic_;
}

void DiagramDocument::setFontScale(double scale) {
  if (scale == fontScale_) return;
  fontScale_ = scale;
  emit appearanceChanged();
}

void DiagramDocument::setPresenting(bool on) {
  if (on == presenting_) return;
  presenting_ = on;
  emit appearanceChanged();
}

DiagramSelection clampSelection(const Mapping& m, DiagramSelection s) {
  s.block.x = std::clamp(s.block.x, 0, m.grid().x - 1);
  s.block.y = std::clamp(s.block.y, 0, m.grid().y - 1);
  s.step = std::clamp<std::int64_t>(s.step, 0, m.kSteps() - 1);
  s.warp = std::clamp(s.warp, 0, m.warpsPerBlock() - 1);
  s.instr = std::clamp<std::int64_t>(s.instr, 0, m.instructionsPerStep(s.access) - 1);
  const int stride = sharedReadStride(m);
  s.innerK = std::clamp(s.innerK, 0, m.kDepth() - 1) / stride * stride;
  // The staged operand with more reads (or writes) bounds it; a view of the other clamps it
  // again. Writes are shown only where the Mapping knows them.
  s.sharedWrite = s.sharedWrite && mostSharedWrites(m) > 0;
  s.readSlot = std::clamp(
      s.readSlot, 0, std::max(s.sharedWrite ? mostSharedWrites(m) : mostSharedReads(m), 1) - 1);
  // A traced kernel's tiles lie as its code laid them out: no pad to add.
  s.pad = m.trace() ? 0 : std::clamp(s.pad, 0, kSharedBanks);
  const KernelInfo* other = findKernel(s.compareKernel.toStdString());
  if (!other || !other->hasMapping) s.compareKernel.clear();
  return s;
}

DiagramSelection DiagramDocument::clamped(const DiagramSelection& selection) const {
  return mapping_ ? clampSelection(*mapping_, selection) : selection;
}

void DiagramDocument::rebuildCompare() {
  compare_.reset();
  if (!mapping_ || selection_.compareKernel.isEmpty()) return;
  try {
    // The other kernel in this type where it multiplies it, else in its own default type.
    const KernelConfig other = comparisonConfig(selection_.compareKernel, config_);
    const KernelInfo& info = kernelInfo(other.kernel);
    const ElementType element = mapping_->element();
    compare_.emplace(other, shape_, elementRefusal(info, element) ? info.types.front() : element);
  } catch (const Error&) {
    // The other kernel cannot take this shape (e.g. too many blocks): nothing to compare.
  }
}

void DiagramDocument::setCountedRuns(std::vector<RunResult> runs) {
  std::erase_if(runs, [](const RunResult& run) { return !run.counters; });
  if (runs.empty() && counted_.empty()) return;
  counted_ = std::move(runs);
  emit appearanceChanged();
}

const RunResult* DiagramDocument::countedRun(const Mapping& mapping) const {
  // Both configurations are resolved: every parameter present.
  for (auto run = counted_.rbegin(); run != counted_.rend(); ++run) {
    if (run->shape == mapping.shape() && run->element == mapping.element() &&
        run->kernel == mapping.config())
      return &*run;
  }
  return nullptr;
}

}  // namespace tilescope::ui
