// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QPointer>
#include <QWidget>

class QCustomPlot;
class QLabel;
class QTimer;

namespace dice {

class RunWatcher;

// The live curves of one or more BiC-RL runs (QCustomPlot), overlaid in each run's colour: the
// reward's mean and spread, the pass rate per task level, dropped groups, the TraceRL update's
// policy loss, KL, clip fraction and entropy, answer length, the step's time split and the
// held-out evaluations. Phase boundaries and the steps where a new level of tasks enters are
// marked. Only the metrics the trainer wrote are drawn; a run from an older trainer simply has
// fewer curves.
class RunCurves : public QWidget {
    Q_OBJECT
public:
    enum Curve {
        Reward,
        PassRate,
        DroppedGroups,
        PolicyLoss,
        Kl,
        ClipFraction,
        Entropy,
        AnswerLength,
        StepTime,
        HeldOut,
        CurveCount
    };

    explicit RunCurves(QWidget* parent = nullptr);

    // The runs drawn, the first the current one. Not owned.
    void setRuns(const QList<RunWatcher*>& runs);
    // Draws what the runs hold now.
    void refresh();

    QCustomPlot* plot(Curve curve) const { return m_plots[curve]; }
    // The steps marked as phase boundaries in the plots, for the first run.
    QList<double> phaseMarks() const { return m_phaseMarks; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    QList<QPointer<RunWatcher>> m_runs;
    QCustomPlot* m_plots[CurveCount];
    QLabel* m_key;
    QList<double> m_phaseMarks;
    QTimer* m_replot;
    QList<QCustomPlot*> m_dirty;
};

} // namespace dice
