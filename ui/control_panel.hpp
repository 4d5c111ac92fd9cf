// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The control panel: backend and device with their facts, kernel with its teaching text,
// parameters (only valid values offered; a typed invalid one says why), M/N/K and the element
// type (only the types the kernel multiplies offered), how to measure, and what to sweep. It shows
// state and says what it would run; the window does the running.
#include <QWidget>
#include <map>
#include <vector>

#include "choices.hpp"
#include "tilescope/plan/tuned_store.hpp"

class QAbstractButton;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QRadioButton;
class QSpinBox;
class QStackedWidget;
class QToolButton;

namespace tilescope::ui {

class SweepBox;

class ControlPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ControlPanel(QWidget* parent = nullptr);

  // What the worker found; until then the panel says it is still looking.
  void setBackends(const std::vector<desktop::BackendSummary>& backends);
  void setChoices(const desktop::Choices& choices);
  desktop::Choices choices() const;
  // The runs the current choices ask for; empty with the reason in `problem` when they cannot
  // run as chosen.
  std::vector<desktop::RunJob> plannedJobs(QString* problem) const;
  // The same for `choices` on the backends the panel knows.
  std::vector<desktop::RunJob> plannedJobs(const desktop::Choices& choices, QString* problem) const;
  // Shows buttons for the window's Run, Autotune and Cancel actions at the bottom of the panel.
  void setRunActions(QAction* run, QAction* autotune, QAction* cancel);
  // Makes the choices runnable as the backends are now (desktop::readyChoices) and says what it
  // changed through readied(); when the backends first become known, and when a run server's
  // answer comes, the panel does so itself.
  QStringList makeReady();
  // The name of the chosen device; empty until the backends are known.
  std::string deviceName() const;

 signals:
  void choicesChanged();
  // makeReady() changed the choices: what, in a sentence.
  void readied(const QString& changes);
  // The chosen kernel, shape and type, whenever they change and are valid (for the diagrams).
  void configurationChanged(const tilescope::KernelConfig& kernel, const tilescope::Shape& shape,
                            tilescope::ElementType element);

 private:
  QWidget* buildBackendGroup();
  QWidget* buildKernelGroup();
  QWidget* buildSizeGroup();
  QWidget* buildMeasureGroup();
  void fillDevices();
  void fillParams();
  // Offers the types the chosen kernel multiplies; `wanted` stays chosen where it is one of them,
  // else the kernel's first type is.
  void fillTypes(ElementType wanted);
  void applyPreset(int size);
  void onChanged();
  void updateNotes();
  void setProblemText(QLabel* label, const QString& text, bool problem);
  // What autotuning remembered for the chosen backend, device and kernel (still valid), or
  // nullopt; a tuned.json that cannot be read puts its reason in `problem`.
  std::optional<plan::TunedEntry> tunedEntry(QString* problem) const;
  // Sets the parameter boxes to the remembered parameters, when there are any.
  void applyTuned();

  std::vector<desktop::BackendSummary> backends_;
  bool backendsKnown_ = false;
  int wantedDevice_ = 0;
  bool updating_ = false;  // set while the panel fills itself, so it emits one change at the end

  QComboBox* backend_ = nullptr;
  QComboBox* device_ = nullptr;
  QCheckBox* allDevices_ = nullptr;  // "All GPUs": spread sweeps and autotunes over the devices
  QLabel* deviceFacts_ = nullptr;
  QComboBox* kernel_ = nullptr;
  QLabel* kernelText_ = nullptr;
  QFormLayout* paramsForm_ = nullptr;
  std::map<std::string, QComboBox*> params_;
  QLabel* paramProblem_ = nullptr;
  QLabel* tunedNote_ = nullptr;
  QCheckBox* square_ = nullptr;
  QSpinBox* m_ = nullptr;
  QSpinBox* n_ = nullptr;
  QSpinBox* k_ = nullptr;
  QComboBox* type_ = nullptr;
  QLabel* sizeNote_ = nullptr;
  QRadioButton* adaptive_ = nullptr;
  QRadioButton* fixed_ = nullptr;
  QDoubleSpinBox* budget_ = nullptr;
  QSpinBox* reps_ = nullptr;
  QCheckBox* verify_ = nullptr;
  QCheckBox* counters_ = nullptr;
  SweepBox* sweepBox_ = nullptr;
  QLabel* plan_ = nullptr;
  QToolButton* runButton_ = nullptr;
  QToolButton* autotuneButton_ = nullptr;
  QToolButton* cancelButton_ = nullptr;
};

}  // namespace tilescope::ui
