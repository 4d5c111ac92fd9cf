#pragma once
// Backend > GPU Server...: the run servers the app drives. Each has a name (its backend reads
// "cuda@NAME" in the picker) and the command that starts `tilescope-bench --serve`: the SSH and
// Slurm presets fill it in from a host name, or any command may be typed. Also the setting that
// runs the local CUDA backend in a child process.
#include <QDialog>

#include "servers.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace tilescope::ui {

class ServerDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ServerDialog(const app::ServerSettings& settings, QWidget* parent = nullptr);

  app::ServerSettings settings() const { return settings_; }

 private:
  void addServer();
  void removeServer();
  void fillList();
  void onInputChanged();

  app::ServerSettings settings_;
  QListWidget* list_ = nullptr;
  QLineEdit* name_ = nullptr;
  QLineEdit* host_ = nullptr;
  QComboBox* preset_ = nullptr;
  QLineEdit* command_ = nullptr;
  QComboBox* backend_ = nullptr;
  QLabel* problem_ = nullptr;
  QPushButton* add_ = nullptr;
  QPushButton* remove_ = nullptr;
  QCheckBox* isolate_ = nullptr;
};

}  // namespace tilescope::ui
