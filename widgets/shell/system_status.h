// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;

namespace dice {

class WorkbenchState;

// The status bar's account of the machine: GPU (or "no GPU"), driver, CUDA, LibTorch, model.
// The facts are gathered off the GUI thread (loading the driver can take a moment).
class SystemStatus : public QWidget {
    Q_OBJECT
public:
    explicit SystemStatus(WorkbenchState* state, QWidget* parent = nullptr);

    // Starts gathering the facts in the background; the state is updated when they arrive.
    void refresh();
    QString summary() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateLabels();

    WorkbenchState* m_state;
    QLabel* m_gpu;
    QLabel* m_driver;
    QLabel* m_cuda;
    QLabel* m_torch;
    QLabel* m_model;
};

} // namespace dice
