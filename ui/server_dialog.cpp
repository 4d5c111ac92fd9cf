// SPDX-License-Identifier: GPL-3.0-or-later
#include "server_dialog.hpp"
#include "formatting.hpp"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <thread>

namespace tilescope::ui {
namespace {

using desktop::text;

enum Preset { Ssh, Slurm, Custom };

}  // namespace

ServerDialog::ServerDialog(const desktop::ServerSettings& settings, QWidget* parent)
    : QDialog(parent), settings_(settings) {
  setWindowTitle(tr("GPU Servers"));
  setObjectName(QStringLiteral("serverDialog"));
  auto* layout = new QVBoxLayout(this);

  auto* intro = new QLabel(
      tr("TileScope runs kernels on a server through a command that starts "
         "<tt>tilescope-bench --serve</tt> there: over SSH (a key, no password prompt), through "
         "Slurm, or any command. Each server's backend joins the picker as "
         "<i>backend@name</i>."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("servers"));
  list_->setStatusTip(tr("The servers TileScope knows"));
  layout->addWidget(list_);
  remove_ = new QPushButton(tr("&Remove"), this);
  remove_->setObjectName(QStringLiteral("remove"));
  remove_->setStatusTip(tr("Forget the selected server"));
  connect(remove_, &QPushButton::clicked, this, &ServerDialog::removeServer);
  connect(list_, &QListWidget::currentRowChanged, this,
          [this](int row) { remove_->setEnabled(row >= 0); });
  layout->addWidget(remove_, 0, Qt::AlignRight);

  auto* box = new QGroupBox(tr("Add a server"), this);
  auto* form = new QFormLayout(box);
  name_ = new QLineEdit(box);
  name_->setObjectName(QStringLiteral("name"));
  name_->setPlaceholderText(tr("gpu1"));
  name_->setStatusTip(tr("A short name: letters, digits, '.', '_' and '-'"));
  host_ = new QLineEdit(box);
  host_->setObjectName(QStringLiteral("host"));
  host_->setPlaceholderText(tr("user@gpu1.example.org"));
  host_->setStatusTip(tr("The host SSH connects to (an alias from ~/.ssh/config works)"));
  preset_ = new QComboBox(box);
  preset_->setObjectName(QStringLiteral("preset"));
  preset_->addItem(tr("SSH"), Ssh);
  preset_->addItem(tr("SSH, then Slurm (srun --gres=gpu:1)"), Slurm);
  preset_->addItem(tr("Any command"), Custom);
  preset_->setStatusTip(tr("How the server is started; the command below follows the host"));
  command_ = new QLineEdit(box);
  command_->setObjectName(QStringLiteral("command"));
  command_->setStatusTip(tr("Run through /bin/sh -c; it must start tilescope-bench --serve"));
  command_->setMinimumWidth(command_->fontMetrics().averageCharWidth() * 56);
  backend_ = new QComboBox(box);
  backend_->setObjectName(QStringLiteral("backend"));
  backend_->addItem(QStringLiteral("cuda"));
  backend_->addItem(QStringLiteral("cpu"));
  backend_->setStatusTip(tr("The server's backend to run on"));
  problem_ = new QLabel(box);
  problem_->setObjectName(QStringLiteral("problem"));
  problem_->setWordWrap(true);
  add_ = new QPushButton(tr("&Add"), box);
  add_->setObjectName(QStringLiteral("add"));
  add_->setStatusTip(tr("Add this server; it connects when the dialog closes"));
  form->addRow(tr("&Name:"), name_);
  form->addRow(tr("&Host:"), host_);
  form->addRow(tr("&Start with:"), preset_);
  form->addRow(tr("&Command:"), command_);
  form->addRow(tr("Bac&kend:"), backend_);
  test_ = new QPushButton(tr("&Test Connection"), box);
  test_->setObjectName(QStringLiteral("testConnection"));
  test_->setStatusTip(tr("Start the command, greet the server and show its devices"));
  testResult_ = new QLabel(box);
  testResult_->setObjectName(QStringLiteral("testResult"));
  testResult_->setWordWrap(true);
  testResult_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form->addRow(problem_);
  auto* actions = new QHBoxLayout;
  actions->addWidget(test_);
  actions->addStretch();
  actions->addWidget(add_);
  form->addRow(actions);
  form->addRow(testResult_);
  layout->addWidget(box);

  isolate_ = new QCheckBox(
      tr("Run the local CUDA backend in a child process (a kernel that faults or hangs takes "
         "down the child, which TileScope restarts, never the window)"),
      this);
  isolate_->setObjectName(QStringLiteral("isolateCuda"));
  isolate_->setChecked(settings_.isolateCuda);
  isolate_->setStatusTip(tr("cuda runs through a local tilescope-bench --serve"));
  connect(isolate_, &QCheckBox::toggled, this,
          [this](bool checked) { settings_.isolateCuda = checked; });
  layout->addWidget(isolate_);

  auto* idleRow = new QHBoxLayout;
  idleRow->addWidget(new QLabel(tr("Close a server idle for"), this));
  idleMinutes_ = new QSpinBox(this);
  idleMinutes_->setObjectName(QStringLiteral("idleMinutes"));
  idleMinutes_->setRange(0, desktop::ServerSettings::kLongestIdleMinutes);
  idleMinutes_->setSuffix(tr(" min"));
  idleMinutes_->setSpecialValueText(tr("never"));
  idleMinutes_->setValue(settings_.idleMinutes);
  idleMinutes_->setToolTip(
      tr("A server starts when its backend is chosen or a run needs it, and is closed after "
         "this long without a run, which releases a Slurm job. 0: never."));
  connect(idleMinutes_, &QSpinBox::valueChanged, this,
          [this](int minutes) { settings_.idleMinutes = minutes; });
  idleRow->addWidget(idleMinutes_);
  idleRow->addStretch();
  layout->addLayout(idleRow);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);

  const auto presetChanged = [this] {
    const QString host =
        host_->text().trimmed().isEmpty() ? QStringLiteral("HOST") : host_->text().trimmed();
    switch (preset_->currentData().toInt()) {
      case Ssh:
        command_->setText(desktop::sshCommand(host));
        break;
      case Slurm:
        command_->setText(desktop::slurmCommand(host));
        break;
      default:
        break;
    }
    command_->setReadOnly(preset_->currentData().toInt() != Custom);
    onInputChanged();
  };
  connect(host_, &QLineEdit::textChanged, this, presetChanged);
  connect(preset_, &QComboBox::currentIndexChanged, this, presetChanged);
  connect(name_, &QLineEdit::textChanged, this, &ServerDialog::onInputChanged);
  connect(command_, &QLineEdit::textChanged, this, &ServerDialog::onInputChanged);
  connect(backend_, &QComboBox::currentIndexChanged, this, &ServerDialog::onInputChanged);
  connect(add_, &QPushButton::clicked, this, &ServerDialog::addServer);
  connect(test_, &QPushButton::clicked, this, &ServerDialog::testConnection);
  presetChanged();
  fillList();
}

remote::ServerAddress ServerDialog::typedServer() const {
  return {name_->text().trimmed().toStdString(), command_->text().trimmed().toStdString(),
          backend_->currentText().toStdString()};
}

void ServerDialog::onInputChanged() {
  const remote::ServerAddress server = typedServer();
  const std::optional<QString> problem = desktop::serverProblem(server, settings_.servers);
  problem_->setText(problem.value_or(QString()));
  add_->setEnabled(!problem);
  test_->setEnabled(!server.command.empty());
}

void ServerDialog::testConnection() {
  const remote::ServerAddress server = typedServer();
  if (server.command.empty()) return;
  const quint64 test = ++lastTest_;
  testResult_->setText(tr("Connecting\u2026 (%1)").arg(text(server.command)));
  // The connection may take up to the hello timeout (ssh, a Slurm queue): it runs detached, and
  // its answer is dropped when the dialog is gone by then.
  std::thread([server, test, dialog = QPointer<ServerDialog>(this)] {
    remote::RemoteBackend backend(server);
    QString answer;
    if (const std::optional<std::string> why = backend.unavailableReason()) {
      answer = tr("Failed: %1").arg(text(*why));
    } else {
      QStringList devices;
      for (const DeviceInfo& device : backend.devices())
        devices << QStringLiteral("%1: %2").arg(device.index).arg(text(device.name));
      answer = tr("Connected: the %1 backend offers %2")
                   .arg(text(server.backend), devices.join(QStringLiteral("; ")));
    }
    // After the window has closed there is no application left to answer to.
    if (QCoreApplication* application = QCoreApplication::instance()) {
      QMetaObject::invokeMethod(
          application,
          [dialog, test, answer] {
            if (dialog) dialog->showTestResult(test, answer);
          },
          Qt::QueuedConnection);
    }
  }).detach();
}

void ServerDialog::showTestResult(quint64 test, const QString& answer) {
  if (test == lastTest_) testResult_->setText(answer);
}

void ServerDialog::addServer() {
  const remote::ServerAddress server = typedServer();
  if (desktop::serverProblem(server, settings_.servers)) return;
  settings_.servers.push_back(server);
  name_->clear();
  fillList();
}

void ServerDialog::removeServer() {
  const int row = list_->currentRow();
  if (row < 0 || row >= int(settings_.servers.size())) return;
  settings_.servers.erase(settings_.servers.begin() + row);
  fillList();
}

void ServerDialog::fillList() {
  list_->clear();
  for (const remote::ServerAddress& server : settings_.servers) {
    list_->addItem(QStringLiteral("%1@%2 \u2014 %3")
                       .arg(text(server.backend), text(server.name), text(server.command)));
  }
  remove_->setEnabled(list_->currentRow() >= 0);
  onInputChanged();
}

}  // namespace tilescope::ui
