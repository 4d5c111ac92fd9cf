// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run servers the app drives (Backend > GPU Server...), kept in the settings file: each a name,
// the command that starts `tilescope-bench --serve` (over ssh, through Slurm, or any command) and
// the server's backend to use; and whether the local CUDA backend runs in a child server of its
// own.
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::desktop {

struct ServerSettings {
  std::vector<remote::ServerAddress> servers;  // named: their backends read "cuda@NAME"
  // Run the local CUDA backend in a `tilescope-bench --serve` child, so a kernel that faults or
  // hangs takes down the child (restarted for the next run), never the window.
  bool isolateCuda = false;
  // A server without a run for this long is closed (its Slurm job released); 0: never.
  int idleMinutes = 10;
  static constexpr int kLongestIdleMinutes = 24 * 60;
  // What loading left out, one line each, naming the settings file, the entry and why (a number
  // where a string belongs, a name the dialog would refuse); for the window to show.
  QStringList problems;
};

ServerSettings loadServerSettings();
void saveServerSettings(const ServerSettings& settings);

// The backends the worker creates for these settings: every named server (closed when idle as
// set), and with isolateCuda an unnamed local child standing in for "cuda".
std::vector<remote::ServerAddress> remoteBackends(const ServerSettings& settings);

// The two presets of the dialog.
QString sshCommand(const QString& host);
QString slurmCommand(const QString& host);
// tilescope-bench's path: beside this executable, in the build tree, or on PATH; else its bare
// name.
QString benchProgram();
// `tilescope-bench --serve` (benchProgram()), quoted for the shell.
QString localServerCommand();

// Why a server cannot be added next to `others`, or nullopt: a name that is empty, has
// characters other than letters, digits, '.', '_' and '-' (it is part of the backend's id) or is
// taken; an empty command; a backend other than cpu or cuda.
std::optional<QString> serverProblem(const remote::ServerAddress& server,
                                     const std::vector<remote::ServerAddress>& others);

}  // namespace tilescope::desktop
