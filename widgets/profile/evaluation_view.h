// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;

namespace dice {

class TrialModel;

// One evaluation in full: the verdict and the worker's state in plain words, the figures (with
// the pinned baseline's beside them and the change), correctness per trial with the largest
// error, every flag, and the histogram of the timed trials.
class EvaluationView : public QWidget {
    Q_OBJECT
public:
    explicit EvaluationView(QWidget* parent = nullptr);

    void showResult(const EvaluationResult& result);
    void setBaseline(const std::optional<EvaluationResult>& baseline, qint64 baselineRun = 0);
    void clear();
    // "The kernel is correct and 2.31× faster than PyTorch", and so on.
    static QString verdictSentence(const EvaluationResult& result);
    static QString workerSentence(WorkerState state);

    QTableWidget* figures() const { return m_figures; }
    QTableView* trials() const { return m_trials; }
    QCustomPlot* histogram() const { return m_histogram; }
    QString summary() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void refresh();

    std::optional<EvaluationResult> m_result;
    std::optional<EvaluationResult> m_baseline;
    qint64 m_baselineRun = 0;
    QLabel* m_summary;
    QTableWidget* m_figures;
    TrialModel* m_trialModel;
    QSortFilterProxyModel* m_sortedTrials;
    QTableView* m_trials;
    QCustomPlot* m_histogram;
};

} // namespace dice
