// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The session on show: the file it came from (a shipped sample opens read-only), whether its
// results are saved, opening, saving and recent files, and other sessions laid over the charts.
// The window shows what it says (its signals) and lends it the dialogs (the prompts).
#include <QObject>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

#include "results_model.hpp"
#include "run_controller.hpp"
#include "session.hpp"

namespace tilescope::desktop {

// The answer to "save the unsaved results first?".
enum class UnsavedAnswer { Save, Discard, Cancel };

class SessionController : public QObject {
  Q_OBJECT

 public:
  // Asks Save / Discard / Cancel before unsaved results are dropped; `what` says what would drop
  // them ("quitting"). Without one, unsaved results are kept (Cancel).
  using UnsavedPrompt = std::function<UnsavedAnswer(const QString& what)>;
  // Asks where to save, from `suggested`; empty when the user cancels.
  using SavePathPrompt = std::function<QString(const QString& suggested)>;
  // Puts into a session what only the widgets hold: the choices and the Kernel Editor's kernel.
  using WidgetState = std::function<void(Session& session)>;

  // `runs` gives the facts of the devices found now, saved with the results. What joins `model`
  // makes the session unsaved.
  SessionController(ResultsModel& model, const RunController& runs, QObject* parent = nullptr);

  void setUnsavedPrompt(UnsavedPrompt prompt) { unsavedPrompt_ = std::move(prompt); }
  void setSavePathPrompt(SavePathPrompt prompt) { savePathPrompt_ = std::move(prompt); }
  void setWidgetState(WidgetState state) { widgetState_ = std::move(state); }
  // Scripted runs (--quit) leave the recent files and last folders alone.
  void setRemembersSettings(bool remember) { remembersSettings_ = remember; }
  bool remembersSettings() const { return remembersSettings_; }

  // The results, device facts and ceilings with what the widgets hold.
  Session current() const;
  // Replaces the results with a session's, then emits opened() with its choices; on failure
  // (an unreadable or corrupt file) nothing changes and `error` says why.
  bool open(const QString& path, QString* error);
  // What the last open() left out (bad entries skipped), one line each; shown as a problem.
  const QStringList& warnings() const { return warnings_; }
  // Refuses to write into a shipped sample.
  bool save(const QString& path, QString* error);
  // Save Session as the menu does: under the session's own name, or asks for one (always for a
  // read-only sample). An error goes to fileError().
  bool saveInteractively(bool askForName);
  // Open Recent / Open Sample: after settling unsaved results; an error goes to fileError() and
  // a recent file that is gone leaves the list.
  void openInteractively(const QString& path);
  // True when the current results may be replaced: nothing unsaved, saved, or discarded.
  bool settleUnsaved(const QString& what);
  // Results as CSV or JSON, by the file's suffix.
  bool exportResults(const QString& path, QString* error) const;
  // Lays another session's results over the charts (overlayOpened), read-only and marked by
  // session and device ("H200 sample"); they stay out of this session.
  bool openOverlay(const QString& path, QString* error);
  // An untitled, saved, empty session (a lesson starts one).
  void startFresh();

  bool modified() const { return modified_; }
  void setModified(bool modified);
  bool readOnly() const { return readOnly_; }
  QString path() const { return path_; }
  // "Untitled session", "mine.json", "h200-ladder.json (read-only sample)".
  QString displayName() const;

 signals:
  void opened(const tilescope::desktop::Choices& choices,
              const std::optional<tilescope::UserKernelSource>& editorKernel);
  // Opened or started fresh: nothing earlier is left to undo into.
  void replaced();
  // A fresh session: no overlays, no notices of before.
  void startedFresh();
  void modifiedChanged(bool modified);
  // The file or its read-only state changed.
  void identityChanged();
  void overlayOpened(const QString& label, const std::vector<tilescope::RunResult>& results,
                     const std::vector<tilescope::DeviceCeilings>& ceilings);
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);
  // A file operation failed: said in a dialog.
  void fileError(const QString& message);

 private:
  void setIdentity(const QString& path, bool readOnly);

  ResultsModel& model_;
  const RunController& runs_;
  UnsavedPrompt unsavedPrompt_;
  SavePathPrompt savePathPrompt_;
  WidgetState widgetState_;
  QString path_;
  QStringList warnings_;
  bool readOnly_ = false;
  bool modified_ = false;
  bool remembersSettings_ = true;
};

}  // namespace tilescope::desktop
