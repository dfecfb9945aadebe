// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QCustomPlot;
class QTabWidget;

namespace dice {

class DecodeTrace;

// Plots of a decoding (QCustomPlot): tokens committed per step, mean confidence per step, and
// forward passes against tokens produced; with a second trace (autoregressive decoding of the same
// prompt), both side by side in each plot. A marker follows the step the canvas shows.
class DecodePlots : public QWidget {
    Q_OBJECT
public:
    explicit DecodePlots(QWidget* parent = nullptr);

    // Traces are not owned; pass nullptr for none.
    void setTraces(const DecodeTrace* diffusion, const DecodeTrace* autoregressive);
    void refresh();
    void setCursorStep(int step);

    QCustomPlot* committedPlot() const { return m_committed; }
    QCustomPlot* confidencePlot() const { return m_confidence; }
    QCustomPlot* passesPlot() const { return m_passes; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void setupPlot(QCustomPlot* plot);

    const DecodeTrace* m_diffusion = nullptr;
    const DecodeTrace* m_autoregressive = nullptr;
    QTabWidget* m_tabs;
    QCustomPlot* m_committed;
    QCustomPlot* m_confidence;
    QCustomPlot* m_passes;
    int m_cursor = 0;
};

} // namespace dice
