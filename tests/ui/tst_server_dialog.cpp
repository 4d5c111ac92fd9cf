// Backend > GPU Server...: the SSH and Slurm presets write the command from the host, any
// command may be typed, a bad name or an empty command is refused with its reason before Add,
// and Add, Remove and the isolation setting end up in the settings the dialog returns.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>

#include "server_dialog.hpp"

using namespace tilescope;

class TestServerDialog : public QObject {
  Q_OBJECT

 private slots:
  void presetsWriteTheCommandAndAddKeepsTheServer() {
    ui::ServerDialog dialog(app::ServerSettings{});
    auto* name = dialog.findChild<QLineEdit*>(QStringLiteral("name"));
    auto* host = dialog.findChild<QLineEdit*>(QStringLiteral("host"));
    auto* preset = dialog.findChild<QComboBox*>(QStringLiteral("preset"));
    auto* command = dialog.findChild<QLineEdit*>(QStringLiteral("command"));
    auto* add = dialog.findChild<QPushButton*>(QStringLiteral("add"));
    auto* problem = dialog.findChild<QLabel*>(QStringLiteral("problem"));
    QVERIFY(name && host && preset && command && add && problem);

    host->setText(QStringLiteral("gpu1.example.org"));
    QCOMPARE(command->text(), QStringLiteral("ssh gpu1.example.org tilescope-bench --serve"));
    preset->setCurrentIndex(1);
    QCOMPARE(command->text(),
             QStringLiteral("ssh gpu1.example.org srun --gres=gpu:1 tilescope-bench --serve"));
    QVERIFY(command->isReadOnly());
    // No name yet: Add is off and the reason is shown.
    QVERIFY(!add->isEnabled());
    QVERIFY(!problem->text().isEmpty());
    name->setText(QStringLiteral("gpu 1"));
    QVERIFY(!add->isEnabled());
    QVERIFY(problem->text().contains(QStringLiteral("letters")));
    name->setText(QStringLiteral("gpu1"));
    QVERIFY(add->isEnabled());
    add->click();
    QCOMPARE(dialog.settings().servers.size(), std::size_t(1));
    QCOMPARE(dialog.settings().servers[0].name, std::string("gpu1"));
    QCOMPARE(dialog.settings().servers[0].backend, std::string("cuda"));
    QCOMPARE(dialog.settings().servers[0].command,
             std::string("ssh gpu1.example.org srun --gres=gpu:1 tilescope-bench --serve"));

    // Any command; the same name again is refused.
    preset->setCurrentIndex(2);
    QVERIFY(!command->isReadOnly());
    command->setText(QStringLiteral("/opt/tilescope/bin/tilescope-bench --serve"));
    name->setText(QStringLiteral("gpu1"));
    QVERIFY(!add->isEnabled());
    QVERIFY(problem->text().contains(QStringLiteral("already")));
  }

  void removeAndIsolationChangeTheSettings() {
    app::ServerSettings settings;
    settings.servers = {{"a", "ssh a tilescope-bench --serve", "cuda"},
                        {"b", "ssh b tilescope-bench --serve", "cpu"}};
    ui::ServerDialog dialog(settings);
    auto* list = dialog.findChild<QListWidget*>(QStringLiteral("servers"));
    auto* isolate = dialog.findChild<QCheckBox*>(QStringLiteral("isolateCuda"));
    QVERIFY(list && isolate);
    QCOMPARE(list->count(), 2);
    QVERIFY(list->item(1)->text().startsWith(QStringLiteral("cpu@b")));
    list->setCurrentRow(0);
    auto* remove = dialog.findChild<QPushButton*>(QStringLiteral("remove"));
    QVERIFY(remove && remove->isEnabled());
    remove->click();
    QCOMPARE(dialog.settings().servers.size(), std::size_t(1));
    QCOMPARE(dialog.settings().servers[0].name, std::string("b"));
    QVERIFY(!dialog.settings().isolateCuda);
    isolate->setChecked(true);
    QVERIFY(dialog.settings().isolateCuda);
  }
};

QTEST_MAIN(TestServerDialog)
#include "tst_server_dialog.moc"
