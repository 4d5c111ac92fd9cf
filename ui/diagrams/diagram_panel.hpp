// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The diagram panel the main window embeds: the views of the chosen configuration (matrix,
// k-step animation, block, memory access, pipeline timeline), their controls, hover text, PNG/SVG
// export and a classroom presentation mode (full screen, large fonts, arrow keys step the
// animation).
#include <QKeySequence>
#include <QList>
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/problem.hpp"

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTabWidget;
class QTimer;
class QToolButton;
class QVBoxLayout;

namespace tilescope::ui {

class DiagramDocument;
class DiagramView;
class Presenter;

class DiagramPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DiagramPanel(QWidget* parent = nullptr);
  ~DiagramPanel() override;

  DiagramDocument* document() const { return document_; }
  DiagramView* currentView() const;
  // "matrix", "kstep", "block", "access" or "timeline"; false for an unknown name.
  bool setCurrentView(const QString& view);
  bool presentationMode() const;
  // The full-screen window while presenting, else null.
  QWidget* presentationWindow() const;
  // F11 on every platform, plus the platform's own full-screen key where it has one (Linux has
  // none): what enters presentation mode, and what leaves it besides Esc.
  static QList<QKeySequence> presentationShortcuts();
  // How much larger the diagrams' text is drawn when presenting on a screen of `size`: readable
  // from the back of a room, yet leaving the figure most of a 1280x720 projector.
  static double presentationFontScale(QSize size);
  bool playing() const;
  // Puts `widget` (the main window's help button) at the right end of the views' tab row.
  void setCornerWidget(QWidget* widget);
  // The folder Export PNG/SVG starts in (the last export's, as the window remembers it); each
  // export moves it to the folder written to.
  void setExportFolder(const QString& folder) { exportFolder_ = folder; }
  const QString& exportFolder() const { return exportFolder_; }

 public slots:
  // Without a type the kernel's default (its first) is drawn.
  void setConfiguration(const tilescope::KernelConfig& config, const tilescope::Shape& shape,
                        std::optional<tilescope::ElementType> element = std::nullopt);
  void setPresentationMode(bool on);
  void setPlaying(bool on);
  void stepBy(int delta);

 signals:
  // Also emitted when the user leaves presentation mode with Esc.
  void presentationModeChanged(bool on);
  // A view was written to `path`.
  void exported(const QString& path);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* buildSelectionRow();
  QWidget* buildAccessRow();
  QWidget* buildBottomRow();
  void syncControls();
  void advanceAnimation();
  void exportCurrent(const QString& suffix);
  // Puts each row of controls on one line (presenting) or stacks its lines (docked).
  void compactControls(bool on);
  // Sizes the presentation's text to its window.
  void fitPresentation();
  // Gives the current view, docked, the height it asks for at its width.
  void fitViewHeight();
  // The keys that step and play the animation and go through the views; false for another key.
  bool handleKey(int key);

  DiagramDocument* document_;
  QVBoxLayout* layout_ = nullptr;
  QWidget* content_ = nullptr;  // everything but the placeholder; moves into the full-screen window
  QLabel* presentingNote_ = nullptr;
  Presenter* presenter_;
  QFont dockedFont_;  // the controls' font outside presentation mode
  QTabWidget* tabs_ = nullptr;
  QWidget* accessRow_ = nullptr;
  std::vector<QBoxLayout*> compactRows_;  // the selection's and the access's rows of controls
  QSpinBox *blockX_ = nullptr, *blockY_ = nullptr, *warp_ = nullptr, *instr_ = nullptr,
           *innerK_ = nullptr, *readSlot_ = nullptr, *pad_ = nullptr;
  QSlider* stepSlider_ = nullptr;
  QLabel* stepLabel_ = nullptr;
  QToolButton *playButton_ = nullptr, *backButton_ = nullptr, *forwardButton_ = nullptr;
  QComboBox *speed_ = nullptr, *access_ = nullptr, *compare_ = nullptr, *bankAccess_ = nullptr;
  QLabel* slotCaption_ = nullptr;  // "Read" or "Write": which of the thread's accesses
  QPushButton* presentButton_ = nullptr;
  QString exportFolder_;
  QWidget* exportButtons_ = nullptr;
  QLabel* hover_ = nullptr;
  QTimer* timer_ = nullptr;
};

// Draws one view ("matrix", "kstep", "block", "access" or "timeline") of a configuration in an
// element type (nullopt: the kernel's default) into a .png or .svg file, for the command line and
// scripts. A closed library exports its "mapping not visible" picture; an unknown view, a refused
// configuration or type, or an unwritable file returns false with the reason in `error`. Needs a
// QApplication (an offscreen one will do).
bool exportDiagram(const QString& view, const tilescope::KernelConfig& config,
                   const tilescope::Shape& shape, std::optional<tilescope::ElementType> element,
                   const QString& path, QString* error);

}  // namespace tilescope::ui
