// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// View > Theme: the app's palette, system, light, dark or high contrast, kept in the settings file.
// It is set on the application, so every widget gets QEvent::PaletteChange and re-skins itself (the
// charts through ChartView, the diagrams through their own style).
#include <QAction>
#include <QIcon>
#include <QMenu>
#include <QString>
#include <QStyle>
#include <optional>

namespace tilescope::ui {

enum class Theme { System, Light, Dark, HighContrast };

inline constexpr Theme kAllThemes[] = {Theme::System, Theme::Light, Theme::Dark,
                                       Theme::HighContrast};

// "system", "light", "dark", "high-contrast".
QString themeId(Theme theme);
std::optional<Theme> themeFromId(const QString& id);

// Applies `theme` to the whole application: the chosen themes use the Fusion style, which follows
// the palette on every platform; System puts back the style and palette the app started with.
void applyTheme(Theme theme);
Theme currentTheme();

// The theme remembered in the settings file (System when none or unknown), and remembering one.
Theme savedTheme();
void saveTheme(Theme theme);

// The View > Theme menu: one checkable action per theme; choosing one applies and remembers it.
QMenu* createThemeMenu(QWidget* parent);

// The icon theme's `name`; desktops without an icon theme (and Xvfb) get the style's `fallback`.
QIcon themeIcon(const char* name, QStyle::StandardPixmap fallback);
// An action of `parent` with themeIcon(icon, fallback), a shortcut and a status tip.
QAction* makeAction(QObject* parent, const char* icon, QStyle::StandardPixmap fallback,
                    const QString& text, const QKeySequence& shortcut, const QString& statusTip);

}  // namespace tilescope::ui
