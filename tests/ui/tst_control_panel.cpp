// SPDX-License-Identifier: GPL-3.0-or-later
// The control panel's element type: the picker offers exactly the types the chosen kernel
// multiplies (the tooltip says why the others are missing), keeps a chosen type the next kernel
// also multiplies, and the requests, the size note and the diagrams' configuration carry it;
// autotuned parameters are remembered per type.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QStandardItemModel>
#include <QtTest>

#include "control_panel.hpp"
#include "tilescope/plan/tuned_store.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::ControlPanel;

Q_DECLARE_METATYPE(tilescope::KernelConfig)
Q_DECLARE_METATYPE(tilescope::Shape)
Q_DECLARE_METATYPE(tilescope::ElementType)

namespace {

const char* const kGpu = "Test GPU";

// A CUDA backend with one device, as the worker would report it on a GPU machine.
std::vector<BackendSummary> withGpu() {
  return {{"cpu", std::nullopt, {{0, "Test CPU", {}}}, {}},
          {"cuda", std::nullopt, {{0, kGpu, {}}}, {}}};
}

Choices onGpu(const std::string& kernel, ElementType element) {
  Choices choices;
  choices.backend = "cuda";
  choices.kernel = kernel;
  choices.element = element;
  return choices;
}

QComboBox* typePicker(const ControlPanel& panel) {
  return panel.findChild<QComboBox*>(QStringLiteral("type"));
}

QComboBox* kernelPicker(const ControlPanel& panel) {
  return panel.findChild<QComboBox*>(QStringLiteral("kernel"));
}

std::vector<ElementType> offered(const ControlPanel& panel) {
  std::vector<ElementType> types;
  const QComboBox* picker = typePicker(panel);
  for (int i = 0; i < picker->count(); ++i)
    types.push_back(ElementType(picker->itemData(i).toInt()));
  return types;
}

QString sizeNote(const ControlPanel& panel) {
  for (const QLabel* label : panel.findChildren<QLabel*>())
    if (label->text().startsWith(QStringLiteral("A, B and C take"))) return label->text();
  return {};
}

}  // namespace

class TestControlPanel : public QObject {
  Q_OBJECT

  QTemporaryDir config_;

 private slots:
  void allGpusIsOfferedForABackendOfSeveralDevicesAndPlansSweepsOnAny() {
    ControlPanel panel;
    std::vector<BackendSummary> backends = withGpu();
    backends[1].devices.push_back({1, kGpu, {}});
    panel.setBackends(backends);
    auto* allGpus = panel.findChild<QCheckBox*>(QStringLiteral("allDevices"));
    QVERIFY(allGpus);
    Choices choices = onGpu("shared-tiled", ElementType::F32);
    choices.sweep = SweepKind::Size;
    choices.sizes = "64,128";
    panel.setChoices(choices);
    QVERIFY(allGpus->isEnabled());
    QVERIFY(!allGpus->isChecked());
    allGpus->setChecked(true);
    QVERIFY(panel.choices().allDevices);
    QString problem;
    const std::vector<RunJob> jobs = panel.plannedJobs(&problem);
    QCOMPARE(jobs.size(), std::size_t(2));
    for (const RunJob& job : jobs) QVERIFY(job.anyDevice);
    // The CPU backend has one device: nothing to spread over.
    choices.backend = "cpu";
    panel.setChoices(choices);
    QVERIFY(!allGpus->isEnabled());
  }

  void initTestCase() {
    QVERIFY(config_.isValid());
    // The panel reads remembered parameters from tuned.json: never the user's.
    qputenv("XDG_CONFIG_HOME", config_.path().toUtf8());
    qRegisterMetaType<KernelConfig>();
    qRegisterMetaType<Shape>();
    qRegisterMetaType<ElementType>();
  }

