// SPDX-License-Identifier: GPL-3.0-or-later
#include "exercise_report.hpp"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "kernel_editor.hpp"

namespace tilescope::ui {
namespace {

using desktop::ExerciseState;
using exercise::CheckResult;
using exercise::CheckState;

const QColor kPassed(40, 150, 70), kFailed(200, 50, 50), kNeutral(130, 130, 130),
    kChecking(60, 120, 210);

QColor resultColor(CheckState state) {
  return state == CheckState::Passed ? kPassed : state == CheckState::Failed ? kFailed : kNeutral;
}

QString figureText(const CheckResult& result) {
  return result.figure ? QString::number(*result.figure, 'g', 3) : QStringLiteral("\u2014");
}

QString html(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}

}  // namespace

QIcon exerciseStateIcon(std::optional<ExerciseState> state) {
  QPixmap pixmap(32, 32);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  if (!state) {
    painter.setPen(Qt::NoPen);
    painter.setBrush(kChecking);
    for (int i = 0; i < 3; ++i) painter.drawEllipse(QPointF(8 + 8 * i, 16), 3.2, 3.2);
    return QIcon(pixmap);
  }
  if (*state == ExerciseState::NotStarted) {
    painter.setPen(QPen(kNeutral, 3));
    painter.drawEllipse(QRectF(5, 5, 22, 22));
    return QIcon(pixmap);
  }
  painter.setPen(Qt::NoPen);
  painter.setBrush(exerciseStateColor(*state));
  painter.drawEllipse(QRectF(3, 3, 26, 26));
  painter.setPen(QPen(Qt::white, 3.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  if (*state == ExerciseState::Passed) {
    painter.drawPolyline(QPolygonF({{10, 16.5}, {14.5, 21}, {22.5, 11.5}}));
  } else {
    painter.drawLine(QPointF(11, 11), QPointF(21, 21));
    painter.drawLine(QPointF(21, 11), QPointF(11, 21));
  }
  return QIcon(pixmap);
}

QColor exerciseStateColor(ExerciseState state) {
  return state == ExerciseState::Passed    ? kPassed
         : state == ExerciseState::Failing ? kFailed
                                           : kNeutral;
}

QString pictureWhere(const exercise::CheckPicture& picture) {
  return QObject::tr("warp %1, k-step %2 of block (%3,%4)")
      .arg(picture.warp)
      .arg(picture.step)
      .arg(picture.block.x)
      .arg(picture.block.y);
}

void showCheckResults(QTableWidget* table, const exercise::Exercise& exercise,
                      const exercise::SubmissionReport* report) {
  std::vector<CheckResult> results;
  if (report) {
    results = report->checks;
  } else {
    for (const exercise::CheckSpec& spec : exercise.checks)
      results.push_back({spec, CheckState::NotMeasured, std::nullopt, {}, std::nullopt});
  }
  table->setRowCount(int(results.size()));
  for (int row = 0; row < int(results.size()); ++row) {
    const CheckResult& r = results[row];
    QString tip = QString::fromStdString(r.spec.why);
    if (!r.detail.empty()) tip += QStringLiteral("\n\n") + QString::fromStdString(r.detail);
    if (r.spec.kind == exercise::CheckKind::Verified && report) {
      for (const exercise::ShapeCheck& shape : report->verification)
        tip += QStringLiteral("\n%1\u00d7%2\u00d7%3: %4")
                   .arg(shape.shape.m)
                   .arg(shape.shape.n)
                   .arg(shape.shape.k)
                   .arg(shape.passed ? QObject::tr("right") : QString::fromStdString(shape.detail));
    }
    if (r.state == CheckState::Failed && r.picture && report && report->trace)
      tip += QStringLiteral("\n\n") + QObject::tr("Click to see it in the memory-access view: %1")
                                          .arg(pictureWhere(*r.picture));
    const auto cell = [&](int column, const QString& text) {
      auto* item = new QTableWidgetItem(text);
      item->setToolTip(tip);
      table->setItem(row, column, item);
      return item;
    };
    cell(0, QString::fromStdString(r.spec.title()));
    cell(1, figureText(r))->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    QTableWidgetItem* result = cell(
        2, report ? QString::fromLatin1(exercise::toString(r.state)) : QObject::tr("not checked"));
    result->setForeground(report ? resultColor(r.state) : kNeutral);
  }
  table->resizeRowsToContents();
  int height = table->horizontalHeader()->sizeHint().height() + 2 * table->frameWidth();
  for (int row = 0; row < table->rowCount(); ++row) height += table->rowHeight(row);
  table->setFixedHeight(height);
}

QString verdictText(const exercise::SubmissionReport* report) {
  if (!report) return QObject::tr("Not checked yet.");
  if (!report->compiled) {
    const auto error = std::find_if(report->diagnostics.begin(), report->diagnostics.end(),
                                    [](const CompileDiagnostic& d) { return d.error; });
    QString text = QObject::tr("<b style=\"color:%1\">Does not compile</b>").arg(kFailed.name());
    if (error != report->diagnostics.end())
      text += QObject::tr(": line %1: %2").arg(error->line).arg(html(error->message));
    return text + QObject::tr(". The Kernel Editor marks the lines.");
  }
  if (report->passed())
    return QObject::tr("<b style=\"color:%1\">Passed.</b> Every check measured here holds.")
        .arg(kPassed.name());
  const exercise::CheckResult* failure = report->firstFailure();
  if (!failure) return QObject::tr("<b>Not done:</b> %1").arg(html(report->error));
  QString text = QObject::tr("<b style=\"color:%1\">Failing:</b> %2")
                     .arg(kFailed.name(), html(failure->spec.title()));
  if (!failure->detail.empty()) text += QStringLiteral(": ") + html(failure->detail);
  text += QLatin1Char('.');
  if (failure->picture && report->trace)
    text += QLatin1Char(' ') +
            QObject::tr("The memory-access view shows %1.").arg(pictureWhere(*failure->picture));
  return text;
}

QDialog* openSolutionWindow(const exercise::Exercise& exercise, QWidget* parent) {
  auto* window = new QDialog(parent);
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->setObjectName(QStringLiteral("exerciseSolution"));
  window->setWindowTitle(
      QObject::tr("Model Solution: %1").arg(QString::fromStdString(exercise.title)));
  auto* note = new QLabel(QObject::tr("The model solution of %1, read-only. Your own source is "
                                      "untouched: copy from here what you need.")
                              .arg(QString::fromStdString(exercise.id)),
                          window);
  note->setWordWrap(true);
  auto* code = new CodeEditor(window);
  code->setObjectName(QStringLiteral("solutionSource"));
  code->setPlainText(QString::fromStdString(exercise.solution));
  code->setReadOnly(true);
  new CudaHighlighter(code->document(), code->palette().color(QPalette::Base).lightness() < 128);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, window);
  QObject::connect(close, &QDialogButtonBox::rejected, window, &QDialog::close);
  auto* layout = new QVBoxLayout(window);
  layout->addWidget(note);
  layout->addWidget(code, 1);
  layout->addWidget(close);
  window->resize(760, 600);
  window->show();
  return window;
}

}  // namespace tilescope::ui
