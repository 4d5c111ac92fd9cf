// SPDX-License-Identifier: GPL-3.0-or-later
// How the Exercises panel words and draws a check's report: the list's state marks, the checks
// table, the verdict under it, and the model solution's window.
#pragma once
#include <QIcon>
#include <QString>
#include <optional>

#include "exercise_controller.hpp"

class QDialog;
class QTableWidget;
class QWidget;

namespace tilescope::ui {

// A round mark, the same on a light and a dark background: a green tick (passed), a red cross
// (failing), an empty ring (not started); nullopt: three dots, a check in progress.
QIcon exerciseStateIcon(std::optional<desktop::ExerciseState> state);
QColor exerciseStateColor(desktop::ExerciseState state);

// "warp 3, k-step 1 of block (0,0)": where a check's picture is, as the access view's controls
// name it.
QString pictureWhere(const exercise::CheckPicture& picture);

// Fills `table` (Check, Measured, Result) with the report's checks; without one, with the
// exercise's checks, not checked. Each row's tooltip: the check's why, what was measured, the
// verification shapes, where its picture is. The table gets the height of all its rows.
void showCheckResults(QTableWidget* table, const exercise::Exercise& exercise,
                      const exercise::SubmissionReport* report);

// The report in a sentence or two, rich text: passed; the first failing check, what it measured
// and where its picture is; the first compile error; what stopped the check.
QString verdictText(const exercise::SubmissionReport* report);

// The model solution in a read-only window of its own, highlighted as in the Kernel Editor.
QDialog* openSolutionWindow(const exercise::Exercise& exercise, QWidget* parent);

}  // namespace tilescope::ui