  void thePickerOffersExactlyTheKernelsTypes() {
    ControlPanel panel;
    for (const KernelInfo& info : catalogue()) {
      panel.setChoices(onGpu(info.id, ElementType::F32));
      QCOMPARE(offered(panel), info.types);
      // fp32 where the kernel multiplies it, else the kernel's first type.
      QCOMPARE(panel.choices().element,
               elementRefusal(info, ElementType::F32) ? info.types.front() : ElementType::F32);
      for (const ElementType type : kElementTypes) {
        if (const auto why = elementRefusal(info, type))
          QVERIFY2(typePicker(panel)->toolTip().contains(QString::fromStdString(*why)),
                   qPrintable(typePicker(panel)->toolTip()));
      }
    }
    panel.setChoices(onGpu("tensor-mma", ElementType::F32));
    QCOMPARE(offered(panel), (std::vector{ElementType::F16, ElementType::BF16, ElementType::TF32}));
    QCOMPARE(panel.choices().element, ElementType::F16);
  }

  void aTypeTheNextKernelMultipliesStaysChosen() {
    ControlPanel panel;
    panel.setChoices(onGpu("library", ElementType::BF16));
    QCOMPARE(typePicker(panel)->currentText(), QStringLiteral("bf16"));
    QComboBox* kernel = kernelPicker(panel);
    kernel->setCurrentIndex(kernel->findData(QStringLiteral("tensor-mma")));
    QCOMPARE(panel.choices().element, ElementType::BF16);
    kernel->setCurrentIndex(kernel->findData(QStringLiteral("naive")));
    QCOMPARE(panel.choices().element, ElementType::F32);
    kernel->setCurrentIndex(kernel->findData(QStringLiteral("tensor-mma")));
    QCOMPARE(panel.choices().element, ElementType::F16);
  }

  void theRequestAndTheDiagramsCarryTheChosenType() {
    ControlPanel panel;
    panel.setBackends(withGpu());
    panel.setChoices(onGpu("tensor-mma", ElementType::F16));
    const QString fp16Note = sizeNote(panel);
    QSignalSpy configurations(&panel, &ControlPanel::configurationChanged);
    QComboBox* type = typePicker(panel);
    type->setCurrentIndex(type->findText(QStringLiteral("tf32")));
    QString problem;
    const std::vector<RunJob> jobs = panel.plannedJobs(&problem);
    QCOMPARE(jobs.size(), std::size_t(1));
    QCOMPARE(jobs.front().request.element, ElementType::TF32);
    QCOMPARE(jobs.front().request.kernel.kernel, std::string("tensor-mma"));
    QVERIFY(!configurations.isEmpty());
    QCOMPARE(configurations.last().at(2).value<ElementType>(), ElementType::TF32);
    // 512^3: A and B take 1 MiB each in tf32, 512 KiB in fp16; C 1 MiB in both.
    QVERIFY2(sizeNote(panel).contains(QStringLiteral("3.0 MiB")), qPrintable(sizeNote(panel)));
    QVERIFY2(fp16Note.contains(QStringLiteral("2.0 MiB")), qPrintable(fp16Note));
  }

  // The opt-in for hardware counters reaches every planned run's request, and is remembered.
  void theCountersCheckboxAsksEveryRunForCounters() {
    ControlPanel panel;
    panel.setBackends(withGpu());
    panel.setChoices(onGpu("naive", ElementType::F32));
    QCheckBox* counters = nullptr;
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
      if (box->text().remove(QLatin1Char('&')) == QStringLiteral("Read hardware counters"))
        counters = box;
    QVERIFY(counters);
    QVERIFY(!counters->isChecked());
    QString problem;
    QVERIFY(!panel.plannedJobs(&problem).front().request.collectCounters);
    counters->setChecked(true);
    QVERIFY(panel.choices().counters);
    const std::vector<RunJob> jobs = panel.plannedJobs(&problem);
    QVERIFY(!jobs.empty());
    for (const RunJob& job : jobs) QVERIFY(job.request.collectCounters);
  }

  void aComparisonInATypeRefusesKernelsThatDoNotMultiplyIt() {
    ControlPanel panel;
    panel.setBackends(withGpu());
    Choices choices = onGpu("tensor-mma", ElementType::BF16);
    choices.sweep = SweepKind::Kernel;
    choices.kernels = {"tensor-mma", "library"};
    panel.setChoices(choices);
    QString problem;
    const std::vector<RunJob> jobs = panel.plannedJobs(&problem);
    QCOMPARE(jobs.size(), std::size_t(2));
    QCOMPARE(jobs.back().request.element, ElementType::BF16);
    choices.kernels = {"naive", "library"};
    panel.setChoices(choices);
    QVERIFY(panel.plannedJobs(&problem).empty());
    QVERIFY2(problem.startsWith(QStringLiteral("'naive' multiplies fp32 only; bf16 is multiplied "
                                               "by tensor-mma, tensor-wgmma, tensor-tma, "
                                               "tensor-persistent, library")),
             qPrintable(problem));
  }

