// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/evaluation_view.h"

#include "widgets/plots/plot_legend.h"
#include "widgets/state/evaluation_message_text.h"
#include "widgets/state/verdict_text.h"

#include "widgets/profile/trial_model.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dice {

namespace {

QString ms(double value) {
    // Three significant digits for the microsecond kernels, three decimals for the rest.
    return QObject::tr("%1 ms").arg(value < 1.0 ? QString::number(value, 'g', 3)
                                                : QString::number(value, 'f', 3));
}

// Change from the baseline to this run, in the direction that reads naturally: "+12.0 %".
QString delta(double now, double before) {
    if (before == 0)
        return QString();
    const double change = (now - before) / before * 100.0;
    return QStringLiteral("%1%2 %")
        .arg(change >= 0 ? QStringLiteral("+") : QString())
        .arg(change, 0, 'f', 1);
}

} // namespace

EvaluationView::EvaluationView(QWidget* parent)
    : QWidget(parent) {
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("EvaluationSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures = new QTableWidget(this);
    m_figures->setColumnCount(3);
    m_figures->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_figures->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_figures->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_trialModel = new TrialModel(this);
    m_sortedTrials = new QSortFilterProxyModel(this);
    m_sortedTrials->setSourceModel(m_trialModel);
    m_sortedTrials->setSortRole(TrialModel::SortRole);
    m_trials = new QTableView(this);
    m_trials->setModel(m_sortedTrials);
    m_trials->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_trials->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_trials->horizontalHeader()->setStretchLastSection(true);
    // In the evaluator's order until a header is clicked (and again on a third click).
    m_trials->horizontalHeader()->setSortIndicatorClearable(true);
    m_trials->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_trials->setSortingEnabled(true);
    m_trials->verticalHeader()->hide();
    m_histogram = new QCustomPlot(this);
    placeLegendAbove(m_histogram);
    m_histogram->legend->setVisible(false);
    m_histogram->setMinimumHeight(160);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_figures);
    split->addWidget(m_trials);
    split->addWidget(m_histogram);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    refresh();
}

void EvaluationView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QWidget::changeEvent(event);
}

void EvaluationView::showResult(const EvaluationResult& result) {
    m_result = result;
    refresh();
}

void EvaluationView::setBaseline(const std::optional<EvaluationResult>& baseline,
                                 qint64 baselineRun) {
    m_baseline = baseline;
    m_baselineRun = baselineRun;
    refresh();
}

void EvaluationView::clear() {
    m_result.reset();
    refresh();
}

QString EvaluationView::summary() const {
    return m_summary->text();
}

QString EvaluationView::verdictSentence(const EvaluationResult& r) {
    switch (r.verdict) {
    case Verdict::Correct:
        if (r.speedup > 0)
            return tr("Correct, %1× the speed of the PyTorch reference.").arg(r.speedup, 0, 'f', 2);
        return tr("Correct.");
    case Verdict::Incorrect:
        return tr("Wrong: an output differs from the reference.");
    case Verdict::CompileError:
        return tr("Does not compile.");
    case Verdict::InvalidCandidate:
        return tr("Not a valid candidate of the dialect.");
    case Verdict::RuntimeError:
        return tr("Failed while running (a launch failed or the kernel faulted).");
    case Verdict::Timeout:
        return tr("Took too long and was stopped.");
    case Verdict::Fallback:
        return tr("Not counted: the host code computes with PyTorch instead of its own kernels.");
    case Verdict::NotRun:
        return tr("Compiled, but not run: there is no GPU here.");
    }
    return QString();
}

QString EvaluationView::workerSentence(WorkerState state) {
    switch (state) {
    case WorkerState::Unrecorded:
    case WorkerState::Ok:
        return tr("The evaluation worker is running normally.");
    case WorkerState::RestartedAfterFault:
        return tr("The evaluation worker was restarted after the kernel faulted.");
    case WorkerState::RestartedAfterTimeout:
        return tr("The evaluation worker was restarted after a timeout.");
    case WorkerState::StartedAgain:
    case WorkerState::RestartedAfterCrash:
    case WorkerState::NotStarted:
    case WorkerState::Unavailable:
        break;
    }
    return tr("Evaluation worker: %1").arg(QString::fromStdString(toString(state)));
}

