// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

namespace dice {

class WorkbenchState;

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(const WorkbenchState* state, QWidget* parent = nullptr);
};

} // namespace dice