  // What the backend refuses for a type whatever the kernel (the CPU: all but fp32) is said
  // before anything is queued.
  void aBackendsTypeRefusalIsShown() {
    ControlPanel panel;
    std::vector<BackendSummary> backends = withGpu();
    backends.front().elementRefusals[ElementType::F16] = "the CPU backend multiplies fp32 only";
    panel.setBackends(backends);
    Choices choices = onGpu("library", ElementType::F16);
    choices.backend = "cpu";
    panel.setChoices(choices);
    QString problem;
    QVERIFY(panel.plannedJobs(&problem).empty());
    QCOMPARE(problem, QStringLiteral("the CPU backend multiplies fp32 only"));
    choices.element = ElementType::F32;
    panel.setChoices(choices);
    QCOMPARE(panel.plannedJobs(&problem).size(), std::size_t(1));
  }

  // tensor-mma's best tiles in fp16 and in tf32 are remembered apart; picking a type picks its own.
  void rememberedParametersFollowTheType() {
    const Params fp16Best = resolve({"tensor-mma", {{"stages", 4}}}).params();
    const Params tf32Best =
        resolve({"tensor-mma", {{"BM", 64}, {"BN", 128}, {"WM", 32}, {"WN", 32}}}).params();
    QVERIFY(fp16Best != tf32Best);
    plan::TunedStore store(plan::TunedStore::defaultPath());
    store.remember(
        {"cuda", kGpu, "tensor-mma", fp16Best, {4096, 4096, 4096}, 500000, ElementType::F16});
    store.remember(
        {"cuda", kGpu, "tensor-mma", tf32Best, {4096, 4096, 4096}, 250000, ElementType::TF32});
    store.save();

    ControlPanel panel;
    panel.setBackends(withGpu());
    panel.setChoices(onGpu("naive", ElementType::F32));
    QComboBox* kernel = kernelPicker(panel);
    kernel->setCurrentIndex(kernel->findData(QStringLiteral("tensor-mma")));
    QCOMPARE(panel.choices().element, ElementType::F16);
    QCOMPARE(panel.choices().params, fp16Best);
    QComboBox* type = typePicker(panel);
    type->setCurrentIndex(type->findText(QStringLiteral("tf32")));
    QCOMPARE(panel.choices().params, tf32Best);
    const auto* note = panel.findChild<QLabel*>(QStringLiteral("tunedNote"));
    QVERIFY2(note->text().contains(QStringLiteral("(in use)")), qPrintable(note->text()));
  }

  // A tile sweep only for kernels that have a tile.
  void theTileSweepIsOfferedOnlyWithATile() {
    ControlPanel panel;
    auto* sweep = panel.findChild<QComboBox*>(QStringLiteral("sweep"));
    QVERIFY(sweep);
    auto* items = qobject_cast<QStandardItemModel*>(sweep->model());
    QStandardItem* tileSweep = items->item(sweep->findData(int(SweepKind::Tile)));
    Choices choices = panel.choices();
    choices.kernel = "shared-tiled";
    choices.sweep = SweepKind::Tile;
    panel.setChoices(choices);
    QVERIFY(tileSweep->isEnabled());
    QCOMPARE(panel.choices().sweep, SweepKind::Tile);
    for (const char* kernel : {"serial", "blocktile-2d", "library"}) {
      choices.kernel = kernel;
      panel.setChoices(choices);
      QVERIFY2(!tileSweep->isEnabled(), kernel);
      QVERIFY(tileSweep->toolTip().contains(QStringLiteral("no tile")));
      // A tile sweep asked for such a kernel becomes a single run.
      QCOMPARE(panel.choices().sweep, SweepKind::Single);
    }
    choices.kernel = "register-tiled";
    panel.setChoices(choices);
    QVERIFY(tileSweep->isEnabled());
    QCOMPARE(panel.choices().sweep, SweepKind::Tile);
  }
};

TILESCOPE_UI_SUITE(TestControlPanel, Gui)
#include "tst_control_panel.moc"