void EvaluationView::refresh() {
    m_figures->setHorizontalHeaderLabels(
        {tr("This run"),
         m_baselineRun > 0 ? tr("Baseline (run %1)").arg(m_baselineRun) : tr("Baseline"),
         tr("Change")});
    m_histogram->xAxis->setLabel(tr("Time per call (ms)"));
    m_histogram->yAxis->setLabel(tr("Trials"));
    if (!m_result) {
        m_summary->setText(tr("Evaluate to compile, check and time the candidate against the "
                              "task's reference."));
        m_figures->setRowCount(0);
        m_trialModel->clear();
        m_histogram->clearPlottables();
        m_histogram->replot();
        return;
    }
    const EvaluationResult& r = *m_result;
    QString text = QStringLiteral("<b>%1</b>").arg(verdictSentence(r).toHtmlEscaped());
    if (!r.message.empty())
        text += QStringLiteral("<br>") + evaluationMessageText(r.message).toHtmlEscaped();
    text += QStringLiteral("<br>") + workerSentence(r.workerState).toHtmlEscaped();
    if (!r.device.empty())
        text += QStringLiteral(" ") +
                tr("Device: %1.").arg(QString::fromStdString(r.device)).toHtmlEscaped();
    m_summary->setText(text);

    struct Row {
        QString name;
        QString now;
        QString before;
        QString change;
    };
    QList<Row> rows;
    const EvaluationResult* b = m_baseline ? &*m_baseline : nullptr;
    auto passed = [](const EvaluationResult& e) {
        return static_cast<int>(std::count_if(e.trials.begin(), e.trials.end(),
                                              [](const TrialResult& t) { return t.passed; }));
    };
    auto largest = [](const EvaluationResult& e) {
        double worst = 0;
        for (const auto& t : e.trials)
            worst = std::max(worst, t.maxAbsError);
        return worst;
    };
    // What was not measured reads as such, not as a zero that looks like a measurement.
    const QString unmeasured = QStringLiteral("–");
    auto compile = [&](const EvaluationResult& e) {
        return e.compileMs > 0 ? ms(e.compileMs) : unmeasured;
    };
    auto trials = [&](const EvaluationResult& e) {
        return e.trials.empty() ? tr("none run")
                                : tr("%1 of %2").arg(passed(e)).arg(e.trials.size());
    };
    auto error = [&](const EvaluationResult& e) {
        return e.trials.empty() ? unmeasured : QString::number(largest(e), 'g', 3);
    };
    rows.append({tr("Verdict"), verdictText(r.verdict), b ? verdictText(b->verdict) : QString(),
                 QString()});
    rows.append(
        {tr("Compile time"), compile(r), b ? compile(*b) : QString(),
         b && r.compileMs > 0 && b->compileMs > 0 ? delta(r.compileMs, b->compileMs) : QString()});
    rows.append(
        {tr("Correctness trials passed"), trials(r), b ? trials(*b) : QString(), QString()});
    rows.append({tr("Largest absolute error"), error(r), b ? error(*b) : QString(), QString()});
    auto timing = [&](const QString& name, const std::optional<TimingStats>& now,
                      const std::optional<TimingStats>& before, double TimingStats::*field) {
        if (!now && !(before))
            return;
        rows.append({name, now ? ms((*now).*field) : QString(),
                     before ? ms((*before).*field) : QString(),
                     now && before ? delta((*now).*field, (*before).*field) : QString()});
    };
    const std::optional<TimingStats> none;
    timing(tr("Median time"), r.candidateTime, b ? b->candidateTime : none, &TimingStats::medianMs);
    timing(tr("Mean time"), r.candidateTime, b ? b->candidateTime : none, &TimingStats::meanMs);
    timing(tr("Spread (standard deviation)"), r.candidateTime, b ? b->candidateTime : none,
           &TimingStats::stdMs);
    timing(tr("Fastest trial"), r.candidateTime, b ? b->candidateTime : none, &TimingStats::minMs);
    timing(tr("Kernel time (CUPTI, median)"), r.candidateKernelTime,
           b ? b->candidateKernelTime : none, &TimingStats::medianMs);
    timing(tr("Reference median time"), r.referenceTime, b ? b->referenceTime : none,
           &TimingStats::medianMs);
    const auto speedupRow = [&](const QString& label, double EvaluationResult::*field) {
        const double mine = r.*field;
        const double base = b ? (*b).*field : 0.0;
        if (mine <= 0 && base <= 0)
            return;
        rows.append({label, mine > 0 ? QStringLiteral("%1×").arg(mine, 0, 'f', 2) : QString(),
                     base > 0 ? QStringLiteral("%1×").arg(base, 0, 'f', 2) : QString(),
                     b ? delta(mine, base) : QString()});
    };
    speedupRow(tr("Speedup over PyTorch"), &EvaluationResult::speedup);
    speedupRow(tr("Speedup of the means (KernelBench's)"), &EvaluationResult::speedupOfMeans);
    if (r.physicalBoundMs > 0)
        rows.append({tr("Physical bound"), ms(r.physicalBoundMs), QString(), QString()});
    rows.append({tr("Kernel launches per call"), QString::number(r.launchesPerCall),
                 b ? QString::number(b->launchesPerCall) : QString(), QString()});
    QStringList flags;
    for (const auto& f : r.flags)
        flags << QStringLiteral("%1: %2").arg(QString::fromStdString(f.code),
                                              QString::fromStdString(f.message));
    rows.append({tr("Flags"), flags.isEmpty() ? tr("none") : flags.join(QLatin1Char('\n')),
                 QString(), QString()});
    rows.append({tr("Worker"), workerSentence(r.workerState), QString(), QString()});
    m_figures->setRowCount(static_cast<int>(rows.size()));
    QStringList names;
    for (int i = 0; i < rows.size(); ++i) {
        names << rows[i].name;
        m_figures->setItem(i, 0, new QTableWidgetItem(rows[i].now));
        m_figures->setItem(i, 1, new QTableWidgetItem(rows[i].before));
        m_figures->setItem(i, 2, new QTableWidgetItem(rows[i].change));
    }
    m_figures->setVerticalHeaderLabels(names);
    m_figures->setColumnHidden(1, b == nullptr);
    m_figures->setColumnHidden(2, b == nullptr);

    m_trialModel->setTrials(r.trials);

    // The histogram: timed trials in 30 bins over the range of this run and the baseline.
    m_histogram->clearPlottables();
    std::vector<double> samples =
        r.candidateTime ? r.candidateTime->samplesMs : std::vector<double>{};
    std::vector<double> baseSamples;
    if (b && b->candidateTime)
        baseSamples = b->candidateTime->samplesMs;
    if (!samples.empty() || !baseSamples.empty()) {
        double lo = std::numeric_limits<double>::max();
        double hi = std::numeric_limits<double>::lowest();
        for (const auto* set : {&samples, &baseSamples})
            for (double v : *set) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        const int bins = 30;
        const double width = hi > lo ? (hi - lo) / bins : std::max(lo * 0.01, 1e-6);
        auto addBars = [&](const std::vector<double>& values, const QColor& color,
                           const QString& name) {
            if (values.empty())
                return;
            QVector<double> keys(bins);
            QVector<double> counts(bins, 0);
            for (int i = 0; i < bins; ++i)
                keys[i] = lo + (i + 0.5) * width;
            for (double v : values)
                counts[std::clamp(static_cast<int>((v - lo) / width), 0, bins - 1)] += 1;
            auto* bars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
            bars->setName(name);
            bars->setWidth(width * 0.9);
            bars->setData(keys, counts, true);
            bars->setPen(QPen(color.darker()));
            QColor fill = color;
            fill.setAlpha(150);
            bars->setBrush(fill);
        };
        addBars(baseSamples, QColor(0x99, 0x99, 0x99), tr("Baseline"));
        addBars(samples, QColor(0x2a, 0x7f, 0xd4), tr("This run"));
        m_histogram->xAxis->setRange(lo - width, hi + width);
        m_histogram->yAxis->rescale();
        m_histogram->yAxis->setRangeLower(0);
        m_histogram->legend->setVisible(!baseSamples.empty());
    }
    m_histogram->replot();
}

} // namespace dice
