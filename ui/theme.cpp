// SPDX-License-Identifier: GPL-3.0-or-later
#include "theme.hpp"

#include <QActionGroup>
#include <QApplication>
#include <QPainter>
#include <QProxyStyle>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOption>

#include "settings.hpp"

namespace tilescope::ui {
namespace {

const std::string kThemeKey = "theme";

struct ThemeText {
  const char* id;
  const char* menu;
  const char* tip;
};

ThemeText textOf(Theme theme) {
  switch (theme) {
    case Theme::System:
      return {"system", "&System", "The desktop's own style and colours"};
    case Theme::Light:
      return {"light", "&Light", "Dark text on light backgrounds"};
    case Theme::Dark:
      return {"dark", "&Dark", "Light text on dark backgrounds, for dim rooms"};
    case Theme::HighContrast:
      return {"high-contrast", "&High Contrast",
              "White and bright colours on black, for projectors and low vision"};
  }
  return {"", "", ""};
}

// The style and palette the app started with, for Theme::System.
struct SystemLook {
  QString style;
  QPalette palette;
};

SystemLook& systemLook() {
  static SystemLook look{QApplication::style()->name(), QApplication::palette()};
  return look;
}

Theme& themeInUse() {
  static Theme theme = Theme::System;
  return theme;
}

QPalette darkPalette() {
  QPalette palette;
  const QColor window("#2b2d30"), base("#1e1f22"), text("#e6e6e6"), mid("#5a5d63");
  palette.setColor(QPalette::Window, window);
  palette.setColor(QPalette::WindowText, text);
  palette.setColor(QPalette::Base, base);
  palette.setColor(QPalette::AlternateBase, QColor("#26282b"));
  palette.setColor(QPalette::ToolTipBase, QColor("#3c3f44"));
  palette.setColor(QPalette::ToolTipText, text);
  palette.setColor(QPalette::PlaceholderText, QColor("#9a9da3"));
  palette.setColor(QPalette::Text, text);
  palette.setColor(QPalette::Button, QColor("#35373b"));
  palette.setColor(QPalette::ButtonText, text);
  palette.setColor(QPalette::BrightText, QColor("#ff6b6b"));
  palette.setColor(QPalette::Light, QColor("#45484d"));
  palette.setColor(QPalette::Midlight, QColor("#3a3d41"));
  palette.setColor(QPalette::Mid, mid);
  palette.setColor(QPalette::Dark, QColor("#151618"));
  palette.setColor(QPalette::Shadow, Qt::black);
  palette.setColor(QPalette::Highlight, QColor("#3d7fd6"));
  palette.setColor(QPalette::HighlightedText, Qt::white);
  palette.setColor(QPalette::Link, QColor("#6fb1ff"));
  palette.setColor(QPalette::LinkVisited, QColor("#c39bff"));
  for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    palette.setColor(QPalette::Disabled, role, QColor("#7c7f85"));
  }
  return palette;
}

// Pure black and white (ChartView reads this pair as high contrast), yellow for what is selected.
QPalette highContrastPalette() {
  QPalette palette;
  for (QPalette::ColorRole role :
       {QPalette::Window, QPalette::Base, QPalette::AlternateBase, QPalette::Button,
        QPalette::ToolTipBase, QPalette::Dark, QPalette::Shadow}) {
    palette.setColor(role, Qt::black);
  }
  for (QPalette::ColorRole role :
       {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText,
        QPalette::BrightText, QPalette::Light, QPalette::Midlight, QPalette::Mid}) {
    palette.setColor(role, Qt::white);
  }
  palette.setColor(QPalette::PlaceholderText, QColor("#c0c0c0"));
  palette.setColor(QPalette::Highlight, QColor("#ffff00"));
  palette.setColor(QPalette::HighlightedText, Qt::black);
  palette.setColor(QPalette::Link, QColor("#00ffff"));
  palette.setColor(QPalette::LinkVisited, QColor("#ff80ff"));
  for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    palette.setColor(QPalette::Disabled, role, QColor("#a0a0a0"));
  }
  return palette;
}

// Fusion draws a slider's groove and handle and the frames of spin boxes and line edits in shades
// of the window colour, which on High Contrast's pure black are black: this style outlines them in
// the text colour.
class HighContrastStyle : public QProxyStyle {
 public:
  HighContrastStyle() : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion"))) {}

