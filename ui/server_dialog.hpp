// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Backend > GPU Server...: the run servers the app drives. Each has a name (its backend reads
// "cuda@NAME" in the picker) and the command that starts `tilescope-bench --serve`: the SSH and
// Slurm presets fill it in from a host name, or any command may be typed; Test Connection starts
// it and shows the devices it offers or why it failed. Also the setting that runs the local CUDA
// backend in a child process.
#include <QDialog>

#include "servers.hpp"

class QCheckBox;
class QSpinBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace tilescope::ui {

class ServerDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ServerDialog(const desktop::ServerSettings& settings, QWidget* parent = nullptr);

  desktop::ServerSettings settings() const { return settings_; }

 private:
  void addServer();
  void removeServer();
  void fillList();
  void onInputChanged();
  remote::ServerAddress typedServer() const;
  // Starts the typed command on a thread of its own and greets it; the answer comes back to
  // showTestResult, so the window never waits.
  void testConnection();
  void showTestResult(quint64 test, const QString& answer);

  desktop::ServerSettings settings_;
  QListWidget* list_ = nullptr;
  QLineEdit* name_ = nullptr;
  QLineEdit* host_ = nullptr;
  QComboBox* preset_ = nullptr;
  QLineEdit* command_ = nullptr;
  QComboBox* backend_ = nullptr;
  QLabel* problem_ = nullptr;
  QPushButton* add_ = nullptr;
  QPushButton* test_ = nullptr;
  QLabel* testResult_ = nullptr;
  quint64 lastTest_ = 0;  // only the latest test's answer is shown
  QPushButton* remove_ = nullptr;
  QCheckBox* isolate_ = nullptr;
  QSpinBox* idleMinutes_ = nullptr;
};

}  // namespace tilescope::ui