  void drawComplexControl(ComplexControl control, const QStyleOptionComplex* option,
                          QPainter* painter, const QWidget* widget) const override {
    QProxyStyle::drawComplexControl(control, option, painter, widget);
    if (control == CC_Slider) {
      for (SubControl part : {SC_SliderGroove, SC_SliderHandle})
        if (option->subControls & part)
          outline(painter, subControlRect(control, option, part, widget), option);
    } else if (control == CC_SpinBox) {
      const auto* spinBox = qstyleoption_cast<const QStyleOptionSpinBox*>(option);
      if (spinBox && spinBox->frame) outline(painter, option->rect, option);
    }
  }

  void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                     const QWidget* widget) const override {
    QProxyStyle::drawPrimitive(element, option, painter, widget);
    if (element == PE_FrameLineEdit) outline(painter, option->rect, option);
  }

 private:
  static void outline(QPainter* painter, const QRect& rect, const QStyleOption* option) {
    const QPalette::ColorGroup group =
        option->state & State_Enabled ? QPalette::Active : QPalette::Disabled;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(option->palette.color(group, QPalette::WindowText));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(rect.adjusted(0, 0, -1, -1));
    painter->restore();
  }
};

}  // namespace

QString themeId(Theme theme) {
  return QString::fromLatin1(textOf(theme).id);
}

std::optional<Theme> themeFromId(const QString& id) {
  for (Theme theme : kAllThemes) {
    if (themeId(theme) == id) return theme;
  }
  return std::nullopt;
}

void applyTheme(Theme theme) {
  const SystemLook& look = systemLook();
  themeInUse() = theme;
  if (theme == Theme::System) {
    QApplication::setStyle(look.style);
    QApplication::setPalette(look.palette);
    return;
  }
  QApplication::setStyle(theme == Theme::HighContrast
                             ? new HighContrastStyle
                             : QStyleFactory::create(QStringLiteral("Fusion")));
  switch (theme) {
    case Theme::Light:
      QApplication::setPalette(QApplication::style()->standardPalette());
      break;
    case Theme::Dark:
      QApplication::setPalette(darkPalette());
      break;
    default:
      QApplication::setPalette(highContrastPalette());
      break;
  }
}

Theme currentTheme() {
  return themeInUse();
}

Theme savedTheme() {
  const nlohmann::json saved = desktop::rememberedSetting(kThemeKey);
  if (!saved.is_string()) return Theme::System;
  return themeFromId(QString::fromStdString(saved.get<std::string>())).value_or(Theme::System);
}

void saveTheme(Theme theme) {
  desktop::rememberSetting(kThemeKey, themeId(theme).toStdString());
}

QMenu* createThemeMenu(QWidget* parent) {
  auto* menu = new QMenu(QObject::tr("&Theme"), parent);
  auto* group = new QActionGroup(menu);
  for (Theme theme : kAllThemes) {
    QAction* action = menu->addAction(QObject::tr(textOf(theme).menu));
    action->setObjectName(QStringLiteral("theme-") + themeId(theme));
    action->setStatusTip(QObject::tr(textOf(theme).tip));
    action->setCheckable(true);
    group->addAction(action);
    QObject::connect(action, &QAction::triggered, menu, [theme] {
      applyTheme(theme);
      saveTheme(theme);
    });
  }
  // The check follows the theme in use, however it was chosen.
  QObject::connect(menu, &QMenu::aboutToShow, menu, [menu] {
    for (QAction* action : menu->actions())
      action->setChecked(action->objectName() ==
                         QStringLiteral("theme-") + themeId(currentTheme()));
  });
  return menu;
}

QIcon themeIcon(const char* name, QStyle::StandardPixmap fallback) {
  return QIcon::fromTheme(QString::fromLatin1(name), QApplication::style()->standardIcon(fallback));
}

QAction* makeAction(QObject* parent, const char* icon, QStyle::StandardPixmap fallback,
                    const QString& text, const QKeySequence& shortcut, const QString& statusTip) {
  auto* action = new QAction(themeIcon(icon, fallback), text, parent);
  action->setShortcut(shortcut);
  action->setStatusTip(statusTip);
  return action;
}

}  // namespace tilescope::ui
